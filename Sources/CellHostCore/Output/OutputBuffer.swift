import Glibc
import Synchronization

/// Buffered output to a file descriptor: written in large blocks, flushed
/// when the input side is about to wait, so streaming input shows promptly.
public final class OutputBuffer {
    let fd: Int32
    /// The pending bytes, in memory the buffer manages itself: an append
    /// is a capacity check and a copy, with none of an array's uniqueness
    /// checks (the output thread appends a few dozen pieces per message).
    private var storage: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    /// How many bytes are pending.
    private(set) var count = 0
    /// The `errno` of the first failed write, 0 while none failed. Atomic: the
    /// output thread sets it, the reading thread polls it to stop reading.
    private let failure = Atomic<Int32>(0)

    /// True once a write failed (a full disk, a closed pipe); later writes
    /// are dropped. Safe to read from any thread.
    public var failed: Bool { failure.load(ordering: .acquiring) != 0 }

    /// The `errno` of the first failed write, or nil.
    public var failureCode: Int32? {
        let code = failure.load(ordering: .acquiring)
        return code == 0 ? nil : code
    }

    public init(fd: Int32) {
        self.fd = fd
        capacity = 1 << 16
        storage = .allocate(capacity: capacity)
    }

    deinit { storage.deallocate() }

    /// A copy of the pending bytes.
    var bytes: [UInt8] { Array(UnsafeBufferPointer(start: storage, count: count)) }

    /// Calls `body` with the pending bytes (valid only during the call).
    func withBytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        try body(UnsafeBufferPointer(start: storage, count: count))
    }

    /// Forgets the pending bytes, keeping the memory.
    func removeAll() { count = 0 }

    /// Makes room for `total` pending bytes.
    func reserveCapacity(_ total: Int) {
        guard total > capacity else { return }
        var larger = capacity
        while larger < total { larger = larger > Int.max / 2 ? total : larger * 2 }
        let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: larger)
        grown.moveInitialize(from: storage, count: count)
        storage.deallocate()
        storage = grown
        capacity = larger
    }

    @inline(__always)
    func append(_ byte: UInt8) {
        if count == capacity { reserveCapacity(count + 1) }
        storage[count] = byte
        count += 1
    }

    @inline(__always)
    func append(_ data: UnsafeBufferPointer<UInt8>) {
        guard let source = data.baseAddress else { return }
        let length = data.count
        if length > capacity &- count { reserveCapacity(count + length) }
        Self.copy(UnsafeRawPointer(source), to: UnsafeMutableRawPointer(storage + count), count: length)
        count &+= length
    }

    /// Copies `length` bytes between memory that does not overlap. Up to 64
    /// bytes (a word, a gutter, a line of chat) are moved as two or four
    /// overlapping loads and stores of one size, chosen by the length,
    /// instead of a call to memcpy or a loop per byte.
    @inline(__always)
    static func copy(_ source: UnsafeRawPointer, to target: UnsafeMutableRawPointer, count length: Int) {
        if length <= 16 {
            if length >= 8 {
                let head = source.loadUnaligned(as: UInt64.self)
                let tail = (source + (length &- 8)).loadUnaligned(as: UInt64.self)
                target.storeBytes(of: head, as: UInt64.self)
                (target + (length &- 8)).storeBytes(of: tail, as: UInt64.self)
            } else if length >= 4 {
                let head = source.loadUnaligned(as: UInt32.self)
                let tail = (source + (length &- 4)).loadUnaligned(as: UInt32.self)
                target.storeBytes(of: head, as: UInt32.self)
                (target + (length &- 4)).storeBytes(of: tail, as: UInt32.self)
            } else if length >= 2 {
                let head = source.loadUnaligned(as: UInt16.self)
                let tail = (source + (length &- 2)).loadUnaligned(as: UInt16.self)
                target.storeBytes(of: head, as: UInt16.self)
                (target + (length &- 2)).storeBytes(of: tail, as: UInt16.self)
            } else if length == 1 {
                target.storeBytes(of: source.load(as: UInt8.self), as: UInt8.self)
            }
        } else if length <= 32 {
            let head = source.loadUnaligned(as: SIMD16<UInt8>.self)
            let tail = (source + (length &- 16)).loadUnaligned(as: SIMD16<UInt8>.self)
            target.storeBytes(of: head, as: SIMD16<UInt8>.self)
            (target + (length &- 16)).storeBytes(of: tail, as: SIMD16<UInt8>.self)
        } else if length <= 64 {
            let first = source.loadUnaligned(as: SIMD16<UInt8>.self)
            let second = (source + (16)).loadUnaligned(as: SIMD16<UInt8>.self)
            let third = (source + (length &- 32)).loadUnaligned(as: SIMD16<UInt8>.self)
            let fourth = (source + (length &- 16)).loadUnaligned(as: SIMD16<UInt8>.self)
            target.storeBytes(of: first, as: SIMD16<UInt8>.self)
            (target + (16)).storeBytes(of: second, as: SIMD16<UInt8>.self)
            (target + (length &- 32)).storeBytes(of: third, as: SIMD16<UInt8>.self)
            (target + (length &- 16)).storeBytes(of: fourth, as: SIMD16<UInt8>.self)
        } else {
            target.copyMemory(from: source, byteCount: length)
        }
    }

    /// A string's UTF-8 bytes.
    func append(contentsOf text: String) {
        var text = text
        text.withUTF8 { append($0) }
    }

    /// A literal's bytes, without going through `String` (the JSON writer
    /// appends a dozen literals per message).
    @inline(__always)
    func append(_ text: StaticString) {
        append(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// `count` spaces (none when `count` <= 0). Up to 32 (most padding) as
    /// one or two stores of sixteen, which may write up to fifteen spaces
    /// past the new end, inside the capacity (reserved for it), where the
    /// next append overwrites them; more with memset.
    func appendSpaces(_ spaces: Int) {
        guard spaces > 0 else { return }
        if spaces > capacity &- count &- 16 { reserveCapacity(count + spaces + 16) }
        Self.fillSpaces(UnsafeMutableRawPointer(storage + count), spaces)
        count &+= spaces
    }

    /// Writes `spaces` (> 0) spaces at `target`, as `appendSpaces` does:
    /// up to fifteen bytes past them may be written too.
    @inline(__always)
    static func fillSpaces(_ target: UnsafeMutableRawPointer, _ spaces: Int) {
        let blank = SIMD16<UInt8>(repeating: 0x20)
        target.storeBytes(of: blank, as: SIMD16<UInt8>.self)
        if spaces > 32 {
            (target + 16).initializeMemory(as: UInt8.self, repeating: 0x20, count: spaces &- 16)
        } else if spaces > 16 {
            (target + (spaces &- 16)).storeBytes(of: blank, as: SIMD16<UInt8>.self)
        }
    }

    /// Appends through a `Cursor`: where the next byte goes and the room
    /// left are kept in registers by the caller's loop, instead of this
    /// object's `count` being loaded and stored at each append (the plain
    /// encoder appends a few dozen runs and paddings per message).
    @inline(__always)
    func withCursor(_ body: (inout Cursor) -> Void) {
        var cursor = Cursor(buffer: self)
        body(&cursor)
        count = cursor.target - storage
    }

    /// The appends of `OutputBuffer` on a local copy of its end; valid
    /// only inside `withCursor`.
    struct Cursor {
        /// The buffer outlives the cursor: `withCursor` holds it for the call.
        unowned(unsafe) let buffer: OutputBuffer
        fileprivate var target: UnsafeMutablePointer<UInt8>
        /// Bytes free before the capacity.
        private var room: Int

        fileprivate init(buffer: OutputBuffer) {
            self.buffer = buffer
            target = buffer.storage + buffer.count
            room = buffer.capacity &- buffer.count
        }

        /// Makes room for `needed` more bytes.
        private mutating func grow(_ needed: Int) {
            buffer.count = target - buffer.storage
            buffer.reserveCapacity(buffer.count + needed)
            target = buffer.storage + buffer.count
            room = buffer.capacity &- buffer.count
        }

        @inline(__always)
        mutating func append(_ byte: UInt8) {
            if room < 1 { grow(1) }
            target.initialize(to: byte)
            target += 1
            room &-= 1
        }

        @inline(__always)
        mutating func append(_ data: UnsafeBufferPointer<UInt8>) {
            guard let source = data.baseAddress else { return }
            let length = data.count
            if length > room { grow(length) }
            OutputBuffer.copy(UnsafeRawPointer(source), to: UnsafeMutableRawPointer(target), count: length)
            target += length
            room &-= length
        }

        @inline(__always)
        mutating func appendSpaces(_ spaces: Int) {
            guard spaces > 0 else { return }
            if spaces > room &- 16 { grow(spaces + 16) }
            OutputBuffer.fillSpaces(UnsafeMutableRawPointer(target), spaces)
            target += spaces
            room &-= spaces
        }
    }

    /// `value` in decimal.
    func appendDecimal(_ value: Int) {
        DecimalDigits.with(value) { append($0) }
    }

    /// Writes when more than 64 KiB are pending. A buffer without a
    /// descriptor (fd < 0) only collects.
    func flushIfFull() { if fd >= 0 && count >= 1 << 16 { flush() } }

    /// Writes everything pending.
    public func flush() {
        guard fd >= 0 else { return }
        defer { count = 0 }
        guard !failed else { return }
        var offset = 0
        while offset < count {
            let written = write(fd, storage + offset, count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                failure.store(errno == 0 ? EIO : errno, ordering: .releasing)
                return
            }
            if written == 0 {
                failure.store(EIO, ordering: .releasing)
                return
            }
            offset += written
        }
    }
}

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
        guard let source = data.baseAddress, data.count > 0 else { return }
        let length = data.count
        if length > capacity - count { reserveCapacity(count + length) }
        let target = storage + count
        if length >= 8 && length <= 16 {
            // A word or a gutter and its padding: two overlapping eight-byte
            // moves instead of a call to memcpy.
            let head = UnsafeRawPointer(source).loadUnaligned(as: UInt64.self)
            let tail = UnsafeRawPointer(source + (length - 8)).loadUnaligned(as: UInt64.self)
            UnsafeMutableRawPointer(target).storeBytes(of: head, as: UInt64.self)
            UnsafeMutableRawPointer(target + (length - 8)).storeBytes(of: tail, as: UInt64.self)
        } else if length < 8 {
            for index in 0..<length { target[index] = source[index] }
        } else {
            target.update(from: source, count: length)
        }
        count += length
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

    /// `count` spaces (none when `count` <= 0).
    func appendSpaces(_ spaces: Int) {
        guard spaces > 0 else { return }
        if spaces > capacity - count { reserveCapacity(count + spaces) }
        if spaces <= 16 {
            // Padding is mostly a few columns: a loop, not a call to memset.
            for index in 0..<spaces { storage[count + index] = 0x20 }
        } else {
            (storage + count).update(repeating: 0x20, count: spaces)
        }
        count += spaces
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

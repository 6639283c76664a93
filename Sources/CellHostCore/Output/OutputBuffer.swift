import Glibc
import Synchronization

/// Buffered output to a file descriptor: written in large blocks, flushed
/// when the input side is about to wait, so streaming input shows promptly.
public final class OutputBuffer {
    let fd: Int32
    var bytes: [UInt8] = []
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
        bytes.reserveCapacity(1 << 16)
    }

    @inline(__always)
    func append(_ byte: UInt8) { bytes.append(byte) }

    @inline(__always)
    func append(_ data: UnsafeBufferPointer<UInt8>) { bytes.append(contentsOf: data) }

    func append(_ text: String) {
        var text = text
        text.withUTF8 { bytes.append(contentsOf: $0) }
    }

    /// `count` spaces (none when `count` <= 0).
    func appendSpaces(_ count: Int) {
        guard count > 0 else { return }
        bytes.append(contentsOf: repeatElement(0x20, count: count))
    }

    /// `value` in decimal.
    func appendDecimal(_ value: Int) {
        if value < 0 { bytes.append(0x2D) } // -
        var magnitude = value.magnitude
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in // UInt64.max has 20
            var index = digits.count
            repeat {
                index -= 1
                digits[index] = 0x30 + UInt8(truncatingIfNeeded: magnitude % 10)
                magnitude /= 10
            } while magnitude > 0 && index > 0
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: digits[index...]))
        }
    }

    /// Writes when more than 64 KiB are pending. A buffer without a
    /// descriptor (fd < 0) only collects.
    func flushIfFull() { if fd >= 0 && bytes.count >= 1 << 16 { flush() } }

    /// Writes everything pending.
    public func flush() {
        guard fd >= 0 else { return }
        defer { bytes.removeAll(keepingCapacity: true) }
        guard !failed else { return }
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
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

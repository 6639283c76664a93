import Glibc

/// The little-endian byte encoding of the frames between the host and its
/// render workers. Frames are `u32 length` + payload; the first payload byte
/// is the frame kind.
struct WireWriter {
    var bytes: [UInt8] = []

    mutating func u8(_ value: UInt8) { bytes.append(value) }

    mutating func u32(_ value: UInt32) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func u64(_ value: UInt64) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func i32(_ value: Int32) { u32(UInt32(bitPattern: value)) }

    mutating func data(_ value: UnsafeBufferPointer<UInt8>) {
        u32(UInt32(truncatingIfNeeded: value.count))
        bytes.append(contentsOf: value)
    }

    mutating func data(_ value: [UInt8]) { value.withUnsafeBufferPointer { data($0) } }

    mutating func string(_ value: String) { data(Array(value.utf8)) }

    /// Starts a frame; `finish` fills in its length.
    mutating func begin(_ kind: UInt8) -> Int {
        let start = bytes.count
        u32(0)
        u8(kind)
        return start
    }

    mutating func finish(_ start: Int) {
        let length = UInt32(truncatingIfNeeded: bytes.count - start - 4).littleEndian
        withUnsafeBytes(of: length) { raw in
            for offset in 0..<4 { bytes[start + offset] = raw[offset] }
        }
    }
}

/// Reads a frame's payload; every read is bounds-checked (a peer that sends
/// garbage gives `WireError`, never a trap).
struct WireReader {
    struct WireError: Error {}

    let bytes: [UInt8]
    var offset: Int

    init(_ bytes: [UInt8], offset: Int = 0) {
        self.bytes = bytes
        self.offset = offset
    }

    mutating func u8() throws -> UInt8 {
        guard offset < bytes.count else { throw WireError() }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func u32() throws -> UInt32 {
        guard offset >= 0, bytes.count - offset >= 4 else { throw WireError() }
        let start = offset
        offset += 4
        return UInt32(littleEndian: bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: start, as: UInt32.self) })
    }

    mutating func u64() throws -> UInt64 {
        let low = UInt64(try u32())
        let high = UInt64(try u32())
        return low | high << 32
    }

    mutating func i32() throws -> Int32 { Int32(bitPattern: try u32()) }

    mutating func data() throws -> ArraySlice<UInt8> {
        let count = Int(try u32())
        guard bytes.count - offset >= count else { throw WireError() }
        defer { offset += count }
        return bytes[offset..<offset + count]
    }

    /// A length-prefixed UTF-8 string (invalid bytes repaired), decoded
    /// straight from the buffer: no slice of the array is made.
    mutating func string() throws -> String {
        let count = Int(try u32())
        guard bytes.count - offset >= count else { throw WireError() }
        defer { offset += count }
        let start = offset
        return bytes.withUnsafeBufferPointer { buffer in
            String(decoding: UnsafeBufferPointer(rebasing: buffer[start..<start + count]), as: UTF8.self)
        }
    }
}

/// Blocking I/O on a descriptor, retrying on EINTR.
enum WireIO {
    /// Writes everything; false when the descriptor failed.
    static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = write(fd, raw.baseAddress! + offset, raw.count - offset)
                if written < 0 { if errno == EINTR { continue }; return false }
                offset += written
            }
            return true
        }
    }

    /// Reads one frame's payload; nil at end of file or on a bad frame.
    static func readFrame(_ fd: Int32, limit: Int = 1 << 30) -> [UInt8]? {
        var header = [UInt8](repeating: 0, count: 4)
        guard readExactly(fd, &header) else { return nil }
        var reader = WireReader(header)
        guard let length = try? reader.u32(), Int(length) <= limit else { return nil }
        var payload = [UInt8](repeating: 0, count: Int(length))
        guard readExactly(fd, &payload) else { return nil }
        return payload
    }

    static func readExactly(_ fd: Int32, _ buffer: inout [UInt8]) -> Bool {
        var filled = 0
        while filled < buffer.count {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress! + filled, $0.count - filled) }
            if count < 0 { if errno == EINTR { continue }; return false }
            if count == 0 { return false }
            filled += count
        }
        return true
    }
}

extension WireWriter {
    mutating func optionalString(_ value: String?) {
        u8(value == nil ? 0 : 1)
        string(value ?? "")
    }
}

extension WireReader {
    mutating func optionalString() throws -> String? {
        let present = try u8() != 0
        let value = try string()
        return present ? value : nil
    }

    /// A count that must not exceed `limit`.
    mutating func count(limit: Int) throws -> Int {
        let value = Int(try u32())
        guard value <= limit else { throw WireError() }
        return value
    }
}

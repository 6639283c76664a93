import Glibc

/// Repairs the one way Telegram Desktop's JSON is not JSON: it writes a
/// control character inside a string (other than tab, line feed and
/// carriage return) as `\xNN`, an escape JSON does not have. Each becomes
/// `\u00NN`, the same character in JSON's spelling, so the message reads as
/// Telegram meant it; the importer reports each repaired message.
enum TelegramEscapes {
    /// The value with every `\xNN` escape rewritten, and how many there were;
    /// nil when it has none (the usual case: nothing is copied).
    static func repaired(_ bytes: UnsafeBufferPointer<UInt8>) -> (bytes: [UInt8], count: Int)? {
        guard let first = firstInvalid(bytes) else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count + 16)
        output.append(contentsOf: bytes[0..<first])
        var count = 0
        var index = first
        while index < bytes.count {
            let byte = bytes[index]
            guard byte == 0x5C, index + 1 < bytes.count else {
                output.append(byte)
                index += 1
                continue
            }
            let next = bytes[index + 1]
            if next == UInt8(ascii: "x") {
                count += 1
                let high = index + 2 < bytes.count ? hexDigit(bytes[index + 2]) : nil
                let low = index + 3 < bytes.count ? hexDigit(bytes[index + 3]) : nil
                if high != nil, low != nil {
                    output.append(contentsOf: Array("\\u00".utf8) + [bytes[index + 2], bytes[index + 3]])
                    index += 4
                } else {
                    // `\x` without two hex digits: the replacement character.
                    output.append(contentsOf: Array("\\uFFFD".utf8))
                    index += 2
                }
            } else {
                output.append(byte)
                output.append(next)
                index += 2
            }
        }
        return (output, count)
    }

    /// The offset of the first `\x` escape, skipping every other escape.
    private static func firstInvalid(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        guard let base = bytes.baseAddress else { return nil }
        var index = 0
        let end = bytes.count
        while index < end {
            guard let found = memchr(base + index, 0x5C, end - index) else { return nil }
            let backslash = UnsafeRawPointer(found) - UnsafeRawPointer(base)
            if backslash + 1 < end, bytes[backslash + 1] == UInt8(ascii: "x") { return backslash }
            index = backslash + 2
        }
        return nil
    }

    private static func hexDigit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"), UInt8(ascii: "A")...UInt8(ascii: "F"):
            return byte
        default:
            return nil
        }
    }
}

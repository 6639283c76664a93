/// The one HTML escaper of `--format html`. Every string that reaches the
/// page from a message or a plugin goes through it, after the sanitizer:
/// text and attribute values alike have `& < > " '` replaced by entities,
/// so no tag, attribute or entity of the input survives, and every
/// attribute the encoder writes is quoted with `"`.
enum HTMLText {
    /// Appends `bytes` (UTF-8, already sanitized) escaped. A control byte
    /// that is not a line break (the sanitizer leaves none) becomes U+FFFD.
    static func appendEscaped(_ bytes: UnsafeBufferPointer<UInt8>, to out: OutputBuffer) {
        var run = 0
        for index in 0..<bytes.count {
            let byte = bytes[index]
            let entity: StaticString
            switch byte {
            case 0x26: entity = "&amp;"
            case 0x3C: entity = "&lt;"
            case 0x3E: entity = "&gt;"
            case 0x22: entity = "&quot;"
            case 0x27: entity = "&#39;"
            case 0x0A: continue
            case 0..<0x20, 0x7F: entity = "\u{FFFD}"
            default: continue
            }
            if index > run { out.append(UnsafeBufferPointer(rebasing: bytes[run..<index])) }
            out.append(UnsafeBufferPointer(start: entity.utf8Start, count: entity.utf8CodeUnitCount))
            run = index + 1
        }
        if bytes.count > run { out.append(UnsafeBufferPointer(rebasing: bytes[run...])) }
    }

    /// Appends `text` from a message (or any other untrusted source):
    /// sanitized, then escaped. At most `limit` bytes of it are looked at.
    static func append(_ text: String, limit: Int = 4096, to out: OutputBuffer) {
        var text = text
        var clean: [UInt8] = []
        text.withUTF8 { _ = Sanitizer.sanitize(StringArena.prefix($0, limit), into: &clean) }
        clean.withUnsafeBufferPointer { appendEscaped($0, to: out) }
    }

    /// `text` sanitized, escaped, as a string (for tests and small values).
    static func escaped(_ text: String) -> String {
        let buffer = OutputBuffer(fd: -1)
        append(text, limit: Int.max, to: buffer)
        return String(decoding: buffer.bytes, as: UTF8.self)
    }

    /// True when `bytes` is an http or https URL that can be a link's
    /// `href`: printable ASCII without spaces, quotes, angle brackets or
    /// backslashes, at most 2048 bytes. Anything else (`javascript:`,
    /// `data:`, a URL with a control picture in it) is shown as text only.
    static func isWebURL(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard bytes.count <= 2048 else { return false }
        func hasPrefix(_ prefix: StaticString) -> Bool {
            let count = prefix.utf8CodeUnitCount
            guard bytes.count > count else { return false }
            for index in 0..<count where bytes[index] | 0x20 != prefix.utf8Start[index] | 0x20 { return false }
            return true
        }
        guard hasPrefix("http://") || hasPrefix("https://") else { return false }
        for byte in bytes {
            switch byte {
            case 0..<0x21, 0x7F...0xFF, 0x22, 0x27, 0x3C, 0x3E, 0x5C, 0x60: return false
            default: continue
            }
        }
        return true
    }

    /// Percent-encodes every byte of `component` but the unreserved
    /// characters (`A-Z a-z 0-9 - . _ ~`), for one segment of a relative
    /// URL or a fragment: no `:` survives, so the result never names a scheme.
    static func percentEncoded(_ component: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        for byte in component.utf8 {
            switch byte {
            case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x2D, 0x2E, 0x5F, 0x7E: out.append(byte)
            default:
                out.append(0x25)
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0xF)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}

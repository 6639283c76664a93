/// CellHost markup for literal text that keeps its links working.
///
/// Literal text is escaped as `ImportText.escaped` does it (a backslash
/// before a `*`, `_` or `` ` `` at a word boundary, and before a backslash
/// that precedes one), except inside URLs: the markup parser takes a
/// backslash inside a URL literally, so an escaped `https://example.org/_next`
/// would no longer be the address it was. The URLs the parser will recognise
/// (`http://` or `https://` at a word boundary, up to whitespace, minus the
/// trailing punctuation it trims) are copied as they are.
///
/// Works on the UTF-8 bytes; a text with no marker or backslash, the usual
/// case, is returned after one scan.
enum TelegramMarkup {
    /// `text` as literal markup text.
    static func literal(_ text: String) -> String {
        guard text.utf8.contains(where: { isMarker($0) || $0 == backslash }) else { return text }
        var text = text
        return text.withUTF8 { bytes in
            var output: [UInt8] = []
            output.reserveCapacity(bytes.count + 8)
            let hasColon = bytes.contains(UInt8(ascii: ":"))
            var index = 0
            while index < bytes.count {
                let byte = bytes[index]
                if hasColon, byte | 0x20 == UInt8(ascii: "h"), let end = urlEnd(bytes, at: index) {
                    output.append(contentsOf: bytes[index..<end])
                    index = end
                    continue
                }
                if byte == backslash {
                    if index + 1 < bytes.count, isMarker(bytes[index + 1]) || bytes[index + 1] == backslash { output.append(backslash) }
                } else if isMarker(byte) {
                    if !isWord(scalar(before: index, in: bytes)) || !isWord(scalar(at: index + 1, in: bytes)?.scalar) {
                        output.append(backslash)
                    }
                }
                output.append(byte)
                index += 1
            }
            return String(decoding: output, as: UTF8.self)
        }
    }

    /// `text` wrapped in `marker` (`*` strong, `_` emphasis, `` ` `` code),
    /// literal inside, its leading and trailing spaces outside the pair.
    /// Blank text is returned as literal text.
    static func styled(_ text: String, marker: Character) -> String {
        let parts = text.trimmingSpaces
        guard !parts.core.isEmpty else { return literal(text) }
        if marker == "`" { return ImportText.styled(text, marker: "`") }
        return parts.leading + String(marker) + literal(parts.core) + String(marker) + parts.trailing
    }

    /// True for a character the markup counts as part of a word (markers
    /// next to one do not open or close a span).
    static func isWord(_ scalar: Unicode.Scalar?) -> Bool {
        guard let scalar else { return false }
        if scalar.isASCII {
            let value = UInt8(scalar.value)
            return (value | 0x20) &- UInt8(ascii: "a") < 26 || value &- UInt8(ascii: "0") < 10
        }
        return scalar.properties.isAlphabetic || scalar.properties.numericType != nil
    }

    // MARK: Bytes

    private static let backslash = UInt8(ascii: "\\")

    private static func isMarker(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "*") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "`")
    }

    /// The scalar starting at `index` and its length in bytes; nil at the end.
    private static func scalar(at index: Int, in bytes: UnsafeBufferPointer<UInt8>) -> (scalar: Unicode.Scalar, length: Int)? {
        guard index < bytes.count else { return nil }
        let lead = bytes[index]
        if lead < 0x80 { return (Unicode.Scalar(lead), 1) }
        let length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2
        guard index + length <= bytes.count else { return ("\u{FFFD}", 1) }
        var value = UInt32(lead) & (length == 2 ? 0x1F : length == 3 ? 0x0F : 0x07)
        for offset in 1..<length { value = value << 6 | UInt32(bytes[index + offset] & 0x3F) }
        return (Unicode.Scalar(value) ?? "\u{FFFD}", length)
    }

    /// The start of the scalar that ends just before `index`.
    private static func start(before index: Int, in bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var start = index - 1
        while start > 0, bytes[start] & 0xC0 == 0x80, index - start < 4 { start -= 1 }
        return start
    }

    private static func scalar(before index: Int, in bytes: UnsafeBufferPointer<UInt8>) -> Unicode.Scalar? {
        guard index > 0 else { return nil }
        return scalar(at: start(before: index, in: bytes), in: bytes)?.scalar
    }

    // MARK: URLs, as the markup parser finds them

    private static func matches(_ bytes: UnsafeBufferPointer<UInt8>, _ index: Int, _ scheme: StaticString) -> Bool {
        let length = scheme.utf8CodeUnitCount
        guard index + length <= bytes.count else { return false }
        for offset in 0..<length {
            var byte = bytes[index + offset]
            if byte &- UInt8(ascii: "A") < 26 { byte |= 0x20 }
            guard byte == scheme.utf8Start[offset] else { return false }
        }
        return true
    }

    /// The end (exclusive) of a URL starting at `index`, or nil.
    private static func urlEnd(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> Int? {
        guard !isWord(scalar(before: index, in: bytes)) else { return nil }
        let schemeLength = matches(bytes, index, "https://") ? 8 : matches(bytes, index, "http://") ? 7 : 0
        guard schemeLength > 0 else { return nil }
        let start = index + schemeLength
        var end = start
        var counts: [UInt8: Int] = [:]
        while let (scalar, length) = scalar(at: end, in: bytes), !scalar.properties.isWhitespace {
            if length == 1, brackets.contains(bytes[end]) { counts[bytes[end], default: 0] += 1 }
            end += length
        }
        while end > start {
            let last = self.start(before: end, in: bytes)
            guard let scalar = scalar(at: last, in: bytes)?.scalar else { break }
            let byte = bytes[last]
            let partner = last == end - 1 ? partners[byte] : nil
            let unbalanced = partner.map { counts[byte, default: 0] > counts[$0, default: 0] } ?? false
            guard trailingPunctuation.contains(scalar) || unbalanced else { break }
            if partner != nil { counts[byte, default: 0] -= 1 }
            end = last
        }
        return end > start ? end : nil
    }

    private static let brackets: Set<UInt8> = Set("()[]{}<>".utf8)
    private static let partners: [UInt8: UInt8] = [UInt8(ascii: ")"): UInt8(ascii: "("), UInt8(ascii: "]"): UInt8(ascii: "["),
                                                   UInt8(ascii: "}"): UInt8(ascii: "{"), UInt8(ascii: ">"): UInt8(ascii: "<")]
    private static let trailingPunctuation: Set<Unicode.Scalar> = Set(".,;:!?'\"*_`。、，！？…".unicodeScalars)
}

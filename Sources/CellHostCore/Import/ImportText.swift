import Glibc

/// Text helpers every importer shares: literal text made safe from markup,
/// styled runs, and the time notations exports use.
public enum ImportText {
    /// `text` with CellHost markup characters made literal: a `*`, `_` or
    /// `` ` `` that could open or close markup (one at a word boundary) gets a
    /// backslash, and so does a backslash before a marker or a backslash.
    /// Markers inside words (`snake_case`, `2*3*4`) are already literal, and
    /// URLs are copied as they are (the markup parser takes a backslash inside
    /// a URL literally, so an escaped `https://example.org/_next` would no
    /// longer be the address it was): most texts come back unchanged, after
    /// one scan of their UTF-8 bytes.
    public static func escaped(_ text: String) -> String {
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

    /// `text` wrapped in a markup pair (`*` strong, `_` emphasis, `` ` `` code),
    /// literal inside (a backtick inside code becomes `'`), its leading and
    /// trailing spaces outside the pair, where markup allows them. Blank text
    /// is returned as literal text.
    public static func styled(_ text: String, marker: Character) -> String {
        let parts = text.trimmingSpaces
        guard !parts.core.isEmpty else { return escaped(text) }
        // Inside code nothing is markup; a backtick would end the span early.
        if marker == "`" { return parts.leading + "`" + String(parts.core.map { $0 == "`" ? "'" : $0 }) + "`" + parts.trailing }
        return parts.leading + String(marker) + escaped(parts.core) + String(marker) + parts.trailing
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

extension String {
    /// The text without its leading and trailing spaces, and those spaces.
    var trimmingSpaces: (leading: String, core: String, trailing: String) {
        let scalars = Array(unicodeScalars)
        var start = 0
        var end = scalars.count
        while start < end, scalars[start].properties.isWhitespace { start += 1 }
        while end > start, scalars[end - 1].properties.isWhitespace { end -= 1 }
        func text(_ range: Range<Int>) -> String {
            var view = String.UnicodeScalarView()
            view.append(contentsOf: scalars[range])
            return String(view)
        }
        return (text(0..<start), text(start..<end), text(end..<scalars.count))
    }
}

/// The time notations of exports, all read to seconds since the Unix epoch.
public enum ImportTime {
    /// Reads `text` as RFC 3339 with a zone (`2026-11-29T10:02:00Z`), as a
    /// local time without one (`2020-01-29T11:41:46`, read in the run's `TZ`),
    /// or as decimal seconds since the epoch (`"1512085950.000216"`).
    public static func parse(_ text: String) -> Double? {
        if let zoned = RFC3339.parse(text) { return zoned }
        if let local = parseLocal(text) { return local }
        return seconds(text)
    }

    /// Decimal seconds since the epoch, as text; nil for anything else.
    public static func seconds(_ text: String) -> Double? {
        guard !text.isEmpty, text.utf8.count <= 32,
              text.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-") }),
              let value = Double(text) else { return nil }
        return MessageTime.validated(value)
    }

    /// `YYYY-MM-DD[T ]HH:MM[:SS[.fff]]` with no zone, read as local time in the run's `TZ`.
    public static func parseLocal(_ text: String) -> Double? {
        var text = text
        return text.withUTF8 { bytes -> Double? in
            guard let fields = RFC3339.Fields(bytes, secondsOptional: true), fields.end == bytes.count else { return nil }
            return local(year: fields.year, month: fields.month, day: fields.day, hour: fields.hour,
                         minute: fields.minute, second: fields.second).map { $0 + fields.fraction }
        }
    }

    /// A wall-clock time in the run's `TZ` (`mktime`, daylight saving time
    /// decided by the zone); nil for an impossible date.
    public static func local(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) -> Double? {
        guard year >= 1, year <= 9999, (1...12).contains(month), day >= 1,
              day <= RFC3339.daysInMonth(year: year, month: month),
              (0..<24).contains(hour), (0..<60).contains(minute), (0...60).contains(second) else { return nil }
        var parts = tm()
        parts.tm_year = Int32(year - 1900)
        parts.tm_mon = Int32(month - 1)
        parts.tm_mday = Int32(day)
        parts.tm_hour = Int32(hour)
        parts.tm_min = Int32(minute)
        parts.tm_sec = Int32(second)
        parts.tm_isdst = -1
        let value = mktime(&parts)
        guard value != -1 || (year == 1969 && month == 12 && day == 31) else { return nil }
        return MessageTime.validated(Double(value))
    }
}

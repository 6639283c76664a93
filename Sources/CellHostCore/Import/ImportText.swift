import Glibc

/// Text helpers every importer shares: literal text made safe from markup,
/// and the time notations exports use.
public enum ImportText {
    /// `text` with CellHost markup characters made literal: a `*`, `_` or
    /// `` ` `` that could open or close markup (one at a word boundary) gets
    /// a backslash, and so does a backslash before a marker or a backslash.
    /// Markers inside words (`snake_case`, `2*3*4`) are already literal and
    /// stay as they are, so most texts come back unchanged.
    public static func escaped(_ text: String) -> String {
        let scalars = Array(text.unicodeScalars)
        guard scalars.contains(where: { isMarker($0) || $0 == "\\" }) else { return text }
        var result = String.UnicodeScalarView()
        for (index, scalar) in scalars.enumerated() {
            if scalar == "\\" {
                if index + 1 < scalars.count, isMarker(scalars[index + 1]) || scalars[index + 1] == "\\" { result.append("\\") }
            } else if isMarker(scalar) {
                let before = index > 0 ? scalars[index - 1] : nil
                let after = index + 1 < scalars.count ? scalars[index + 1] : nil
                if !isWord(before) || !isWord(after) { result.append("\\") }
            }
            result.append(scalar)
        }
        return String(result)
    }

    private static func isMarker(_ scalar: Unicode.Scalar) -> Bool { scalar == "*" || scalar == "_" || scalar == "`" }

    private static func isWord(_ scalar: Unicode.Scalar?) -> Bool {
        guard let scalar else { return false }
        return scalar.properties.isAlphabetic || scalar.properties.numericType != nil
    }

    /// `text` wrapped in a markup pair (`*` strong, `_` emphasis, `` ` `` code),
    /// escaped inside; empty or blank text is returned as it is. Leading and
    /// trailing spaces stay outside the pair, where markup allows them.
    public static func styled(_ text: String, marker: Character) -> String {
        let trimmed = text.trimmingSpaces
        guard !trimmed.core.isEmpty else { return text }
        let inner = marker == "`" ? String(trimmed.core.map { $0 == "`" ? "'" : $0 }) : escaped(trimmed.core)
        return trimmed.leading + String(marker) + inner + String(marker) + trimmed.trailing
    }
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

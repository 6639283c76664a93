/// The date and time that start a message line of a WhatsApp text export,
/// as written, before the day/month order is known.
///
/// Android writes `12/31/20, 11:59 PM - Alice: …` (the date in the phone's
/// locale: `31/12/2020, 23:59`, `31.12.20, 23:59`, `2020-12-31, 23:59`,
/// `31/12/20, 11:59 p. m.`); iOS writes `[31/12/2020, 23:59:59] Alice: …`,
/// sometimes after a U+200E mark. Spaces may be ASCII, U+00A0 or U+202F
/// (recent exports put the narrow one before `PM`).
struct WhatsAppHeader: Equatable {
    /// The three numbers of the date, in the order written.
    var numbers: [Int]
    /// How many digits each number had (a 4-digit first one is a year).
    var digits: [Int]
    /// The character between the first two numbers (`/`, `.` or `-`).
    var separator: UInt8
    var hour: Int
    var minute: Int
    var second: Int
    var clock: Clock
    /// True when the marker is `AM` or `PM` in capitals with no dots, as the
    /// United States' exports write it (others write `pm`, `p. m.`, …).
    var capitalMarker: Bool
    /// True for iOS's `[date, time]`.
    var bracketed: Bool
    /// The date and time as written (kept as the time when it is impossible).
    var written: String
    /// Where the rest of the line (sender and text) starts.
    var bodyStart: Int

    /// The clock the time is written in.
    enum Clock: Equatable {
        case twentyFourHour, am, pm
        /// A 12-hour marker CellHost does not know: the time cannot be read.
        case unknown
    }

    /// True when the date is written year first (`2020-12-31`), so it has no
    /// day/month ambiguity.
    var yearFirst: Bool { digits[0] == 4 }

    /// The most bytes between the time and the `]` or ` - ` after it (the
    /// 12-hour marker, such as `p. m.` with no-break spaces).
    private static let markerLimit = 24

    /// Reads the header at the start of `line` (after optional U+200E marks);
    /// nil when the line does not start a message.
    static func parse(_ line: [UInt8]) -> WhatsAppHeader? {
        var i = 0
        while line.count - i >= 3, line[i] == 0xE2, line[i + 1] == 0x80, line[i + 2] == 0x8E { i += 3 }
        let bracketed = i < line.count && line[i] == UInt8(ascii: "[")
        if bracketed { i += 1 }
        let dateStart = i
        func number(_ allowed: ClosedRange<Int>) -> (value: Int, digits: Int)? {
            var value = 0
            var count = 0
            while i < line.count, line[i] &- 0x30 < 10, count < 5 {
                value = value * 10 + Int(line[i] &- 0x30)
                i += 1
                count += 1
            }
            return allowed.contains(count) ? (value, count) : nil
        }
        func dateSeparator() -> UInt8? {
            guard i < line.count, [UInt8(ascii: "/"), UInt8(ascii: "."), UInt8(ascii: "-")].contains(line[i]) else { return nil }
            i += 1
            return line[i - 1]
        }
        guard let first = number(1...4), let separator = dateSeparator(), let second = number(1...2),
              dateSeparator() != nil, let third = number(1...4) else { return nil }
        if first.digits == 4 { guard third.digits <= 2 else { return nil } } else {
            guard first.digits <= 2, third.digits == 2 || third.digits == 4 else { return nil }
        }
        if i < line.count, line[i] == UInt8(ascii: ",") { i += 1 }
        guard skipSpaces(line, &i) > 0, let hour = number(1...2) else { return nil }
        func timeSeparator() -> Bool {
            guard i < line.count, line[i] == UInt8(ascii: ":") || line[i] == UInt8(ascii: ".") else { return false }
            i += 1
            return true
        }
        guard timeSeparator(), let minute = number(2...2) else { return nil }
        var seconds = 0
        let beforeSeconds = i
        if timeSeparator(), let value = number(2...2) { seconds = value.value } else { i = beforeSeconds }
        let markerStart = i
        guard let (markerEnd, bodyStart) = terminator(line, from: i, bracketed: bracketed),
              let clock = clock(Array(line[markerStart..<markerEnd])) else { return nil }
        let marker = line[markerStart..<markerEnd].filter { $0 != 0x20 && $0 != 0xC2 && $0 != 0xA0 && $0 != 0xE2 && $0 != 0x80 && $0 != 0xAF }
        let capitalMarker = marker.elementsEqual("AM".utf8) || marker.elementsEqual("PM".utf8)
        return WhatsAppHeader(numbers: [first.value, second.value, third.value],
                              digits: [first.digits, second.digits, third.digits], separator: separator,
                              hour: hour.value, minute: minute.value, second: seconds, clock: clock, capitalMarker: capitalMarker,
                              bracketed: bracketed, written: String(decoding: line[dateStart..<markerEnd], as: UTF8.self),
                              bodyStart: bodyStart)
    }

    /// Skips ASCII spaces, U+00A0 and U+202F; returns how many it skipped.
    @discardableResult
    static func skipSpaces(_ line: [UInt8], _ i: inout Int) -> Int {
        var count = 0
        while i < line.count {
            if line[i] == 0x20 { i += 1 } else if line.count - i >= 2, line[i] == 0xC2, line[i + 1] == 0xA0 { i += 2 } else if line.count - i >= 3, line[i] == 0xE2, line[i + 1] == 0x80, line[i + 2] == 0xAF { i += 3 } else { break }
            count += 1
        }
        return count
    }

    /// Finds what ends the header: `]` (iOS) or ` - ` (Android), within
    /// `markerLimit` bytes. Returns where the marker before it ends and where
    /// the body after it starts.
    private static func terminator(_ line: [UInt8], from start: Int, bracketed: Bool) -> (Int, Int)? {
        var i = start
        let limit = min(line.count, start + markerLimit)
        while i < limit {
            if bracketed, line[i] == UInt8(ascii: "]") {
                var body = i + 1
                skipSpaces(line, &body)
                return (i, body)
            }
            if !bracketed, line[i] == UInt8(ascii: "-") {
                var before = start
                var after = i + 1
                let spacedBefore = i > start && skipSpacesBackward(line, from: i, to: start) < i
                let spacedAfter = after >= line.count || skipSpaces(line, &after) > 0
                if spacedBefore && spacedAfter {
                    before = skipSpacesBackward(line, from: i, to: start)
                    return (before, after)
                }
            }
            if line[i] &- 0x30 < 10 || line[i] == UInt8(ascii: ":") || line[i] == 0x0A { return nil }
            i += 1
        }
        return nil
    }

    /// The index after the last non-space byte before `end` (not before `start`).
    private static func skipSpacesBackward(_ line: [UInt8], from end: Int, to start: Int) -> Int {
        var i = end
        while i > start {
            if line[i - 1] == 0x20 { i -= 1 } else if i - 2 >= start, line[i - 2] == 0xC2, line[i - 1] == 0xA0 { i -= 2 } else if i - 3 >= start, line[i - 3] == 0xE2, line[i - 2] == 0x80, line[i - 1] == 0xAF { i -= 3 } else { break }
        }
        return i
    }

    /// The clock a 12-hour marker (`PM`, `p. m.`, `a.m.`, `nachm.`) names;
    /// no marker is a 24-hour clock. Nil for bytes that cannot be a marker.
    private static func clock(_ marker: [UInt8]) -> Clock? {
        var key: [UInt8] = []
        var i = 0
        while i < marker.count {
            let before = i
            if skipSpaces(marker, &i) > 0 { continue }
            i = before
            let byte = marker[i]
            if byte == UInt8(ascii: ".") { i += 1; continue }
            if byte &- 0x30 < 10 || byte == UInt8(ascii: ":") || byte == UInt8(ascii: "[") || byte == UInt8(ascii: "]") || byte < 0x20 {
                return nil
            }
            key.append(byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte)
            i += 1
        }
        if key.isEmpty { return .twentyFourHour }
        switch String(decoding: key, as: UTF8.self) {
        case "am", "a", "vorm", "πμ": return .am
        case "pm", "p", "nachm", "μμ": return .pm
        default: return .unknown
        }
    }
}

import Glibc

/// Parses RFC 3339 timestamps (`2026-11-29T10:02:00Z`, `…T10:02:00.5+01:00`,
/// a space instead of `T`) to seconds since the Unix epoch, without Foundation.
/// Impossible dates (`2026-02-30`, year 0000) and instants outside
/// `MessageTime`'s range give nil.
enum RFC3339 {
    static func parse(_ text: String) -> Double? {
        var text = text
        return text.withUTF8 { parse($0) }
    }

    /// The date and time of `YYYY-MM-DD[Tt ]HH:MM:SS[.fff]` (seconds optional
    /// when `secondsOptional`), checked to be a real date and time, and the
    /// index of the byte after them.
    struct Fields {
        var year, month, day, hour, minute, second: Int
        var fraction: Double
        var end: Int

        init?(_ b: UnsafeBufferPointer<UInt8>, secondsOptional: Bool = false) {
            guard b.count >= 16 else { return nil }
            func digits(_ start: Int, _ count: Int) -> Int? {
                guard start + count <= b.count else { return nil }
                var value = 0
                for index in start..<(start + count) {
                    let digit = b[index] &- 0x30
                    guard digit < 10 else { return nil }
                    value = value * 10 + Int(digit)
                }
                return value
            }
            guard let year = digits(0, 4), b[4] == UInt8(ascii: "-"), let month = digits(5, 2), b[7] == UInt8(ascii: "-"),
                  let day = digits(8, 2), b[10] == UInt8(ascii: "T") || b[10] == UInt8(ascii: "t") || b[10] == 0x20,
                  let hour = digits(11, 2), b[13] == UInt8(ascii: ":"), let minute = digits(14, 2) else { return nil }
            var second = 0
            var index = 16
            if index < b.count, b[index] == UInt8(ascii: ":"), let value = digits(17, 2) {
                second = value
                index = 19
            } else if !secondsOptional {
                return nil
            }
            guard year >= 1, (1...12).contains(month), day >= 1, day <= RFC3339.daysInMonth(year: year, month: month),
                  hour < 24, minute < 60, second <= 60 else { return nil }
            var fraction = 0.0
            if index == 19, index < b.count, b[index] == UInt8(ascii: ".") {
                index += 1
                var scale = 0.1
                let start = index
                while index < b.count, b[index] &- 0x30 < 10 {
                    fraction += Double(b[index] - 0x30) * scale
                    scale /= 10
                    index += 1
                }
                guard index > start else { return nil }
            }
            (self.year, self.month, self.day, self.hour, self.minute, self.second) = (year, month, day, hour, minute, second)
            self.fraction = fraction
            self.end = index
        }
    }

    /// The date of the last canonical timestamp (`YYYY-MM-DDTHH:MM:SSZ`)
    /// `parse(_:days:)` read, as days since the epoch: the messages of a
    /// stream mostly share their date, which is then checked and converted
    /// once, and each timestamp costs its time of day alone.
    struct DayCache {
        /// The date's ten bytes, `YYYY-MM-` and `DD`; zero (never a date's
        /// bytes) until a date was read.
        fileprivate var head: UInt64 = 0
        fileprivate var tail: UInt16 = 0
        fileprivate var days = 0
    }

    /// `parse(_:)` with the date of a canonical timestamp looked up in
    /// `cache` first (the same seconds, read from fewer instructions).
    ///
    /// The time of day (`HH:MM:SS`) is read as one word: each of its bytes
    /// XOR the expected `0`, `0`, `:`, `0`, `0`, `:`, `0`, `0` must be 0 to 9
    /// (the colons 0), checked for all eight bytes at once.
    static func parse(_ b: UnsafeBufferPointer<UInt8>, days cache: inout DayCache) -> Double? {
        guard b.count == 20, let base = b.baseAddress, base[10] == UInt8(ascii: "T"),
              base[19] == UInt8(ascii: "Z") else { return parse(b) }
        let raw = UnsafeRawPointer(base)
        let clock = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 11, as: UInt64.self)) ^ 0x3030_3A30_303A_3030
        // The colons, at bytes 2 and 5 of the word.
        guard clock & 0x0000_FF00_00FF_0000 == 0 else { return parse(b) }
        let head = raw.loadUnaligned(as: UInt64.self)
        let tail = raw.loadUnaligned(fromByteOffset: 8, as: UInt16.self)
        guard head == cache.head, tail == cache.tail else {
            // A new date: read whole, and remember the date when it is one.
            guard let seconds = parse(b), let fields = Fields(b) else { return nil }
            cache = DayCache(head: head, tail: tail,
                             days: daysFromCivil(year: fields.year, month: fields.month, day: fields.day))
            return seconds
        }
        // A byte above 9 gets its high bit from the addition (a byte from
        // 0x8A, which would carry into the next, has it already).
        guard (clock &+ 0x7676_7676_7676_7676 | clock) & 0x8080_8080_8080_8080 == 0 else { return nil }
        @inline(__always) func pair(_ shift: UInt64) -> Int {
            Int(truncatingIfNeeded: (clock >> shift) & 0xFF) &* 10 &+ Int(truncatingIfNeeded: (clock >> (shift &+ 8)) & 0xFF)
        }
        let hour = pair(0), minute = pair(24), second = pair(48)
        guard hour < 24, minute < 60, second <= 60 else { return nil }
        return MessageTime.validated(Double(cache.days * 86400 + hour * 3600 + minute * 60 + second))
    }

    /// Parses the UTF-8 bytes of a timestamp.
    static func parse(_ b: UnsafeBufferPointer<UInt8>) -> Double? {
        guard let fields = Fields(b) else { return nil }
        let (year, month, day, hour, minute, second, fraction) = (fields.year, fields.month, fields.day, fields.hour,
                                                                  fields.minute, fields.second, fields.fraction)
        var index = fields.end
        var offset = 0
        guard index < b.count else { return nil }
        switch b[index] {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            index += 1
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            func digits(_ start: Int) -> Int? {
                guard start + 2 <= b.count, b[start] &- 0x30 < 10, b[start + 1] &- 0x30 < 10 else { return nil }
                return Int(b[start] - 0x30) * 10 + Int(b[start + 1] - 0x30)
            }
            guard let hours = digits(index + 1), index + 3 < b.count, b[index + 3] == UInt8(ascii: ":"),
                  let minutes = digits(index + 4) else { return nil }
            guard hours < 24, minutes < 60 else { return nil }
            offset = (hours * 60 + minutes) * 60 * (b[index] == UInt8(ascii: "-") ? -1 : 1)
            index += 6
        default:
            return nil
        }
        guard index == b.count else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        // Years 1–9999 only (an offset may still move the instant just outside).
        return MessageTime.validated(Double(days * 86400 + hour * 3600 + minute * 60 + second - offset) + fraction)
    }

    /// Days in a month of the proleptic Gregorian calendar.
    static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146097 + doe - 719468
    }
}

import Glibc

/// `localtime_r` for a stream of nearby times: the broken-down local time of
/// the start of each UTC hour is computed once, and times within that hour
/// are derived from it by adding minutes and seconds. Time-zone offsets change
/// only at hour boundaries (whole or half hours after UTC hours are handled
/// by the carry check), so the result equals `localtime_r`'s.
///
/// Each `Chrome` (so each render session) owns one: there is no shared
/// mutable state, and sessions on different threads do not race.
final class LocalTimeCache {
    private var hour: Int = .min
    private var hourStart = tm()
    /// The second of its local day `hourStart` falls on, and that day.
    private var hourStartSecond = 0
    private var hourDay = 0

    /// The local broken-down time of `seconds` since the epoch. Times outside
    /// `MessageTime.range` (which `Message` never produces) are clamped into
    /// it, so no input can make the conversion to `Int` trap.
    func localTime(_ seconds: Double) -> tm {
        let whole = Self.whole(seconds)
        let second = secondOfDay(whole)
        guard second < 24 * 3600 else { return Self.exact(whole) }
        var parts = hourStart
        parts.tm_hour = Int32(truncatingIfNeeded: second / 3600)
        parts.tm_min = Int32(truncatingIfNeeded: second / 60 % 60)
        parts.tm_sec = Int32(truncatingIfNeeded: second % 60)
        return parts
    }

    /// The local day of `seconds` (`dayNumber` of its `localTime`) and the
    /// second of that day: what the chrome asks of every message, without
    /// building the broken-down time.
    ///
    /// Inlined, and only a time within the hour last converted is answered
    /// here (a look at `hour` and an addition); the rest is a call of its
    /// own. The whole function, a call a message, cost some 50 instructions
    /// for that case: the stack guard of its `tm`, a call to `floor`.
    @inline(__always)
    func dayAndSecond(_ seconds: Double) -> (day: Int, second: Int) {
        let whole = Self.whole(seconds)
        if Self.hourKey(whole) == hour {
            let second = secondInHourDay(whole)
            if second < 24 * 3600 { return (hourDay, second) }
        }
        return dayAndSecond(whole: whole)
    }

    /// `dayAndSecond` of whole seconds, converting their hour when it is
    /// not the one last converted.
    @inline(never)
    private func dayAndSecond(whole: Int) -> (day: Int, second: Int) {
        let second = secondOfDay(whole)
        guard second < 24 * 3600 else {
            let exact = Self.exact(whole)
            // A leap second (`tm_sec` 60) stays in its minute.
            return (Self.dayNumber(exact), Int(exact.tm_hour) * 3600 + Int(exact.tm_min) * 60 + min(Int(exact.tm_sec), 59))
        }
        return (hourDay, second)
    }

    /// The day of local time `parts`, as a number that changes at midnight.
    static func dayNumber(_ parts: tm) -> Int { Int(parts.tm_year) * 400 + Int(parts.tm_yday) }

    /// Whole seconds of `seconds`, clamped into `MessageTime.range`: the
    /// floor, as a truncation corrected for negative fractions (`rounded(.down)`
    /// is a call to `floor`). Clamped times are whole numbers of seconds
    /// far below 2⁵³ in size, so `Double(truncated)` is exact.
    @inline(__always)
    static func whole(_ seconds: Double) -> Int {
        let clamped = MessageTime.clamped(seconds)
        let truncated = Int(clamped)
        return Double(truncated) > clamped ? truncated &- 1 : truncated
    }

    /// The UTC hour `whole` falls in (rounded down), the key of `hour`.
    @inline(__always)
    private static func hourKey(_ whole: Int) -> Int { whole >= 0 ? whole / 3600 : (whole &- 3599) / 3600 }

    /// The second of `hourStart`'s local day that `whole` falls on, after
    /// moving `hourStart` to `whole`'s UTC hour; 24 hours or more when
    /// `whole` is past that day's end.
    @inline(__always)
    private func secondOfDay(_ whole: Int) -> Int {
        let key = Self.hourKey(whole)
        if key != hour {
            var value = time_t(key * 3600)
            localtime_r(&value, &hourStart)
            hour = key
            hourStartSecond = Int(hourStart.tm_hour) * 3600 + Int(hourStart.tm_min) * 60 + Int(hourStart.tm_sec)
            hourDay = Self.dayNumber(hourStart)
        }
        return secondInHourDay(whole)
    }

    /// The second of `hourStart`'s local day that `whole`, within `hour`'s
    /// day or after it, falls on. Within ±3 × 10¹¹ (`whole` is clamped):
    /// no overflow.
    @inline(__always)
    private func secondInHourDay(_ whole: Int) -> Int { hourStartSecond &+ (whole &- hour &* 3600) }

    /// `localtime_r` itself (a time past local midnight of its hour's day).
    private static func exact(_ whole: Int) -> tm {
        var value = time_t(whole)
        var exact = tm()
        localtime_r(&value, &exact)
        return exact
    }
}

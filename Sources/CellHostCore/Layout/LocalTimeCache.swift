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

    /// The local broken-down time of `seconds` since the epoch. Times outside
    /// `MessageTime.range` (which `Message` never produces) are clamped into
    /// it, so no input can make the conversion to `Int` trap.
    func localTime(_ seconds: Double) -> tm {
        let whole = Int(MessageTime.clamped(seconds).rounded(.down))
        let key = whole >= 0 ? whole / 3600 : (whole - 3599) / 3600
        if key != hour {
            var value = time_t(key * 3600)
            localtime_r(&value, &hourStart)
            hour = key
        }
        let offset = whole - key * 3600
        var parts = hourStart
        let totalSeconds = Int(parts.tm_min) * 60 + Int(parts.tm_sec) + offset
        let minutes = Int(parts.tm_hour) * 60 + totalSeconds / 60
        guard minutes < 24 * 60, totalSeconds / 60 + Int(parts.tm_hour) * 60 >= 0 else {
            // Crosses local midnight: ask the C library.
            var value = time_t(whole)
            var exact = tm()
            localtime_r(&value, &exact)
            return exact
        }
        parts.tm_hour = Int32(minutes / 60)
        parts.tm_min = Int32(minutes % 60)
        parts.tm_sec = Int32(totalSeconds % 60)
        return parts
    }
}

import Glibc

/// `localtime_r` for a stream of nearby times: the broken-down local time of
/// the start of each UTC hour is computed once, and times within that hour
/// are derived from it by adding minutes and seconds. Time-zone offsets change
/// only at hour boundaries (whole or half hours after UTC hours are handled
/// by the carry check), so the result equals `localtime_r`'s.
final class LocalTimeCache {
    nonisolated(unsafe) static let shared = LocalTimeCache()

    private var hour: Int = .min
    private var hourStart = tm()

    func localTime(_ seconds: Double) -> tm {
        let whole = Int(seconds.rounded(.down))
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

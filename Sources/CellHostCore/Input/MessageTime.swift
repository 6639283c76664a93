/// The range of message times the host shows: years 1 to 9999 (UTC), as Unix
/// seconds or RFC 3339. A time outside it, or an impossible date
/// (`2026-02-30`), is treated as absent: the message is rendered without a
/// time. Keeping times in this range is what makes every later conversion
/// (`Int`, `time_t`, the broken-down local time) safe.
public enum MessageTime {
    /// 0001-01-01T00:00:00Z in Unix seconds.
    public static let earliest: Double = -62_135_596_800
    /// 9999-12-31T23:59:59Z in Unix seconds (fractions up to the next second allowed).
    public static let latest: Double = 253_402_300_799

    /// Unix seconds within the range, or nil (NaN, infinities, out of range).
    public static func validated(_ seconds: Double) -> Double? {
        guard seconds.isFinite, seconds >= earliest, seconds < latest + 1 else { return nil }
        return seconds
    }

    /// `seconds` forced into the range (NaN becomes the epoch): for code that
    /// must not trap even when handed a time `validated` would refuse.
    static func clamped(_ seconds: Double) -> Double {
        guard !seconds.isNaN else { return 0 }
        return min(max(seconds, earliest), latest)
    }
}

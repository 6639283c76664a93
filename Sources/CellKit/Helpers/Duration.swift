/// Playback times as media players show them.
public enum PlaybackTime {
    /// Formats a duration in seconds, rounded to the nearest second, as
    /// `m:ss` (`"0:05"`, `"4:07"`, `"59:59"`), or `h:mm:ss` from one hour up
    /// (`"1:02:03"`). Returns `nil` for a negative or non-finite duration.
    public static func format(seconds: Double) -> String? {
        guard seconds.isFinite, seconds >= 0, seconds < 1e12 else { return nil }
        let total = Int(seconds.rounded())
        let hours = total / 3600, minutes = (total % 3600) / 60, secs = total % 60
        func twoDigits(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        if hours > 0 { return "\(hours):\(twoDigits(minutes)):\(twoDigits(secs))" }
        return "\(minutes):\(twoDigits(secs))"
    }
}

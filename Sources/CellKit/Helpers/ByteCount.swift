/// Human-readable file sizes.
public enum ByteCount {
    /// Formats `bytes` with binary multiples (1 KB = 1024 bytes), the way
    /// file managers traditionally show attachment sizes: `"512 B"`,
    /// `"1.2 KB"`, `"18 MB"`, `"3.4 GB"`. Below 10 of a unit one decimal is
    /// shown, from 10 up the number is rounded to a whole; a value that
    /// rounds up to 1024 moves to the next unit (`"1.0 MB"`, not `"1024 KB"`).
    /// Units go up to TB. Returns `nil` for a negative or non-finite size.
    public static func format(_ bytes: Double) -> String? {
        guard bytes.isFinite, bytes >= 0 else { return nil }
        if bytes < 1024 { return "\(Int(bytes.rounded())) B" }
        let units = ["KB", "MB", "GB", "TB"]
        var value = bytes / 1024
        var unit = 0
        while unit < units.count - 1, value.rounded() >= 1024 {
            value /= 1024
            unit += 1
        }
        let tenths = (value * 10).rounded()
        if tenths < 100 {
            let whole = Int(tenths) / 10, fraction = Int(tenths) % 10
            return "\(whole).\(fraction) \(units[unit])"
        }
        let rounded = value.rounded()
        return rounded < 1e15 ? "\(Int(rounded)) \(units[unit])" : "\(rounded) \(units[unit])"
    }

    /// `format(_:)` for an integer byte count.
    public static func format(_ bytes: Int64) -> String? {
        format(Double(bytes))
    }
}

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
        if bytes < 1024 { return text(Int(bytes.rounded()), nil, "B") }
        var value = bytes / 1024
        var unit = 0
        while unit < units.count - 1, value.rounded() >= 1024 {
            value /= 1024
            unit += 1
        }
        let tenths = (value * 10).rounded()
        if tenths < 100 {
            let whole = Int(tenths) / 10, fraction = Int(tenths) % 10
            return text(whole, fraction, units[unit])
        }
        let rounded = value.rounded()
        return rounded < 1e15 ? text(Int(rounded), nil, units[unit]) : "\(rounded) \(units[unit])"
    }

    /// `format(_:)` for an integer byte count.
    public static func format(_ bytes: Int64) -> String? {
        format(Double(bytes))
    }

    private static let units: [StaticString] = ["KB", "MB", "GB", "TB"]

    /// `"\(whole) UNIT"`, or `"\(whole).\(fraction) UNIT"`, written digit by
    /// digit (this runs for every file message).
    private static func text(_ whole: Int, _ fraction: Int?, _ unit: StaticString) -> String {
        DecimalText.string { buffer in
            var end = DecimalText.write(whole, into: buffer)
            if let fraction {
                buffer[end] = UInt8(ascii: ".")
                end += 1
                end += DecimalText.write(fraction, into: UnsafeMutableBufferPointer(rebasing: buffer[end...]))
            }
            buffer[end] = UInt8(ascii: " ")
            end += 1
            for byte in UnsafeBufferPointer(start: unit.utf8Start, count: unit.utf8CodeUnitCount) {
                buffer[end] = byte
                end += 1
            }
            return end
        }
    }
}

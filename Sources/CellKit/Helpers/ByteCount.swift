/// Human-readable file sizes.
public enum ByteCount {
    /// Formats `bytes` with binary multiples (1 KB = 1024 bytes), the way
    /// file managers traditionally show attachment sizes: `"512 B"`,
    /// `"1.2 KB"`, `"18 MB"`, `"3.4 GB"`. Below 10 of a unit one decimal is
    /// shown, from 10 up the number is rounded to a whole; a value that
    /// rounds up to 1024 moves to the next unit (`"1.0 MB"`, not `"1024 KB"`).
    /// Units go up to TB. Returns `nil` for a negative or non-finite size.
    public static func format(_ bytes: Double) -> String? {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: maximumLength) { buffer in
            write(bytes, into: buffer).map { String(decoding: UnsafeBufferPointer(rebasing: buffer[..<$0]), as: UTF8.self) }
        }
    }

    /// `format(_:)` for an integer byte count.
    public static func format(_ bytes: Int64) -> String? {
        format(Double(bytes))
    }

    /// The most bytes `write` writes.
    package static let maximumLength = 64

    /// Writes `format(bytes)` at the start of `buffer` (at least
    /// `maximumLength` bytes) and returns its length; nil, writing nothing,
    /// where `format` gives nil.
    package static func write(_ bytes: Double, into buffer: UnsafeMutableBufferPointer<UInt8>) -> Int? {
        guard bytes.isFinite, bytes >= 0 else { return nil }
        if bytes < 1024 { return write(Int(bytes.rounded()), nil, "B", into: buffer) }
        var value = bytes / 1024
        var unit = 0
        while unit < units.count - 1, value.rounded() >= 1024 {
            value /= 1024
            unit += 1
        }
        let tenths = (value * 10).rounded()
        if tenths < 100 {
            let whole = Int(tenths) / 10, fraction = Int(tenths) % 10
            return write(whole, fraction, units[unit], into: buffer)
        }
        let rounded = value.rounded()
        if rounded < 1e15 { return write(Int(rounded), nil, units[unit], into: buffer) }
        // Beyond a petabyte's worth of TB: the number as Swift prints it.
        var text = "\(rounded) \(units[unit])"
        return text.withUTF8 { text in
            let count = min(text.count, buffer.count)
            _ = UnsafeMutableBufferPointer(rebasing: buffer[..<count])
                .initialize(fromContentsOf: UnsafeBufferPointer(rebasing: text[..<count]))
            return count
        }
    }

    private static let units: [StaticString] = ["KB", "MB", "GB", "TB"]

    /// `"\(whole) UNIT"`, or `"\(whole).\(fraction) UNIT"`, written digit by
    /// digit (this runs for every file message); returns the length.
    private static func write(_ whole: Int, _ fraction: Int?, _ unit: StaticString,
                              into buffer: UnsafeMutableBufferPointer<UInt8>) -> Int {
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

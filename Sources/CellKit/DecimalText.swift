/// Decimal numbers written into byte buffers, for text built without
/// `String` interpolation on hot paths (key paths, durations, sizes). The
/// digits are exactly those of `"\(value)"`.
package enum DecimalText {
    /// The most bytes `write` needs: a sign and 19 digits.
    package static let maximumLength = 20

    /// Writes `value` in decimal (with a leading `-` when negative) at the
    /// start of `buffer`, which must hold `maximumLength` bytes; returns the
    /// number of bytes written.
    package static func write(_ value: Int, into buffer: UnsafeMutableBufferPointer<UInt8>) -> Int {
        var sign = 0
        if value < 0 {
            buffer[0] = UInt8(ascii: "-")
            sign = 1
        }
        // The magnitude as UInt, so that Int.min works too.
        let magnitude = value.magnitude
        var length = 1
        var rest = magnitude / 10
        while rest > 0 {
            length += 1
            rest /= 10
        }
        var position = sign + length
        var remaining = magnitude
        repeat {
            position -= 1
            buffer[position] = UInt8(ascii: "0") + UInt8(remaining % 10)
            remaining /= 10
        } while remaining > 0
        return sign + length
    }

    /// Writes `value` (0...99) as two digits, `"07"`; returns 2.
    static func writeTwoDigits(_ value: Int, into buffer: UnsafeMutableBufferPointer<UInt8>) -> Int {
        buffer[0] = UInt8(ascii: "0") + UInt8(value / 10)
        buffer[1] = UInt8(ascii: "0") + UInt8(value % 10)
        return 2
    }

    /// A `String` of at most 64 bytes that `body` writes into a stack buffer,
    /// returning how many bytes it wrote.
    static func string(_ body: (UnsafeMutableBufferPointer<UInt8>) -> Int) -> String {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64) { buffer in
            let count = body(buffer)
            return String(decoding: UnsafeBufferPointer(rebasing: buffer[..<count]), as: UTF8.self)
        }
    }
}

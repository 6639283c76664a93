/// The decimal digits of an integer as ASCII bytes, for the code that writes
/// numbers straight into byte buffers (the output, the chrome's reaction
/// counts) instead of making a `String` of them.
enum DecimalDigits {
    /// Calls `body` with `value` in decimal (a `-` first when negative), in
    /// temporary storage valid during the call.
    @inline(__always)
    static func with<R>(_ value: Int, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        var magnitude = value.magnitude
        // Int.min has 19 digits and a sign.
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var index = digits.count
            repeat {
                index -= 1
                digits[index] = 0x30 + UInt8(truncatingIfNeeded: magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            if value < 0 {
                index -= 1
                digits[index] = 0x2D // -
            }
            return body(UnsafeBufferPointer(rebasing: digits[index...]))
        }
    }
}

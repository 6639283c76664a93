import XCTest
@testable import CellHostCore

/// `DecimalDigits`: an integer's decimal digits as bytes, as `String(value)` spells them.
final class DecimalDigitsTests: XCTestCase {
    func test_digits_areWhatStringGives_atTheEdgesAndBetween() {
        for value in [0, 1, 9, 10, 99, 100, 999_999, 1_000_000, -1, -10, -999_999, Int.max, Int.min, Int.min + 1] {
            let digits = DecimalDigits.with(value) { String(decoding: $0, as: UTF8.self) }
            XCTAssertEqual(digits, String(value))
        }
    }

    func test_outputBuffer_appendDecimal_writesTheSameDigits() {
        let out = OutputBuffer(fd: -1)
        out.appendDecimal(-42)
        out.append(0x20)
        out.appendDecimal(Int.min)
        XCTAssertEqual(out.withBytes { String(decoding: $0, as: UTF8.self) }, "-42 \(Int.min)")
    }
}

import XCTest
@testable import CellHostCore

/// The header's time is stored in place (`Chrome.storeClock`); the HTML
/// page and a narrow header take it as a `String` (`Chrome.clock`): both
/// are `HH:MM` of the second of the day, zero-padded.
final class ChromeClockTests: XCTestCase {
    func test_clock_isTheHourAndMinuteOfTheDay() {
        func twoDigits(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        for second in Array(stride(from: 0, to: 86_400, by: 37)) + [59, 60, 3599, 3600, 43_199, 86_340, 86_399] {
            XCTAssertEqual(Chrome.clock(second), "\(twoDigits(second / 3600)):\(twoDigits(second / 60 % 60))", "second \(second)")
        }
    }

    /// `storeClock` writes its five bytes and nothing around them.
    func test_storeClock_writesFiveBytesOnly() {
        var bytes = [UInt8](repeating: 0xEE, count: 9)
        bytes.withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return XCTFail("no memory") }
            Chrome.storeClock(23 * 3600 + 59 * 60 + 59, at: base + 2)
        }
        XCTAssertEqual(bytes, [0xEE, 0xEE] + Array("23:59".utf8) + [0xEE, 0xEE])
    }
}

import Foundation
import XCTest
@testable import CellHostCore

/// Message times outside years 1–9999, or impossible dates, are absent: the
/// message renders without a time, and nothing traps.
final class MessageTimeRangeTests: XCTestCase {
    private func time(_ json: String) throws -> Double? {
        let message = Message()
        var json = json
        try json.withUTF8 { try message.load($0, me: nil) }
        return message.time
    }

    func test_unixSecondsOf1e300_areAbsent() throws {
        XCTAssertNil(try time(#"{"type":"text","time":1e300}"#))
    }

    func test_unixSecondsPastYear9999_areAbsent() throws {
        XCTAssertNil(try time(#"{"type":"text","time":1e17}"#))
        XCTAssertNil(try time(#"{"type":"text","time":253402300800}"#))
    }

    func test_unixSecondsBeforeYear1_areAbsent() throws {
        XCTAssertNil(try time(#"{"type":"text","time":-62135596801}"#))
        XCTAssertNil(try time(#"{"type":"text","time":-1e300}"#))
    }

    func test_unixSecondsAtTheEdgesOfTheRange_arePresent() throws {
        XCTAssertEqual(try time(#"{"type":"text","time":-62135596800}"#), -62_135_596_800)
        XCTAssertEqual(try time(#"{"type":"text","time":253402300799}"#), 253_402_300_799)
    }

    func test_impossibleDates_areRefused() {
        XCTAssertNil(RFC3339.parse("2026-02-30T00:00:00Z"))
        XCTAssertNil(RFC3339.parse("2026-04-31T00:00:00Z"))
        XCTAssertNil(RFC3339.parse("2025-02-29T00:00:00Z"))
        XCTAssertNil(RFC3339.parse("1900-02-29T00:00:00Z"))
        XCTAssertNotNil(RFC3339.parse("2024-02-29T00:00:00Z"))
        XCTAssertNotNil(RFC3339.parse("2000-02-29T00:00:00Z"))
    }

    func test_year0000_andOffsetsLeavingTheRange_areRefused() {
        XCTAssertNil(RFC3339.parse("0000-06-01T00:00:00Z"))
        XCTAssertNil(RFC3339.parse("0001-01-01T00:00:00+01:00"))
        XCTAssertNotNil(RFC3339.parse("0001-01-01T00:00:00Z"))
        XCTAssertNotNil(RFC3339.parse("9999-12-31T23:59:59Z"))
        XCTAssertNil(RFC3339.parse("9999-12-31T23:59:59-01:00"))
    }

    func test_offsetsWithImpossibleHoursOrMinutes_areRefused() {
        XCTAssertNil(RFC3339.parse("2026-11-29T10:02:00+99:00"))
        XCTAssertNil(RFC3339.parse("2026-11-29T10:02:00+01:75"))
        XCTAssertNil(RFC3339.parse("2026-11-29T10:02:00+24:00"))
    }

    func test_aMessageWithAnOutOfRangeTime_rendersWithoutATime() throws {
        let host = CellHost()
        let lines = try host.renderLines(#"{"type":"text","sender":{"id":"a","name":"Ann"},"time":1e300,"text":"hi"}"#, width: 40)
        XCTAssertEqual(lines, ["Ann", "┃ hi"])
    }

    func test_localTimeCache_clampsTimesItWouldOtherwiseTrapOn() {
        let cache = LocalTimeCache()
        let far = cache.localTime(1e300)
        XCTAssertTrue((9999...10000).contains(1900 + Int(far.tm_year)), "clamped to the end of year 9999 (local time may be the next year)")
        _ = cache.localTime(-.infinity)
        _ = cache.localTime(.nan)
    }
}

/// Numbers from the input at the edges of their types: never a trap.
final class NumericEdgeTests: XCTestCase {
    func test_numberOfInt64Min_isADouble_notATrap() throws {
        let document = try parseJSON("[-9223372036854775808]")
        XCTAssertEqual(document.element(JSONDocument.root, 0).flatMap { document.number($0) }, -9_223_372_036_854_775_808.0)
    }

    func test_reactionCountsBelowOne_areLeftOut() throws {
        let lines = try CellHost().renderLines(
            #"{"type":"nosuch","text":"x","reactions":[{"emoji":"A","count":-5},{"emoji":"B","count":0},{"emoji":"C","count":-9223372036854775808},{"emoji":"D","count":2}]}"#,
            width: 40)
        XCTAssertEqual(lines.last, "│ D 2")
    }

    func test_hugeReactionCounts_areShownCapped() throws {
        let lines = try CellHost().renderLines(
            #"{"type":"nosuch","text":"x","reactions":[{"emoji":"A","count":9223372036854775807}]}"#, width: 40)
        XCTAssertEqual(lines.last, "│ A 999999+")
    }
}

import Glibc
import XCTest
@testable import CellHostCore

/// The hour cache must give exactly what `localtime_r` gives, including across
/// midnight, DST changes and zones whose offset is not a whole hour.
final class LocalTimeCacheTests: XCTestCase {
    private var savedTZ: String?

    override func setUp() {
        savedTZ = getenv("TZ").map { String(cString: $0) }
    }

    override func tearDown() {
        if let savedTZ { setenv("TZ", savedTZ, 1) } else { unsetenv("TZ") }
        tzset()
    }

    private func assertMatchesLocaltime(zone: String, file: StaticString = #filePath, line: UInt = #line) {
        setenv("TZ", zone, 1)
        tzset()
        let cache = LocalTimeCache()
        // Deterministic walk over two years in steps of 7 s to 3 h, both directions.
        var seconds = 1_767_225_600.0 // 2026-01-01
        var state: UInt64 = 42
        for _ in 0..<20_000 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            let step = Double(7 + Int(state >> 33) % 10_800)
            seconds += (state & 1 == 0 ? step : -step / 3) + 0.25
            var value = time_t(seconds.rounded(.down))
            var expected = tm()
            localtime_r(&value, &expected)
            let actual = cache.localTime(seconds)
            func fields(_ t: tm) -> [Int32] {
                [t.tm_year, t.tm_yday, t.tm_wday, t.tm_mon, t.tm_mday, t.tm_hour, t.tm_min, t.tm_sec]
            }
            let same = fields(actual) == fields(expected)
            // The day and second of day the chrome asks for, from the same cache.
            let (day, second) = cache.dayAndSecond(seconds)
            XCTAssertEqual(day, LocalTimeCache.dayNumber(expected), "\(zone) at \(seconds)", file: file, line: line)
            XCTAssertEqual(second, Int(expected.tm_hour) * 3600 + Int(expected.tm_min) * 60 + Int(expected.tm_sec),
                           "\(zone) at \(seconds)", file: file, line: line)
            if !same {
                XCTFail("\(zone) at \(seconds): cache \(actual.tm_mday) \(actual.tm_hour):\(actual.tm_min):\(actual.tm_sec), localtime \(expected.tm_mday) \(expected.tm_hour):\(expected.tm_min):\(expected.tm_sec)", file: file, line: line)
                return
            }
        }
    }

    func test_UTC_matchesLocaltime() { assertMatchesLocaltime(zone: "UTC") }

    /// Whole seconds are the floor of the clamped time, for negative
    /// fractions, zeros, bounds, NaN and infinities too.
    func test_wholeSeconds_areTheFloorOfTheClampedTime() {
        var values: [Double] = [0, -0.0, 0.5, -0.5, 1, -1, -1.5, 1.5, -0.999_999, 3599.999, -3599.999, -3600, -3600.5,
                                MessageTime.earliest, MessageTime.earliest - 0.5, MessageTime.earliest + 0.5,
                                MessageTime.latest, MessageTime.latest + 0.5, MessageTime.latest + 1,
                                .nan, .infinity, -.infinity, .greatestFiniteMagnitude, -.greatestFiniteMagnitude,
                                .leastNonzeroMagnitude, -.leastNonzeroMagnitude]
        var state: UInt64 = 7
        for _ in 0..<10_000 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            values.append(Double(Int64(bitPattern: state) >> 26) / 64)
        }
        for value in values {
            XCTAssertEqual(LocalTimeCache.whole(value), Int(MessageTime.clamped(value).rounded(.down)), "\(value)")
        }
    }

    /// Times before 1970 (negative, with fractions), within an hour and
    /// across hours and days, as `localtime_r` gives them.
    func test_negativeTimes_matchLocaltime() {
        for zone in ["UTC", "IST-5:30", "XYZ+9:45"] {
            setenv("TZ", zone, 1)
            tzset()
            let cache = LocalTimeCache()
            var seconds = -90_000.75
            while seconds < 10_000 {
                var value = time_t(seconds.rounded(.down))
                var expected = tm()
                localtime_r(&value, &expected)
                let (day, second) = cache.dayAndSecond(seconds)
                XCTAssertEqual(day, LocalTimeCache.dayNumber(expected), "\(zone) at \(seconds)")
                XCTAssertEqual(second, Int(expected.tm_hour) * 3600 + Int(expected.tm_min) * 60 + Int(expected.tm_sec),
                               "\(zone) at \(seconds)")
                seconds += 997.5
            }
        }
    }
    func test_zoneWithDaylightSaving_matchesLocaltime() { assertMatchesLocaltime(zone: "CET-1CEST,M3.5.0,M10.5.0/3") }
    func test_halfHourZone_matchesLocaltime() { assertMatchesLocaltime(zone: "IST-5:30") }
    func test_quarterHourZoneWestOfUTC_matchesLocaltime() { assertMatchesLocaltime(zone: "XYZ+9:45") }
}

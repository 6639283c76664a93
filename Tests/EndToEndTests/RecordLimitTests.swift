import Foundation
import XCTest

/// Records over 16 MiB are reported once and skipped; one of exactly 16 MiB is read.
final class RecordLimitTests: EndToEndTestCase {
    private let limit = 16 << 20

    private func record(ofSize size: Int, id: String) -> String {
        let frame = #"{"id":"\#(id)","type":"nosuch","pad":""}"#
        return #"{"id":"\#(id)","type":"nosuch","pad":""# + String(repeating: "x", count: size - frame.utf8.count) + #""}"#
    }

    func test_aRecordOfExactly16MiB_isRendered() throws {
        let input = Data((record(ofSize: limit, id: "exact") + "\n").utf8)
        let result = try run(["render", "-", "--format", "json"], stdin: input)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.hasPrefix(#"{"id":"exact""#))
    }

    func test_aRecordOver16MiB_givesOneDiagnostic_andTheNextIsRendered() throws {
        let input = Data((record(ofSize: limit + (1 << 20), id: "huge") + "\n" + #"{"id":"next","type":"nosuch"}"# + "\n").utf8)
        let result = try run(["render", "-", "--format", "json"], stdin: input)
        XCTAssertEqual(result.status, 1)
        XCTAssertEqual(result.stderr, "cellhost: <stdin>:1: record longer than 16 MiB, skipped\n")
        XCTAssertTrue(result.stdout.hasPrefix(#"{"id":"next""#))
    }
}

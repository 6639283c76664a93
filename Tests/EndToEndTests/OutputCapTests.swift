import Foundation
import XCTest

/// `render` caps each message's content at `--max-rows` rows (default 1000)
/// and `--max-bytes` bytes (default 1 MiB); the rest is one muted
/// `… N more lines` row.
final class OutputCapTests: EndToEndTestCase {
    func test_aPluginAppending100000Lines_gives1000RowsByDefault() throws {
        try compileFixture("endless_rows_cell.c")
        let (messages, _) = try renderJSON([#"{"id":"e","type":"endless"}"#, #"{"id":"after","type":"text","text":"next"}"#])
        XCTAssertEqual(messages.count, 2)
        XCTAssertEqual(messages[0].lines.count, 1000)
        XCTAssertEqual(messages[0].lines[998], "│ row 998")
        XCTAssertEqual(messages[0].lines[999], "│ … 99001 more lines")
        XCTAssertEqual(messages[1].id, "after")
    }

    func test_maxRows_setsTheRowCap() throws {
        try compileFixture("endless_rows_cell.c")
        let (messages, _) = try renderJSON([#"{"type":"endless"}"#], extraArgs: ["--max-rows", "3"])
        XCTAssertEqual(messages.first?.lines, ["┃ row 0", "│ row 1", "│ … 99998 more lines"])
    }

    func test_maxBytes_setsTheByteCap() throws {
        let text = String(repeating: "abcdefghij", count: 10)
        let (messages, _) = try renderJSON([#"{"type":"nosuch","text":"\#(text)"}"#], width: 200,
                                           extraArgs: ["--max-bytes", "60"])
        XCTAssertEqual(messages.first?.lines.count, 3)
        XCTAssertEqual(messages.first?.lines.last, "│ … 1 more line")
    }

    func test_maxRowsOfZero_isAUsageError() throws {
        let result = try run(["render", "--max-rows", "0"], stdin: Data())
        XCTAssertEqual(result.status, 2)
        XCTAssertEqual(result.stderr, "cellhost: --max-rows must be a whole number from 1 to 1000000, not '0'\n")
    }

    func test_maxBytesOverOneGiB_isAUsageError() throws {
        let result = try run(["render", "--max-bytes=2000000000"], stdin: Data())
        XCTAssertEqual(result.status, 2)
        XCTAssertEqual(result.stderr, "cellhost: --max-bytes must be a whole number from 1 to 1073741824, not '2000000000'\n")
    }

    func test_renderHelp_documentsBothCaps() throws {
        let help = try run(["render", "--help"]).stdout
        XCTAssertTrue(help.contains("--max-rows N"))
        XCTAssertTrue(help.contains("--max-bytes N"))
        XCTAssertTrue(help.contains("3 standard output could not be written"))
    }
}

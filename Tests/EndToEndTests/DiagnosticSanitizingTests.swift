import Foundation
import XCTest

/// Diagnostics on stderr are sanitized like output: a file name or option
/// value with escape sequences or controls cannot drive the terminal.
final class DiagnosticSanitizingTests: EndToEndTestCase {
    func test_fileNameWithEscapesAndBEL_isShownSafely() throws {
        let result = try run(["render", "bad\u{07}name\u{1B}]0;TITLE\u{07}.jsonl"])
        XCTAssertEqual(result.status, 1)
        XCTAssertEqual(result.stderr, "cellhost: bad\u{2407}name.jsonl: No such file or directory\n")
    }

    func test_optionValueWithEscapes_isShownSafely() throws {
        let result = try run(["render", "--format", "x\u{1B}[2Jy"], stdin: Data())
        XCTAssertEqual(result.status, 2)
        XCTAssertEqual(result.stderr, "cellhost: --format must be ansi, plain or json, not 'xy'\n")
    }

    func test_pluginFileNameWithControls_isShownSafely() throws {
        try writeFile("evil\u{1B}[31m\u{07}.so", Data("not elf".utf8))
        let result = try run(["list-plugins"], env: defaultEnvironment)
        XCTAssertFalse(result.stderr.contains("\u{1B}"), result.stderr)
        XCTAssertFalse(result.stderr.contains("\u{07}"), result.stderr)
        XCTAssertTrue(result.stderr.contains("evil\u{2407}.so: not an ELF file"), result.stderr)
    }
}

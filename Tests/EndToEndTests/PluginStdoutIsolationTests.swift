import Foundation
import XCTest

/// Plugin code cannot reach the host's standard output: a plugin that prints
/// escape sequences from its constructor and its render method leaves
/// `render --format json` and `list-plugins --json` valid and untouched.
final class PluginStdoutIsolationTests: EndToEndTestCase {
    func test_pluginPrinting_doesNotReachRenderJSON() throws {
        try compileFixture("noisy_text_cell.c")
        let (messages, _) = try renderJSON([#"{"id":"a","type":"text","text":"hi"}"#,
                                            #"{"id":"b","type":"text","text":"again"}"#])
        XCTAssertEqual(messages.map(\.className), ["NoisyTextCell", "NoisyTextCell"])
        XCTAssertEqual(messages.map { $0.lines.last }, ["┃ quiet", "┃ quiet"].map(Optional.some))
    }

    func test_pluginPrinting_leavesNoByteInRenderOutput() throws {
        try compileFixture("noisy_text_cell.c")
        let result = try run(["render", "-", "--format", "json"], env: defaultEnvironment,
                             stdin: Data(#"{"id":"a","type":"text","text":"hi"}"#.utf8))
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertFalse(result.stdout.contains("NOISY"))
        XCTAssertFalse(result.stdout.contains("\u{1B}"))
    }

    func test_pluginPrinting_doesNotReachListPluginsJSON() throws {
        try compileFixture("noisy_text_cell.c")
        let result = try run(["list-plugins", "--json"], env: defaultEnvironment)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertFalse(result.stdout.contains("NOISY"))
        XCTAssertFalse(result.stdout.contains("\u{1B}"))
        let report = try decode(PluginReport.self, from: result.stdout, what: "list-plugins --json")
        XCTAssertTrue(report.plugins.contains { $0.id == "test.noisy" })
    }
}

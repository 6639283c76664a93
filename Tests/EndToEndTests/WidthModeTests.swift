import Foundation
import XCTest

/// `--width-mode`: text measured by grapheme cluster or code point by code
/// point, so right-aligned lines end in the terminal's last column.
final class WidthModeTests: EndToEndTestCase {
    /// Each tricky string and its columns in (grapheme, wcwidth) mode.
    private let samples: [(name: String, text: String, grapheme: Int, wcwidth: Int)] = [
        ("VS16 emoji", "❤️", 2, 1),
        ("ZWJ sequence", "👩‍💻", 2, 4),
        ("skin tone", "👍🏽", 2, 4),
        ("flag", "🇻🇳", 2, 2),
        ("CJK", "明日", 4, 4),
        ("combining mark", "e\u{0301}", 1, 1),
    ]

    /// The leading spaces of an outgoing one-line message whose text is `text`:
    /// the line is `spaces + text + " ┃"`, `width` columns in the mode's measure.
    private func leadingSpaces(_ text: String, mode: String, width: Int = 40) throws -> Int {
        let line = #"{"id":"m","type":"text","sender":{"id":"me"},"text":"\#(text)"}"#
        let run = try renderRaw(["-", "--me", "me", "--width", String(width), "--format", "json", "--width-mode", mode],
                                stdin: Data((line + "\n").utf8))
        let record = try XCTUnwrap(try records(run).first)
        let bubble = try XCTUnwrap(record.lines.first { $0.hasSuffix("┃") }, "\(record.lines)")
        return bubble.prefix { $0 == " " }.count
    }

    func test_eachKindOfTextIsMeasuredTheWayEachModeSays() throws {
        for sample in samples {
            XCTAssertEqual(try leadingSpaces(sample.text, mode: "grapheme"), 38 - sample.grapheme, "\(sample.name), grapheme")
            XCTAssertEqual(try leadingSpaces(sample.text, mode: "wcwidth"), 38 - sample.wcwidth, "\(sample.name), wcwidth")
        }
    }

    func test_autoPicksTheModeOfTheTerminalTheEnvironmentNames() throws {
        let line = #"{"id":"m","type":"text","sender":{"id":"me"},"text":"❤️"}"#
        func spaces(_ env: [String: String]) throws -> Int {
            let run = try runRaw(["render", "-", "--me", "me", "--width", "40", "--format", "json"],
                                 env: renderEnvironment().merging(env) { $1 }, stdin: Data((line + "\n").utf8))
            let record = try XCTUnwrap(try records(run).first)
            return try XCTUnwrap(record.lines.first { $0.hasSuffix("┃") }).prefix { $0 == " " }.count
        }
        XCTAssertEqual(try spaces(["TERM": "tmux-256color"]), 37, "tmux measures code points")
        XCTAssertEqual(try spaces(["TERM": "xterm-256color"]), 37, "xterm measures code points")
        XCTAssertEqual(try spaces(["TERM": "xterm-256color", "VTE_VERSION": "7600"]), 37, "VTE measures code points")
        XCTAssertEqual(try spaces(["TERM": "xterm-kitty"]), 36, "kitty measures clusters")
        XCTAssertEqual(try spaces(["TERM": "xterm-256color", "TERM_PROGRAM": "WezTerm"]), 36, "WezTerm measures clusters")
        XCTAssertEqual(try spaces(["TERM": "foot"]), 36, "foot measures clusters")
        XCTAssertEqual(try spaces(["TERM": "tmux-256color", "TERM_PROGRAM": "tmux"]), 37)
    }

    func test_aBadModeIsAUsageError() throws {
        let run = try renderRaw(["-", "--width-mode", "cells"], stdin: Data(), expectStatus: 2)
        XCTAssertEqual(run.diagnostics, ["cellhost: --width-mode must be grapheme, wcwidth or auto, not 'cells'"])
    }

    // MARK: In a real tmux pane

    /// Renders the demo in an 80-column tmux pane with an `X` after every
    /// line, and returns the pane's rows. A line that fills the pane exactly
    /// pushes its `X` to the start of the next row; a line one column short
    /// keeps it on its own row.
    private func tmuxRows(mode: String) throws -> [String] {
        let socket = "cellhost-test-\(UUID().uuidString.prefix(8))"
        let render = "'\(binary.path)' render conversation.jsonl --me u-alice --width 80 --format plain --images none "
            + "--width-mode \(mode) | sed 's/$/X/'; tmux -L \(socket) wait-for -S rendered"
        // One shell runs the session: the tmux server it starts keeps none of
        // the test's descriptors, and `wait-for` (no sleeping) ends when the
        // render has written its last line.
        let script = """
            set -e
            t() { tmux -L \(socket) -f /dev/null "$@" </dev/null; }
            trap 't kill-server >/dev/null 2>&1 || true' EXIT
            t new-session -d -x 80 -y 200 -s demo sh >/dev/null 2>&1
            t set-option -t demo remain-on-exit on >/dev/null
            t respawn-pane -k -t demo \(shellQuoted(render))
            timeout 60 tmux -L \(socket) wait-for rendered
            t capture-pane -p -t demo -S 0 -E 199
            """
        let result = try execute(URL(fileURLWithPath: "/bin/sh"), ["-c", script], environment: cleanEnvironment([:]), stdin: nil,
                                 currentDirectory: Self.examplesDirectory, timeout: 90, file: #filePath, line: #line)
        XCTAssertEqual(result.status, 0, result.stderr)
        return String(decoding: result.stdout, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    private func shellQuoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'" }

    func test_inTmuxEveryRightAlignedLineEndsInTheLastColumnInAutoMode() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux") else { return XCTFail("needs tmux (.ci/run installs it)") }
        let rows = try tmuxRows(mode: "auto")
        let short = rows.filter { $0.hasSuffix("┃X") || $0.hasSuffix("│X") }
        XCTAssertEqual(short, [], "right-aligned lines that tmux shows one column short or wrapped:\n\(rows.joined(separator: "\n"))")
        XCTAssertGreaterThan(rows.filter { $0 == "X" }.count, 20, "full-width lines (separators, outgoing bubbles)")
    }

    func test_inTmuxGraphemeModeLeavesTheVS16ReactionLineShort() throws {
        // What auto mode fixes: tmux draws ❤️ in one column, so measured by
        // cluster the line with it ends one column early.
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux") else { return XCTFail("needs tmux (.ci/run installs it)") }
        let rows = try tmuxRows(mode: "grapheme")
        XCTAssertTrue(rows.contains { $0.contains("❤️") && ($0.hasSuffix("│X") || $0.hasSuffix("┃X")) },
                      rows.joined(separator: "\n"))
    }
}

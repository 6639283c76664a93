import Foundation
import XCTest

/// `cellhost render` on a Slack export directory (and one day file):
/// detected without `--from`, conversations in order with headers, thread
/// replies quoted, reactions and edits shown, events as system lines, files
/// shown or marked missing; a hostile export renders what it can and exits 1.
final class SlackImportTests: EndToEndTestCase {
    private var fixtures: URL { Self.importFixtures("slack") }

    // MARK: Goldens

    func test_export_plain() throws { try checkImportGolden(format: "slack", fixture: "export", kind: "plain") }
    func test_export_ansi() throws { try checkImportGolden(format: "slack", fixture: "export", kind: "ansi") }
    func test_export_json() throws { try checkImportGolden(format: "slack", fixture: "export", kind: "json") }

    // MARK: Behaviour

    func test_directoryAndDayFileAreDetectedWithoutFrom() throws {
        let run = try renderRaw(["export", "--verbose", "--format", "plain"], currentDirectory: fixtures)
        XCTAssertTrue(run.diagnostics.contains("cellhost: export: read as Slack export"), run.stderr)
        XCTAssertTrue(run.diagnostics.contains("cellhost: export: 26 messages imported; 2 conversations; "
                                               + "1 edit event shown as replies to the edited message; 1 hidden event left out"), run.stderr)
        let day = try renderRaw(["export/random/2024-03-04.json", "--verbose", "--format", "plain"], currentDirectory: fixtures)
        XCTAssertTrue(day.diagnostics.contains("cellhost: export/random/2024-03-04.json: read as Slack export"), day.stderr)
    }

    func test_conversationsAndMessagesInOrder() throws {
        let run = try renderRaw(["export", "--format", "json"], currentDirectory: fixtures)
        XCTAssertEqual(try records(run).map { $0.id ?? "" }, [
            "general",
            "general/1709546400.000100", "general/1709546460.000200", "general/1709546580.000300", "general/1709546700.000400",
            "general/1709547000.000500", "general/1709547060.000600", "general/1709547120.000700",
            "general/1709632800.000100", "general/1709632860.000200", "general/1709632860.000200#2",
            "general/1709632920.000300", "general/1709632980.000400", "general/1709633040.000500", "general/1709633100.000600",
            "general/1709633160.000700", "general/1709633200.000800", "general/1709633400.001000",
            "random",
            "random/1709550000.000100", "random/1709550060.000200", "random/1709550120.000300", "random/1709550180.000400",
            "random/1709719200.000100", "random/1709719260.000200", "random/1709719320.000300",
        ])
    }

    func test_threadRepliesQuoteTheirParent_editsAndReactionsAreShown() throws {
        let text = try renderRaw(["export", "--format", "plain", "--width", "80"], currentDirectory: fixtures).text
        XCTAssertTrue(text.contains("┃ ↪ alice.a: Welcome @carol! Please read #general & #random."), text)
        XCTAssertTrue(text.contains("│ Thanks! 🎉 Happy to be here"), text)
        XCTAssertTrue(text.contains("┃ I fixed the typo\n│ edited"), text)
        XCTAssertTrue(text.contains("┃ ↪ alice.a: replying to a deleted message\n│ replying to a deleted message (edited)\n│ edited"), text)
        XCTAssertTrue(text.contains("│ 👋 2  👍🏼"), text)
        XCTAssertTrue(text.contains("│ 👀  ✅ 2"), text)
    }

    func test_eventsAreSystemLines() throws {
        let run = try renderRaw(["export", "--format", "json"], currentDirectory: fixtures)
        let system = try records(run).filter { $0.type == "system" }.map { $0.lines.joined(separator: " ") }
        for line in ["#general", "#random", "carol joined the channel (invited by alice.a)",
                     "alice.a set the channel topic: Company-wide news", "alice.a pinned a message", "Bob Baker left the channel",
                     "Bob Baker set the channel purpose: Anything goes", "Bob Baker renamed the channel from #random to #water-cooler",
                     "Bob Baker started a huddle"] {
            XCTAssertTrue(system.contains { $0.contains(line) }, "no system line \(line) in \(system)")
        }
    }

    func test_filesAreShownOrMarkedMissing() throws {
        let run = try renderRaw(["export", "--format", "json"], currentDirectory: fixtures)
        let byID = Dictionary(try records(run).map { ($0.id ?? "", $0) }, uniquingKeysWith: { first, _ in first })
        XCTAssertEqual(byID["general/1709547060.000600"]?.renderedAs, "image")
        XCTAssertEqual(byID["general/1709632860.000200"]?.renderedAs, "file")
        XCTAssertEqual(byID["general/1709632860.000200#2"]?.renderedAs, "image")
        XCTAssertEqual(byID["general/1709632920.000300"]?.renderedAs, "voice")
        XCTAssertTrue(byID["general/1709632980.000400"]?.lines.joined().contains("missing: not downloaded") == true)
    }

    func test_hostileExportRendersWhatItCanAndExits1() throws {
        let run = try renderRaw(["hostile", "--format", "json"], currentDirectory: fixtures, expectStatus: 1)
        let ids = try records(run).map { $0.id ?? "" }
        for id in ["general/1709283600.000100", "general/1709283980.000800", "broken/1709287200.000100",
                   "broken/1709287320.000300", "broken/1709373600.000100", "broken/1709460000.000100"] {
            XCTAssertTrue(ids.contains(id), "\(id) not in \(ids)")
        }
        XCTAssertFalse(ids.contains { $0.contains("escape") })
        for diagnostic in ["cellhost: hostile: broken/2024-03-01.json:3: not valid JSON: expected ',' or '}' in object at column 55",
                           "cellhost: hostile: broken/2024-03-02.json:3: the file ends in the middle of the document (truncated?)",
                           "cellhost: hostile: notarray/2024-03-01.json: not a JSON array",
                           "cellhost: hostile: general/2024-03-01.json:9: a message that is not a JSON object"] {
            XCTAssertTrue(run.diagnostics.contains(diagnostic), "no \(diagnostic) in\n\(run.stderr)")
        }
    }

    func test_anUnreadableTimeIsNamedByItsDayFileAndLine() throws {
        let directory = scratchDir.appendingPathComponent("times-export", isDirectory: true)
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("general"), withIntermediateDirectories: true)
        try Data(#"[{"id":"C1","name":"general"}]"#.utf8).write(to: directory.appendingPathComponent("channels.json"))
        try Data("""
            [
            {"type":"message","user":"U1","text":"one","ts":"1709546400.000100"},
            {"type":"message","user":"U1","text":"two","ts":"yesterday"}
            ]
            """.utf8).write(to: directory.appendingPathComponent("general/2024-01-01.json"))
        let run = try renderRaw([directory.path, "--format", "json", "--verbose"])
        XCTAssertEqual(try records(run).count, 3, "the header and both messages")
        let expected = "cellhost: \(directory.path): general/2024-01-01.json:3: 1 time could not be read (the first: \"yesterday\"); "
            + "shown without a time"
        XCTAssertTrue(run.diagnostics.contains(expected), "no \(expected) in\n\(run.stderr)")
    }

    func test_enormousTextRendersWithoutHanging() throws {
        let directory = scratchDir.appendingPathComponent("big-export", isDirectory: true)
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("general"), withIntermediateDirectories: true)
        try Data(#"[{"id":"C1","name":"general"}]"#.utf8).write(to: directory.appendingPathComponent("channels.json"))
        let huge = String(repeating: "*bold _it ~s `x <@U1> :tada: &amp; ", count: 40_000)
        try Data(#"[{"type":"message","user":"U1","text":"\#(huge)","ts":"1.1"}]"#.utf8)
            .write(to: directory.appendingPathComponent("general/2024-01-01.json"))
        let run = try renderRaw([directory.path, "--format", "json", "--width", "60"], timeout: 120)
        XCTAssertEqual(try records(run).map { $0.id ?? "" }, ["general", "general/1.1"])
    }
}

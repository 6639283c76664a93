import Foundation
import XCTest

/// `cellhost render` on DiscordChatExporter JSON: detected without `--from`,
/// every kind of message in order, replies quoted, reactions and edits shown,
/// events as system lines, media shown or marked missing; hostile exports
/// render what they can and exit 1.
final class DiscordImportTests: EndToEndTestCase {
    private var fixtures: URL { Self.importFixtures("discord") }

    // MARK: Goldens

    func test_channel_plain() throws { try checkImportGolden(format: "discord", fixture: "channel.json", kind: "plain") }
    func test_channel_ansi() throws { try checkImportGolden(format: "discord", fixture: "channel.json", kind: "ansi") }
    func test_channel_json() throws { try checkImportGolden(format: "discord", fixture: "channel.json", kind: "json") }

    // MARK: Behaviour

    func test_detectedWithoutFrom() throws {
        let run = try renderRaw(["channel.json", "--verbose", "--format", "plain"], currentDirectory: fixtures)
        XCTAssertTrue(run.diagnostics.contains("cellhost: channel.json: read as DiscordChatExporter JSON"), run.stderr)
        XCTAssertTrue(run.diagnostics.contains("cellhost: channel.json: 23 messages imported; 21 message objects read"), run.stderr)
    }

    func test_everyMessageInOrder_furtherAttachmentsRightAfterTheirMessage() throws {
        let run = try renderRaw(["channel.json", "--format", "json"], currentDirectory: fixtures)
        let ids = try records(run).map { $0.id ?? "" }
        let expected = ["channel-200000000000000001"]
            + (1...21).flatMap { index -> [String] in
                let id = "4000000000000000" + (index < 10 ? "0\(index)" : "\(index)")
                return index == 6 ? [id, id + "#2"] : [id]
            }
        XCTAssertEqual(ids, expected)
    }

    func test_replyQuotesItsMessage_editsAndReactionsAreShown() throws {
        let text = try renderRaw(["channel.json", "--format", "plain", "--width", "80"], currentDirectory: fixtures).text
        XCTAssertTrue(text.contains("┃ ↪ Alice: Welcome @carol! Rules are in #general"), text)
        XCTAssertTrue(text.contains("│ thanks! glad to be here\n│ edited"), text)
        XCTAssertTrue(text.contains("│ 👋 2  :blobcat"), text)
        XCTAssertTrue(text.contains("│ 😻 3"), text)
    }

    func test_eventsAreSystemLines() throws {
        let run = try renderRaw(["channel.json", "--format", "json"], currentDirectory: fixtures)
        let system = try records(run).filter { $0.type == "system" }.map { $0.lines.joined(separator: "\n") }
        for line in ["#general — Cat Lovers", "carol joined the server", "Alice started a call that lasted 5 minutes",
                     "Bob changed the channel name: town-square", "Alice pinned a message", "carol started a thread: Cat pictures",
                     "Alice added Bob to the group", "Bob left the group", "Alice changed the channel icon",
                     "carol boosted the server", "Dicebot: AutoModerationAction"] {
            XCTAssertTrue(system.contains { $0.contains(line) }, "no system line \(line) in \(system)")
        }
    }

    func test_mediaIsShownOrMarkedMissing() throws {
        let run = try renderRaw(["channel.json", "--format", "json"], currentDirectory: fixtures)
        let byID = Dictionary(try records(run).map { ($0.id ?? "", $0) }, uniquingKeysWith: { first, _ in first })
        XCTAssertEqual(byID["400000000000000004"]?.renderedAs, "image")
        XCTAssertEqual(byID["400000000000000005"]?.renderedAs, "voice")
        XCTAssertEqual(byID["400000000000000006"]?.renderedAs, "file")
        XCTAssertEqual(byID["400000000000000006#2"]?.renderedAs, "image")
        XCTAssertTrue(byID["400000000000000007"]?.lines.joined().contains("missing: not downloaded") == true)
        XCTAssertEqual(byID["400000000000000009"]?.type, "sticker")
    }

    func test_hostileExportRendersWhatItCanAndExits1() throws {
        let run = try renderRaw(["hostile.json", "--format", "json"], currentDirectory: fixtures, expectStatus: 1)
        let ids = try records(run).map { $0.id ?? "" }
        XCTAssertEqual(ids.first, "channel")
        XCTAssertTrue(ids.contains("900000000000000001"))
        XCTAssertTrue(ids.contains("900000000000000008"), "\(ids)")
        XCTAssertTrue(run.diagnostics.contains("cellhost: hostile.json:6: a message without an \"id\"; shown with the id \"line-6\""), run.stderr)
        XCTAssertTrue(run.diagnostics.contains("cellhost: hostile.json:15: a message that is not a JSON object"), run.stderr)
        XCTAssertTrue(run.diagnostics.contains { $0.hasPrefix("cellhost: hostile.json:19: the file ends in the middle") }, run.stderr)
    }

    func test_enormousContentRendersWithoutHanging() throws {
        let huge = String(repeating: "**bold *it ||spoiler <@1> `x ", count: 40_000)
        let message = #"{"id":"1","type":"Default","timestamp":"2024-03-01T09:00:00Z","author":{"id":"1","name":"a"},"content":"\#(huge)"}"#
        let url = try writeInput("huge.json", bytes: Data(#"{"guild":{"name":"g"},"channel":{"id":"1","name":"c"},"messages":[\#(message)]}"#.utf8))
        let run = try renderRaw([url.path, "--format", "json", "--width", "60"], timeout: 120)
        XCTAssertEqual(try records(run).map { $0.id ?? "" }, ["channel-1", "1"])
    }
}

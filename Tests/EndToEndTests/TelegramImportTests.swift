import Foundation
import XCTest

/// `cellhost render` on Telegram Desktop JSON exports: the fixtures in
/// `Fixtures/import/telegram/` rendered against their goldens, and the
/// behaviours a reader relies on checked one by one (detection, every
/// message in order, quoted replies, reactions, missing files, whose side,
/// truncated and enormous inputs).
///
/// - `result.json`: one private supergroup with every kind of message;
/// - `full-account/result.json`: an account export (personal information,
///   two chats and a left chat);
/// - `hostile.json`: wrong types in every field, values that are not
///   messages, invalid JSON inside a message, `\xNN` escapes.
final class TelegramImportTests: EndToEndTestCase {
    private var fixtures: URL { Self.importFixtures("telegram") }

    /// Every id of `result.json`, in file order, after its conversation header.
    private let mainIDs = ["chat-1500000001"] + (1...44).map(String.init)

    private func renderMain(_ extraArgs: [String] = [], expectStatus: Int32? = 0,
                            file: StaticString = #filePath, line: UInt = #line) throws -> RawRun {
        try renderRaw(["result.json", "--format", "json", "--width", "80"] + extraArgs, currentDirectory: fixtures,
                      expectStatus: expectStatus, file: file, line: line)
    }

    private func record(_ records: [RenderRecord], _ id: String, file: StaticString = #filePath, line: UInt = #line) -> RenderRecord? {
        let found = records.first { $0.id == id }
        if found == nil { XCTFail("no record \(id)", file: file, line: line) }
        return found
    }

    // MARK: Goldens

    func testMainFixtureMatchesItsGoldens() throws {
        for kind in ["plain", "ansi", "json"] {
            try checkImportGolden(format: "telegram", fixture: "result.json", kind: kind)
        }
        try checkImportGolden(format: "telegram", fixture: "result.json", kind: "plain", width: 40)
    }

    func testFullAccountFixtureMatchesItsGoldens() throws {
        for kind in ["plain", "ansi", "json"] {
            try checkImportGolden(format: "telegram/full-account", fixture: "result.json", kind: kind)
        }
    }

    func testHostileFixtureRendersWhatItCanAndFails() throws {
        for kind in ["plain", "ansi", "json"] {
            let run = try checkImportGolden(format: "telegram", fixture: "hostile.json", kind: kind, expectStatus: 1)
            let problems = run.diagnostics.filter { $0.range(of: #"hostile\.json:[0-9]+: "#, options: .regularExpression) != nil }
            XCTAssertEqual(problems.count, 5, run.stderr)
        }
    }

    // MARK: Reading

    func testExportIsDetectedWithoutFrom() throws {
        let run = try renderMain(["--verbose"])
        XCTAssertTrue(run.diagnostics.contains("cellhost: result.json: read as Telegram Desktop export (JSON)"), run.stderr)
        XCTAssertTrue(run.diagnostics.contains("cellhost: result.json: 45 messages imported"), run.stderr)
        let chosen = try renderMain(["--from", "telegram"])
        XCTAssertEqual(chosen.stdout, run.stdout)
    }

    func testEveryMessageIsRenderedOnceInFileOrder() throws {
        XCTAssertEqual(try records(renderMain()).map(\.id), mainIDs)
    }

    func testAReplyQuotesTheOriginalAndAMissingOriginalByItsID() throws {
        let records = try records(renderMain())
        let reply = record(records, "6")?.lines.joined(separator: "\n") ?? ""
        XCTAssertTrue(reply.contains("↪ Bob: Count me in! Bring boots"), reply)
        let orphan = record(records, "7")?.lines.joined(separator: "\n") ?? ""
        XCTAssertTrue(orphan.contains("reply to 404"), orphan)
    }

    func testReactionsAreShownWithTheirCounts() throws {
        let lines = record(try records(renderMain()), "6")?.lines ?? []
        XCTAssertTrue(lines.contains { $0.contains("👍 3") && $0.contains("❤") && $0.contains("★ 2") }, lines.joined(separator: "\n"))
    }

    func testAFileTheExportLeftOutIsMarkedAndNeverShownAsAPath() throws {
        let run = try renderMain()
        XCTAssertFalse(run.text.contains("Change data exporting settings"), run.text)
        XCTAssertFalse(run.text.contains("File unavailable"), run.text)
        let records = try records(run)
        let photo = record(records, "9")?.lines ?? []
        XCTAssertTrue(photo.contains("│ missing: not included in the export"), photo.joined(separator: "\n"))
        let video = record(records, "12")?.lines ?? []
        XCTAssertTrue(video.contains("┃ [VID] drone-flyover.mp4"), video.joined(separator: "\n"))
        XCTAssertTrue(video.contains { $0.hasSuffix("missing: too large for the export") }, video.joined(separator: "\n"))
        let round = record(records, "13")?.lines ?? []
        XCTAssertTrue(round.contains { $0.hasSuffix("missing: unavailable") }, round.joined(separator: "\n"))
    }

    func testTheAccountOwnersMessagesAreOutgoingUnlessMeSaysOtherwise() throws {
        let directory = fixtures.appendingPathComponent("full-account")
        let own = try renderRaw(["result.json", "--format", "plain", "--width", "80"], currentDirectory: directory)
        XCTAssertTrue(own.lines.contains { $0.hasSuffix("Did you get the photos? ┃") }, own.text)
        XCTAssertTrue(own.lines.contains("│ Yes! The sunset one is great."), own.text)
        let bob = try renderRaw(["result.json", "--format", "plain", "--width", "80", "--me", "user1002"], currentDirectory: directory)
        XCTAssertTrue(bob.lines.contains("┃ Did you get the photos?"), bob.text)
        XCTAssertTrue(bob.lines.contains { $0.hasPrefix(" ") && $0.contains("Yes! The sunset one is great.") && $0.hasSuffix("│") }, bob.text)
    }

    func testFullAccountIdsArePrefixedWithTheirChat() throws {
        let run = try renderRaw(["result.json", "--format", "json"], currentDirectory: fixtures.appendingPathComponent("full-account"))
        XCTAssertEqual(try records(run).map(\.id), ["chat-1002", "1002/1", "1002/2", "1002/3", "1002/4",
                                                    "chat-2001", "2001/1", "2001/2", "2001/3", "chat-3001", "3001/7", "3001/8"])
    }

    // MARK: Damaged and large inputs

    func testATruncatedExportRendersEverythingBeforeTheCutThenFails() throws {
        let whole = try Data(contentsOf: fixtures.appendingPathComponent("result.json"))
        let text = String(decoding: whole, as: UTF8.self)
        let cut = try XCTUnwrap(text.range(of: "\"Checklist: \""))
        try writeInput("result.json", bytes: Data(text[..<cut.lowerBound].utf8))
        let lineCount = text[..<cut.lowerBound].filter { $0 == "\n" }.count + 1
        let run = try renderRaw(["result.json", "--format", "json"], currentDirectory: inputDirectory, expectStatus: 1)
        XCTAssertEqual(try records(run).map(\.id), Array(mainIDs.prefix(5)))
        XCTAssertEqual(run.diagnostics, ["cellhost: result.json:\(lineCount): the file ends in the middle of 'messages' (truncated?)"])
    }

    func testEnormousStringsRenderAndTheMessagesAfterThemToo() throws {
        let big = String(repeating: "word ", count: 200_000)
        let name = String(repeating: "N", count: 100_000)
        let messages = [
            #"{"id":1,"type":"message","date_unixtime":"1709284500","from":"\#(name)","from_id":"user1","text":"\#(big)"}"#,
            #"{"id":2,"type":"message","date_unixtime":"1709284560","from":"B","from_id":"user2","text":[{"type":"bold","text":"\#(big)"}]}"#,
            #"{"id":3,"type":"message","date_unixtime":"1709284620","from":"C","from_id":"user3","text":"after"}"#,
        ]
        try writeInput("big.json", bytes: Data(#"{"name":"Big","type":"private_group","id":9,"messages":[\#n\#(messages.joined(separator: ",\n"))]}"#.utf8))
        let run = try renderRaw(["big.json", "--format", "json", "--width", "60"], currentDirectory: inputDirectory, timeout: 300)
        let records = try records(run)
        XCTAssertEqual(records.map(\.id), ["chat-9", "1", "2", "3"])
        XCTAssertTrue(records.last?.lines.contains { $0.contains("after") } == true)
    }

    func testRepairedEscapesAreWarningsThatDoNotFailTheRun() throws {
        try writeInput("esc.json", bytes: Data(#"{"name":"E","type":"private_group","id":9,"messages":[{"id":1,"type":"message","from":"A","from_id":"user1","text":"tab\x09bell\x07"}]}"#.utf8))
        let run = try renderRaw(["esc.json", "--format", "plain", "--width", "60"], currentDirectory: inputDirectory)
        XCTAssertEqual(run.diagnostics, ["cellhost: esc.json: line 1: 2 invalid escapes (\\xNN) read as the control characters Telegram meant"])
        XCTAssertTrue(run.text.contains("bell"), run.text)
    }
}

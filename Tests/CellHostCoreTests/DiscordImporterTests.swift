import Foundation
import XCTest
@testable import CellHostCore

/// What an importer run handed over: records (parsed), problems, warnings, notes.
final class ImportRecorder {
    var records: [[String: Any]] = []
    var lines: [Int] = []
    var problems: [(line: Int?, reason: String)] = []
    var warnings: [String] = []
    var thrown: Error?
    lazy var sink = ImportSink(record: { [unowned self] bytes, line, _ in
        let object = try? JSONSerialization.jsonObject(with: Data(bytes))
        self.records.append(object as? [String: Any] ?? ["unparsable": String(decoding: bytes, as: UTF8.self)])
        self.lines.append(line)
    }, problem: { [unowned self] line, reason in
        self.problems.append((line, reason))
    }, warning: { [unowned self] in self.warnings.append($0) })

    var ids: [String] { records.map { $0["id"] as? String ?? "?" } }
    var notes: [String] { sink.notes }

    /// The record with id `id`.
    func record(_ id: String, file: StaticString = #filePath, line: UInt = #line) -> [String: Any] {
        guard let found = records.first(where: { $0["id"] as? String == id }) else {
            XCTFail("no record \(id) among \(ids)", file: file, line: line)
            return [:]
        }
        return found
    }
}

fileprivate extension Dictionary where Key == String, Value == Any {
    var text: String? { self["text"] as? String }
    var type: String? { self["type"] as? String }
    subscript(object key: String) -> [String: Any] { self[key] as? [String: Any] ?? [:] }
    var reactions: [String] {
        (self["reactions"] as? [[String: Any]] ?? []).map { "\($0["emoji"] as? String ?? "?")×\($0["count"] as? Int ?? 0)" }
    }
}

final class DiscordImporterTests: XCTestCase {
    /// Runs the importer on a DiscordChatExporter document whose messages are `messages` (JSON text).
    func run(messages: String, channel: String = #"{"id":"200","type":"GuildTextChat","name":"general"}"#,
             raw: String? = nil) -> ImportRecorder {
        let document = raw ?? #"{"guild":{"id":"300","name":"Cats","iconUrl":""},"channel":\#(channel),"messages":[\#(messages)],"messageCount":0}"#
        let collector = ImportRecorder()
        do {
            try DiscordImporter.run(ImportInput(name: "channel.json", source: ByteSource(bytes: Array(document.utf8))),
                                    options: ImportOptions(), sink: collector.sink)
        } catch {
            collector.thrown = error
        }
        return collector
    }

    func message(_ fields: String, id: String = "1", type: String = "Default", author: String = #"{"id":"10","name":"alice","nickname":"Alice"}"#) -> String {
        #"{"id":"\#(id)","type":"\#(type)","timestamp":"2020-01-29T11:41:46.123+00:00","timestampEdited":null,"author":\#(author)\#(fields.isEmpty ? "" : ",")\#(fields)}"#
    }

    func text(_ content: String, mentions: String = "[]") -> String? {
        let encoded = String(decoding: try! JSONSerialization.data(withJSONObject: [content], options: [.fragmentsAllowed]), as: UTF8.self)
        let value = String(encoded.dropFirst().dropLast())
        return run(messages: message(#""content":\#(value),"mentions":\#(mentions)"#)).record("1").text
    }

    // MARK: Messages

    func testHeaderNamesTheChannelAndGuildBeforeTheMessages() {
        let run = run(messages: message(#""content":"hi""#))
        XCTAssertEqual(run.ids, ["channel-200", "1"])
        let header = run.record("channel-200")
        XCTAssertEqual(header.type, "system")
        XCTAssertEqual(header[object: "system"]["event"] as? String, "conversation")
        XCTAssertEqual(header.text, "#general — Cats")
    }

    func testIdSenderNicknameAndZonedTime() {
        let record = run(messages: message(#""content":"hi""#)).record("1")
        XCTAssertEqual(record[object: "sender"]["id"] as? String, "10")
        XCTAssertEqual(record[object: "sender"]["name"] as? String, "Alice")
        XCTAssertEqual(record["time"] as? Double ?? 0, 1_580_298_106.123, accuracy: 0.001)
        XCTAssertEqual(record.text, "hi")
    }

    func testNameIsUsedWhenThereIsNoNickname() {
        let record = run(messages: message(#""content":"hi""#, author: #"{"id":"10","name":"alice","nickname":null}"#)).record("1")
        XCTAssertEqual(record[object: "sender"]["name"] as? String, "alice")
    }

    func testTimeWithoutZoneIsLocal() {
        let record = run(messages: #"{"id":"1","type":"Default","timestamp":"2020-01-29T11:41:46","author":{"id":"10","name":"a"},"content":"x"}"#).record("1")
        XCTAssertEqual(record["time"] as? Double, ImportTime.local(year: 2020, month: 1, day: 29, hour: 11, minute: 41, second: 46))
    }

    func testUnreadableTimeIsPassedOnForTheHostToReport() {
        let record = run(messages: #"{"id":"1","type":"Default","timestamp":"yesterday","author":{"id":"10","name":"a"},"content":"x"}"#).record("1")
        XCTAssertEqual(record["time"] as? String, "yesterday")
    }

    func testTimestampEditedMarksTheMessageEdited() {
        let run = run(messages: message(#""content":"a""#, id: "1") + ","
                      + #"{"id":"2","type":"Default","timestamp":"2020-01-29T11:41:46Z","timestampEdited":"2020-01-29T11:42:00Z","author":{"id":"10","name":"a"},"content":"b"}"#)
        XCTAssertNil(run.record("1")["edited"])
        XCTAssertEqual(run.record("2")["edited"] as? Bool, true)
    }

    func testReferenceBecomesReplyTo() {
        let record = run(messages: message(#""content":"yes","reference":{"messageId":"77","channelId":"200","guildId":"300"}"#, type: "Reply")).record("1")
        XCTAssertEqual(record["reply_to"] as? String, "77")
    }

    func testReactionsKeepTheirCountsAndCustomEmojiAreShortcodes() {
        let record = run(messages: message(#""content":"x","reactions":[{"emoji":{"id":null,"name":"👍"},"count":3},{"emoji":{"id":"55","name":"blobcat"},"count":1}]"#)).record("1")
        XCTAssertEqual(record.reactions, ["👍×3", ":blobcat:×1"])
    }

    // MARK: Markdown

    func testBoldItalicAndCodeBecomeCellHostMarkup() {
        XCTAssertEqual(text("**bold** *it* _also_ `x*y`"), "*bold* _it_ _also_ `x*y`")
    }

    func testBoldItalicTogether() {
        XCTAssertEqual(text("***both***"), "*_both_*")
    }

    func testUnderlineAndStrikeKeepOnlyTheirText() {
        XCTAssertEqual(text("__under__ ~~gone~~"), "under gone")
    }

    func testSpoilerIsShownMarked() {
        XCTAssertEqual(text("the end: ||he lives||"), "the end: [spoiler: he lives]")
    }

    func testMentionsAreNamedFromTheMentionsArray() {
        XCTAssertEqual(text("hi <@20> and <@!21>", mentions: #"[{"id":"20","name":"bob","nickname":"Bob"},{"id":"21","name":"carol"}]"#),
                       "hi @Bob and @carol")
    }

    func testUnknownMentionKeepsTheId() {
        XCTAssertEqual(text("hi <@99>"), "hi @99")
    }

    func testChannelMentionOfTheExportedChannelIsNamed() {
        XCTAssertEqual(text("see <#200> and <#201>"), "see #general and #201")
    }

    func testCustomEmojiBecomesItsShortcode() {
        XCTAssertEqual(text("nice <:blobcat:123> <a:party:456>"), "nice :blobcat: :party:")
    }

    func testMaskedLinkShowsLabelThenURL() {
        XCTAssertEqual(text("read [the docs](https://example.com/a_b)"), "read the docs (https://example.com/a_b)")
    }

    func testURLsAreNotEscapedOrStyled() {
        XCTAssertEqual(text("https://example.com/_x_/y and <https://example.com/*z*>"), "https://example.com/_x_/y and https://example.com/*z*")
    }

    func testLiteralMarkersAreEscaped() {
        XCTAssertEqual(text("*unclosed and a_b"), "\\*unclosed and a_b")
        XCTAssertEqual(text("\\*not italic\\*"), "\\*not italic\\*")
    }

    func testSingleStarInsideAWordIsLiteral() {
        XCTAssertEqual(text("2*3*4"), "2*3*4")
    }

    func testCodeBlockBecomesOneCodeSpanPerLine() {
        XCTAssertEqual(text("fix:\n```swift\nlet a = b * c\n  print(a)\n```\ndone"), "fix:\n`let a = b * c`\n  `print(a)`\ndone")
    }

    func testQuoteLinesGetABar() {
        XCTAssertEqual(text("> one\ntwo\n>>> three\nfour"), "│ one\ntwo\n│ three\n│ four")
    }

    func testHeadingListAndSubtext() {
        XCTAssertEqual(text("# Title\n- item\n-# small"), "*Title*\n• item\nsmall")
    }

    func testTimestampTokenIsShownAsADate() {
        let formatted = DiscordMarkdown.formatTime(1_580_298_106, style: "d")
        XCTAssertNotNil(formatted)
        XCTAssertEqual(text("due <t:1580298106:d>"), "due " + (formatted ?? ""))
    }

    func testHostileMarkdownStaysFast() {
        let hostile = String(repeating: "**a *b _c ~~d ||e `", count: 2_000) + String(repeating: "<@1", count: 2_000)
            + String(repeating: "[a](https://x", count: 2_000)
        let start = Date()
        XCTAssertNotNil(text(hostile))
        XCTAssertLessThan(Date().timeIntervalSince(start), 10)
    }

    // MARK: System events

    func testGuildMemberJoinIsAJoinLine() {
        let record = run(messages: message(#""content":"Joined the server.""#, type: "GuildMemberJoin")).record("1")
        XCTAssertEqual(record.type, "system")
        XCTAssertEqual(record[object: "system"]["event"] as? String, "join")
        XCTAssertEqual(record.text, "Alice joined the server")
    }

    func testCallLastsUntilCallEndedTimestamp() {
        let record = run(messages: message(#""content":"","callEndedTimestamp":"2020-01-29T11:46:50+00:00""#, type: "Call")).record("1")
        XCTAssertEqual(record.text, "Alice started a call that lasted 5 minutes")
        XCTAssertEqual(record[object: "system"]["event"] as? String, "call")
    }

    func testChannelNameChangeNamesTheNewName() {
        XCTAssertEqual(run(messages: message(#""content":"town-square""#, type: "ChannelNameChange")).record("1").text,
                       "Alice changed the channel name: town-square")
    }

    func testPinIsAPinLineAnsweringThePinnedMessage() {
        let record = run(messages: message(#""content":"","reference":{"messageId":"9"}"#, type: "ChannelPinnedMessage")).record("1")
        XCTAssertEqual(record.text, "Alice pinned a message")
        XCTAssertEqual(record["reply_to"] as? String, "9")
    }

    func testNumericTypeIsNamed() {
        XCTAssertEqual(run(messages: message(#""content":"""#, type: "8")).record("1").text, "Alice boosted the server")
    }

    func testUnknownTypeIsASystemLineNamedAfterIt() {
        let record = run(messages: message(#""content":"""#, type: "AutoModerationAction")).record("1")
        XCTAssertEqual(record.type, "system")
        XCTAssertEqual(record.text, "Alice: AutoModerationAction")
        XCTAssertEqual(record[object: "system"]["event"] as? String, "automoderationaction")
    }

    // MARK: Media

    func testLocalImageAttachmentKeepsItsRelativePath() {
        let record = run(messages: message(#""content":"cat","attachments":[{"id":"5","url":"channel_Files/my%20cat-1.png","fileName":"my cat.png","fileSizeBytes":449}]"#)).record("1")
        XCTAssertEqual(record.type, "image")
        XCTAssertEqual(record[object: "image"]["path"] as? String, "channel_Files/my cat-1.png")
        XCTAssertEqual(record[object: "image"]["size"] as? Int, 449)
        XCTAssertEqual(record.text, "cat")
    }

    func testOggAttachmentIsAVoiceNote() {
        let record = run(messages: message(#""content":"","attachments":[{"id":"5","url":"f/voice-message.ogg","fileName":"voice-message.ogg","fileSizeBytes":10}]"#)).record("1")
        XCTAssertEqual(record.type, "voice")
        XCTAssertEqual(record[object: "voice"]["path"] as? String, "f/voice-message.ogg")
    }

    func testOtherAttachmentIsAFile() {
        let record = run(messages: message(#""content":"","attachments":[{"id":"5","url":"f/plan.pdf","fileName":"plan.pdf","fileSizeBytes":10}]"#)).record("1")
        XCTAssertEqual(record.type, "file")
        XCTAssertEqual(record[object: "file"]["name"] as? String, "plan.pdf")
        XCTAssertEqual(record[object: "file"]["mime"] as? String, "application/pdf")
    }

    func testCDNAttachmentIsMarkedNotDownloaded() {
        let record = run(messages: message(#""content":"","attachments":[{"id":"5","url":"https://cdn.discordapp.com/attachments/1/2/a.png","fileName":"a.png","fileSizeBytes":10}]"#)).record("1")
        XCTAssertEqual(record.type, "image")
        XCTAssertNil(record[object: "image"]["path"])
        XCTAssertEqual(record[object: "image"]["unavailable"] as? String, "not downloaded (cdn.discordapp.com)")
    }

    func testFurtherAttachmentsAndStickersFollowAsTheirOwnMessages() {
        let run = run(messages: message(#""content":"two","attachments":[{"id":"5","url":"a.pdf","fileName":"a.pdf"},{"id":"6","url":"b.jpg","fileName":"b.jpg"}],"stickers":[{"id":"7","name":"Wave","format":"Png","sourceUrl":"s/wave.png"}]"#))
        XCTAssertEqual(run.ids, ["channel-200", "1", "1#2", "1#3"])
        XCTAssertEqual(run.records.dropFirst().map { $0.type ?? "" }, ["file", "image", "sticker"])
        XCTAssertEqual(run.record("1").text, "two")
        XCTAssertNil(run.record("1#2").text)
        XCTAssertEqual(run.record("1#3")[object: "sticker"]["path"] as? String, "s/wave.png")
        XCTAssertEqual(run.record("1#2")[object: "sender"]["name"] as? String, "Alice")
    }

    func testEmbedBecomesALinkLine() {
        let record = run(messages: message(#""content":"look","embeds":[{"title":"An article","url":"https://example.com/a","description":"**short**"}]"#)).record("1")
        XCTAssertEqual(record.text, "look\n🔗 An article — https://example.com/a\n*short*")
    }

    // MARK: Robustness

    func testWrongTypesNeverTrapAndAMissingIdIsReported() {
        let run = run(messages: #"{"id":{"x":1},"type":7,"timestamp":12,"timestampEdited":false,"author":"bob","content":["x"],"attachments":{"a":1},"reactions":[{"emoji":"x","count":"many"},{"emoji":{"name":"👍"},"count":-5},{"emoji":{"name":"🔥"},"count":1e300}],"mentions":7,"embeds":[1,"x",{"title":5}],"stickers":[null]},42,"#)
        XCTAssertEqual(run.problems.count, 2, "\(run.problems)")
        XCTAssertTrue(run.problems[0].reason.contains("without an \"id\""))
        XCTAssertTrue(run.problems[1].reason.contains("not a JSON object"))
        XCTAssertEqual(run.ids.count, 2)
    }

    func testTruncatedFileKeepsTheMessagesBeforeIt() {
        let document = #"{"channel":{"id":"200","name":"general"},"messages":["# + message(#""content":"first""#) + #",{"id":"2","content":"sec"#
        let run = run(messages: "", raw: document)
        XCTAssertEqual(run.ids, ["channel-200", "1"])
        XCTAssertNotNil(run.thrown)
    }

    func testInvalidEscapeIsRepairedWithAWarning() {
        let run = run(messages: #"{"id":"1","type":"Default","timestamp":"2020-01-29T11:41:46Z","author":{"id":"10","name":"a"},"content":"caf\xe9"}"#)
        XCTAssertEqual(run.record("1").text, "café")
        XCTAssertEqual(run.warnings.count, 1)
        XCTAssertTrue(run.problems.isEmpty)
    }

    func testMessagesThatAreNotAnArrayAreReported() {
        let run = run(messages: "", raw: #"{"channel":{"id":"1","name":"x"},"messages":{"a":1}}"#)
        XCTAssertEqual(run.problems.map(\.reason), ["\"messages\" is not an array; no messages read"])
    }

    func testADocumentThatIsNotAnObjectIsRefused() {
        let run = run(messages: "", raw: "[1,2]")
        XCTAssertNotNil(run.thrown)
        XCTAssertTrue(run.records.isEmpty)
    }

    func testEveryCutAndCorruptionOfTheFixtureIsSafe() throws {
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../EndToEndTests/Fixtures/import/discord/channel.json").standardized
        let bytes = Array(try Data(contentsOf: fixture))
        let replacements: [UInt8] = [0x22, 0x7B, 0x5D, 0x5C, 0x2C, 0xFF, 0x30]
        for (step, position) in stride(from: 0, to: bytes.count, by: 67).enumerated() {
            var variants = [Array(bytes[..<position])]
            var corrupted = bytes
            corrupted[position] = replacements[step % replacements.count]
            variants.append(corrupted)
            for variant in variants {
                let recorder = ImportRecorder()
                _ = try? DiscordImporter.run(ImportInput(name: "c.json", source: ByteSource(bytes: variant)),
                                             options: ImportOptions(), sink: recorder.sink)
                XCTAssertFalse(recorder.records.contains { $0["unparsable"] != nil }, "position \(position)")
            }
        }
    }
}

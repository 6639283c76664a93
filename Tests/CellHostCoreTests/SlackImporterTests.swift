import Foundation
import XCTest
@testable import CellHostCore

fileprivate extension Dictionary where Key == String, Value == Any {
    var text: String? { self["text"] as? String }
    var type: String? { self["type"] as? String }
    subscript(object key: String) -> [String: Any] { self[key] as? [String: Any] ?? [:] }
    var reactions: [String] {
        (self["reactions"] as? [[String: Any]] ?? []).map { "\($0["emoji"] as? String ?? "?")×\($0["count"] as? Int ?? 0)" }
    }
}

final class SlackImporterTests: XCTestCase {
    // MARK: Running

    /// Runs the importer on one day file whose messages are `messages` (JSON text), as standard input.
    func run(day messages: String) -> ImportRecorder { run(raw: "[\(messages)]") }

    /// Runs the importer on `raw` as standard input.
    func run(raw: String) -> ImportRecorder {
        let recorder = ImportRecorder()
        do {
            try SlackImporter.run(ImportInput(name: "<stdin>", source: ByteSource(bytes: Array(raw.utf8))),
                                  options: ImportOptions(), sink: recorder.sink)
        } catch {
            recorder.thrown = error
        }
        return recorder
    }

    /// The text of a message whose `text` is `text` (JSON-encoded here).
    func text(_ text: String) -> String? {
        run(day: #"{"type":"message","user":"U1","ts":"1512085950.000216","text":\#(json(text))}"#).record("1512085950.000216").text
    }

    func json(_ string: String) -> String {
        let data = try! JSONSerialization.data(withJSONObject: [string])
        return String(String(decoding: data, as: UTF8.self).dropFirst().dropLast())
    }

    var temporary: URL!

    override func setUpWithError() throws {
        temporary = FileManager.default.temporaryDirectory.appendingPathComponent("slack-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: temporary)
    }

    /// Writes `files` (relative path → content) under the temporary export and reads it.
    func runExport(_ files: [String: String]) throws -> ImportRecorder {
        for (path, content) in files {
            let url = temporary.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(content.utf8).write(to: url)
        }
        let recorder = ImportRecorder()
        try SlackImporter.run(ImportInput(name: temporary.path, directory: temporary.path), options: ImportOptions(), sink: recorder.sink)
        return recorder
    }

    static let users = #"[{"id":"U1","name":"alice","real_name":"Alice Archer","profile":{"display_name":"alice.a","real_name":"Alice Archer"}},{"id":"U2","name":"bob","profile":{"display_name":"","real_name":"Bob Baker"}}]"#

    // MARK: Messages

    func testTsGivesIdAndTime() {
        let record = run(day: #"{"type":"message","user":"U1","text":"hi","ts":"1512085950.000216"}"#).record("1512085950.000216")
        XCTAssertEqual(record["time"] as? Double ?? 0, 1_512_085_950.000216, accuracy: 0.000001)
        XCTAssertEqual(record[object: "sender"]["id"] as? String, "U1")
        XCTAssertEqual(record.text, "hi")
    }

    func testThreadReplyAnswersItsParentAndTheParentAnswersNothing() {
        let run = run(day: #"{"type":"message","user":"U1","text":"q","ts":"1.000100","thread_ts":"1.000100","reply_count":1},{"type":"message","user":"U2","text":"a","ts":"2.000200","thread_ts":"1.000100","parent_user_id":"U1"}"#)
        XCTAssertNil(run.record("1.000100")["reply_to"])
        XCTAssertEqual(run.record("2.000200")["reply_to"] as? String, "1.000100")
    }

    func testEditedObjectMarksTheMessageEdited() {
        let record = run(day: #"{"type":"message","user":"U1","text":"x","ts":"1.1","edited":{"user":"U1","ts":"2.2"}}"#).record("1.1")
        XCTAssertEqual(record["edited"] as? Bool, true)
    }

    func testUserProfileNamesASenderWithoutUsersJSON() {
        let record = run(day: #"{"type":"message","user":"U9","text":"x","ts":"1.1","user_profile":{"display_name":"zed","real_name":"Zed Z"}}"#).record("1.1")
        XCTAssertEqual(record[object: "sender"]["name"] as? String, "zed")
    }

    func testBotMessageIsFromTheBotsUsername() {
        let record = run(day: #"{"type":"message","subtype":"bot_message","bot_id":"B1","username":"CI","text":"green","ts":"1.1"}"#).record("1.1")
        XCTAssertEqual(record.type, "text")
        XCTAssertEqual(record[object: "sender"]["id"] as? String, "B1")
        XCTAssertEqual(record[object: "sender"]["name"] as? String, "CI")
    }

    func testReactionsBecomeEmojiWithSkinToneAndUnknownNamesStayShortcodes() {
        let record = run(day: #"{"type":"message","user":"U1","text":"x","ts":"1.1","reactions":[{"name":"+1","count":2,"users":["U1","U2"]},{"name":"thumbsup::skin-tone-2","count":1},{"name":"partyparrot","users":["U1","U2","U3"]}]}"#).record("1.1")
        XCTAssertEqual(record.reactions, ["👍×2", "👍🏻×1", ":partyparrot:×3"])
    }

    // MARK: Text

    func testUserAndChannelMentions() {
        XCTAssertEqual(text("<@U1> <@U2|bob> <#C1|general> <#C2>"), "@U1 @bob #general #C2")
    }

    func testSpecialMentionsAndGroups() {
        XCTAssertEqual(text("<!here> <!channel> <!everyone> <!subteam^S1|@eng>"), "@here @channel @everyone @eng")
    }

    func testLinksShowLabelThenURL() {
        XCTAssertEqual(text("<https://x.com/a_b|the docs> <https://y.com> <mailto:a@b.com|a@b.com>"),
                       "the docs (https://x.com/a_b) https://y.com a@b.com")
    }

    func testEntitiesAreDecodedAndEncodedBracketsStayLiteral() {
        XCTAssertEqual(text("a &amp; b &lt;@U1&gt;"), "a & b <@U1>")
    }

    func testMrkdwnStylesBecomeCellHostMarkup() {
        XCTAssertEqual(text("*bold* _it_ ~gone~ `co*de`"), "*bold* _it_ gone `co*de`")
    }

    func testCodeBlockAndQuote() {
        XCTAssertEqual(text("```\nlet a = b * c\n```\n&gt; quoted"), "`let a = b * c`\n│ quoted")
    }

    func testShortcodesInTextBecomeEmoji() {
        XCTAssertEqual(text("done :tada: :white_check_mark: :custom-thing:"), "done 🎉 ✅ :custom-thing:")
    }

    func testLiteralMarkersAreEscaped() {
        XCTAssertEqual(text("2*3*4 and *open"), "2*3*4 and \\*open")
    }

    func testHostileTextStaysFast() {
        let hostile = String(repeating: "*a _b ~c `d <e :f ", count: 3_000)
        let start = Date()
        XCTAssertNotNil(text(hostile))
        XCTAssertLessThan(Date().timeIntervalSince(start), 10)
    }

    // MARK: Subtypes

    func testJoinTopicAndRenameAreSystemLines() {
        let run = run(day: #"{"type":"message","subtype":"channel_join","user":"U1","text":"<@U1> has joined the channel","ts":"1.1"},{"type":"message","subtype":"channel_topic","user":"U1","topic":"*news*","text":"","ts":"1.2"},{"type":"message","subtype":"channel_name","user":"U1","old_name":"a","name":"b","text":"","ts":"1.3"}"#)
        XCTAssertEqual(run.records.map { $0.type ?? "" }, ["system", "system", "system"])
        XCTAssertEqual(run.records.map { $0[object: "system"]["event"] as? String ?? "" }, ["join", "topic", "rename"])
        XCTAssertEqual(run.records.map { $0.text ?? "" }, ["U1 joined the channel", "U1 set the channel topic: *news*", "U1 renamed the channel from #a to #b"])
    }

    func testUnknownSubtypeShowsItsText() {
        let record = run(day: #"{"type":"message","subtype":"reminder_add","user":"U1","text":"<@U1|al> set up a reminder","ts":"1.1"}"#).record("1.1")
        XCTAssertEqual(record.type, "system")
        XCTAssertEqual(record.text, "@al set up a reminder")
        XCTAssertEqual(record[object: "system"]["event"] as? String, "reminder_add")
    }

    func testTombstoneIsADeletedMessage() {
        let record = run(day: #"{"type":"message","subtype":"tombstone","user":"USLACKBOT","text":"This message was deleted.","ts":"1.1"}"#).record("1.1")
        XCTAssertEqual(record.type, "text")
        XCTAssertEqual(record.text, "_This message was deleted._")
        XCTAssertEqual(record[object: "sender"]["name"] as? String, "Slackbot")
    }

    func testMeMessageIsEmphasised() {
        XCTAssertEqual(run(day: #"{"type":"message","subtype":"me_message","user":"U1","text":"waves","ts":"1.1"}"#).record("1.1").text, "_waves_")
    }

    func testMessageChangedIsAnEditAnsweringTheOriginal() {
        let run = run(day: #"{"type":"message","user":"U1","text":"teh","ts":"1.1"},{"type":"message","subtype":"message_changed","hidden":true,"ts":"2.2","message":{"type":"message","user":"U1","text":"the","ts":"1.1","edited":{"user":"U1","ts":"2.2"}}}"#)
        XCTAssertEqual(run.ids, ["1.1", "2.2"])
        XCTAssertEqual(run.record("2.2")["reply_to"] as? String, "1.1")
        XCTAssertEqual(run.record("2.2")["edited"] as? Bool, true)
        XCTAssertEqual(run.record("2.2").text, "the")
        XCTAssertTrue(run.notes.contains("1 edit event shown as replies to the edited message"))
    }

    func testHiddenEventsAreLeftOutAndCounted() {
        let run = run(day: #"{"type":"message","subtype":"message_deleted","hidden":true,"deleted_ts":"1.1","ts":"2.2"},{"type":"message","subtype":"message_replied","hidden":true,"ts":"3.3"}"#)
        XCTAssertTrue(run.records.isEmpty)
        XCTAssertTrue(run.notes.contains("2 hidden events left out"))
    }

    // MARK: Files

    func testImageFileNotDownloadedIsMarkedWithItsSize() {
        let record = run(day: #"{"type":"message","user":"U1","text":"pic","ts":"1.1","files":[{"id":"F1","name":"a.png","mimetype":"image/png","size":10,"original_w":64,"original_h":48,"url_private":"https://files.slack.com/a.png"}]}"#).record("1.1")
        XCTAssertEqual(record.type, "image")
        XCTAssertEqual(record[object: "image"]["unavailable"] as? String, "not downloaded")
        XCTAssertEqual(record[object: "image"]["width"] as? Int, 64)
        XCTAssertNil(record[object: "image"]["path"])
    }

    func testAudioFileIsAVoiceNoteWithItsDuration() {
        let record = run(day: #"{"type":"message","user":"U1","text":"","ts":"1.1","files":[{"id":"F1","name":"a.ogg","mimetype":"audio/ogg","subtype":"slack_audio","duration_ms":3100}]}"#).record("1.1")
        XCTAssertEqual(record.type, "voice")
        XCTAssertEqual(record[object: "voice"]["duration"] as? Double, 3.1)
    }

    func testDeletedAndHiddenFilesAreUnavailable() {
        let run = run(day: #"{"type":"message","user":"U1","text":"","ts":"1.1","files":[{"id":"F1","mode":"tombstone"},{"id":"F2","mode":"hidden_by_limit"}]}"#)
        XCTAssertEqual(run.ids, ["1.1", "1.1#2"])
        XCTAssertEqual(run.record("1.1")[object: "file"]["unavailable"] as? String, "deleted")
        XCTAssertEqual(run.record("1.1#2")[object: "file"]["unavailable"] as? String, "hidden by the workspace's plan limit")
    }

    // MARK: Robustness

    func testWrongTypesNeverTrap() {
        let run = run(day: #"{"type":"message","user":5,"text":["x"],"ts":17,"thread_ts":{},"edited":"yes","reactions":{"a":1},"files":[1,{"id":2,"name":[],"size":"big","original_w":-4,"duration_ms":"long"}],"attachments":"x"},"text",{"ts":"1.1","subtype":7,"reactions":[{"name":"+1","count":1e400}]}"#)
        XCTAssertEqual(run.problems.count, 2, "\(run.problems)")
        XCTAssertEqual(run.ids.count, 2)
    }

    func testBrokenDayFileIsNotFatal() {
        let run = run(raw: #"[{"type":"message","user":"U1","text":"first","ts":"1.1"},{"type":"message","user":"U1","text":"#)
        XCTAssertEqual(run.ids, ["1.1"])
        XCTAssertEqual(run.problems.count, 1, "\(run.problems)")
    }

    // MARK: Directories

    func testExportReadsConversationsInListOrderWithHeadersAndNames() throws {
        let run = try runExport([
            "users.json": Self.users,
            "channels.json": #"[{"id":"C2","name":"zeta"},{"id":"C1","name":"alpha"}]"#,
            "alpha/2020-01-02.json": #"[{"type":"message","user":"U1","text":"second day <#C2>","ts":"1577930400.000100"}]"#,
            "alpha/2020-01-01.json": #"[{"type":"message","user":"U2","text":"first day","ts":"1577844000.000100"}]"#,
            "zeta/2020-01-01.json": #"[{"type":"message","user":"U1","text":"in zeta","ts":"1577844001.000100"}]"#,
            "extra/2020-01-01.json": #"[{"type":"message","user":"U1","text":"unlisted","ts":"1577844002.000100"}]"#,
        ])
        XCTAssertEqual(run.ids, ["zeta", "zeta/1577844001.000100", "alpha", "alpha/1577844000.000100", "alpha/1577930400.000100",
                                 "extra", "extra/1577844002.000100"])
        XCTAssertEqual(run.record("zeta").text, "#zeta")
        XCTAssertEqual(run.record("zeta")[object: "system"]["event"] as? String, "conversation")
        XCTAssertEqual(run.record("alpha/1577844000.000100")[object: "sender"]["name"] as? String, "Bob Baker")
        XCTAssertEqual(run.record("alpha/1577930400.000100")[object: "sender"]["name"] as? String, "alice.a")
        XCTAssertEqual(run.record("alpha/1577930400.000100").text, "second day #zeta")
        XCTAssertTrue(run.problems.isEmpty, "\(run.problems)")
    }

    func testBrokenDayFileIsReportedWithItsPathAndLineAndTheOthersAreRead() throws {
        let run = try runExport([
            "users.json": Self.users,
            "channels.json": #"[{"id":"C1","name":"general"}]"#,
            "general/2020-01-01.json": "[\n{\"type\":\"message\",\"user\":\"U1\",\"text\":\"ok\",\"ts\":\"1.1\"},\n{\"type\": oops}\n]",
            "general/2020-01-02.json": #"[{"type":"message","user":"U1","text":"next","ts":"2.2"}]"#,
        ])
        XCTAssertEqual(run.ids, ["general", "general/1.1", "general/2.2"])
        XCTAssertEqual(run.problems.count, 1)
        XCTAssertTrue(run.problems[0].reason.hasPrefix("general/2020-01-01.json:3: "), run.problems[0].reason)
    }

    func testMissingUsersJSONShowsIdsAndSaysSo() throws {
        let run = try runExport([
            "channels.json": #"[{"id":"C1","name":"general"}]"#,
            "general/2020-01-01.json": #"[{"type":"message","user":"U1","text":"hi","ts":"1.1"}]"#,
        ])
        XCTAssertEqual(run.record("general/1.1")[object: "sender"]["name"] as? String, "U1")
        XCTAssertTrue(run.notes.contains("no users.json: senders are shown by their user ids"))
    }

    func testFilesSavedBesideTheExportAreFound() throws {
        let file = #"{"id":"F1","name":"cat.png","mimetype":"image/png","url_private":"https://files.slack.com/x"}"#
        let run = try runExport([
            "users.json": Self.users,
            "channels.json": #"[{"id":"C1","name":"general"}]"#,
            "general/2020-01-01.json": #"[{"type":"message","user":"U1","text":"","ts":"1.1","files":[\#(file)]},{"type":"message","user":"U1","text":"","ts":"2.2","files":[{"id":"F2","name":"b.pdf"}]},{"type":"message","user":"U1","text":"","ts":"3.3","files":[{"id":"..","name":"../../users.json"}]}]"#,
            "general/attachments/F1-cat.png": "png",
            "__uploads/F2/b.pdf": "pdf",
        ])
        XCTAssertEqual(run.record("general/1.1")[object: "image"]["path"] as? String, "general/attachments/F1-cat.png")
        XCTAssertEqual(run.record("general/2.2")[object: "file"]["path"] as? String, "__uploads/F2/b.pdf")
        XCTAssertNil(run.record("general/3.3")[object: "file"]["path"])
        XCTAssertEqual(run.record("general/3.3")[object: "file"]["unavailable"] as? String, "not included in the export")
    }

    func testADayFileInsideAnExportUsesItsNames() throws {
        _ = try runExport([
            "users.json": Self.users,
            "channels.json": #"[{"id":"C1","name":"general"}]"#,
            "general/2020-01-01.json": #"[{"type":"message","user":"U1","text":"hi","ts":"1.1"}]"#,
        ])
        let path = temporary.appendingPathComponent("general/2020-01-01.json").path
        let fd = open(path, O_RDONLY)
        XCTAssertGreaterThanOrEqual(fd, 0)
        defer { close(fd) }
        let recorder = ImportRecorder()
        try SlackImporter.run(ImportInput(name: path, source: ByteSource(fd: fd)), options: ImportOptions(), sink: recorder.sink)
        XCTAssertEqual(recorder.ids, ["general/1.1"])
        XCTAssertEqual(recorder.record("general/1.1")[object: "sender"]["name"] as? String, "alice.a")
    }

    func testEveryCutAndCorruptionOfADayFileIsSafe() throws {
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../EndToEndTests/Fixtures/import/slack/export/general/2024-03-04.json").standardized
        let bytes = Array(try Data(contentsOf: fixture))
        let replacements: [UInt8] = [0x22, 0x7B, 0x5D, 0x5C, 0x2C, 0xFF, 0x3C, 0x26]
        for (step, position) in stride(from: 0, to: bytes.count, by: 23).enumerated() {
            var corrupted = bytes
            corrupted[position] = replacements[step % replacements.count]
            for variant in [Array(bytes[..<position]), corrupted] {
                let recorder = run(raw: String(decoding: variant, as: UTF8.self))
                XCTAssertFalse(recorder.records.contains { $0["unparsable"] != nil }, "position \(position)")
            }
        }
    }
}

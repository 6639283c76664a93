import Foundation
import XCTest
@testable import CellHostCore

/// `MatrixImporter`: Matrix events (single, JSON Lines, arrays, Element's
/// export, `/messages` pages, `/sync` responses) to CellHost messages.
final class MatrixImporterTests: XCTestCase {

    // MARK: Running the importer

    struct Run {
        var records: [[String: Any]] = []
        var lines: [Int] = []
        var problems: [String] = []
        var warnings: [String] = []
        var notes: [String] = []
        var thrown: ImportError?

        var ids: [String] { records.map { $0["id"] as? String ?? "" } }
        var texts: [String] { records.map { $0["text"] as? String ?? "" } }
        func record(_ id: String) -> [String: Any]? { records.first { $0["id"] as? String == id } }
        func text(_ id: String) -> String? { record(id)?["text"] as? String }
    }

    private var scratch: URL!

    override func setUpWithError() throws {
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("matrix-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: scratch)
    }

    /// Runs the importer on `text`: from a file (read twice) when `file`,
    /// else as a stream read once.
    private func run(_ text: String, file: Bool = false, me: String? = nil, name: String = "events.json") throws -> Run {
        try run(bytes: Array(text.utf8), file: file, me: me, name: name)
    }

    private func run(bytes: [UInt8], file: Bool, me: String? = nil, name: String = "events.json") throws -> Run {
        var result = Run()
        let sink = ImportSink(record: { bytes, line, _ in
            let data = Data(buffer: bytes)
            if let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] {
                result.records.append(object)
                result.lines.append(line)
            } else {
                XCTFail("record is not a JSON object: \(String(decoding: data, as: UTF8.self))")
            }
        }, problem: { line, reason in result.problems.append("\(line.map(String.init) ?? "-"): \(reason)") },
           warning: { result.warnings.append($0) })
        let input: ImportInput
        var fd: Int32 = -1
        if file {
            let url = scratch.appendingPathComponent(name)
            try Data(bytes).write(to: url)
            fd = open(url.path, O_RDONLY)
            XCTAssertGreaterThanOrEqual(fd, 0)
            input = ImportInput(name: url.path, source: ByteSource(fd: fd))
        } else {
            input = ImportInput(name: "<stdin>", source: ByteSource(bytes: bytes))
        }
        defer { if fd >= 0 { close(fd) } }
        do {
            try MatrixImporter.run(input, options: ImportOptions(me: me), sink: sink)
        } catch let error as ImportError {
            result.thrown = error
        }
        result.notes = sink.notes
        return result
    }

    /// One event as JSON (`content` and extra top-level members given).
    private func event(_ id: String, _ type: String = "m.room.message", sender: String = "@bob:example.org",
                       ts: Int = 1_795_856_400_000, content: String, extra: String = "") -> String {
        #"{"type":"\#(type)","event_id":"\#(id)","sender":"\#(sender)","origin_server_ts":\#(ts),"content":\#(content)\#(extra.isEmpty ? "" : "," + extra)}"#
    }

    private func message(_ id: String, _ body: String, sender: String = "@bob:example.org", ts: Int = 1_795_856_400_000,
                         more: String = "") -> String {
        event(id, sender: sender, ts: ts, content: #"{"msgtype":"m.text","body":"\#(body)"\#(more)}"#)
    }

    private func member(_ id: String, _ user: String, _ membership: String, name: String? = nil, sender: String? = nil,
                        ts: Int = 1_795_856_400_000, previous: String? = nil) -> String {
        let displayname = name.map { #","displayname":"\#($0)""# } ?? ""
        let unsigned = previous.map { #""unsigned":{"prev_content":\#($0)}"# } ?? ""
        return event(id, "m.room.member", sender: sender ?? user, ts: ts,
                     content: #"{"membership":"\#(membership)"\#(displayname)}"#,
                     extra: #""state_key":"\#(user)""# + (unsigned.isEmpty ? "" : "," + unsigned))
    }

    // MARK: Inputs

    func test_singleEvent_mapsIdSenderTimeAndText() throws {
        let run = try self.run(message("$one", "Hello there"))
        XCTAssertEqual(run.ids, ["$one"])
        let record = try XCTUnwrap(run.record("$one"))
        XCTAssertEqual(record["type"] as? String, "text")
        XCTAssertEqual(record["text"] as? String, "Hello there")
        XCTAssertEqual((record["sender"] as? [String: Any])?["id"] as? String, "@bob:example.org")
        XCTAssertEqual((record["sender"] as? [String: Any])?["name"] as? String, "bob")
        XCTAssertEqual(record["time"] as? Double, 1_795_856_400)
        XCTAssertEqual(run.problems, [])
    }

    func test_jsonLines_andConcatenatedEvents_areAllRead_withTheirLines() throws {
        let text = message("$a", "one") + "\n" + message("$b", "two") + message("$c", "three") + "\n\n" + message("$d", "four") + "\n"
        let run = try self.run(text)
        XCTAssertEqual(run.ids, ["$a", "$b", "$c", "$d"])
        XCTAssertEqual(run.lines, [1, 2, 2, 4])
    }

    func test_rootArrayOfEvents_isRead() throws {
        let run = try self.run("[" + message("$a", "one", ts: 1000) + "," + message("$b", "two", ts: 2000) + "]")
        XCTAssertEqual(run.ids, ["$a", "$b"])
    }

    func test_elementExport_readsMessages_andExportedByMarksOutgoing() throws {
        let text = #"{"room_name":"Trip","room_creator":"Alice","topic":"","export_date":"29-11-2026","exported_by":"Alice","messages":["#
            + member("$j", "@alice:example.org", "join", name: "Alice") + ","
            + message("$a", "mine", sender: "@alice:example.org") + "," + message("$b", "theirs") + "]}"
        let run = try self.run(text, file: true)
        XCTAssertEqual(run.ids, ["$j", "$a", "$b"])
        XCTAssertEqual(run.record("$a")?["direction"] as? String, "outgoing")
        XCTAssertEqual(run.record("$b")?["direction"] as? String, "incoming")
        let withMe = try self.run(text, file: true, me: "@bob:example.org")
        XCTAssertNil(withMe.record("$a")?["direction"])
    }

    func test_exportedByAsUserID_matchesTheSenderID() throws {
        let text = #"{"exported_by":"@alice:example.org","messages":["# + message("$a", "mine", sender: "@alice:example.org") + "]}"
        XCTAssertEqual(try run(text).record("$a")?["direction"] as? String, "outgoing")
    }

    func test_decryptedPairOfElementsToJSON_readsTheDecryptedEvent() throws {
        let text = #"{"decrypted":"# + message("$a", "secret plan") + #","encrypted":{"type":"m.room.encrypted"}}"#
        XCTAssertEqual(try run(text).text("$a"), "secret plan")
    }

    func test_detection_aBigSyncResponse_whoseNextBatchComesLast() {
        let rooms = #"{"join":{"!a:x":{"timeline":{"events":["# + Array(repeating: message("$a", String(repeating: "x", count: 900)), count: 100)
            .joined(separator: ",") + "]}}}}"
        let accountData = #"{"events":[{"type":"m.push_rules","content":{"blob":"\#(String(repeating: "x", count: 70_000))"}}]}"#
        for text in [#"{"account_data":{"events":[]},"rooms":"# + rooms + #","next_batch":"s1"}"#, #"{"rooms":"# + rooms + #","next_batch":"s1"}"#,
                     #"{"account_data":"# + accountData + #","rooms":"# + rooms + #","next_batch":"s1"}"#] {
            XCTAssertEqual(FormatDetector.detect(Array(text.utf8.prefix(FormatDetector.prefixLimit)), atEnd: false), .format(.matrix))
        }
    }

    // MARK: Order

    private var newestFirstPage: String {
        #"{"chunk":["#
            + [message("$c", "third", ts: 3000), message("$b", "second", ts: 2000), message("$a", "first", ts: 1000)].joined(separator: ",")
            + #"],"start":"t3","end":"t0","state":["# + member("$m", "@bob:example.org", "join", name: "Bob") + "]}"
    }

    func test_messagesPage_newestFirst_fromAFile_isShownOldestFirst() throws {
        let run = try self.run(newestFirstPage, file: true)
        XCTAssertEqual(run.ids, ["$a", "$b", "$c"])
        XCTAssertEqual(run.lines, [1, 1, 1])
    }

    func test_messagesPage_newestFirst_fromAStream_isHeldAndShownOldestFirst() throws {
        let run = try self.run(newestFirstPage)
        XCTAssertEqual(run.ids, ["$a", "$b", "$c"])
    }

    func test_messagesPage_stateNamesTheSenders_evenAfterTheChunk() throws {
        for file in [true, false] {
            let run = try self.run(newestFirstPage, file: file)
            XCTAssertEqual(run.records.compactMap { ($0["sender"] as? [String: Any])?["name"] as? String }, ["Bob", "Bob", "Bob"])
        }
    }

    func test_messagesPage_oldestFirst_staysInOrder() throws {
        let text = #"{"chunk":["# + message("$a", "first", ts: 1000) + "," + message("$b", "second", ts: 2000) + #"]}"#
        XCTAssertEqual(try run(text, file: true).ids, ["$a", "$b"])
        XCTAssertEqual(try run(text).ids, ["$a", "$b"])
    }

    func test_rootArray_newestFirst_fromAFile_isReversed_withEachEventsLine() throws {
        let text = "[\n" + message("$b", "second", ts: 2000) + ",\n" + message("$a", "first", ts: 1000) + "\n]\n"
        let run = try self.run(text, file: true)
        XCTAssertEqual(run.ids, ["$a", "$b"])
        XCTAssertEqual(run.lines, [3, 2])
    }

    func test_sync_readsEachRoomsTimeline_afterAConversationLine_andItsStateForNames() throws {
        let text = #"{"next_batch":"s1","rooms":{"join":{"!one:x":{"state":{"events":["#
            + member("$m1", "@bob:example.org", "join", name: "Bob") + ","
            + event("$n1", "m.room.name", content: #"{"name":"Family"}"#, extra: #""state_key":"""#)
            + #"]},"timeline":{"events":["# + message("$a", "hi") + #"],"limited":false}},"!two:x":{"timeline":{"events":["#
            + message("$b", "yo") + #"]}}},"invite":{"!three:x":{"invite_state":{"events":[]}}}}}"#
        for file in [true, false] {
            let run = try self.run(text, file: file)
            XCTAssertEqual(run.ids, ["!one:x", "$a", "!two:x", "$b"])
            XCTAssertEqual(run.text("!one:x"), "Family")
            XCTAssertEqual((run.record("!one:x")?["system"] as? [String: Any])?["event"] as? String, "conversation")
            XCTAssertEqual((run.record("$a")?["sender"] as? [String: Any])?["name"] as? String, "Bob")
        }
    }

    func test_sync_membersBeforeTheRooms_areNotTakenForAnEvent() throws {
        let big = String(repeating: "x", count: 1 << 20)
        let text = #"{"account_data":{"events":[{"type":"x","content":{"blob":"\#(big)"}}]},"rooms":{"join":{"!a:x":{"timeline":{"events":["#
            + message("$a", "hi") + #"]}}}},"next_batch":"s1"}"#
        let run = try self.run(text, file: true)
        XCTAssertEqual(run.ids, ["!a:x", "$a"])
        XCTAssertEqual(run.problems, [])
    }

    // MARK: Names

    func test_senderName_isTheDisplayNameCurrentAtEachMessage() throws {
        let text = [
            member("$j", "@bob:example.org", "join", name: "Bob", ts: 1000),
            message("$a", "before", ts: 2000),
            member("$r", "@bob:example.org", "join", name: "Bobby", ts: 3000, previous: #"{"membership":"join","displayname":"Bob"}"#),
            message("$b", "after", ts: 4000),
        ].joined(separator: "\n")
        for file in [true, false] {
            let run = try self.run(text, file: file)
            XCTAssertEqual(run.records.compactMap { ($0["sender"] as? [String: Any])?["name"] as? String }, ["Bob", "Bob", "Bob", "Bobby"])
            XCTAssertEqual(run.text("$r"), "Bob changed their name to Bobby")
        }
    }

    func test_fromAFile_theFirstNameIsKnownBeforeTheRename() throws {
        // No join event: the rename says what the name was before.
        let text = [
            message("$a", "before", ts: 2000),
            member("$r", "@bob:example.org", "join", name: "Bobby", ts: 3000, previous: #"{"membership":"join","displayname":"Bob"}"#),
        ].joined(separator: "\n")
        let run = try self.run(text, file: true)
        XCTAssertEqual((run.record("$a")?["sender"] as? [String: Any])?["name"] as? String, "Bob")
    }

    // MARK: Text

    func test_plainBody_isEscapedLiteralText() throws {
        XCTAssertEqual(try run(message("$a", "use *stars* and _under_")).text("$a"), #"use \*stars\* and \_under\_"#)
    }

    func test_formattedBody_becomesMarkup() throws {
        let html = #"<b>bold</b>, <em>it</em>, <code>x*y</code> and <a href=\"https://example.org/a\">a link</a>"#
        let run = try self.run(message("$a", "plain", more: #","format":"org.matrix.custom.html","formatted_body":"\#(html)""#))
        XCTAssertEqual(run.text("$a"), "*bold*, _it_, `x*y` and a link (https://example.org/a)")
    }

    func test_formattedBody_inAnotherFormat_usesTheBody() throws {
        let run = try self.run(message("$a", "the body", more: #","format":"text/markdown","formatted_body":"**md**""#))
        XCTAssertEqual(run.text("$a"), "the body")
    }

    func test_notice_isPlainText() throws {
        let run = try self.run(event("$a", content: #"{"msgtype":"m.notice","body":"Build passed"}"#))
        XCTAssertEqual(run.record("$a")?["type"] as? String, "text")
        XCTAssertEqual(run.text("$a"), "Build passed")
    }

    func test_emote_startsWithAStarAndTheSendersName() throws {
        let text = member("$j", "@carol:example.org", "join", name: "Carol") + "\n"
            + event("$a", sender: "@carol:example.org", content: #"{"msgtype":"m.emote","body":"waves"}"#)
        XCTAssertEqual(try run(text).text("$a"), #"\* Carol waves"#)
    }

    func test_unknownMsgtype_showsItsBody() throws {
        XCTAssertEqual(try run(event("$a", content: #"{"msgtype":"org.example.custom","body":"fallback text"}"#)).text("$a"), "fallback text")
    }

    // MARK: Replies and threads

    func test_reply_fallbackRemovedFromBody_andReplyToSet() throws {
        let content = #"{"msgtype":"m.text","body":"> <@alice:example.org> Original\n> second line\n\nMy answer","m.relates_to":{"m.in_reply_to":{"event_id":"$orig"}}}"#
        let run = try self.run(event("$a", content: content))
        XCTAssertEqual(run.text("$a"), "My answer")
        XCTAssertEqual(run.record("$a")?["reply_to"] as? String, "$orig")
    }

    func test_reply_mxReplyRemovedFromFormattedBody() throws {
        let content = #"{"msgtype":"m.text","body":"> <@a:x> q\n\nanswer","format":"org.matrix.custom.html","formatted_body":"<mx-reply><blockquote><a href=\"https://matrix.to/#/@a:x\">a</a><br>q</blockquote></mx-reply>the <i>answer</i>","m.relates_to":{"m.in_reply_to":{"event_id":"$q"}}}"#
        let run = try self.run(event("$a", content: content))
        XCTAssertEqual(run.text("$a"), "the _answer_")
        XCTAssertEqual(run.record("$a")?["reply_to"] as? String, "$q")
    }

    func test_quoteAtTheStartOfANonReply_isKept() throws {
        XCTAssertEqual(try run(message("$a", "> <@a:x> not a reply\\n\\ntext")).text("$a"), "> <@a:x> not a reply\n\ntext")
    }

    func test_threadMessage_repliesToTheRoot_unlessItsReplyIsReal() throws {
        let fallback = #"{"msgtype":"m.text","body":"in thread","m.relates_to":{"rel_type":"m.thread","event_id":"$root","is_falling_back":true,"m.in_reply_to":{"event_id":"$latest"}}}"#
        let real = #"{"msgtype":"m.text","body":"answer","m.relates_to":{"rel_type":"m.thread","event_id":"$root","is_falling_back":false,"m.in_reply_to":{"event_id":"$other"}}}"#
        let run = try self.run(event("$a", content: fallback) + "\n" + event("$b", content: real))
        XCTAssertEqual(run.record("$a")?["reply_to"] as? String, "$root")
        XCTAssertEqual(run.record("$b")?["reply_to"] as? String, "$other")
    }

    // MARK: Media

    private func payload(_ run: Run, _ id: String) -> [String: Any]? {
        guard let record = run.record(id), let type = record["type"] as? String else { return nil }
        return record[type] as? [String: Any]
    }

    func test_image_mapsItsInfo_andAnMxcURLIsNotDownloaded() throws {
        let content = #"{"msgtype":"m.image","body":"cat.png","url":"mxc://example.org/abc","info":{"w":640,"h":480,"mimetype":"image/png","size":449}}"#
        let run = try self.run(event("$a", content: content))
        XCTAssertEqual(run.record("$a")?["type"] as? String, "image")
        let image = try XCTUnwrap(payload(run, "$a"))
        XCTAssertEqual(image["width"] as? Int, 640)
        XCTAssertEqual(image["height"] as? Int, 480)
        XCTAssertEqual(image["mime"] as? String, "image/png")
        XCTAssertEqual(image["size"] as? Int, 449)
        XCTAssertEqual(image["name"] as? String, "cat.png")
        XCTAssertNil(image["path"])
        XCTAssertEqual(image["unavailable"] as? String, "not downloaded (mxc://example.org/abc)")
    }

    func test_image_encryptedFileURL_isNotDownloadedEither() throws {
        let content = #"{"msgtype":"m.image","body":"x.png","file":{"url":"mxc://example.org/enc","v":"v2"}}"#
        XCTAssertEqual(payload(try run(event("$a", content: content)), "$a")?["unavailable"] as? String, "not downloaded (mxc://example.org/enc)")
    }

    func test_image_besideAnElementExport_isFound() throws {
        let images = scratch.appendingPathComponent("images")
        try FileManager.default.createDirectory(at: images, withIntermediateDirectories: true)
        try Data([1]).write(to: images.appendingPathComponent("cat-28-11-2026 at 09-00-00.png"))
        let content = #"{"msgtype":"m.image","body":"cat.png","url":"mxc://example.org/abc"}"#
        let run = try self.run(#"{"exported_by":"A","messages":["# + event("$a", content: content) + "]}", file: true)
        XCTAssertEqual(payload(run, "$a")?["path"] as? String, "images/cat-28-11-2026 at 09-00-00.png")
        XCTAssertNil(payload(run, "$a")?["unavailable"])
    }

    func test_media_twoFilesOfTheSameName_theOneWithTheEventsMinutesAndSecondsIsTaken() throws {
        let files = scratch.appendingPathComponent("files")
        try FileManager.default.createDirectory(at: files, withIntermediateDirectories: true)
        // 1795856400000 ms is 2026-11-28 09:00:00 UTC; 1795857930000 is 09:25:30.
        try Data([1]).write(to: files.appendingPathComponent("notes-11-28-2026 at 10-00-00 AM.txt"))
        try Data([1]).write(to: files.appendingPathComponent("notes-11-28-2026 at 10-25-30 AM.txt"))
        let content = #"{"msgtype":"m.file","body":"notes.txt","url":"mxc://example.org/n"}"#
        let run = try self.run(event("$a", ts: 1_795_857_930_000, content: content) + "\n" + event("$b", ts: 1_795_857_931_000, content: content),
                               file: true)
        XCTAssertEqual(payload(run, "$a")?["path"] as? String, "files/notes-11-28-2026 at 10-25-30 AM.txt")
        XCTAssertNil(payload(run, "$b")?["path"], "no file has the time 25-31")
    }

    func test_media_aRelativeURL_isThePath() throws {
        let content = #"{"msgtype":"m.file","body":"a.pdf","url":"files/a.pdf"}"#
        XCTAssertEqual(payload(try run(event("$a", content: content)), "$a")?["path"] as? String, "files/a.pdf")
    }

    func test_image_withFilename_hasTheBodyAsCaption() throws {
        let content = #"{"msgtype":"m.image","body":"Look at *this*","filename":"sunset.jpg","url":"mxc://x/y"}"#
        let run = try self.run(event("$a", content: content))
        XCTAssertEqual(run.text("$a"), #"Look at \*this\*"#)
        XCTAssertEqual(payload(run, "$a")?["name"] as? String, "sunset.jpg")
    }

    func test_voice_fromItsMarks_withDurationInSecondsAndWaveformScaled() throws {
        let content = #"{"msgtype":"m.audio","body":"Voice message","url":"mxc://x/v","info":{"duration":9000,"mimetype":"audio/ogg"},"org.matrix.msc1767.audio":{"duration":4200,"waveform":[0,512,1024,2000,-5,"x"]},"org.matrix.msc3245.voice":{}}"#
        let run = try self.run(event("$a", content: content))
        XCTAssertEqual(run.record("$a")?["type"] as? String, "voice")
        let voice = try XCTUnwrap(payload(run, "$a"))
        XCTAssertEqual(voice["duration"] as? Double, 4.2)
        XCTAssertEqual(voice["waveform"] as? [Double], [0, 0.5, 1, 1, 0])
    }

    func test_audioWithAWaveformOnly_isVoice_andPlainAudioIsAFile() throws {
        let described = #"{"msgtype":"m.audio","body":"a.ogg","url":"mxc://x/a","org.matrix.msc1767.audio":{"duration":1000}}"#
        let plain = #"{"msgtype":"m.audio","body":"song.mp3","url":"mxc://x/b","info":{"duration":185000,"mimetype":"audio/mpeg","size":100}}"#
        let run = try self.run(event("$a", content: described) + "\n" + event("$b", content: plain))
        XCTAssertEqual(run.record("$a")?["type"] as? String, "voice")
        XCTAssertEqual(payload(run, "$a")?["duration"] as? Double, 1)
        XCTAssertEqual(run.record("$b")?["type"] as? String, "file")
        XCTAssertEqual(payload(run, "$b")?["name"] as? String, "song.mp3")
        XCTAssertEqual(payload(run, "$b")?["mime"] as? String, "audio/mpeg")
        XCTAssertNil(payload(run, "$b")?["duration"])
    }

    func test_video_andFile_mapTheirInfo() throws {
        let video = #"{"msgtype":"m.video","body":"waves.mp4","url":"mxc://x/v","info":{"w":1280,"h":720,"duration":12000,"mimetype":"video/mp4","size":4200000}}"#
        let file = #"{"msgtype":"m.file","body":"plan.pdf","url":"mxc://x/f","info":{"mimetype":"application/pdf","size":1268}}"#
        let run = try self.run(event("$v", content: video) + "\n" + event("$f", content: file))
        XCTAssertEqual(run.record("$v")?["type"] as? String, "video")
        XCTAssertEqual(payload(run, "$v")?["duration"] as? Double, 12)
        XCTAssertEqual(payload(run, "$v")?["width"] as? Int, 1280)
        XCTAssertEqual(run.record("$f")?["type"] as? String, "file")
        XCTAssertEqual(payload(run, "$f")?["size"] as? Int, 1268)
        XCTAssertEqual(payload(run, "$f")?["name"] as? String, "plan.pdf")
    }

    func test_location_fromGeoURI() throws {
        let content = #"{"msgtype":"m.location","body":"Café Lumière","geo_uri":"geo:51.5008,-0.1247;u=35"}"#
        let run = try self.run(event("$a", content: content))
        XCTAssertEqual(run.record("$a")?["type"] as? String, "location")
        let location = try XCTUnwrap(run.record("$a")?["location"] as? [String: Any])
        XCTAssertEqual(location["lat"] as? Double, 51.5008)
        XCTAssertEqual(location["lon"] as? Double, -0.1247)
        XCTAssertEqual(location["name"] as? String, "Café Lumière")
        XCTAssertEqual(run.text("$a"), "📍 Café Lumière")
        let unnamed = try self.run(event("$b", content: #"{"msgtype":"m.location","body":"geo:1.5,2","geo_uri":"geo:1.5,2"}"#))
        XCTAssertEqual(unnamed.text("$b"), "📍 1.5, 2.0")
    }

    func test_location_unreadableGeoURI_isItsBodyAsText() throws {
        for uri in ["geo:abc", "geo:91,0", "http://x", "geo:1e999,0"] {
            let run = try self.run(event("$a", content: #"{"msgtype":"m.location","body":"somewhere","geo_uri":"\#(uri)"}"#))
            XCTAssertEqual(run.record("$a")?["type"] as? String, "text", uri)
            XCTAssertEqual(run.text("$a"), "somewhere")
        }
    }

    func test_sticker_isASticker() throws {
        let run = try self.run(event("$s", "m.sticker", content: #"{"body":"Waving cat","url":"mxc://x/s","info":{"w":256,"h":256,"mimetype":"image/png"}}"#))
        XCTAssertEqual(run.record("$s")?["type"] as? String, "sticker")
        XCTAssertEqual(payload(run, "$s")?["width"] as? Int, 256)
        XCTAssertEqual(payload(run, "$s")?["name"] as? String, "Waving cat")
    }

    // MARK: Edits

    private func edit(_ id: String, of target: String, _ body: String, sender: String = "@bob:example.org", ts: Int) -> String {
        event(id, sender: sender, ts: ts,
              content: #"{"msgtype":"m.text","body":"* \#(body)","m.new_content":{"msgtype":"m.text","body":"\#(body)"},"m.relates_to":{"rel_type":"m.replace","event_id":"\#(target)"}}"#)
    }

    func test_edit_fromAFile_isAppliedToItsMessage_andNotShownItself() throws {
        let text = [message("$a", "teh typo", ts: 1000), message("$b", "next", ts: 2000), edit("$e", of: "$a", "the typo", ts: 3000)]
            .joined(separator: "\n")
        let run = try self.run(text, file: true)
        XCTAssertEqual(run.ids, ["$a", "$b"])
        XCTAssertEqual(run.text("$a"), "the typo")
        XCTAssertEqual(run.record("$a")?["edited"] as? Bool, true)
        XCTAssertNil(run.record("$b")?["edited"])
        XCTAssertEqual(run.warnings, [])
        XCTAssertTrue(run.notes.contains("1 edit applied"), "\(run.notes)")
    }

    func test_edit_theLatestByTimestampWins_whateverTheOrder() throws {
        let text = [message("$a", "v1", ts: 1000), edit("$e3", of: "$a", "v3", ts: 3000), edit("$e2", of: "$a", "v2", ts: 2000)]
            .joined(separator: "\n")
        XCTAssertEqual(try run(text, file: true).text("$a"), "v3")
    }

    func test_edit_byAnotherSender_isIgnored() throws {
        let text = [message("$a", "mine", ts: 1000), edit("$e", of: "$a", "hijacked", sender: "@mallory:example.org", ts: 2000)]
            .joined(separator: "\n")
        let run = try self.run(text, file: true)
        XCTAssertEqual(run.text("$a"), "mine")
        XCTAssertNil(run.record("$a")?["edited"])
    }

    func test_edit_canChangeTheMessageType() throws {
        let newContent = #"{"msgtype":"m.text","body":"x","m.new_content":{"msgtype":"m.location","body":"Here","geo_uri":"geo:1,2"},"m.relates_to":{"rel_type":"m.replace","event_id":"$a"}}"#
        let run = try self.run(message("$a", "text first", ts: 1000) + "\n" + event("$e", ts: 2000, content: newContent), file: true)
        XCTAssertEqual(run.record("$a")?["type"] as? String, "location")
    }

    func test_bundledEdit_inUnsigned_isApplied() throws {
        let unsigned = #""unsigned":{"m.relations":{"m.replace":{"event_id":"$e","sender":"@bob:example.org","origin_server_ts":2000,"content":{"body":"* new","m.new_content":{"msgtype":"m.text","body":"new"}}}}}"#
        let run = try self.run(event("$a", ts: 1000, content: #"{"msgtype":"m.text","body":"old"}"#, extra: unsigned))
        XCTAssertEqual(run.text("$a"), "new")
        XCTAssertEqual(run.record("$a")?["edited"] as? Bool, true)
    }

    func test_bundledEdit_withoutContent_marksEditedOnly() throws {
        let unsigned = #""unsigned":{"m.relations":{"m.replace":{"event_id":"$e","origin_server_ts":2000,"sender":"@bob:example.org"}}}"#
        let run = try self.run(event("$a", ts: 1000, content: #"{"msgtype":"m.text","body":"server replaced"}"#, extra: unsigned))
        XCTAssertEqual(run.text("$a"), "server replaced")
        XCTAssertEqual(run.record("$a")?["edited"] as? Bool, true)
    }

    // MARK: Reactions

    private func reaction(_ id: String, on target: String, _ key: String, sender: String = "@carol:example.org", ts: Int = 5000) -> String {
        event(id, "m.reaction", sender: sender, ts: ts, content: #"{"m.relates_to":{"rel_type":"m.annotation","event_id":"\#(target)","key":"\#(key)"}}"#)
    }

    func test_reactions_areCountedPerKey_onTheirMessage() throws {
        let text = [message("$a", "hello", ts: 1000), reaction("$r1", on: "$a", "👍"), reaction("$r2", on: "$a", "👍", sender: "@dave:x"),
                    reaction("$r3", on: "$a", "❤️")].joined(separator: "\n")
        let run = try self.run(text, file: true)
        XCTAssertEqual(run.ids, ["$a"])
        let reactions = try XCTUnwrap(run.record("$a")?["reactions"] as? [[String: Any]])
        XCTAssertEqual(reactions.map { $0["emoji"] as? String }, ["👍", "❤️"])
        XCTAssertEqual(reactions.map { $0["count"] as? Int }, [2, 1])
    }

    func test_deletedReaction_isNotCounted() throws {
        let text = [message("$a", "hello", ts: 1000), reaction("$r1", on: "$a", "👍"), reaction("$r2", on: "$a", "👍"),
                    event("$x", "m.room.redaction", content: "{}", extra: #""redacts":"$r2""#)].joined(separator: "\n")
        let run = try self.run(text, file: true)
        XCTAssertEqual((run.record("$a")?["reactions"] as? [[String: Any]])?.first?["count"] as? Int, 1)
        XCTAssertEqual(run.text("$a"), "hello")
        XCTAssertEqual(run.notes.filter { $0.contains("not in the input") }, [])
    }

    func test_bundledAnnotationCounts_areTakenWhenHigher() throws {
        let unsigned = #""unsigned":{"m.relations":{"m.annotation":{"chunk":[{"type":"m.reaction","key":"🎉","count":3},{"key":"👍","count":1}]}}}"#
        let text = event("$a", ts: 1000, content: #"{"msgtype":"m.text","body":"done"}"#, extra: unsigned) + "\n"
            + reaction("$r1", on: "$a", "👍") + "\n" + reaction("$r2", on: "$a", "👍")
        let reactions = try XCTUnwrap(try run(text, file: true).record("$a")?["reactions"] as? [[String: Any]])
        XCTAssertEqual(reactions.map { "\($0["emoji"] as? String ?? "") \($0["count"] as? Int ?? 0)" }, ["👍 2", "🎉 3"])
    }

    // MARK: Deletions

    func test_redaction_showsItsTargetAsDeleted_bothSpellings() throws {
        let text = [message("$a", "oops", ts: 1000), message("$b", "oops too", ts: 1500),
                    event("$x", "m.room.redaction", ts: 2000, content: "{}", extra: #""redacts":"$a""#),
                    event("$y", "m.room.redaction", ts: 2000, content: #"{"redacts":"$b"}"#)].joined(separator: "\n")
        let run = try self.run(text, file: true)
        XCTAssertEqual(run.ids, ["$a", "$b"])
        XCTAssertEqual(run.texts, [MatrixTimeline.deletedText, MatrixTimeline.deletedText])
        XCTAssertEqual(run.record("$a")?["type"] as? String, "text")
    }

    func test_redactedBecause_showsTheMessageAsDeleted() throws {
        let unsigned = #""unsigned":{"redacted_because":{"type":"m.room.redaction","redacts":"$a"}}"#
        let run = try self.run(event("$a", content: "{}", extra: unsigned))
        XCTAssertEqual(run.text("$a"), MatrixTimeline.deletedText)
    }

    func test_deletedMessage_dropsItsEditsAndReactions() throws {
        let text = [message("$a", "secret", ts: 1000), edit("$e", of: "$a", "still secret", ts: 1500), reaction("$r", on: "$a", "👍"),
                    event("$x", "m.room.redaction", ts: 2000, content: "{}", extra: #""redacts":"$a""#)].joined(separator: "\n")
        let record = try XCTUnwrap(try run(text, file: true).record("$a"))
        XCTAssertEqual(record["text"] as? String, MatrixTimeline.deletedText)
        XCTAssertNil(record["reactions"])
        XCTAssertNil(record["edited"])
    }

    // MARK: Read once

    func test_stream_relationsAfterTheirMessage_areCountedInOneWarning() throws {
        let text = [message("$a", "v1", ts: 1000), edit("$e", of: "$a", "v2", ts: 2000), reaction("$r1", on: "$a", "👍"),
                    reaction("$r2", on: "$a", "👍"), event("$x", "m.room.redaction", ts: 3000, content: "{}", extra: #""redacts":"$a""#)]
            .joined(separator: "\n")
        let run = try self.run(text)
        XCTAssertEqual(run.text("$a"), "v1")
        XCTAssertEqual(run.warnings, ["1 edit, 2 reactions and 1 deletion not applied: they came after their message "
                                      + "(or it is not in the input), and this input cannot be read twice; give the file's path instead to apply them"])
        XCTAssertEqual(run.problems, [])
        let fromFile = try self.run(text, file: true)
        XCTAssertEqual(fromFile.warnings, [])
        XCTAssertEqual(fromFile.text("$a"), MatrixTimeline.deletedText)
    }

    func test_stream_relationsBeforeTheirMessage_areApplied() throws {
        let text = [reaction("$r1", on: "$a", "👍"), edit("$e", of: "$a", "v2", ts: 2000), message("$a", "v1", ts: 1000)].joined(separator: "\n")
        let run = try self.run(text)
        XCTAssertEqual(run.text("$a"), "v2")
        XCTAssertEqual((run.record("$a")?["reactions"] as? [[String: Any]])?.first?["count"] as? Int, 1)
        XCTAssertEqual(run.warnings, [])
    }

    func test_stream_heldPage_appliesItsOwnRelations() throws {
        // dir=b: the edit and reaction (newer) come before their message.
        let text = #"{"chunk":["# + [reaction("$r", on: "$a", "👍", ts: 3000), edit("$e", of: "$a", "v2", ts: 2000), message("$a", "v1", ts: 1000)]
            .joined(separator: ",") + "]}"
        let run = try self.run(text)
        XCTAssertEqual(run.ids, ["$a"])
        XCTAssertEqual(run.text("$a"), "v2")
        XCTAssertEqual(run.warnings, [])
    }

    func test_file_relationsAboutEventsNotInTheInput_areANote() throws {
        let run = try self.run(message("$a", "x", ts: 1000) + "\n" + reaction("$r", on: "$gone", "👍"), file: true)
        XCTAssertEqual(run.warnings, [])
        XCTAssertTrue(run.notes.contains("1 reaction about events not in the input"), "\(run.notes)")
    }

    // MARK: Other events

    func test_encrypted_isShownAsEncrypted() throws {
        let run = try self.run(event("$a", "m.room.encrypted", content: #"{"algorithm":"m.megolm.v1.aes-sha2","ciphertext":"AAA"}"#))
        XCTAssertEqual(run.record("$a")?["type"] as? String, "encrypted")
        XCTAssertEqual(run.text("$a"), "🔒 Encrypted message (not decrypted in this export)")
    }

    func test_stateEvents_areSystemLines() throws {
        let alice = "@alice:example.org"
        let text = [
            event("$c", "m.room.create", sender: alice, content: "{}", extra: #""state_key":"""#),
            member("$j", alice, "join", name: "Alice"),
            event("$n", "m.room.name", sender: alice, content: #"{"name":"Trip"}"#, extra: #""state_key":"""#),
            event("$t", "m.room.topic", sender: alice, content: #"{"topic":"Sea"}"#, extra: #""state_key":"""#),
            member("$i", "@bob:example.org", "invite", name: "Bob", sender: alice),
            member("$k", "@bob:example.org", "leave", sender: alice, previous: #"{"membership":"join","displayname":"Bob"}"#),
            member("$b", "@dave:example.org", "ban", sender: alice),
            member("$l", "@carol:example.org", "leave", previous: #"{"membership":"join","displayname":"Carol"}"#),
            event("$p", "m.room.power_levels", sender: alice, content: "{}", extra: #""state_key":"""#),
            event("$w", "im.vector.modular.widgets", sender: alice, content: "{}", extra: #""state_key":"w""#),
        ].joined(separator: "\n")
        let run = try self.run(text)
        // Read once, the creator's name is not known yet when the room is created.
        XCTAssertEqual(run.texts, ["alice created the room", "Alice joined", "Alice changed the room name to “Trip”",
                                   "Alice changed the topic to “Sea”", "Alice invited Bob", "Alice removed Bob", "Alice banned dave",
                                   "Carol left", "Alice changed the room's power levels"])
        XCTAssertEqual(run.records.compactMap { ($0["system"] as? [String: Any])?["event"] as? String },
                       ["create", "join", "name", "topic", "invite", "kick", "ban", "leave", "settings"])
        XCTAssertEqual(Set(run.records.compactMap { $0["type"] as? String }), ["system"])
        XCTAssertEqual(try self.run(text, file: true).texts.first, "Alice created the room")
    }

    func test_unknownEventTypes_areSkipped_andCountedInTheSummary() throws {
        let text = [event("$a", "org.example.whiteboard", content: "{}"), event("$b", "org.example.whiteboard", content: "{}"),
                    event("$c", "m.call.hangup", content: "{}"), message("$d", "kept")].joined(separator: "\n")
        let run = try self.run(text)
        XCTAssertEqual(run.ids, ["$d"])
        XCTAssertTrue(run.notes.contains("3 events of other types skipped (org.example.whiteboard, m.call.hangup)"), "\(run.notes)")
    }

    // MARK: Damage

    func test_truncatedFile_showsEverythingBefore_thenFailsWithTheLine() throws {
        let text = #"{"chunk":[\#n"# + message("$b", "second", ts: 2000) + ",\n" + message("$a", "first", ts: 1000) + ",\n" + #"{"type":"m.room.mess"#
        for file in [true, false] {
            let run = try self.run(text, file: file)
            XCTAssertEqual(run.ids, ["$a", "$b"], "file: \(file)")
            let thrown = try XCTUnwrap(run.thrown)
            XCTAssertEqual(thrown.line, 4)
            XCTAssertTrue(thrown.reason.contains("truncated"), thrown.reason)
        }
    }

    func test_wrongTypesEverywhere_neverTrap_andKeepWhatCanBeRead() throws {
        let hostile = [
            #"{"type":42,"event_id":"$t"}"#,
            #"{"type":"m.room.message","event_id":["x"],"sender":{"a":1},"origin_server_ts":"yesterday","content":{"msgtype":7,"body":["x"]}}"#,
            #"{"type":"m.room.message","event_id":"$c","origin_server_ts":1e300,"content":"text"}"#,
            #"{"type":"m.room.message","event_id":"$i","origin_server_ts":-9223372036854775809,"content":{"msgtype":"m.image","body":5,"url":7,"info":{"w":1e30,"h":-4,"size":"big","mimetype":[]}}}"#,
            #"{"type":"m.room.message","event_id":"$v","content":{"msgtype":"m.audio","body":"v","org.matrix.msc3245.voice":1,"org.matrix.msc1767.audio":{"duration":-1,"waveform":{"a":1}}}}"#,
            #"{"type":"m.room.message","event_id":"$l","content":{"msgtype":"m.location","geo_uri":["geo:1,2"]}}"#,
            #"{"type":"m.room.message","event_id":"$r","content":{"msgtype":"m.text","body":"x","m.relates_to":{"m.in_reply_to":"nope","rel_type":5}}}"#,
            #"{"type":"m.reaction","event_id":"$re","content":{"m.relates_to":{"rel_type":"m.annotation","event_id":7,"key":null}}}"#,
            #"{"type":"m.room.redaction","event_id":"$rd","redacts":{"x":1}}"#,
            #"{"type":"m.room.member","event_id":"$m","state_key":5,"content":{"membership":["join"],"displayname":9}}"#,
            #"{"type":"m.room.message","event_id":"$u","unsigned":{"m.relations":{"m.annotation":{"chunk":[{"key":"👍","count":1e99},{"key":5}]},"m.replace":[]}},"content":{"msgtype":"m.text","body":"u"}}"#,
            #"[1,2]"#, #""just a string""#, #"null"#,
        ].joined(separator: "\n")
        for file in [true, false] {
            let run = try self.run(hostile, file: file)
            XCTAssertEqual(run.ids, ["", "$i", "$v", "$l", "$r", "$u"], "file: \(file)")
            XCTAssertEqual(run.record("$i")?["type"] as? String, "image")
            XCTAssertEqual(run.record("")?["time"] as? String, "yesterday")
            XCTAssertEqual((run.record("$u")?["reactions"] as? [[String: Any]])?.first?["count"] as? Int, 1_000_000_000)
            XCTAssertEqual(run.problems.count, 6, "\(run.problems)")
            XCTAssertNil(run.thrown)
        }
    }

    func test_invalidEscapes_areRepaired_withAWarning() throws {
        let run = try self.run(#"{"type":"m.room.message","event_id":"$a","content":{"msgtype":"m.text","body":"caf\xe9 \q"}}"#)
        XCTAssertEqual(run.text("$a"), #"café \q"#)
        XCTAssertEqual(run.warnings, [#"line 1: 2 invalid escapes, the first \xe9 read as text"#])
        XCTAssertEqual(run.problems, [])
    }

    func test_enormousStrings_areReadInReasonableTime() throws {
        let body = String(repeating: "word *star* _x_ ", count: 16_384)
        let html = String(repeating: "<b><i><a href='x'>", count: 20_000) + "deep" + String(repeating: "</b>", count: 20_000)
            + String(repeating: "&amp;&#x1F600;<", count: 20_000)
        let text = message("$a", body) + "\n" + event("$b", content: #"{"msgtype":"m.text","body":"b","format":"org.matrix.custom.html","formatted_body":"\#(html)"}"#)
        let start = Date()
        let run = try self.run(text, file: true)
        XCTAssertEqual(run.ids, ["$a", "$b"])
        XCTAssertEqual(run.text("$a")?.count, ImportText.escaped(body).count)
        XCTAssertTrue(run.text("$b")?.contains("deep") == true)
        XCTAssertLessThan(Date().timeIntervalSince(start), 20)
    }

    // MARK: HTML

    func test_html_blocks_lists_quotes_andCode() {
        XCTAssertEqual(MatrixHTML.markup("<p>Packing:</p>\n<ul>\n<li><code>tent</code></li>\n<li>a &amp; b</li>\n</ul>"),
                       "Packing:\n• `tent`\n• a & b")
        XCTAssertEqual(MatrixHTML.markup("<ol start=\"3\"><li>one</li><li>two</ol>"), "3. one\n4. two")
        XCTAssertEqual(MatrixHTML.markup("<blockquote><p>calm sea</p>\n</blockquote><p>said <b>Bob</b></p>"), "> calm sea\nsaid *Bob*")
        XCTAssertEqual(MatrixHTML.markup("<pre><code>a = 1\n  b = 2\n</code></pre>"), "`a = 1`\n  `b = 2`")
        XCTAssertEqual(MatrixHTML.markup("one<br>two<br/>\nthree"), "one\ntwo\nthree")
        XCTAssertEqual(MatrixHTML.markup("<h1>Title</h1>text"), "*Title*\ntext")
    }

    func test_html_links_andPills() {
        XCTAssertEqual(MatrixHTML.markup(#"<a href="https://matrix.to/#/@bob:x">Bob</a>: see <a href="https://x.org">https://x.org</a>"#),
                       "Bob: see https://x.org")
        XCTAssertEqual(MatrixHTML.markup(#"<a href="https://x.org/?a=1&amp;b=2">the plan</a>"#), "the plan (https://x.org/?a=1&b=2)")
        XCTAssertEqual(MatrixHTML.markup(#"<a href="mailto:a@x.org">a@x.org</a>"#), "a@x.org")
    }

    func test_html_entities_andLiteralMarkers() {
        XCTAssertEqual(MatrixHTML.markup("&lt;b&gt; &quot;q&quot; &#39;s&#39; &#x1F600; &bogus; & alone"), #"<b> "q" 's' 😀 &bogus; & alone"#)
        XCTAssertEqual(MatrixHTML.markup("2 * 3 and _x_"), #"2 \* 3 and \_x\_"#)
        XCTAssertEqual(MatrixHTML.markup("<del>gone</del> <u>under</u> <span data-mx-color=\"red\">red</span>"), "gone under red")
    }

    func test_html_stylesNeedWordBoundaries() {
        XCTAssertEqual(MatrixHTML.markup("un<b>believ</b>able"), "unbelievable")
        XCTAssertEqual(MatrixHTML.markup("<b> spaced </b>out"), "*spaced* out")
        XCTAssertEqual(MatrixHTML.markup("<b><b>twice</b></b>"), "*twice*")
        XCTAssertEqual(MatrixHTML.markup("<b><i>both</i></b>"), "*_both_*")
    }

    func test_html_malformed_isReadTolerantly() {
        XCTAssertEqual(MatrixHTML.markup("<b>unclosed"), "*unclosed*")
        XCTAssertEqual(MatrixHTML.markup("stray</i> close"), "stray close")
        XCTAssertEqual(MatrixHTML.markup("a < b and c <3"), "a < b and c <3")
        XCTAssertEqual(MatrixHTML.markup("<b>over<i>lap</b>ping</i>"), "overlapping")
        XCTAssertEqual(MatrixHTML.markup("<b>over<i>lap</b> ping</i>"), "*overlap* ping")
        XCTAssertEqual(MatrixHTML.markup("<a href=\"x>broken"), "broken (x)")
        XCTAssertEqual(MatrixHTML.markup("x<!-- comment -->y<script>alert(1)</script>z"), "xyz")
        XCTAssertEqual(MatrixHTML.markup("<mx-reply>quoted<mx-reply>inner</mx-reply>still</mx-reply>answer"), "answer")
        XCTAssertEqual(MatrixHTML.markup("<img src=\"mxc://x\" alt=\":cat:\"> hi"), ":cat: hi")
    }
}

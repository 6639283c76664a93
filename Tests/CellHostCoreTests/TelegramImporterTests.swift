import Foundation
import XCTest
@testable import CellHostCore

/// The Telegram Desktop importer on in-memory exports: one behaviour per test.
final class TelegramImporterTests: XCTestCase {
    /// What one import handed over.
    private struct Outcome {
        var records: [[String: Any]] = []
        var lines: [Int] = []
        var problems: [(line: Int?, reason: String)] = []
        var warnings: [String] = []
        var notes: [String] = []
        var error: ImportError?

        /// The records that are messages (not the conversation headers).
        var messages: [[String: Any]] { records.filter { ($0["system"] as? [String: Any])?["event"] as? String != "conversation" } }

        func record(_ id: String) -> [String: Any]? { records.first { $0["id"] as? String == id } }
    }

    private func importing(_ json: String, me: String? = nil) -> Outcome {
        var outcome = Outcome()
        let sink = ImportSink(record: { bytes, line, _ in
            let object = try? JSONSerialization.jsonObject(with: Data(bytes), options: [])
            outcome.records.append(object as? [String: Any] ?? [:])
            outcome.lines.append(line)
        }, problem: { line, reason in
            outcome.problems.append((line, reason))
        }, warning: { outcome.warnings.append($0) })
        do {
            try TelegramImporter.run(ImportInput(name: "result.json", source: ByteSource(bytes: Array(json.utf8))),
                                     options: ImportOptions(me: me), sink: sink)
        } catch let error as ImportError {
            outcome.error = error
        } catch {
            XCTFail("unexpected error \(error)")
        }
        outcome.notes = sink.notes
        return outcome
    }

    /// A single-chat export of `messages` (JSON objects, comma-separated).
    private func chat(_ messages: String, name: String = "Trip", type: String = "private_group", id: String = "77") -> String {
        "{\"name\":\"\(name)\",\"type\":\"\(type)\",\"id\":\(id),\"messages\":[\(messages)]}"
    }

    /// One message with `fields` added to an id, a type and a time.
    private func message(_ id: Int = 1, _ fields: String) -> String {
        "{\"id\":\(id),\"type\":\"message\",\"date_unixtime\":\"1709284500\",\(fields)}"
    }

    private func text(_ outcome: Outcome, _ id: String = "1") -> String? { outcome.record(id)?["text"] as? String }

    // MARK: Chats

    func testSingleChatStartsWithAConversationHeaderNamingTheChat() {
        let outcome = importing(chat(message(1, "\"from\":\"Ann\",\"from_id\":\"user5\",\"text\":\"hi\""), name: "Alice", type: "personal_chat"))
        XCTAssertEqual(outcome.records.map { $0["id"] as? String }, ["chat-77", "1"])
        let header = outcome.records[0]
        XCTAssertEqual(header["type"] as? String, "system")
        XCTAssertEqual((header["system"] as? [String: Any])?["event"] as? String, "conversation")
        XCTAssertEqual(header["text"] as? String, "Alice · personal chat")
    }

    func testFullAccountExportReadsEveryChatWithPrefixedIdsAndReplies() {
        let first = chat(message(1, "\"text\":\"a\"") + "," + message(2, "\"reply_to_message_id\":1,\"text\":\"b\""), name: "Bob", type: "personal_chat", id: "10")
        let second = chat(message(1, "\"text\":\"c\""), name: "Club", type: "private_group", id: "20")
        let left = chat(message(1, "\"text\":\"d\""), name: "Old", type: "private_supergroup", id: "30")
        let json = "{\"about\":\"x\",\"personal_information\":{\"user_id\":5},\"contacts\":{\"list\":[{\"user_id\":1}]},"
            + "\"chats\":{\"about\":\"y\",\"list\":[\(first),\(second)]},\"left_chats\":{\"list\":[\(left)]}}"
        let outcome = importing(json)
        XCTAssertNil(outcome.error)
        XCTAssertEqual(outcome.records.map { $0["id"] as? String },
                       ["chat-10", "10/1", "10/2", "chat-20", "20/1", "chat-30", "30/1"])
        XCTAssertEqual(outcome.record("10/2")?["reply_to"] as? String, "10/1")
        XCTAssertEqual(outcome.record("chat-30")?["text"] as? String, "Old · private supergroup (left)")
        XCTAssertTrue(outcome.notes.contains("3 chats"))
    }

    func testExporterMessagesAreOutgoingInAFullAccountExport() {
        let messages = message(1, "\"from\":\"Me\",\"from_id\":\"user5\",\"text\":\"mine\"") + ","
            + message(2, "\"from\":\"Bob\",\"from_id\":\"user10\",\"text\":\"his\"") + ","
            + message(3, "\"from\":\"Me\",\"from_id\":5,\"text\":\"old numeric id\"")
        let json = "{\"personal_information\":{\"user_id\":5,\"first_name\":\"Me\"},\"chats\":{\"list\":[\(chat(messages, id: "10"))]}}"
        let outcome = importing(json)
        XCTAssertEqual(outcome.record("10/1")?["direction"] as? String, "outgoing")
        XCTAssertEqual(outcome.record("10/2")?["direction"] as? String, "incoming")
        XCTAssertEqual(outcome.record("10/3")?["direction"] as? String, "outgoing")
        XCTAssertEqual((outcome.record("10/3")?["sender"] as? [String: Any])?["id"] as? String, "user5")
    }

    func testMeLeavesDirectionToTheHost() {
        let json = "{\"personal_information\":{\"user_id\":5},\"chats\":{\"list\":[\(chat(message(1, "\"from_id\":\"user5\",\"text\":\"x\"")))]}}"
        XCTAssertNil(importing(json, me: "user10").record("77/1")?["direction"])
    }

    func testInAPersonalChatTheChatsIdIsTheOtherPerson() {
        let messages = message(1, "\"from\":\"Bob\",\"from_id\":\"user10\",\"text\":\"his\"") + "," + message(2, "\"from\":\"Me\",\"from_id\":\"user5\",\"text\":\"mine\"")
        let outcome = importing(chat(messages, name: "Bob", type: "personal_chat", id: "10"))
        XCTAssertEqual(outcome.record("1")?["direction"] as? String, "incoming")
        XCTAssertEqual(outcome.record("2")?["direction"] as? String, "outgoing")
        XCTAssertNil(importing(chat(messages, type: "private_group", id: "10")).record("1")?["direction"])
    }

    // MARK: Text

    func testTextEntitiesArePreferredOverText() {
        let fields = "\"text\":\"old\",\"text_entities\":[{\"type\":\"plain\",\"text\":\"new \"},{\"type\":\"bold\",\"text\":\"bold\"}]"
        XCTAssertEqual(text(importing(chat(message(1, fields)))), "new *bold*")
    }

    func testEntitiesBecomeMarkup() {
        let fields = #""text":["a ",{"type":"bold","text":"b"}," ",{"type":"italic","text":"i"}," ",{"type":"code","text":"c`d"},"#
            + #"" ",{"type":"pre","text":"p"}," ",{"type":"text_link","text":"docs","href":"https://x.org/a_b"}," ",{"type":"link","text":"https://y.org/_z_/"}]"#
        XCTAssertEqual(text(importing(chat(message(1, fields)))), "a *b* _i_ `c'd` `p` docs (https://x.org/a_b) https://y.org/_z_/")
    }

    func testTextLinkWhoseLabelIsTheAddressIsTheAddressOnce() {
        let fields = #""text":[{"type":"text_link","text":"https://x.org","href":"https://x.org"}]"#
        XCTAssertEqual(text(importing(chat(message(1, fields)))), "https://x.org")
    }

    func testUnderlineStrikethroughSpoilerAndOthersKeepTheirTextOnly() {
        let kinds = ["underline", "strikethrough", "spoiler", "mention", "mention_name", "email", "phone", "hashtag",
                     "cashtag", "bot_command", "blockquote", "bank_card", "custom_emoji", "brand_new_kind"]
        for kind in kinds {
            let fields = "\"text\":[\"x \",{\"type\":\"\(kind)\",\"text\":\"_kept_\"}]"
            XCTAssertEqual(text(importing(chat(message(1, fields)))), "x \\_kept\\_", kind)
        }
    }

    func testAStyleInsideAWordStaysLiteral() {
        let fields = #""text":[{"type":"bold","text":"Hel"},"lo ",{"type":"italic","text":"world"}]"#
        XCTAssertEqual(text(importing(chat(message(1, fields)))), "Hello _world_")
    }

    func testPlainTextIsEscapedButItsURLsAreKept() {
        let fields = #""text":"a *b* see https://x.org/_next_/ and _c_""#
        XCTAssertEqual(text(importing(chat(message(1, fields)))), #"a \*b\* see https://x.org/_next_/ and \_c\_"#)
    }

    func testLiteralTextWithoutURLsIsEscapedExactlyAsImportTextDoes() {
        let samples = ["snake_case_name", "_lead", "trail_", "2*3*4", "a * b", "*x*", "`tick`", "a\\*b", "\\\\",
                       "é_ü", "日本_語", "x_😀", "ä\u{301}_b", "*", "", "plain words", "C:\\path\\_x"]
        for sample in samples {
            XCTAssertEqual(ImportText.escaped(sample), ImportText.escaped(sample), sample)
        }
    }

    func testURLsInLiteralTextAreCopiedAsTheMarkupFindsThem() {
        XCTAssertEqual(ImportText.escaped("(see https://x.org/_a_)"), "(see https://x.org/_a\\_)")
        XCTAssertEqual(ImportText.escaped("see https://x.org/(a_b)."), "see https://x.org/(a_b).")
        XCTAssertEqual(ImportText.escaped("HTTPS://X.ORG/_y_/ ok_"), "HTTPS://X.ORG/_y_/ ok\\_")
        XCTAssertEqual(ImportText.escaped("xhttps://x.org/_y_/"), "xhttps://x.org/\\_y\\_/")
        XCTAssertEqual(ImportText.escaped("链接：https://x.org/_y_。"), "链接：https://x.org/_y\\_。")
    }

    // MARK: Times and edits

    func testDateUnixtimeIsPreferredOverDate() {
        let outcome = importing(chat("{\"id\":1,\"type\":\"message\",\"date\":\"2001-01-01T00:00:00\",\"date_unixtime\":\"1709284500\",\"text\":\"x\"}"))
        XCTAssertEqual(outcome.record("1")?["time"] as? Double, 1709284500)
    }

    func testDateWithoutZoneIsReadInTheRunsTimeZone() {
        let saved = getenv("TZ").map { String(cString: $0) }
        setenv("TZ", "Europe/Berlin", 1)
        tzset()
        defer {
            if let saved { setenv("TZ", saved, 1) } else { unsetenv("TZ") }
            tzset()
        }
        let outcome = importing(chat("{\"id\":1,\"type\":\"message\",\"date\":\"2024-03-01T10:15:00\",\"text\":\"x\"}"))
        XCTAssertEqual(outcome.record("1")?["time"] as? Double, 1709284500) // 09:15 UTC
    }

    func testUnreadableTimeIsKeptForTheHostToReportAndMissingTimeIsNone() {
        let outcome = importing(chat("{\"id\":1,\"type\":\"message\",\"date\":\"yesterday\",\"text\":\"x\"},{\"id\":2,\"type\":\"message\",\"text\":\"y\"}"))
        XCTAssertEqual(outcome.record("1")?["time"] as? String, "yesterday")
        XCTAssertNil(outcome.record("2")?["time"])
    }

    func testEditedComesFromEditedUnixtimeOrEditedButNotTheOld1970Placeholder() {
        let messages = message(1, "\"edited_unixtime\":\"1709284600\",\"text\":\"a\"") + ","
            + message(2, "\"edited\":\"2024-03-01T09:20:00\",\"text\":\"b\"") + ","
            + message(3, "\"edited\":\"1970-01-01T01:00:00\",\"text\":\"c\"") + ","
            + message(4, "\"text\":\"d\"")
        let outcome = importing(chat(messages))
        XCTAssertEqual(["1", "2", "3", "4"].map { outcome.record($0)?["edited"] as? Bool ?? false }, [true, true, false, false])
    }

    // MARK: Senders and ids

    func testSenderIdsAreNormalisedAndIdsBecomeStrings() {
        let messages = message(1, "\"from\":\"Old\",\"from_id\":42,\"text\":\"a\"") + ","
            + message(2, "\"from\":\"New\",\"from_id\":\"user42\",\"text\":\"b\"") + ","
            + message(3, "\"from\":\"Neg\",\"from_id\":-1001,\"text\":\"c\"") + ","
            + "{\"id\":\"s-4\",\"type\":\"message\",\"from\":\"Str\",\"from_id\":\"42\",\"text\":\"d\"}"
        let outcome = importing(chat(messages))
        func sender(_ id: String) -> String? { (outcome.record(id)?["sender"] as? [String: Any])?["id"] as? String }
        XCTAssertEqual([sender("1"), sender("2"), sender("3"), sender("s-4")], ["user42", "user42", "-1001", "user42"])
    }

    func testSenderWithoutANameShowsItsIdAndAChannelPostIsSignedWithTheChannel() {
        let group = importing(chat(message(1, "\"from\":null,\"from_id\":\"user9\",\"text\":\"a\"")))
        let sender = group.record("1")?["sender"] as? [String: Any]
        XCTAssertEqual(sender?["id"] as? String, "user9")
        XCTAssertNil(sender?["name"])
        let channel = importing(chat(message(1, "\"text\":\"post\"") + "," + message(2, "\"from\":null,\"from_id\":\"channel5\",\"text\":\"b\""),
                                     name: "News", type: "public_channel", id: "5"))
        for id in ["1", "2"] {
            let post = channel.record(id)?["sender"] as? [String: Any]
            XCTAssertEqual(post?["name"] as? String, "News", id)
            XCTAssertEqual(post?["id"] as? String, "channel5", id)
        }
    }

    func testReplyToAMessageNotInTheFileKeepsItsId() {
        let outcome = importing(chat(message(1, "\"reply_to_message_id\":404,\"text\":\"x\"")))
        XCTAssertEqual(outcome.record("1")?["reply_to"] as? String, "404")
    }

    func testReplyIntoAnotherChatGetsThatChatsPrefix() {
        let outcome = importing(chat(message(1, "\"reply_to_message_id\":3,\"reply_to_peer_id\":\"channel99\",\"text\":\"x\"")))
        XCTAssertEqual(outcome.record("1")?["reply_to"] as? String, "99/3")
    }

    // MARK: Reactions, forwards

    func testReactionsAreCountedAndCustomEmojiShownAsAStar() {
        let fields = #""text":"x","reactions":[{"type":"emoji","count":3,"emoji":"👍"},{"type":"custom_emoji","count":2,"document_id":"5"},"#
            + #"{"type":"custom_emoji","count":1,"document_id":"6"},{"emoji":"❤","count":1},{"type":"emoji","emoji":"🔥","recent":[{},{}]}]"#
        let reactions = importing(chat(message(1, fields))).record("1")?["reactions"] as? [[String: Any]] ?? []
        XCTAssertEqual(reactions.map { $0["emoji"] as? String }, ["👍", "★", "❤", "🔥"])
        XCTAssertEqual(reactions.map { $0["count"] as? Int }, [3, 3, 1, 2])
    }

    func testForwardedSavedAndViaBotLeadTheTextInItalics() {
        let fields = #""forwarded_from":"Bob_the *Builder*","saved_from":"Deals","via_bot":"@gif","text":"body""#
        XCTAssertEqual(text(importing(chat(message(1, fields)))),
                       "_Forwarded from Bob_the \\*Builder\\*_\n_Saved from Deals_\n_via @gif_\nbody")
        XCTAssertEqual(text(importing(chat(message(1, "\"forwarded_from\":null,\"text\":\"b\"")))), "_Forwarded from a hidden sender_\nb")
    }

    // MARK: Media

    func testPhotoIsAnImageWithItsPathAndSize() {
        let outcome = importing(chat(message(1, #""photo":"photos/p.jpg","photo_file_size":99,"width":640,"height":480,"text":"cap""#)))
        let record = outcome.record("1")
        XCTAssertEqual(record?["type"] as? String, "image")
        let image = record?["image"] as? [String: Any]
        XCTAssertEqual(image?["path"] as? String, "photos/p.jpg")
        XCTAssertEqual(image?["width"] as? Int, 640)
        XCTAssertEqual(image?["height"] as? Int, 480)
        XCTAssertEqual(image?["size"] as? Int, 99)
        XCTAssertEqual(record?["text"] as? String, "cap")
    }

    func testPlaceholdersMarkTheFileUnavailableAndAreNeverAPath() {
        let cases = [
            ("(File not included. Change data exporting settings to download.)", "not included in the export"),
            ("(File exceeds maximum size. Change data exporting settings to download.)", "too large for the export"),
            ("(File unavailable, please try again later)", "unavailable"),
        ]
        for (placeholder, reason) in cases {
            for key in ["photo", "file"] {
                let record = importing(chat(message(1, "\"\(key)\":\"\(placeholder)\",\"file_name\":\"v.mp4\",\"text\":\"\""))).record("1")
                let media = record?[key == "photo" ? "image" : "file"] as? [String: Any]
                XCTAssertNil(media?["path"], placeholder)
                XCTAssertEqual(media?["unavailable"] as? String, reason, placeholder)
            }
        }
    }

    func testMediaTypesMapToCellHostTypes() {
        let expected = ["voice_message": "voice", "audio_file": "file", "video_file": "video", "video_message": "video",
                        "animation": "video", "sticker": "sticker", "something_new": "file"]
        for (mediaType, type) in expected {
            let fields = "\"file\":\"files/a.bin\",\"media_type\":\"\(mediaType)\",\"mime_type\":\"x/y\",\"duration_seconds\":5,\"width\":2,\"height\":3,\"text\":\"\""
            let record = importing(chat(message(1, fields))).record("1")
            XCTAssertEqual(record?["type"] as? String, type, mediaType)
            let media = record?[type] as? [String: Any]
            XCTAssertEqual(media?["path"] as? String, "files/a.bin", mediaType)
            XCTAssertEqual(media?["mime"] as? String, "x/y", mediaType)
            XCTAssertEqual(media?["duration"] as? Double, 5, mediaType)
            XCTAssertEqual(media?["name"] as? String, "a.bin", mediaType)
        }
    }

    func testFileNameAndSizeComeFromTheExportWhenGiven() {
        let record = importing(chat(message(1, #""file":"files/x","file_name":"report.pdf","file_size":1234,"text":"""#))).record("1")
        let file = record?["file"] as? [String: Any]
        XCTAssertEqual(file?["name"] as? String, "report.pdf")
        XCTAssertEqual(file?["size"] as? Int, 1234)
    }

    func testStickerWithoutTextShowsItsEmoji() {
        let record = importing(chat(message(1, #""file":"stickers/s.webp","media_type":"sticker","sticker_emoji":"😺","text":"""#))).record("1")
        XCTAssertEqual(record?["type"] as? String, "sticker")
        XCTAssertEqual(record?["text"] as? String, "😺")
    }

    // MARK: Polls, places, contacts

    func testPollKeepsOptionsVotesChoiceAndState() {
        let fields = #""poll":{"question":"When?","closed":true,"total_voters":4,"answers":[{"text":"7","voters":1,"chosen":false},{"text":"8","voters":3,"chosen":true}]},"text":"""#
        let record = importing(chat(message(1, fields))).record("1")
        XCTAssertEqual(record?["type"] as? String, "poll")
        let poll = record?["poll"] as? [String: Any]
        XCTAssertEqual(poll?["question"] as? String, "When?")
        XCTAssertEqual(poll?["closed"] as? Bool, true)
        XCTAssertEqual(poll?["total_voters"] as? Int, 4)
        let options = poll?["options"] as? [[String: Any]] ?? []
        XCTAssertEqual(options.map { $0["text"] as? String }, ["7", "8"])
        XCTAssertEqual(options.map { $0["votes"] as? Int }, [1, 3])
        XCTAssertEqual(options.map { $0["chosen"] as? Bool ?? false }, [false, true])
    }

    func testLocationVenueAndLiveLocation() {
        let venue = importing(chat(message(1, #""place_name":"Hut","address":"Ridge 1","location_information":{"latitude":46.5,"longitude":7.9},"text":"""#))).record("1")
        XCTAssertEqual(venue?["type"] as? String, "location")
        let location = venue?["location"] as? [String: Any]
        XCTAssertEqual(location?["lat"] as? Double, 46.5)
        XCTAssertEqual(location?["lon"] as? Double, 7.9)
        XCTAssertEqual(location?["name"] as? String, "Hut, Ridge 1")
        let live = importing(chat(message(1, #""location_information":{"latitude":1,"longitude":2},"live_location_period_seconds":900,"text":"""#))).record("1")
        XCTAssertEqual(live?["text"] as? String, "Live location for 15 min")
    }

    func testContactBecomesText() {
        let record = importing(chat(message(1, #""contact_information":{"first_name":"Ann","last_name":"Lee","phone_number":"+1 555"},"text":"""#))).record("1")
        XCTAssertEqual(record?["type"] as? String, "text")
        XCTAssertEqual(record?["text"] as? String, "Contact: Ann Lee, +1 555")
    }

    // MARK: Service and unsupported messages

    private func service(_ fields: String) -> [String: Any]? {
        importing(chat("{\"id\":1,\"type\":\"service\",\"date_unixtime\":\"1709284500\",\"actor\":\"Alice\",\"actor_id\":\"user1\",\(fields)}")).record("1")
    }

    func testServiceMessagesAreSystemLinesWithASentenceAndTheAction() {
        let cases: [(String, String)] = [
            (#""action":"pin_message","message_id":7"#, "Alice pinned a message"),
            (#""action":"invite_members","members":["Carol","Dan"]"#, "Alice invited Carol and Dan"),
            (#""action":"invite_members","members":["Alice"]"#, "Alice joined the group"),
            (#""action":"remove_members","members":["Bob"]"#, "Alice removed Bob"),
            (#""action":"create_group","title":"T","members":["B","C","D"]"#, "Alice created the group “T” with B, C and D"),
            (#""action":"edit_group_title","title":"New""#, "Alice renamed the group to “New”"),
            (#""action":"join_group_by_link","inviter":"Bob""#, "Alice joined the group via an invite link from Bob"),
            (#""action":"phone_call","duration_seconds":125,"discard_reason":"hangup""#, "Call from Alice (2 min 5 s)"),
            (#""action":"phone_call","discard_reason":"missed""#, "Missed call from Alice"),
            (#""action":"group_call","duration":3720"#, "Video chat (1 h 2 min)"),
            (#""action":"topic_created","title":"Gear""#, "Alice created the topic “Gear”"),
            (#""action":"migrate_to_supergroup""#, "Alice converted this group to a supergroup"),
            (#""action":"clear_history""#, "Alice cleared the history"),
            (#""action":"score_in_game","score":42"#, "Alice scored 42"),
            (#""action":"something_new""#, "Alice: something_new"),
        ]
        for (fields, sentence) in cases {
            let record = service(fields)
            XCTAssertEqual(record?["type"] as? String, "system", fields)
            XCTAssertEqual(record?["text"] as? String, sentence, fields)
        }
        XCTAssertEqual((service(#""action":"phone_call""#)?["system"] as? [String: Any])?["event"] as? String, "phone_call")
    }

    func testPinnedMessageIsQuotedThroughReplyTo() {
        XCTAssertEqual(service(#""action":"pin_message","message_id":7"#)?["reply_to"] as? String, "7")
    }

    func testUnsupportedAndUnknownMessageTypesAreShownByTheFallbacks() {
        let outcome = importing(chat(#"{"id":1,"type":"unsupported"},{"id":2,"type":"brand_new","text":"?"}"#))
        for id in ["1", "2"] {
            XCTAssertEqual(outcome.record(id)?["type"] as? String, "unsupported", id)
            XCTAssertEqual(outcome.record(id)?["text"] as? String, "Unsupported Telegram message", id)
        }
    }

    // MARK: Robustness

    func testInvalidXEscapesAreRepairedAndReportedAsWarnings() {
        let outcome = importing(chat(message(1, #""text":"bell\x07 end""#)))
        XCTAssertEqual(text(outcome), "bell\u{07} end")
        XCTAssertTrue(outcome.problems.isEmpty)
        XCTAssertEqual(outcome.warnings.count, 1)
        XCTAssertTrue(outcome.warnings[0].hasPrefix("line 1: 1 invalid escape (\\xNN)"), outcome.warnings[0])
        XCTAssertTrue(outcome.notes.contains("1 invalid \\xNN escape repaired"))
    }

    func testAnEscapedBackslashBeforeXIsNotRepaired() {
        XCTAssertEqual(text(importing(chat(message(1, #""text":"C:\\x86""#)))), #"C:\x86"#)
    }

    func testManyRepairsAreSummarisedAfterTheFirstFew() {
        let messages = (1...8).map { message($0, #""text":"\x01""#) }.joined(separator: ",")
        let outcome = importing(chat(messages))
        XCTAssertEqual(outcome.warnings.count, TelegramRepairReport.individualLimit + 1)
        XCTAssertEqual(outcome.warnings.last, "8 values in all had invalid \\xNN escapes (8 escapes), read as control characters")
    }

    func testWrongTypesInEveryFieldNeverTrap() {
        let fields = #""from":12,"from_id":{"a":1},"date":[1],"date_unixtime":true,"edited":{},"text":3.5,"text_entities":"x","#
            + #""reply_to_message_id":{"a":1},"reactions":{"x":1},"photo":17,"width":"w","height":-5,"file":["a"],"media_type":5,"#
            + #""duration_seconds":1e308,"file_size":-1,"mime_type":{},"poll":[],"location_information":{"latitude":"n","longitude":500},"#
            + #""forwarded_from":5,"saved_from":[],"via_bot":{},"contact_information":[]"#
        let bad = [
            "{\"id\":{\"x\":1},\"type\":7,\(fields)}",
            "{\"id\":99999999999999999999999,\"type\":\"message\",\(fields)}",
            "{\"id\":3,\"type\":\"service\",\"actor\":[1],\"actor_id\":3.5,\"action\":{},\"members\":\"all\",\"duration_seconds\":\"x\",\"title\":1}",
            "{\"id\":4,\"type\":\"service\",\"action\":\"phone_call\",\"duration_seconds\":99999999999999999999,\"discard_reason\":4}",
            "{\"id\":5,\"type\":\"message\",\"reactions\":[{\"count\":99999999999999999999,\"emoji\":\"x\"},{\"count\":-1,\"emoji\":\"y\"},7,null]}",
            "{\"id\":6,\"type\":\"message\",\"poll\":{\"question\":5,\"closed\":\"y\",\"total_voters\":-1,\"answers\":[{\"text\":1,\"voters\":\"m\"},3]}}",
        ].joined(separator: ",")
        let outcome = importing("{\"name\":[1],\"type\":42,\"id\":{\"a\":1},\"messages\":[\(bad)]}")
        XCTAssertNil(outcome.error)
        XCTAssertEqual(outcome.messages.count, 6)
        XCTAssertTrue(outcome.problems.isEmpty)
        XCTAssertEqual(outcome.records.first?["text"] as? String, "Unnamed chat")
    }

    func testAMessageThatIsNotAnObjectOrNotJSONIsAProblemAndTheRestGoOn() {
        let outcome = importing(chat("12,\"s\",{\"id\":3,\"text\":tru}," + message(4, "\"text\":\"after\"")))
        XCTAssertEqual(outcome.problems.map(\.reason), ["a message is a number, not an object; skipped",
                                                         "a message is a string, not an object; skipped",
                                                         "a message is not valid JSON (invalid literal at column 16); skipped"])
        XCTAssertEqual(text(outcome, "4"), "after")
    }

    func testATruncatedFileHandsOverEveryMessageBeforeTheCutThenFails() {
        let full = chat(message(1, "\"text\":\"one\"") + ",\n" + message(2, "\"text\":\"two\"") + ",\n" + message(3, "\"text\":\"three\""))
        let cut = String(full.prefix(upTo: full.range(of: "three")!.lowerBound))
        let outcome = importing(cut)
        XCTAssertEqual(outcome.messages.map { $0["id"] as? String }, ["1", "2"])
        XCTAssertEqual(outcome.error?.line, 3)
        XCTAssertEqual(outcome.error?.reason, "the file ends in the middle of 'messages' (truncated?)")
    }

    func testARootThatIsNotAnObjectIsRefused() {
        let outcome = importing("[1,2]")
        XCTAssertEqual(outcome.error?.reason.hasPrefix("not a Telegram export: the document is not an object"), true)
        XCTAssertTrue(outcome.records.isEmpty)
    }

    func testAnObjectWithNeitherMessagesNorChatsIsRefused() {
        let outcome = importing("{\"name\":\"x\",\"list\":[]}")
        XCTAssertEqual(outcome.error?.reason.hasPrefix("not a Telegram export: it has neither \"messages\" nor \"chats\""), true)
        XCTAssertTrue(outcome.records.isEmpty)
        XCTAssertNil(importing("{\"personal_information\":{\"user_id\":1},\"chats\":{\"list\":[]}}").error)
    }

    func testEnormousStringsAreHandedOverWhole() {
        let big = String(repeating: "é", count: 1 << 18)
        XCTAssertEqual(text(importing(chat(message(1, "\"from\":\"\(big)\",\"text\":\"\(big)\""))))?.count, 1 << 18)
    }

    // MARK: Detection

    func testBothExportFormsAreDetectedAsTelegram() {
        let forms = [
            chat(message(1, "\"from_id\":\"user1\",\"text\":\"x\"")),
            "{\"name\":\"Old\",\"type\":\"personal_chat\",\"id\":1,\"messages\":[{\"id\":1,\"type\":\"message\",\"date\":\"2019-01-01T00:00:00\",\"from\":\"A\",\"from_id\":5,\"text\":\"x\"}]}",
            "{\"about\":\"x\",\"personal_information\":{\"user_id\":1},\"chats\":{\"list\":[]}}",
        ]
        for form in forms {
            XCTAssertEqual(FormatDetector.detect(Array(form.utf8), atEnd: true), .format(.telegram), form)
        }
    }
}

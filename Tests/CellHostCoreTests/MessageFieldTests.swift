import XCTest
@testable import CellHostCore

/// Message fields are read in one pass over the top-level members; these pin
/// the rules that pass must keep.
final class MessageFieldTests: XCTestCase {
    private func load(_ json: String) throws -> Message {
        let message = Message()
        var json = json
        try json.withUTF8 { try message.load($0, me: "u-me") }
        return message
    }

    func test_escapedKeys_areRecognised() throws {
        let message = try load(#"{"\u0074ype":"text","s\u0065nder":{"id":"u-me","name":"Me"},"\u0074ext":"hi","reply\u005fto":"m-1"}"#)
        XCTAssertEqual(message.type, "text")
        XCTAssertEqual(message.senderName, "Me")
        XCTAssertTrue(message.isOutgoing)
        XCTAssertEqual(message.text, "hi")
        XCTAssertEqual(message.replyTo, "m-1")
    }

    /// `rawID` (by which the reply-quote ring remembers a record) is where
    /// the id's bytes are when they are the id as they are: a plain string,
    /// never an escaped one or a number, and never left from the message
    /// before.
    func test_rawID_isThePlainStringIdsBytes_only() throws {
        let message = Message()
        func load(_ json: String) throws -> String? {
            var json = json
            return try json.withUTF8 { bytes in
                try message.load(bytes, me: nil)
                return message.rawID.map { String(decoding: UnsafeBufferPointer(rebasing: bytes[$0]), as: UTF8.self) }
            }
        }
        XCTAssertEqual(try load(#"{"type":"text","id":"m-12"}"#), "m-12")
        XCTAssertEqual(message.id, "m-12")
        XCTAssertNil(try load(#"{"id":"m\u002d1"}"#))
        XCTAssertEqual(message.id, "m-1")
        XCTAssertEqual(try load(#"{"id":"日本"}"#), "日本")
        XCTAssertNil(try load(#"{"id":12}"#))
        XCTAssertEqual(message.id, "12")
        XCTAssertEqual(try load(#"{"id":""}"#), "")
        XCTAssertNil(try load(#"{"type":"text"}"#))
        XCTAssertEqual(message.id, "")
    }

    func test_repeatedKeys_theFirstWins() throws {
        let message = try load(#"{"type":"file","type":"text","text":"one","text":"two","id":"a","id":"b"}"#)
        XCTAssertEqual(message.type, "file")
        XCTAssertEqual(message.text, "one")
        XCTAssertEqual(message.id, "a")
    }

    /// A key with escapes sends the whole pass to the decoded comparison:
    /// the first of repeated keys still wins, spelled either way, and the
    /// plain keys after it are still read.
    func test_escapedAndPlainRepeatedKeys_theFirstWins() throws {
        let escapedFirst = try load(#"{"\u0074ype":"text","type":"file","id":"a","\u0069d":"b"}"#)
        XCTAssertEqual(escapedFirst.type, "text")
        XCTAssertEqual(escapedFirst.id, "a")
        let plainFirst = try load(#"{"type":"file","\u0074ype":"text","x\u0079":1,"text":"t","sender":"u-me"}"#)
        XCTAssertEqual(plainFirst.type, "file")
        XCTAssertEqual(plainFirst.text, "t")
        XCTAssertTrue(plainFirst.isOutgoing)
    }

    /// A reused `Message` forgets the optional fields of the message before
    /// (they are reset only when set).
    func test_reusedMessage_forgetsTheOptionalFieldsOfTheOneBefore() throws {
        let message = Message()
        var first = #"{"type":"system","system":{"event":"conversation"},"time":"yesterday","reply_to":"m-1"}"#
        try first.withUTF8 { try message.load($0, me: nil) }
        XCTAssertEqual(message.systemEvent, "conversation")
        XCTAssertEqual(message.unreadableTime, "yesterday")
        XCTAssertEqual(message.replyTo, "m-1")
        var second = #"{"type":"text","time":"2026-11-29T10:02:00Z","text":"t"}"#
        try second.withUTF8 { try message.load($0, me: nil) }
        XCTAssertNil(message.systemEvent)
        XCTAssertNil(message.unreadableTime)
        XCTAssertNil(message.replyTo)
    }

    /// The id is built in place when short: it is what `string` gives,
    /// invalid UTF-8 and non-ASCII included, at every length around the
    /// small-string limit.
    func test_id_isTheDecodedString() throws {
        let ids: [[UInt8]] = [[], Array("m-1".utf8), Array("é".utf8), [0xFF], [0x61, 0xC3], Array("123456789012345".utf8),
                              Array("1234567890123456".utf8), Array("12345678901234é".utf8), Array(#"1234567890123\u00e9"#.utf8),
                              Array("12345678901234".utf8) + [0xF0, 0x9F]]
        for id in ids {
            let message = Message()
            let line = Array(#"{"id":""#.utf8) + id + Array(#""}"#.utf8)
            try line.withUnsafeBufferPointer { try message.load($0, me: nil) }
            var document = JSONDocument()
            var value = [UInt8(ascii: "\"")] + id + [UInt8(ascii: "\"")]
            try document.parse(taking: &value)
            XCTAssertEqual(message.id, document.string(JSONDocument.root), "\(id)")
            XCTAssertEqual(Array(message.id.utf8), Array(document.string(JSONDocument.root)?.utf8 ?? "".utf8))
        }
    }

    func test_everyField_isRead() throws {
        let message = try load(#"{"id":7,"type":"text","sender":{"id":"u-2","name":"Bo"},"time":"2026-11-29T10:02:00Z","status":"read","direction":"outgoing","edited":true,"reply_to":"m-1","text":"t"}"#)
        XCTAssertEqual(message.id, "7")
        XCTAssertEqual(message.senderID, "u-2")
        XCTAssertEqual(message.time, 1_795_946_520)
        XCTAssertEqual(message.status, .read)
        XCTAssertTrue(message.isOutgoing)
        XCTAssertTrue(message.isEdited)
        XCTAssertEqual(message.replyTo, "m-1")
        XCTAssertEqual(message.text, "t")
    }

    func test_keysThatOnlyResembleFields_areNotRead() throws {
        // Same length and first eight bytes as a field, or a field's name
        // as a prefix: none of them is that field.
        let message = try load(#"{"typE":"file","types":"x","tex":"no","directiox":"outgoing","reactionz":[{"emoji":"x"}],"reply_tO":"m-9","ids":"a","type":"text","text":"yes"}"#)
        XCTAssertEqual(message.type, "text")
        XCTAssertEqual(message.text, "yes")
        XCTAssertEqual(message.id, "")
        XCTAssertNil(message.replyTo)
        XCTAssertFalse(message.isOutgoing)
        XCTAssertNil(message.reactionsNode)
    }

    /// `isSystem` compares the type's length first: only a type that
    /// decodes to exactly "system" is one, however it is spelled.
    func test_systemType_isTheDecodedTypeSystemOnly() throws {
        let cases: [(String, Bool)] = [(#""system""#, true), (#""sys\u0074em""#, true), (#""System""#, false),
                                       (#""systems""#, false), (#""syste""#, false), (#""systém""#, false),
                                       (#""sy\u0000em""#, false), (#""""#, false), (#"7"#, false)]
        for (type, expected) in cases {
            let message = try load(#"{"type":"# + type + #","system":{"event":"conversation"},"text":"t"}"#)
            XCTAssertEqual(message.isSystem, expected, type)
            XCTAssertEqual(message.systemEvent, expected ? "conversation" : nil, type)
        }
    }

    func test_nineByteFields_areRead() throws {
        let message = try load(#"{"type":"text","direction":"outgoing","reactions":[{"emoji":"x","count":1}]}"#)
        XCTAssertTrue(message.isOutgoing)
        XCTAssertNotNil(message.reactionsNode)
    }

    func test_aShortKeyAtTheEndOfTheLine_isRead() throws {
        // Fewer than eight bytes from the key to the end: read byte by byte.
        let message = try load(#"{"id":7}"#)
        XCTAssertEqual(message.id, "7")
    }

    func test_keyWordConstants_areTheWordsOfTheirNames() {
        XCTAssertEqual(KeyWord.id, KeyWord.of("id"))
        XCTAssertEqual(KeyWord.type, KeyWord.of("type"))
        XCTAssertEqual(KeyWord.time, KeyWord.of("time"))
        XCTAssertEqual(KeyWord.text, KeyWord.of("text"))
        XCTAssertEqual(KeyWord.sender, KeyWord.of("sender"))
        XCTAssertEqual(KeyWord.status, KeyWord.of("status"))
        XCTAssertEqual(KeyWord.edited, KeyWord.of("edited"))
        XCTAssertEqual(KeyWord.replyTo, KeyWord.of("reply_to"))
        XCTAssertEqual(KeyWord.directio, KeyWord.of("direction"))
        XCTAssertEqual(KeyWord.reaction, KeyWord.of("reactions"))
    }

    func test_keyWord_readsTheSameInOneLoadAndByteByByte() {
        let bytes: [UInt8] = Array(#""status":"read","x":1}"#.utf8)
        bytes.withUnsafeBufferPointer { all in
            guard let base = all.baseAddress else { return XCTFail("no bytes") }
            for length in 1...8 {
                // count: the whole buffer (one load) or just the key (bytes).
                XCTAssertEqual(KeyWord.of(base, 1, length, count: all.count), KeyWord.of(base, 1, length, count: 1 + length))
            }
        }
    }
}

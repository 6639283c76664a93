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

    func test_repeatedKeys_theFirstWins() throws {
        let message = try load(#"{"type":"file","type":"text","text":"one","text":"two","id":"a","id":"b"}"#)
        XCTAssertEqual(message.type, "file")
        XCTAssertEqual(message.text, "one")
        XCTAssertEqual(message.id, "a")
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

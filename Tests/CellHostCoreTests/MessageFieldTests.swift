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
}

import XCTest
@testable import CellHostCore

/// A sender object known from its bytes (`RecentSenders`) reads as the
/// same object read member by member does, and objects that differ in
/// any byte are never taken for one another.
final class RecentSendersTests: XCTestCase {
    /// Sender objects: around multiples of eight bytes and the 64-byte
    /// limit, differing only in their last byte or past 16 bytes, with
    /// escapes, invalid UTF-8, non-ASCII, an empty object, members in
    /// another order or repeated, an id that is a number or missing.
    private let senders: [[UInt8]] = [
        Array(#"{"id":"u-1","name":"Alice"}"#.utf8), Array(#"{"id":"u-2","name":"Bob"}"#.utf8),
        Array(#"{"id":"u-2","name":"Bot"}"#.utf8), Array(#"{"id":"u-3","name":"Carol Nguyễn"}"#.utf8),
        Array(#"{}"#.utf8), Array(#"{"id":"1234"}"#.utf8), Array(#"{"id":"12345678"}"#.utf8),
        Array(#"{"id":"123456789"}"#.utf8), Array(#"{"name":"Bob","id":"u-2"}"#.utf8),
        Array(#"{"id":"u-2","id":"u-9","name":"Bob"}"#.utf8), Array(#"{"id":17,"name":"Bob"}"#.utf8),
        Array(#"{"i\u0064":"u-2","name":"B\u006fb"}"#.utf8), Array(#"{"id":"u-2","name":"B\"ob"}"#.utf8),
        Array(#"{"id":"u-2","name":"#.utf8) + [0x22, 0xFF, 0x62, 0x22, 0x7D],
        Array(#"{"id":"u-2","name":"#.utf8) + [0x22, 0xFE, 0x62, 0x22, 0x7D],
        // 63, 63, 64, 64, 65 and 66 bytes.
        Array(#"{"id":"a-much-longer-sender-id","name":"and a name long enoug"}"#.utf8),
        Array(#"{"id":"a-much-longer-sender-id","name":"and a name long enouX"}"#.utf8),
        Array(#"{"id":"a-much-longer-sender-id","name":"and a name long enough"}"#.utf8),
        Array(#"{"id":"a-much-longer-sender-id","name":"and a name long enougX"}"#.utf8),
        Array(#"{"id":"a-much-longer-sender-id","name":"and a name long enough!"}"#.utf8),
        Array(#"{"id":"a-much-longer-sender-id","name":"and a name long enough!!"}"#.utf8),
        Array(#"{"id":"u-1","name":"Alice","avatar":{"url":"a.png"}}"#.utf8), Array(#"{ "id" : "u-1" }"#.utf8),
    ]

    /// Records with each sender in a few positions (the last member
    /// included, so that its last word is read at the end of the bytes),
    /// loaded in turn into a ring of messages that share one
    /// `Message.RecentFields`: each reads the sender a message loaded
    /// alone (nothing kept) reads.
    func test_messagesSharingRecentSenders_readWhatAMessageAloneReads() throws {
        var recent = Message.RecentFields()
        var days = RFC3339.DayCache()
        let ring = [Message(), Message(), Message()]
        var random = SplitMix64(state: 7)
        for turn in 0..<3000 {
            let sender = senders[random.below(senders.count)]
            let record: [UInt8]
            switch turn % 3 {
            case 0: record = Array(#"{"type":"text","sender":"#.utf8) + sender + Array(#","text":"hi"}"#.utf8)
            case 1: record = Array(#"{"sender":"#.utf8) + sender + Array(#","type":"text"}"#.utf8)
            default: record = Array(#"{"type":"text","sender":"#.utf8) + sender + [UInt8(ascii: "}")]
            }
            let message = ring[turn % ring.count], alone = Message()
            var taken = record
            try message.load(taking: &taken, me: "u-2", days: &days, recent: &recent)
            try record.withUnsafeBufferPointer { try alone.load($0, me: "u-2") }
            let text = String(decoding: record, as: UTF8.self)
            XCTAssertEqual(Array(message.senderID.utf8), Array(alone.senderID.utf8), text)
            XCTAssertEqual(Array(message.senderName.utf8), Array(alone.senderName.utf8), text)
            XCTAssertEqual(message.isOutgoing, alone.isOutgoing, text)
        }
    }

    /// `find` knows an object only by all of its bytes, and forgets the
    /// oldest once more than `capacity` are kept.
    func test_find_matchesOnlyTheSameBytes_andForgetsTheOldest() throws {
        var recent = RecentSenders()
        func document(_ bytes: [UInt8]) throws -> JSONDocument {
            var document = JSONDocument()
            var taken = bytes
            try document.parse(taking: &taken)
            return document
        }
        let first = try document(senders[0]), similar = try document(senders[2]), kept = try document(senders[1])
        XCTAssertNil(recent.find(first, JSONDocument.root))
        recent.remember(first, JSONDocument.root, id: "u-1", name: "Alice")
        recent.remember(kept, JSONDocument.root, id: "u-2", name: "Bob")
        XCTAssertEqual(recent.find(first, JSONDocument.root)?.name, "Alice")
        XCTAssertEqual(recent.find(kept, JSONDocument.root)?.name, "Bob")
        XCTAssertNil(recent.find(similar, JSONDocument.root))
        let long = try document(try XCTUnwrap(senders.first { $0.count == RecentSenders.keyBytes + 1 }))
        recent.remember(long, JSONDocument.root, id: "x", name: "y")
        XCTAssertNil(recent.find(long, JSONDocument.root), "objects over \(RecentSenders.keyBytes) bytes are not kept")
        for number in 0..<RecentSenders.capacity - 1 {
            let other = try document(Array(#"{"id":"other-\#(number)"}"#.utf8))
            recent.remember(other, JSONDocument.root, id: "other-\(number)", name: "")
        }
        XCTAssertNil(recent.find(first, JSONDocument.root), "the oldest is replaced")
        XCTAssertEqual(recent.find(kept, JSONDocument.root)?.id, "u-2")
        // `assign` sets both whatever they held (the same, or other strings, long ones included).
        let position = try XCTUnwrap(recent.position(kept, JSONDocument.root))
        for (id, name) in [("u-2", "Bob"), ("", ""), ("u-1", "a name well over fifteen bytes"), (String(repeating: "u", count: 30), "Bob")] {
            var (heldID, heldName) = (id, name)
            recent.assign(position, id: &heldID, name: &heldName)
            XCTAssertEqual(heldID, "u-2")
            XCTAssertEqual(heldName, "Bob")
        }
    }
}

import XCTest
@testable import CellHostCore

/// `RecentStrings` gives what `JSONDocument.string` gives, whether a value
/// is new or kept from an earlier document (or message), and
/// `parse(taking:)` parses as `parse(_:)` does.
final class RecentStringsTests: XCTestCase {
    /// JSON string contents (raw bytes between the quotes), including
    /// values that differ only past 16 bytes or in one byte of a word,
    /// invalid UTF-8, U+FFFD spelled out, escapes and the empty string.
    private let values: [[UInt8]] = [
        Array("text".utf8), Array("file".utf8), Array("u-1".utf8), Array("u-12".utf8), Array("Alice".utf8),
        Array("Carol Nguyễn".utf8), Array("".utf8), Array("12345678".utf8), Array("123456789".utf8),
        Array("1234567890123456".utf8), Array("12345678901234567".utf8), Array("1234567890123456x".utf8),
        Array("a long sender name, well past sixteen bytes".utf8), Array("a long sender name, well past sixteen bytez".utf8),
        [0xFF], [0xEF, 0xBF, 0xBD], Array("1234567890123456".utf8) + [0xFF, 0x61], Array("1234567890123456".utf8) + [0xEF, 0xBF],
        Array("1234567890123456\u{FFFD}a".utf8), [0xF0, 0x9F, 0x98], Array("1234567890123456".utf8) + [0xF0, 0x9F, 0x98],
        Array("1234567890123456".utf8) + [0xEF, 0xBF, 0xBD], Array("\\u00e9t\\u00e9".utf8), Array("line\\nbreak".utf8),
        Array("été".utf8),
    ]

    private func document(_ content: [UInt8]) throws -> JSONDocument {
        var document = JSONDocument()
        var bytes = [UInt8(ascii: "\"")] + content + [UInt8(ascii: "\"")]
        try document.parse(taking: &bytes)
        return document
    }

    /// `decoded` (a small string built in place up to 15 bytes) gives what
    /// `String(decoding:as:)` gives, repairs included.
    func test_decoded_isWhatStringDecodingGives() {
        for value in values + [Array("123456789012345".utf8), Array("12345678901234".utf8) + [0xC3],
                               Array("1234567890123".utf8) + [0xC3, 0xA9]] {
            let expected = String(decoding: value, as: UTF8.self)
            let decoded = value.withUnsafeBufferPointer { RecentStrings.decoded($0) }
            XCTAssertEqual(decoded, expected)
            XCTAssertEqual(Array(decoded.utf8), Array(expected.utf8))
        }
    }

    func test_values_areWhatStringGives_newOrKept() throws {
        var recent = RecentStrings()
        var random = SplitMix64(state: 11)
        // Enough turns for every value to be kept, matched and replaced (more values than entries).
        for _ in 0..<2000 {
            let document = try document(values[random.below(values.count)])
            XCTAssertEqual(recent.string(document, JSONDocument.root), document.string(JSONDocument.root))
        }
    }

    /// `assign` sets its target to what `string` gives whatever the target
    /// held: the same kept value, an equal string stored apart, another
    /// value, or empty; and leaves it alone, returning false, for a node
    /// that is not a string.
    func test_assign_setsWhatStringGives_whateverTheTargetHeld() throws {
        var recent = RecentStrings()
        var random = SplitMix64(state: 3)
        let held = values.map { String(decoding: $0, as: UTF8.self) } + ["", String(repeating: "x", count: 40)]
        for _ in 0..<3000 {
            let document = try document(values[random.below(values.count)])
            var target = random.below(3) == 0 ? (recent.string(document, JSONDocument.root) ?? "") : held[random.below(held.count)]
            XCTAssertTrue(recent.assign(document, JSONDocument.root, to: &target))
            XCTAssertEqual(Array(target.utf8), Array(try XCTUnwrap(document.string(JSONDocument.root)).utf8))
        }
        var number = JSONDocument()
        var bytes = Array("12".utf8)
        try number.parse(taking: &bytes)
        var target = "kept"
        XCTAssertFalse(recent.assign(number, JSONDocument.root, to: &target))
        XCTAssertEqual(target, "kept")
    }

    /// A render thread's messages share one `Message.RecentFields`
    /// (`CallState.recent`): each gets the type and sender a message of
    /// its own, loaded alone, gets.
    func test_messagesSharingRecentFields_readWhatAMessageAloneReads() throws {
        var recent = Message.RecentFields()
        var days = RFC3339.DayCache()
        let ring = [Message(), Message(), Message()]
        var random = SplitMix64(state: 5)
        let quote: [UInt8] = [UInt8(ascii: "\"")]
        func string(_ content: [UInt8]) -> [UInt8] { quote + content + quote }
        for turn in 0..<1500 {
            let type = string(values[random.below(values.count)]), id = string(values[random.below(values.count)])
            let name = string(values[random.below(values.count)])
            let sender = turn % 7 == 0 ? id : Array(#"{"id":"#.utf8) + id + Array(#","name":"#.utf8) + name + [UInt8(ascii: "}")]
            let record = Array(#"{"type":"#.utf8) + type + Array(#","sender":"#.utf8) + sender + [UInt8(ascii: "}")]
            let message = ring[turn % ring.count], alone = Message()
            var taken = record
            try message.load(taking: &taken, me: "u-1", days: &days, recent: &recent)
            try record.withUnsafeBufferPointer { try alone.load($0, me: "u-1") }
            XCTAssertEqual(message.type, alone.type)
            XCTAssertEqual(message.typeIsMissing, alone.typeIsMissing)
            XCTAssertEqual(message.senderID, alone.senderID)
            XCTAssertEqual(message.senderName, alone.senderName)
            XCTAssertEqual(message.isOutgoing, alone.isOutgoing)
        }
    }

    func test_aNodeThatIsNotAString_isNil() throws {
        var recent = RecentStrings()
        var document = JSONDocument()
        var bytes = Array("[1, null, {}]".utf8)
        try document.parse(taking: &bytes)
        XCTAssertNil(recent.string(document, JSONDocument.root))
        XCTAssertNil(recent.string(document, 1))
        XCTAssertNil(recent.string(document, 2))
    }

    /// `parse(taking:)` parses as `parse(_:)` does, and gives back the
    /// bytes of the value parsed before.
    func test_parseTaking_isParse() throws {
        var shared = JSONDocument()
        var before: [UInt8] = []
        for text in ["{\"a\": [1, 2, {\"b\": \"c\"}], \"d\": \"e\\u0041\"}", "  [true, false, null] ", "\"x\"", "{\"a\" 1}", "", "[1,]"] {
            let bytes = Array(text.utf8)
            var copied = JSONDocument()
            var taken = bytes
            let sharedError = Result { try shared.parse(taking: &taken) }
            XCTAssertEqual(taken, before, text)
            before = bytes
            let copiedError = Result { try bytes.withUnsafeBufferPointer { try copied.parse($0) } }
            switch (sharedError, copiedError) {
            case (.success, .success):
                XCTAssertEqual(shared.bytes, copied.bytes)
                XCTAssertEqual(shared.nodes.all.map { [$0.kind.rawValue, $0.escaped ? 1 : 0] },
                               copied.nodes.all.map { [$0.kind.rawValue, $0.escaped ? 1 : 0] })
                XCTAssertEqual(shared.nodes.all.map { [$0.start, $0.end, $0.next, $0.count] },
                               copied.nodes.all.map { [$0.start, $0.end, $0.next, $0.count] })
            case let (.failure(shared), .failure(copied)):
                XCTAssertEqual(shared as? JSONSyntaxError, copied as? JSONSyntaxError, text)
            default:
                XCTFail("parse(taking:) and parse(_:) disagree on \(text)")
            }
        }
    }

    /// A small string made from its words is the string the standard
    /// library makes of the same bytes: equal, with the same UTF-8, count,
    /// hash and (ASCII up to 15 bytes) bits, for every length up to 16 and 20, at the start, the
    /// middle and the very end of the buffer (the word loads near its end),
    /// ASCII, non-ASCII anywhere, and invalid UTF-8.
    func test_decodedFromWords_isTheStandardLibrarysString() {
        #if arch(x86_64) || arch(arm64)
        XCTAssertTrue(SmallASCII.layoutHolds)
        #endif
        var generator = SystemRandomNumberGenerator()
        for length in 0...20 {
            for trial in 0..<200 {
                var value = (0..<length).map { _ in UInt8.random(in: 0...0x7F, using: &generator) }
                if trial % 4 == 1, length > 0 { value[Int.random(in: 0..<length, using: &generator)] = UInt8.random(in: 0x80...0xFF, using: &generator) }
                if trial % 4 == 2, length > 1 { value.replaceSubrange(0..<2, with: [0xC3, 0xA9]) }
                let before = trial % 3 == 0 ? 0 : Int.random(in: 1...9, using: &generator)
                let after = trial % 3 == 1 ? 0 : Int.random(in: 1...9, using: &generator)
                let buffer = [UInt8](repeating: 0x22, count: before) + value + [UInt8](repeating: 0xFF, count: after)
                let expected = String(decoding: value, as: UTF8.self)
                for small in [true, false] {
                    let made = buffer.withUnsafeBufferPointer { RecentStrings.decoded($0, before..<(before + length), small: small) }
                    XCTAssertEqual(made, expected, "\(value)")
                    XCTAssertEqual(Array(made.utf8), Array(expected.utf8))
                    XCTAssertEqual(made.count, expected.count)
                    XCTAssertEqual(made.hashValue, expected.hashValue)
                    // The same bits where it was made from words (a repaired string may be laid out otherwise).
                    if length <= 15, value.allSatisfy({ $0 < 0x80 }) {
                        XCTAssertTrue(unsafeBitCast(made, to: (UInt64, UInt64).self) == unsafeBitCast(expected, to: (UInt64, UInt64).self),
                                      "bits of \(value)")
                    }
                }
            }
        }
    }
}

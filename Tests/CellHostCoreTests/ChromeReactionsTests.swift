import XCTest
@testable import CellHostCore

/// The reactions line is put together from the JSON's bytes (each emoji
/// decoded straight into the line and cut by `CharacterPrefix`); it must
/// be what the `String` way gives: `JSONDocument.string` of each emoji,
/// `String.prefix(8)` of a longer one.
final class ChromeReactionsTests: XCTestCase {
    /// The reactions line as it was put together with `String`s.
    static func reference(_ message: Message) -> String {
        let document = message.document
        guard let list = message.reactionsNode, document.kind(list) == .array else { return "" }
        var parts: [String] = []
        for element in document.elements(list).prefix(20) {
            guard document.kind(element) == .object,
                  var emoji = document.member(element, "emoji").flatMap({ document.string($0) }), !emoji.isEmpty else { continue }
            let count = document.member(element, "count").flatMap { document.integer($0) } ?? 1
            guard count >= 1 else { continue }
            if emoji.utf8.count > 8 { emoji = String(emoji.prefix(8)) }
            parts.append(count > 999_999 ? "\(emoji) 999999+" : count > 1 ? "\(emoji) \(count)" : emoji)
        }
        return parts.joined(separator: "  ")
    }

    static func message(_ reactions: [UInt8]) throws -> Message {
        let record = Array(#"{"id":"m-1","type":"text","text":"x","reactions":"#.utf8) + reactions + [0x7D]
        let message = Message()
        try record.withUnsafeBufferPointer { try message.load($0, me: nil) }
        return message
    }

    func test_line_isWhatTheStringWayGives_forTrickyReactions() throws {
        let cases: [String] = [
            #"[{"emoji":"👍","count":2},{"emoji":"❤️","count":1}]"#,
            #"[{"emoji":"👩‍👩‍👧‍👦👩‍👩‍👧‍👦","count":3},{"emoji":"abcdefghijk"},{"emoji":"éééééééééé","count":1000000}]"#,
            #"[{"emoji":"","count":2},{"emoji":5},{"count":2},{"emoji":"a","count":0},{"emoji":"b","count":-1},"x",{"emoji":"c"}]"#,
            #"[{"emoji":"\u00e9\ud83d\ude00\ud800x","count":2},{"emoji":"a\"b\\c\n","count":7}]"#,
            #"[{"emoji":"A","emoji":"B","count":2,"count":5},{"count":3,"emoji":"C"}]"#,
            #"[{"em\u006fji":"D","count":2}]"#,
            #"[{"emoji":"🇯🇵🇯🇵🇯🇵🇯🇵🇯🇵","count":999999}]"#,
            #"[{"emoji":"e\u0301e\u0301e\u0301e\u0301e\u0301e\u0301e\u0301e\u0301e\u0301"}]"#,
            #"{"emoji":"A"}"#,
            #"[]"#,
        ]
        var records = cases.map { Array($0.utf8) }
        // Invalid UTF-8 in an emoji, and more than 20 reactions.
        records.append(Array(#"[{"emoji":""#.utf8) + [0xF0, 0x9F, 0x91, 0xFF, 0xFE, 0xC0, 0xAF, 0x41] + Array(#"","count":2}]"#.utf8))
        records.append(Array(("[" + (0..<25).map { #"{"emoji":"e\#($0)","count":\#($0)}"# }.joined(separator: ",") + "]").utf8))
        for record in records {
            let message = try Self.message(record)
            var line: [UInt8] = []
            Chrome.reactions(message, into: &line)
            XCTAssertEqual(String(decoding: line, as: UTF8.self), Self.reference(message), String(decoding: record, as: UTF8.self))
            XCTAssertEqual(Chrome.reactions(message), Self.reference(message))
        }
    }
}

import Foundation
import XCTest
@testable import CellHostCore

/// An incoming bubble line's bar and the space after it are stored as one
/// run of bytes (the space a piece of text without style, so the encoders
/// write bar and space at once): every format must still draw what a bar
/// and a padding of one column drew, and a line without content no space.
final class ChromeBubbleTests: XCTestCase {
    /// What `records` render to in `format`, as one conversation.
    static func render(_ records: [String], format: OutputFormat, depth: ColorDepth = .none, width: Int = 40) throws -> String {
        let host = CellHost()
        let output = OutputBuffer(fd: -1)
        let session = RenderSession(host: host, settings: OutputSettings(format: format, depth: depth, width: width),
                                    me: "u-me", output: output, limits: .standard)
        for (index, record) in records.enumerated() {
            var record = record
            try record.withUTF8 { try session.render($0, line: index + 1) }
        }
        host.runtime.endConversation()
        return String(decoding: output.bytes, as: UTF8.self)
    }

    static let records = [
        #"{"id":"m1","type":"text","sender":{"id":"u-1","name":"Ann"},"text":"first\n\nthird line"}"#,
        #"{"id":"m2","type":"text","sender":{"id":"u-1","name":"Ann"},"text":"\n","reactions":[{"emoji":"👍","count":2}]}"#,
        #"{"id":"m3","type":"text","sender":{"id":"u-me","name":"Me"},"text":"mine\n\nend","status":"read"}"#,
        #"{"id":"m4","type":"text","sender":{"id":"u-1","name":"Ann"},"reply_to":"m3","text":"x"}"#,
    ]

    func test_plain_barThenOneSpace_andNoSpaceOnAnEmptyLine() throws {
        let lines = try Self.render(Self.records, format: .plain).split(separator: "\n", omittingEmptySubsequences: false)
        XCTAssertTrue(lines.contains("┃ first"), "\(lines)")
        XCTAssertTrue(lines.contains("│ third line"), "\(lines)")
        XCTAssertTrue(lines.contains("│ 👍 2"), "\(lines)")
        XCTAssertTrue(lines.contains { $0.hasPrefix("┃ ↪ Me: mine") }, "\(lines)")
        XCTAssertTrue(lines.contains("│ x"), "\(lines)")
        // The empty lines of m1 and m2 (its first): the bar alone.
        XCTAssertEqual(lines.filter { $0 == "│" }.count, 1, "\(lines)")
        XCTAssertEqual(lines.filter { $0 == "┃" }.count, 1, "\(lines)")
        XCTAssertFalse(lines.contains { $0.hasSuffix(" ") }, "\(lines)")
        // Outgoing lines keep their bar at the right edge.
        XCTAssertTrue(lines.contains { $0.hasPrefix("   ") && $0.contains("mine ") && $0.hasSuffix("┃") }, "\(lines)")
    }

    /// ANSI draws the bar in its style and the space after it unstyled,
    /// as a padding was drawn.
    func test_ansi_styledBarThenAPlainSpace() throws {
        let text = try Self.render(Self.records, format: .ansi, depth: .ansi256)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        XCTAssertTrue(lines.contains("\u{1B}[2m┃\u{1B}[0m first"), "\(lines)")
        XCTAssertTrue(lines.contains("\u{1B}[2m│\u{1B}[0m third line"), "\(lines)")
        XCTAssertEqual(lines.filter { $0 == "\u{1B}[2m│\u{1B}[0m" }.count, 1, "\(lines)")
        XCTAssertEqual(lines.filter { $0 == "\u{1B}[2m┃\u{1B}[0m" }.count, 1, "\(lines)")
    }

    /// The json `lines` are the plain lines.
    func test_jsonLines_areThePlainLines() throws {
        let plain = try Self.render(Self.records, format: .plain).split(separator: "\n").map(String.init)
        let json = try Self.render(Self.records, format: .json)
        var lines: [String] = []
        for record in json.split(separator: "\n") {
            let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(record.utf8)) as? [String: Any])
            lines += try XCTUnwrap(object["lines"] as? [String])
        }
        XCTAssertEqual(lines.filter { !$0.isEmpty }, plain.filter { !$0.isEmpty })
    }
}

import XCTest
@testable import CellHostCore

/// Group headers draw a sender's name from the sender's entry in the
/// chrome (kept for eight senders at a time, the name as drawn last): each
/// header must show what sanitizing and cutting the message's own name
/// gives, when a sender is renamed, when two senders share a name and when
/// more senders than are kept take turns.
final class ChromeSenderTests: XCTestCase {
    /// The plain lines of `records` rendered as one conversation.
    static func conversation(_ records: [String], width: Int) throws -> [String] {
        let host = CellHost()
        let output = OutputBuffer(fd: -1)
        let session = RenderSession(host: host, settings: OutputSettings(format: .plain, depth: .none, width: width),
                                    me: nil, output: output, limits: .standard)
        for (index, record) in records.enumerated() {
            var record = record
            try record.withUTF8 { try session.render($0, line: index + 1) }
        }
        host.runtime.endConversation()
        let text = String(decoding: output.bytes, as: UTF8.self)
        return text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }

    func test_headers_showEachMessagesOwnName() throws {
        let width = 40
        let long = String(repeating: "Long name ", count: 8)
        // (sender id, name): no times, so each change of sender starts a group.
        var senders: [(String, String)] = [("u1", "Ann"), ("u2", "Bob"), ("u1", "Ann"), ("u2", "Robert"), ("u3", "Ann"),
                                           ("u1", "Ann"), ("u3", "Ann"), ("u4", long), ("u5", "Zoë\u{1B}[31m red"),
                                           ("u4", long), ("u5", "Zoë\u{1B}[31m red")]
        senders += (0..<20).map { ("v\($0 % 11)", "Person \($0 % 11)") }
        senders += [("v0", "Person 0"), ("u1", "Ann"), ("u2", "Robert"), ("u1", "Anne")]
        let records = senders.enumerated().map { index, sender in
            #"{"id":"m\#(index)","type":"text","sender":{"id":"\#(sender.0)","name":"\#(Self.escaped(sender.1))"},"text":"hi"}"#
        }
        let lines = try Self.conversation(records, width: width)
        // A header is the line before a bubble's first line.
        let headers = lines.indices.dropLast().filter { lines[$0 + 1].hasPrefix("┃") }.map { lines[$0] }
        let reference = Chrome(width: width)
        let expected = senders.map { sender -> String in
            var bytes = UnsafeList<UInt8>(capacity: 16)
            defer { bytes.deallocate() }
            _ = reference.fitted(sender.1, style: [], maxWidth: width, into: &bytes)
            return String(decoding: bytes.elements, as: UTF8.self)
        }
        XCTAssertEqual(headers.map { $0.trimmingSuffixSpaces }, expected.map { $0.trimmingSuffixSpaces })
    }

    static func escaped(_ text: String) -> String {
        text.unicodeScalars.map { $0.value < 0x20 ? String(format: "\\u%04x", $0.value) : String($0) }.joined()
    }
}

private extension String {
    var trimmingSuffixSpaces: String {
        var text = Substring(self)
        while text.last == " " { text = text.dropLast() }
        return String(text)
    }
}

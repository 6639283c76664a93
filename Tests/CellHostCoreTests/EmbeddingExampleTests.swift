import XCTest
@testable import CellHostCore

/// The example of docs/embedding.md, kept compiling and true.
final class EmbeddingExampleTests: XCTestCase {
    func test_documentedExample_rendersAnInProcessCellForItsMessageClass() throws {
        let host = CellHost()
        try host.register(InProcessCell(className: "TicketCell", messageClasses: ["ticket"]) { cell in
            guard let title = cell.string("ticket.title") else { return .declined }
            cell.append("🎫 ", style: .accent)
            cell.append(title, style: .strong)
            return .rendered
        })
        let lines = try host.renderLines(#"{"type":"ticket","ticket":{"title":"COAST-8F2K"}}"#, width: 60)
        XCTAssertEqual(lines, ["┃ 🎫 COAST-8F2K"])
    }

    func test_documentedExample_declinedTicketFallsBackToUnknownMessageCell() throws {
        let host = CellHost()
        try host.register(InProcessCell(className: "TicketCell", messageClasses: ["ticket"]) { cell in
            guard cell.string("ticket.title") != nil else { return .declined }
            return .rendered
        })
        let lines = try host.renderLines(#"{"type":"ticket","text":"a ticket"}"#, width: 60)
        XCTAssertEqual(lines, ["┃ Unsupported message type “ticket”", "│ a ticket"])
    }

    func test_renderSessionBaseDirectory_isWhatCellsSeeAsTheBaseDirectory() throws {
        let host = CellHost()
        try host.register(InProcessCell(className: "PathCell", messageClasses: ["path"]) { cell in
            cell.append(cell.baseDirectory)
            return .rendered
        })
        let output = OutputBuffer(fd: -1)
        let session = RenderSession(host: host, settings: OutputSettings(format: .plain, depth: .none, width: 60),
                                    me: nil, output: output)
        session.baseDirectory = BaseDirectory(containing: "/srv/chats/conversation.jsonl")
        var json = #"{"type":"path"}"#
        try json.withUTF8 { try session.render($0, line: 1) }
        session.finish()
        XCTAssertEqual(String(decoding: output.bytes, as: UTF8.self), "┃ /srv/chats\n")
    }

    func test_baseDirectory_isAbsoluteWithoutATrailingSlash() {
        XCTAssertEqual(BaseDirectory(path: "/srv/chats/").path, "/srv/chats")
        XCTAssertEqual(BaseDirectory(path: "/").path, "/")
        XCTAssertEqual(BaseDirectory(containing: "/conversation.jsonl").path, "/")
        XCTAssertTrue(BaseDirectory(containing: "conversation.jsonl").path.hasPrefix("/"))
        XCTAssertEqual(BaseDirectory(path: "/srv/chats/.").path, "/srv/chats")
    }
}

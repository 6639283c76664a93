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
}

import Foundation
import XCTest
@testable import CellHostCore

/// The pipeline bounds the bytes in flight, not only the number of slots,
/// and slots give back what large messages made them grow.
final class PipelineMemoryTests: XCTestCase {
    private let settings = OutputSettings(format: .plain, depth: .none, width: 60)

    private func bigRecord(_ index: Int) -> String {
        #"{"id":"b\#(index)","type":"text","text":""# + String(repeating: "word ", count: 10_000) + #""}"#
    }

    func test_bytesInFlight_stayWithinTheBudgetPlusOneRecord() throws {
        let budget = 100_000
        let output = OutputBuffer(fd: -1)
        let session = RenderSession(host: CellHost(), settings: settings, me: nil, output: output)
        let pipeline = RenderPipeline(session: session, capacity: 256, batch: 32, byteBudget: budget, diagnostics: { _ in })
        pipeline.start()
        var largest = 0
        for index in 0..<60 {
            var record = bigRecord(index)
            try record.withUTF8 { try pipeline.submit($0, line: index + 1) }
            largest = max(largest, pipeline.bytesInFlightSeen)
        }
        pipeline.finish()
        // One record is 50 KB of JSON plus 50 KB of content.
        XCTAssertLessThanOrEqual(largest, budget + 110_000)
        XCTAssertEqual(output.bytes.filter { $0 == 0x0A }.count, 60 * 1000, "every message is written (1000 rows each)")
    }

    func test_aSlotGivesBackTheBuffersOfALargeMessage() throws {
        let slot = RenderSlot()
        let session = RenderSession(host: CellHost(), settings: settings, me: nil, output: OutputBuffer(fd: -1))
        var record = #"{"type":"text","text":""# + String(repeating: "x", count: 3 << 20) + #""}"#
        try record.withUTF8 { try session.prepare(slot, $0, line: 1) }
        session.emit(slot)
        XCTAssertGreaterThan(slot.message.document.bytes.capacity, 3 << 20)
        slot.releaseLargeBuffers()
        XCTAssertLessThan(slot.message.document.bytes.capacity, 1 << 20)
        XCTAssertLessThan(slot.canvas.bytes.capacity, 2 << 20)
    }

    /// `CellCanvas.releaseLargeBuffers` looks at every list before it
    /// releases any: one large list alone (here the pieces, or the
    /// wrapper's glyphs) is given back, and lists under the threshold are
    /// left as they are.
    func test_aCanvasGivesBackAnyLargeListAndKeepsSmallOnes() {
        let canvas = CellCanvas()
        for _ in 0..<100 { canvas.pieces.append(Piece.padding(1)) }
        let capacity = canvas.pieces.capacity
        canvas.releaseLargeBuffers()
        XCTAssertEqual(canvas.pieces.capacity, capacity, "a small list keeps its memory")

        canvas.releaseLargeBuffers(threshold: 100)
        XCTAssertLessThanOrEqual(canvas.pieces.capacity, 64)
        XCTAssertEqual(canvas.pieces.count, 0, "a released list is empty")

        for _ in 0..<((1 << 20) / MemoryLayout<Piece>.stride + 1) { canvas.pieces.append(Piece.padding(1)) }
        canvas.releaseLargeBuffers()
        XCTAssertLessThanOrEqual(canvas.pieces.capacity * MemoryLayout<Piece>.stride, 1 << 20)

        for _ in 0..<((1 << 20) + 1) { canvas.wrapGlyphs.append(0x78) }
        canvas.releaseLargeBuffers()
        XCTAssertLessThanOrEqual(canvas.wrapGlyphs.capacity, 1 << 20)
    }
}

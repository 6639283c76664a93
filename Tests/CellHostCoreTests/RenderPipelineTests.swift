import Foundation
import XCTest
@testable import CellHostCore

/// The two-thread pipeline must write exactly what the one-thread session
/// writes, in input order, with diagnostics at their place among messages.
final class RenderPipelineTests: XCTestCase {
    private let settings = OutputSettings(format: .plain, depth: .none, width: 60)

    private func records(_ count: Int) -> [String] {
        (0..<count).map { index in
            let sender = index % 3
            let time = 1_795_900_000 + index * 97
            return #"{"id":"m-\#(index)","type":"text","sender":{"id":"u-\#(sender)","name":"User \#(sender)"},"time":\#(time),"text":"message number \#(index) with a few words to wrap around the edge","reply_to":"m-\#(max(0, index - 5))"}"#
        }
    }

    private func renderSerially(_ lines: [String]) throws -> [UInt8] {
        let output = OutputBuffer(fd: -1)
        let session = RenderSession(host: CellHost(), settings: settings, me: "u-1", output: output)
        for (index, line) in lines.enumerated() {
            var line = line
            try line.withUTF8 { try session.render($0, line: index + 1) }
        }
        session.finish()
        return output.bytes
    }

    func test_pipeline_writesTheSameBytesAsTheSerialSession() throws {
        let lines = records(2_000)
        let output = OutputBuffer(fd: -1)
        let session = RenderSession(host: CellHost(), settings: settings, me: "u-1", output: output)
        let pipeline = RenderPipeline(session: session, capacity: 16, batch: 4, diagnostics: { _ in })
        pipeline.start()
        for (index, line) in lines.enumerated() {
            var line = line
            try line.withUTF8 { try pipeline.submit($0, line: index + 1) }
        }
        pipeline.finish()
        XCTAssertEqual(output.bytes, try renderSerially(lines))
    }

    func test_diagnostics_arePrintedAfterTheMessagesBeforeThem() throws {
        let output = OutputBuffer(fd: -1)
        let session = RenderSession(host: CellHost(), settings: settings, me: nil, output: output)
        var seen: [(line: String, outputBytes: Int)] = []
        let pipeline = RenderPipeline(session: session, capacity: 8, batch: 4, diagnostics: { line in
            // Called on the output thread, after it flushed what came before.
            seen.append((line, output.bytes.count))
        })
        pipeline.start()
        for index in 0..<20 {
            var line = #"{"type":"text","text":"before-\#(index)"}"#
            try line.withUTF8 { try pipeline.submit($0, line: index + 1) }
        }
        pipeline.report("the report")
        var last = #"{"type":"text","text":"after"}"#
        try last.withUTF8 { try pipeline.submit($0, line: 21) }
        pipeline.finish()
        let text = String(decoding: output.bytes, as: UTF8.self)
        XCTAssertEqual(seen.count, 1)
        let before = String(decoding: output.bytes.prefix(seen[0].outputBytes), as: UTF8.self)
        XCTAssertTrue(before.contains("before-19"), "every earlier message is out before the report")
        XCTAssertFalse(before.contains("after"), "no later message is out before the report")
        XCTAssertTrue(text.hasSuffix("┃ after\n"))
    }

    func test_aRecordThatIsNotAnObject_isRefusedAndTheSlotReused() throws {
        let output = OutputBuffer(fd: -1)
        let session = RenderSession(host: CellHost(), settings: settings, me: nil, output: output)
        let pipeline = RenderPipeline(session: session, capacity: 2, batch: 1, diagnostics: { _ in })
        pipeline.start()
        for index in 0..<10 {
            var bad = "[1,2]"
            XCTAssertThrowsError(try bad.withUTF8 { try pipeline.submit($0, line: index) })
            var good = #"{"type":"text","text":"ok-\#(index)"}"#
            try good.withUTF8 { try pipeline.submit($0, line: index) }
        }
        pipeline.finish()
        let text = String(decoding: output.bytes, as: UTF8.self)
        XCTAssertEqual(text.components(separatedBy: "ok-").count - 1, 10)
    }
}

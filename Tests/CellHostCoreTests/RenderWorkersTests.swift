import Foundation
import Glibc
import XCTest
@testable import CellHostCore

/// `RenderPipeline` with several render threads (`RenderWorkers`) writes
/// exactly what the one-thread session writes, calls classes that are not
/// thread-safe from the caller's thread only, reports records that are no
/// JSON in their place, and bounds the bytes in flight.
final class RenderWorkersTests: XCTestCase {
    /// The threads a cell ran on.
    final class ThreadSet: @unchecked Sendable {
        private let lock = NSLock()
        private var ids = Set<UInt>()
        func insert(_ id: UInt) { lock.withLock { _ = ids.insert(id) } }
        var all: Set<UInt> { lock.withLock { ids } }
    }

    private let settings = OutputSettings(format: .plain, depth: .none, width: 60)

    /// Texts with replies and day changes, and every seventh an "aside",
    /// which an in-process cell (not thread-safe) renders.
    private func records(_ count: Int) -> [String] {
        (0..<count).map { index in
            let sender = index % 3
            let time = 1_795_900_000 + index * 997
            let type = index % 7 == 3 ? "aside" : "text"
            return #"{"id":"m-\#(index)","type":"\#(type)","sender":{"id":"u-\#(sender)","name":"User \#(sender)"},"time":\#(time),"text":"message number \#(index) with a few words to wrap around the edge","reply_to":"m-\#(max(0, index - 5))"}"#
        }
    }

    /// A host with the "aside" cell, which records the threads it runs on.
    private func makeHost(threads: ThreadSet) throws -> CellHost {
        let host = CellHost()
        try host.register(InProcessCell(className: "AsideCell", messageClasses: ["aside"]) { context in
            threads.insert(UInt(pthread_self()))
            context.append("aside: " + (context.text ?? ""))
            return .rendered
        })
        return host
    }

    private func renderSerially(_ lines: [String]) throws -> [UInt8] {
        let output = OutputBuffer(fd: -1)
        let session = RenderSession(host: try makeHost(threads: ThreadSet()), settings: settings, me: "u-1", output: output)
        for (index, line) in lines.enumerated() {
            var line = line
            try line.withUTF8 { try session.render($0, line: index + 1) }
        }
        session.finish()
        return output.bytes
    }

    func test_fourThreads_writeTheSameBytesAsTheSerialSession_andCallOtherClassesFromTheCallersThread() throws {
        try checkSameBytesAsSerial(threads: 4)
    }

    /// With one worker (the default on two cores) the wrapping moves between
    /// the worker and the caller's thread as either gets ahead: still the
    /// same bytes.
    func test_oneThread_writesTheSameBytesAsTheSerialSession_andCallsOtherClassesFromTheCallersThread() throws {
        try checkSameBytesAsSerial(threads: 1)
    }

    func test_zeroThreads_isTheTwoThreadSplit_andTheDefault() throws {
        let session = RenderSession(host: CellHost(), settings: settings, me: nil, output: OutputBuffer(fd: -1))
        XCTAssertEqual(RenderPipeline(session: session, threads: 0, diagnostics: { _ in }).threads, 0)
        XCTAssertEqual(RenderPipeline(session: session, diagnostics: { _ in }).threads, 0)
    }

    private func checkSameBytesAsSerial(threads count: Int, file: StaticString = #filePath, line: UInt = #line) throws {
        let lines = records(3_000)
        let output = OutputBuffer(fd: -1)
        let threads = ThreadSet()
        let session = RenderSession(host: try makeHost(threads: threads), settings: settings, me: "u-1", output: output)
        let pipeline = RenderPipeline(session: session, capacity: 16, batch: 4, threads: count, diagnostics: { _ in })
        XCTAssertEqual(pipeline.threads, count, file: file, line: line)
        pipeline.start()
        for (index, line) in lines.enumerated() {
            var line = line
            try line.withUTF8 { try pipeline.submit($0, line: index + 1) }
        }
        pipeline.finish()
        XCTAssertEqual(output.bytes, try renderSerially(lines), file: file, line: line)
        XCTAssertEqual(threads.all, [UInt(pthread_self())],
                       "an in-process cell is not thread-safe: only the caller's thread calls it", file: file, line: line)
    }

    func test_recordsThatAreNotObjects_areReportedInTheirPlace() throws {
        let output = OutputBuffer(fd: -1)
        let session = RenderSession(host: CellHost(), settings: settings, me: nil, output: output)
        var seen: [(line: String, outputBytes: Int)] = []
        let pipeline = RenderPipeline(session: session, capacity: 8, batch: 2, threads: 3, diagnostics: { line in
            seen.append((line, output.bytes.count))
        })
        pipeline.source = "chat.jsonl"
        pipeline.start()
        for index in 0..<10 {
            var bad = "[1,2]"
            try bad.withUTF8 { try pipeline.submit($0, line: 2 * index + 1) }
            var good = #"{"type":"text","text":"ok-\#(index)"}"#
            try good.withUTF8 { try pipeline.submit($0, line: 2 * index + 2) }
        }
        pipeline.report("the report")
        pipeline.finish()
        XCTAssertEqual(pipeline.deferredProblems, 10)
        XCTAssertEqual(seen.count, 11)
        XCTAssertTrue(seen[3].line.hasPrefix("chat.jsonl:7: "), seen[3].line)
        let before = String(decoding: output.bytes.prefix(seen[3].outputBytes), as: UTF8.self)
        XCTAssertTrue(before.contains("ok-2") && !before.contains("ok-3"), "line 7 is reported after ok-2, before ok-3")
        XCTAssertEqual(seen[10].line, "the report")
        XCTAssertEqual(String(decoding: output.bytes, as: UTF8.self).components(separatedBy: "ok-").count - 1, 10)
    }

    func test_bytesInFlight_stayWithinTheBudgetPlusWhatTheWorkersHold() throws {
        let budget = 100_000
        let output = OutputBuffer(fd: -1)
        let session = RenderSession(host: CellHost(), settings: settings, me: nil, output: output)
        let pipeline = RenderPipeline(session: session, capacity: 256, batch: 32, byteBudget: budget, threads: 2,
                                      diagnostics: { _ in })
        pipeline.start()
        var largest = 0
        for index in 0..<60 {
            var record = #"{"id":"b\#(index)","type":"text","text":""# + String(repeating: "word ", count: 10_000) + #""}"#
            try record.withUTF8 { try pipeline.submit($0, line: index + 1) }
            largest = max(largest, pipeline.bytesInFlightSeen)
        }
        pipeline.finish()
        // One record is 50 KB of JSON plus 50 KB of content; one more than
        // the budget is submitted, and each worker may be rendering one.
        XCTAssertLessThanOrEqual(largest, budget + 3 * 110_000)
        XCTAssertEqual(output.bytes.filter { $0 == 0x0A }.count, 60 * 1000, "every message is written (1000 rows each)")
    }

    func test_defaultThreads_isOneLessThanTheCores_upToTheMaximum_andOneOnOneCore() {
        XCTAssertEqual(RenderPipeline.defaultThreads(cores: 0), 1)
        XCTAssertEqual(RenderPipeline.defaultThreads(cores: 1), 1, "one core: one worker, taking turns with the reading thread")
        XCTAssertEqual(RenderPipeline.defaultThreads(cores: 2), 1)
        XCTAssertEqual(RenderPipeline.defaultThreads(cores: 8), 7)
        XCTAssertEqual(RenderPipeline.defaultThreads(cores: 64), RenderPipeline.maximumThreads)
    }

    func test_threadCount_readsCELLHOST_THREADS_fromZeroUp_elseTakesTheDefault() {
        let byDefault = RenderPipeline.threadCount(environment: [:])
        XCTAssertEqual(byDefault, RenderPipeline.threadCount(environment: ["CELLHOST_THREADS": ""]))
        XCTAssertTrue((0...RenderPipeline.maximumThreads).contains(byDefault))
        XCTAssertEqual(RenderPipeline.threadCount(environment: ["CELLHOST_THREADS": "3"]), 3)
        XCTAssertEqual(RenderPipeline.threadCount(environment: ["CELLHOST_THREADS": "0"]), 0, "0: the two-thread split")
        XCTAssertEqual(RenderPipeline.threadCount(environment: ["CELLHOST_THREADS": "-1"]), byDefault)
        XCTAssertEqual(RenderPipeline.threadCount(environment: ["CELLHOST_THREADS": "zero"]), byDefault)
        XCTAssertEqual(RenderPipeline.threadCount(environment: ["CELLHOST_THREADS": "999"]), RenderPipeline.maximumThreads)
    }

    /// A sleeping worker waits for a run of slots (`wakeAfter`), but is
    /// woken at once when the caller's thread waits for it: a live stream
    /// (the input waits after each record) still gets each message written
    /// before the next is read, and runs shorter than a batch, submitted
    /// between waits, are never left behind.
    func test_inputIdle_writesEveryRecordSubmitted_beforeTheNextIsRead() throws {
        for threads in [1, 4] {
            let output = OutputBuffer(fd: -1)
            let session = RenderSession(host: CellHost(), settings: settings, me: nil, output: output)
            let pipeline = RenderPipeline(session: session, capacity: 16, batch: 4, threads: threads, diagnostics: { _ in })
            pipeline.start()
            var line = 0
            for run in 0..<40 {
                // Runs of 1 to 12 records: shorter and longer than a batch.
                for _ in 0...(run % 12) {
                    line += 1
                    var record = #"{"type":"text","text":"record-\#(line)-end"}"#
                    try record.withUTF8 { try pipeline.submit($0, line: line) }
                }
                pipeline.inputIdle()
                let written = String(decoding: output.bytes, as: UTF8.self)
                XCTAssertTrue(written.contains("record-\(line)-end"), "\(threads) threads: record \(line) written when idle")
            }
            pipeline.finish()
            XCTAssertEqual(String(decoding: output.bytes, as: UTF8.self).components(separatedBy: "-end").count - 1, line)
        }
    }
}

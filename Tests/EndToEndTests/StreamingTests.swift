import Foundation
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// `cellhost render -` renders each message as soon as it is read and
/// flushes when the input would block (`tail -f chat.jsonl | cellhost render -`).
/// The test writes one line into a pipe and waits, without sleeping, until
/// that message's output arrives before it writes the next.
final class StreamingTests: EndToEndTestCase {

    /// Collects a child's stdout from a pipe and lets the test wait until it
    /// contains some text. A thread of its own reads with blocking `read`
    /// calls until end of file: Foundation's `readabilityHandler` sometimes
    /// missed the end of file when the last bytes and the child's exit came
    /// together, so the test waited out its deadline for an EOF that had
    /// happened.
    private final class OutputCollector: @unchecked Sendable {
        private let lock = NSLock()
        private var data = Data()
        private var closed = false
        private let changed = DispatchSemaphore(value: 0)

        init(_ handle: FileHandle) {
            let thread = Thread { [self] in
                let fd = handle.fileDescriptor
                var buffer = [UInt8](repeating: 0, count: 1 << 16)
                while true {
                    let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                    if count < 0 && errno == EINTR { continue }
                    lock.lock()
                    if count > 0 { data.append(contentsOf: buffer[..<count]) } else { closed = true }
                    lock.unlock()
                    changed.signal()
                    if count <= 0 { break }
                }
                _ = handle // kept open until the end of file
            }
            thread.name = "stream-output-reader"
            thread.start()
        }

        var text: String {
            lock.lock()
            defer { lock.unlock() }
            return String(decoding: data, as: UTF8.self)
        }

        private var isClosed: Bool {
            lock.lock()
            defer { lock.unlock() }
            return closed
        }

        /// Waits until the output contains `needle`; false after `deadline` or
        /// when the pipe closes without it.
        func wait(for needle: String, until deadline: DispatchTime) -> Bool {
            while true {
                if text.contains(needle) { return true }
                if isClosed { return false }
                if changed.wait(timeout: deadline) == .timedOut { return text.contains(needle) }
            }
        }

        /// Waits for end of file.
        func waitForEOF(until deadline: DispatchTime) -> Bool {
            while !isClosed {
                if changed.wait(timeout: deadline) == .timedOut { return isClosed }
            }
            return true
        }
    }

    override func setUpWithError() throws {
        try super.setUpWithError()
        // Writing to the pipe of a child that died must fail, not kill the test runner.
        signal(SIGPIPE, SIG_IGN)
    }

    private func startRender(_ args: [String], threads: String? = nil) throws
        -> (Process, FileHandle, OutputCollector, DispatchSemaphore) {
        let process = Process()
        process.executableURL = binary
        process.arguments = ["render"] + args
        var environment = renderEnvironment()
        environment["CELLHOST_THREADS"] = threads
        process.environment = cleanEnvironment(environment)
        process.currentDirectoryURL = tempRoot
        let input = Pipe()
        let output = Pipe()
        let errors = try FileHandle(forWritingTo: {
            let url = scratchDir.appendingPathComponent("stream-stderr")
            try Data().write(to: url)
            return url
        }())
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        let finished = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in finished.signal() }
        let collector = OutputCollector(output.fileHandleForReading)
        try process.run()
        try? errors.close()
        return (process, input.fileHandleForWriting, collector, finished)
    }

    private func message(_ id: String, _ text: String) -> Data {
        Data((#"{"id":"\#(id)","type":"text","sender":{"id":"u-bob","name":"Bob"},"text":"\#(text)"}"# + "\n").utf8)
    }

    private func checkStreaming(format: String, threads: String? = nil,
                                file: StaticString = #filePath, line: UInt = #line) throws {
        let (process, stdin, output, finished) = try startRender(["-", "--format", format, "--width", "60"], threads: threads)
        defer {
            if process.isRunning {
                process.terminate()
                _ = finished.wait(timeout: .now() + 5)
            }
        }
        let deadline = { DispatchTime.now() + 10 }

        try stdin.write(contentsOf: message("s-1", "first streamed message"))
        guard output.wait(for: "first streamed message", until: deadline()) else {
            try? stdin.close()
            return XCTFail("\(format): the first message must be written while cellhost waits for more input; "
                           + "nothing after 10 s; output so far:\n" + output.text, file: file, line: line)
        }
        XCTAssertTrue(process.isRunning, "still waiting for input", file: file, line: line)
        XCTAssertFalse(output.text.contains("second streamed message"), file: file, line: line)

        try stdin.write(contentsOf: message("s-2", "second streamed message"))
        guard output.wait(for: "second streamed message", until: deadline()) else {
            try? stdin.close()
            return XCTFail("\(format): the second message must be written as soon as it is read; "
                           + "nothing after 10 s; output so far:\n" + output.text, file: file, line: line)
        }

        try stdin.close()
        XCTAssertEqual(finished.wait(timeout: deadline()), .success, "exits at end of input", file: file, line: line)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, file: file, line: line)
        XCTAssertTrue(output.waitForEOF(until: deadline()), file: file, line: line)
        let text = output.text
        let first = text.range(of: "first streamed message")
        let second = text.range(of: "second streamed message")
        XCTAssertTrue(first != nil && second != nil && first!.lowerBound < second!.lowerBound, text,
                      file: file, line: line)
    }

    func test_plain_eachMessageIsWrittenBeforeTheNextLineIsRead() throws {
        try checkStreaming(format: "plain")
    }

    func test_json_eachMessageIsWrittenBeforeTheNextLineIsRead() throws {
        try checkStreaming(format: "json")
    }

    /// With render worker threads the messages are handed back in order as
    /// soon as the input would wait, not when a batch is full.
    func test_fourRenderThreads_eachMessageIsWrittenBeforeTheNextLineIsRead() throws {
        try checkStreaming(format: "plain", threads: "4")
    }

    /// One render worker (the default on two cores) does the same.
    func test_oneRenderThread_eachMessageIsWrittenBeforeTheNextLineIsRead() throws {
        try checkStreaming(format: "plain", threads: "1")
    }

    /// The two-thread split (no render workers) does the same.
    func test_noRenderWorkers_eachMessageIsWrittenBeforeTheNextLineIsRead() throws {
        try checkStreaming(format: "plain", threads: "0")
    }

    /// The page's head and each message's element go out as they come.
    func test_html_eachMessageIsWrittenBeforeTheNextLineIsRead() throws {
        try checkStreaming(format: "html")
    }

    /// A record that arrives in two writes is rendered once complete.
    func test_recordSplitAcrossWrites_isRenderedWhenComplete() throws {
        let (process, stdin, output, finished) = try startRender(["-", "--format", "plain", "--width", "60"])
        defer {
            if process.isRunning {
                process.terminate()
                _ = finished.wait(timeout: .now() + 5)
            }
        }
        try stdin.write(contentsOf: message("p-1", "complete line"))
        guard output.wait(for: "complete line", until: .now() + 10) else {
            try? stdin.close()
            return XCTFail("the first message is not written while cellhost waits for input: \(output.text)")
        }
        let half = message("p-2", "split line")
        try stdin.write(contentsOf: half.prefix(20))
        try stdin.write(contentsOf: half.dropFirst(20))
        XCTAssertTrue(output.wait(for: "split line", until: .now() + 10), output.text)
        try stdin.close()
        XCTAssertEqual(finished.wait(timeout: .now() + 10), .success)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
    }
}

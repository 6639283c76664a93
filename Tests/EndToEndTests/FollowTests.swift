import Foundation
import XCTest

/// `render --follow`: a file read like `tail -F`, from its last lines, as it
/// grows, across rotation and truncation. Each step waits for the line it
/// expects on the process's stdout or stderr (with a deadline), never for time.
final class FollowTests: EndToEndTestCase {
    private func message(_ id: String) -> String { #"{"id":"\#(id)","type":"text","text":"\#(id)"}"# + "\n" }

    private func append(_ text: String, to url: URL) throws {
        let handle = try FileHandle(forWritingTo: url)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(text.utf8))
        try handle.close()
    }

    /// The id and line of a `--format json` record.
    private func idAndLine(_ line: String?) -> String {
        guard let line, let data = line.data(using: .utf8),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return "no record: \(line ?? "nil")" }
        return "\(object["id"] as? String ?? "?")@\(object["line"] as? Int ?? -1)"
    }

    func test_followStartsFromTheLastLinesThenFollowsGrowthRotationAndTruncation() throws {
        let url = try writeInput("chat.jsonl", bytes: Data((1...5).map { message("a\($0)") }.joined().utf8))
        let process = Process()
        process.executableURL = binary
        process.arguments = ["render", "--follow", url.path, "--lines", "2", "--format", "json"]
        process.environment = cleanEnvironment(renderEnvironment())
        let stdout = Pipe(), stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        process.standardInput = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { process.terminate() }; process.waitUntilExit() }
        let output = PipeLines(stdout.fileHandleForReading), errors = PipeLines(stderr.fileHandleForReading)

        XCTAssertEqual(idAndLine(output.next()), "a4@4", "the last two lines, with their line numbers")
        XCTAssertEqual(idAndLine(output.next()), "a5@5")

        try append(message("b1"), to: url)
        XCTAssertEqual(idAndLine(output.next()), "b1@6", "an appended message shows as it is written")

        // Rotation: the file is moved away and a new one takes its name.
        try FileManager.default.moveItem(at: url, to: url.deletingLastPathComponent().appendingPathComponent("chat.jsonl.1"))
        try Data(message("c1").utf8).write(to: url)
        XCTAssertEqual(errors.next(), "cellhost: \(url.path): replaced; following the new file")
        XCTAssertEqual(idAndLine(output.next()), "c1@1", "the new file is read from its start")

        // Truncation: the file is emptied, then written again.
        try Data().write(to: url)
        XCTAssertEqual(errors.next(), "cellhost: \(url.path): truncated; reading it from the start")
        try append(message("d1"), to: url)
        XCTAssertEqual(idAndLine(output.next()), "d1@1")
        XCTAssertTrue(process.isRunning, "--follow keeps going until interrupted")
    }

    func test_followWithLinesZeroShowsOnlyWhatIsWrittenAfterwards() throws {
        let url = try writeInput("chat.jsonl", bytes: Data(message("old").utf8))
        let process = Process()
        process.executableURL = binary
        process.arguments = ["render", "--follow", url.path, "--lines", "0", "--format", "json", "--verbose"]
        process.environment = cleanEnvironment(renderEnvironment())
        let stdout = Pipe(), stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        defer { if process.isRunning { process.terminate() }; process.waitUntilExit() }
        // Written only once the follower is at the end of the file.
        let errors = PipeLines(stderr.fileHandleForReading)
        var ready = false
        while let line = errors.next() { if line == "cellhost: \(url.path): following from line 2" { ready = true; break } }
        XCTAssertTrue(ready)
        try append(message("new"), to: url)
        XCTAssertEqual(idAndLine(PipeLines(stdout.fileHandleForReading).next()), "new@2")
    }

    func test_followTakesOneFileAndLinesNeedsFollow() throws {
        let url = try writeInput("chat.jsonl", bytes: Data(message("a").utf8))
        let two = try renderRaw(["--follow", url.path, url.path], expectStatus: 2)
        XCTAssertEqual(two.diagnostics, ["cellhost: --follow follows one file (standard input is followed by reading it: cellhost render -)"])
        let lines = try renderRaw([url.path, "--lines", "3"], expectStatus: 2)
        XCTAssertEqual(lines.diagnostics, ["cellhost: --lines goes with --follow"])
    }
}

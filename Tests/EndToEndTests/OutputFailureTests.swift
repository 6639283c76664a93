import Foundation
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// A failed write to standard output ends the run at once with one line on
/// stderr and exit status 3, for every command.
final class OutputFailureTests: EndToEndTestCase {
    private var conversation: String { Self.examplesDirectory.appendingPathComponent("conversation.jsonl").path }

    private func devFull() throws -> FileHandle {
        try XCTUnwrap(FileHandle(forWritingAtPath: "/dev/full"))
    }

    func test_renderToAFullDevice_exits3WithOneLine() throws {
        let result = try runShell(#"exec "$CELLHOST" render "# + "'\(conversation)'", stdout: try devFull())
        XCTAssertEqual(result.status, 3)
        XCTAssertEqual(result.stderr, "cellhost: cannot write to standard output: No space left on device\n")
    }

    func test_renderWithStdoutClosed_exits3WithOneLine() throws {
        let result = try runShell(#"exec "$CELLHOST" render "# + "'\(conversation)' >&-", stdout: try devFull())
        XCTAssertEqual(result.status, 3)
        XCTAssertEqual(result.stderr, "cellhost: cannot write to standard output: Bad file descriptor\n")
    }

    func test_listPluginsToAFullDevice_exits3() throws {
        let result = try runShell(#"exec "$CELLHOST" list-plugins --json"#, stdout: try devFull())
        XCTAssertEqual(result.status, 3)
        XCTAssertEqual(result.stderr, "cellhost: cannot write to standard output: No space left on device\n")
    }

    func test_helpToAFullDevice_exits3() throws {
        let result = try runShell(#"exec "$CELLHOST" --help"#, stdout: try devFull())
        XCTAssertEqual(result.status, 3)
        XCTAssertEqual(result.stderr, "cellhost: cannot write to standard output: No space left on device\n")
    }

    /// With SIGPIPE ignored and the reader gone, writes fail with EPIPE: the
    /// run must stop reading its endless input (else it never ends).
    func test_readerGoneWithSIGPIPEIgnored_stopsReadingEndlessInput() throws {
        let pipe = Pipe()
        try pipe.fileHandleForReading.close()
        let script = #"trap '' PIPE; yes '{"type":"text","text":"hello there"}' 2>/dev/null | "$CELLHOST" render -"#
        let result = try runShell(script, stdout: pipe.fileHandleForWriting)
        try pipe.fileHandleForWriting.close()
        XCTAssertEqual(result.status, 3)
        XCTAssertEqual(result.stderr, "cellhost: cannot write to standard output: Broken pipe\n")
    }
}

import Dispatch
import Foundation
import XCTest
@testable import CellHostCore

/// `InputReader`: JSON Lines or a JSON array file, streamed from a file
/// descriptor, each record with the line it starts on.
final class InputReaderTests: XCTestCase {

    // MARK: JSON Lines

    func test_jsonLines_deliversEachLineWithItsNumber() throws {
        let result = try readInput("{\"a\":1}\n{\"b\":2}\n{\"c\":3}\n")
        XCTAssertEqual(result.texts, [#"{"a":1}"#, #"{"b":2}"#, #"{"c":3}"#])
        XCTAssertEqual(result.lines, [1, 2, 3])
        XCTAssertTrue(result.problems.isEmpty)
    }

    func test_jsonLines_skipsBlankLines_butCountsThem() throws {
        let result = try readInput("\n{\"a\":1}\n\n   \n\t\n{\"b\":2}\n")
        XCTAssertEqual(result.texts, [#"{"a":1}"#, #"{"b":2}"#])
        XCTAssertEqual(result.lines, [2, 6])
    }

    func test_jsonLines_withCRLF_dropsTheCarriageReturn() throws {
        let result = try readInput("{\"a\":1}\r\n\r\n{\"b\":2}\r\n")
        XCTAssertEqual(result.texts, [#"{"a":1}"#, #"{"b":2}"#])
        XCTAssertEqual(result.lines, [1, 3])
    }

    func test_jsonLines_lastLineWithoutNewline_isDelivered() throws {
        let result = try readInput("{\"a\":1}\n{\"b\":2}")
        XCTAssertEqual(result.texts, [#"{"a":1}"#, #"{"b":2}"#])
        XCTAssertEqual(result.lines, [1, 2])
    }

    func test_jsonLines_invalidLines_areDeliveredForTheParserToReport() throws {
        let result = try readInput("{\"a\":1}\nnot json\n{\"b\":2}\n")
        XCTAssertEqual(result.texts, [#"{"a":1}"#, "not json", #"{"b":2}"#])
        XCTAssertEqual(result.lines, [1, 2, 3])
    }

    func test_emptyInput_deliversNothing() throws {
        let result = try readInput("")
        XCTAssertTrue(result.records.isEmpty)
        XCTAssertTrue(result.problems.isEmpty)
    }

    func test_byteOrderMark_isSkipped() throws {
        let result = try readInput([0xEF, 0xBB, 0xBF] + Array("{\"a\":1}\n{\"b\":2}\n".utf8))
        XCTAssertEqual(result.texts, [#"{"a":1}"#, #"{"b":2}"#])
        XCTAssertEqual(result.lines, [1, 2])
    }

    func test_byteOrderMark_beforeAnArray_isSkipped() throws {
        let result = try readInput([0xEF, 0xBB, 0xBF] + Array("[{\"a\":1}]".utf8))
        XCTAssertEqual(result.texts, [#"{"a":1}"#])
        XCTAssertTrue(result.problems.isEmpty)
    }

    func test_lineLongerThanTheReadBuffer_isDeliveredWhole() throws {
        let long = "{\"text\":\"" + String(repeating: "x", count: 200_000) + "\"}"
        let result = try readInput(long + "\n{\"next\":true}\n")
        XCTAssertEqual(result.records.count, 2)
        XCTAssertEqual(result.records.first?.text.utf8.count, long.utf8.count)
        XCTAssertEqual(result.records.first?.text, long)
        XCTAssertEqual(result.lines, [1, 2])
    }

    func test_manyLines_acrossReadBuffers_keepTheirNumbers() throws {
        let lines = (1...20_000).map { "{\"n\":\($0)}" }
        let result = try readInput(lines.joined(separator: "\n") + "\n")
        XCTAssertEqual(result.records.count, 20_000)
        XCTAssertEqual(result.texts, lines)
        XCTAssertEqual(result.lines, Array(1...20_000))
    }

    // MARK: JSON array files

    func test_arrayFile_deliversElementsWithTheLinesTheyStartOn() throws {
        let result = try readInput("[\n  {\"a\":1},\n  {\"b\":\n    2}\n]\n")
        XCTAssertEqual(result.texts, [#"{"a":1}"#, "{\"b\":\n    2}"])
        XCTAssertEqual(result.lines, [2, 3])
        XCTAssertTrue(result.problems.isEmpty)
    }

    func test_arrayFile_onOneLine_deliversEveryElementAsLineOne() throws {
        let result = try readInput(#"[{"a":1},{"b":2}, {"c":3}]"#)
        XCTAssertEqual(result.texts, [#"{"a":1}"#, #"{"b":2}"#, #"{"c":3}"#])
        XCTAssertEqual(result.lines, [1, 1, 1])
    }

    func test_arrayFile_afterBlankLines_countsThem() throws {
        let result = try readInput("\n\n[\n{\"a\":1}]")
        XCTAssertEqual(result.lines, [4])
    }

    func test_arrayFile_bracketsAndCommasInsideStrings_doNotSplitElements() throws {
        let result = try readInput(#"[{"t":"a,]b\"],"}, {"u":"[,"}, "s"]"#)
        XCTAssertEqual(result.texts, [#"{"t":"a,]b\"],"}"#, #"{"u":"[,"}"#, #""s""#])
        XCTAssertTrue(result.problems.isEmpty)
    }

    func test_arrayFile_nestedBracketsWithoutCommas_doNotEndElements() throws {
        let result = try readInput(#"[{"a":[[1]]}, [[2]]]"#)
        XCTAssertEqual(result.texts, [#"{"a":[[1]]}"#, "[[2]]"])
        XCTAssertTrue(result.problems.isEmpty)
    }

    func test_emptyArray_deliversNothing_andReportsNothing() throws {
        let result = try readInput("[]\n")
        XCTAssertTrue(result.records.isEmpty)
        XCTAssertTrue(result.problems.isEmpty)
    }

    func test_emptyArrayWithWhitespace_deliversNothing() throws {
        let result = try readInput("[ \n ]")
        XCTAssertTrue(result.records.isEmpty)
        XCTAssertTrue(result.problems.isEmpty)
    }

    func test_arrayWithTrailingComma_isReportedOnTheLineOfTheBracket() throws {
        let result = try readInput("[\n{\"a\":1},\n]\n")
        XCTAssertEqual(result.texts, [#"{"a":1}"#])
        XCTAssertEqual(result.problems.count, 1)
        XCTAssertEqual(result.problems.first?.line, 3)
        XCTAssertTrue(result.problems.first?.reason.contains("trailing ','") ?? false, "\(result.problems)")
    }

    func test_arrayWithEmptyElement_isReported() throws {
        let result = try readInput("[{\"a\":1},,{\"b\":2}]")
        XCTAssertEqual(result.texts, [#"{"a":1}"#])
        XCTAssertTrue(result.problems.first?.reason.contains("empty element") ?? false, "\(result.problems)")
    }

    func test_unterminatedArray_isReported_afterDeliveringCompleteElements() throws {
        let result = try readInput("[\n{\"a\":1},\n{\"b\":2}\n")
        XCTAssertEqual(result.texts, [#"{"a":1}"#])
        XCTAssertEqual(result.problems.count, 1)
        XCTAssertTrue(result.problems.first?.reason.contains("unterminated JSON array") ?? false, "\(result.problems)")
    }

    func test_dataAfterTheArray_isReported() throws {
        let result = try readInput("[{\"a\":1}]\n{\"b\":2}\n")
        XCTAssertEqual(result.texts, [#"{"a":1}"#])
        XCTAssertEqual(result.problems.count, 1)
        XCTAssertTrue(result.problems.first?.reason.contains("after the JSON array") ?? false, "\(result.problems)")
    }

    func test_arrayElementLongerThanTheReadBuffer_isDeliveredWhole() throws {
        let long = "{\"text\":\"" + String(repeating: "y", count: 200_000) + "\"}"
        let result = try readInput("[\n" + long + ",\n{\"b\":2}\n]")
        XCTAssertEqual(result.records.map { $0.text.utf8.count }, [long.utf8.count, 7])
        XCTAssertEqual(result.lines, [2, 3])
        XCTAssertTrue(result.problems.isEmpty)
    }

    // MARK: Pipes

    func test_pipe_recordIsDeliveredBeforeTheWriterFinishes() throws {
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&fds), 0)
        let (readEnd, writeEnd) = (fds[0], fds[1])
        let firstDelivered = DispatchSemaphore(value: 0)
        let writerDone = DispatchSemaphore(value: 0)
        let outcome = WriterOutcome()
        DispatchQueue.global().async {
            func send(_ text: String) {
                var text = text
                text.withUTF8 { _ = write(writeEnd, $0.baseAddress!, $0.count) }
            }
            send("{\"n\":1}\n{\"n\":")          // one whole record and half of the next
            outcome.waitedInVain = firstDelivered.wait(timeout: .now() + 10) == .timedOut
            send("2}\r\n\n[not an array]\n")
            close(writeEnd)
            writerDone.signal()
        }
        var records: [(String, Int)] = []
        try InputReader(fd: readEnd).read(record: { record in
            records.append((String(decoding: record.bytes, as: UTF8.self), record.line))
            if records.count == 1 { firstDelivered.signal() }
        }, problem: { XCTFail("unexpected problem \($0)") })
        writerDone.wait()
        close(readEnd)
        XCTAssertFalse(outcome.waitedInVain, "the first record must be delivered while the writer still holds the pipe open")
        XCTAssertEqual(records.map(\.0), [#"{"n":1}"#, #"{"n":2}"#, "[not an array]"])
        XCTAssertEqual(records.map(\.1), [1, 2, 4])
    }

    func test_beforeRead_isCalledBeforeReading() throws {
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&fds), 0)
        var text = "{\"a\":1}\n"
        text.withUTF8 { _ = write(fds[1], $0.baseAddress!, $0.count) }
        close(fds[1])
        var calls = 0
        try InputReader(fd: fds[0], beforeRead: { calls += 1 }).read(record: { _ in }, problem: { _ in })
        close(fds[0])
        XCTAssertGreaterThanOrEqual(calls, 1)
    }

    func test_readingABadDescriptor_throws() {
        XCTAssertThrowsError(try InputReader(fd: -1).read(record: { _ in }, problem: { _ in }))
    }
}

/// What the writer thread of a pipe test saw (read after it signalled).
private final class WriterOutcome: @unchecked Sendable {
    var waitedInVain = false
}

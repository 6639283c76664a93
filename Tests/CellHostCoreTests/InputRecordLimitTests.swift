import Foundation
import XCTest
@testable import CellHostCore

/// Records over the size limit: one diagnostic per record, the rest read on;
/// a record of exactly the limit is read. A byte order mark split across
/// reads is still skipped.
final class InputRecordLimitTests: XCTestCase {
    private let limit = 70_000

    /// Reads `bytes` through a pipe, with the reader's limit set to `limit`.
    private func read(_ bytes: [UInt8], limit: Int) throws -> ReadResult {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("cellhost-limit-\(UUID().uuidString)").path
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        let fd = open(path, O_RDONLY)
        XCTAssertGreaterThanOrEqual(fd, 0)
        defer { close(fd); unlink(path) }
        var result = ReadResult()
        try InputReader(fd: fd, recordLimit: limit).read(
            record: { result.records.append((String(decoding: $0.bytes, as: UTF8.self), $0.line)) },
            problem: { result.problems.append(($0.line, $0.reason)) })
        return result
    }

    private func object(ofSize size: Int) -> String {
        let filler = size - #"{"t":""}"#.utf8.count
        return #"{"t":""# + String(repeating: "x", count: filler) + #""}"#
    }

    func test_aRecordOfExactlyTheLimit_isRead() throws {
        let record = object(ofSize: limit)
        let result = try read(Array((record + "\n{}\n").utf8), limit: limit)
        XCTAssertEqual(result.texts.map(\.count), [limit, 2])
        XCTAssertTrue(result.problems.isEmpty)
    }

    func test_aLineFarOverTheLimit_givesOneDiagnostic_andTheNextLineIsRead() throws {
        let result = try read(Array((object(ofSize: 20 * limit) + "\n{\"n\":2}\n").utf8), limit: limit)
        XCTAssertEqual(result.problems.map(\.line), [1])
        XCTAssertEqual(result.problems.first?.reason, "record longer than 70000 bytes, skipped")
        XCTAssertEqual(result.texts, [#"{"n":2}"#])
        XCTAssertEqual(result.lines, [2])
    }

    func test_aLineJustOverTheLimit_givesOneDiagnostic() throws {
        let result = try read(Array((object(ofSize: limit + 1) + "\n{}\n").utf8), limit: limit)
        XCTAssertEqual(result.problems.count, 1)
        XCTAssertEqual(result.texts, ["{}"])
    }

    func test_anArrayElementOverTheLimit_isSkipped_andLaterElementsAreRead() throws {
        let text = "[{\"n\":1},\n" + object(ofSize: 20 * limit) + ",\n{\"n\":3}]\n"
        let result = try read(Array(text.utf8), limit: limit)
        XCTAssertEqual(result.problems.map(\.line), [2])
        XCTAssertEqual(result.texts, [#"{"n":1}"#, #"{"n":3}"#])
        XCTAssertEqual(result.lines, [1, 3])
    }

    func test_theStandardLimitDiagnostic_saysSixteenMiB() throws {
        XCTAssertEqual(InputReader.maximumRecordBytes, 16 << 20)
    }

    func test_anEndlessRecord_givesOneDiagnostic() throws {
        let fd = open("/dev/zero", O_RDONLY)
        XCTAssertGreaterThanOrEqual(fd, 0)
        defer { close(fd) }
        var reads = 0
        var problems: [String] = []
        try InputReader(fd: fd, recordLimit: limit, beforeRead: { reads += 1 }, isCancelled: { reads > 200 })
            .read(record: { _ in XCTFail("no record ends") }, problem: { problems.append($0.reason) })
        XCTAssertEqual(problems, ["record longer than 70000 bytes, skipped"])
    }

    func test_aByteOrderMarkSplitAcrossReads_isSkipped() throws {
        var ends: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&ends), 0)
        let (readEnd, writeEnd) = (ends[0], ends[1])
        defer { close(readEnd) }
        XCTAssertEqual(write(writeEnd, [UInt8(0xEF)], 1), 1)
        let rest: [UInt8] = [0xBB, 0xBF] + Array("{\"a\":1}\n".utf8)
        var reads = 0
        var result = ReadResult()
        try InputReader(fd: readEnd, beforeRead: {
            reads += 1
            // The first read sees only 0xEF; the rest arrives before the second.
            if reads == 2 {
                _ = rest.withUnsafeBytes { write(writeEnd, $0.baseAddress, $0.count) }
                close(writeEnd)
            }
        }).read(record: { result.records.append((String(decoding: $0.bytes, as: UTF8.self), $0.line)) },
                problem: { result.problems.append(($0.line, $0.reason)) })
        XCTAssertEqual(result.texts, [#"{"a":1}"#])
        XCTAssertTrue(result.problems.isEmpty, "\(result.problems)")
    }

    func test_whitespaceBetweenArrayElements_longerThanTheLimit_isNotARecord() throws {
        let text = "[{\"n\":1}," + String(repeating: " ", count: 5 * limit) + "\n{\"n\":2}]"
        let result = try read(Array(text.utf8), limit: limit)
        XCTAssertEqual(result.texts, [#"{"n":1}"#, #"{"n":2}"#])
        XCTAssertEqual(result.lines, [1, 2])
        XCTAssertTrue(result.problems.isEmpty)
    }

    func test_blankInputLongerThanTheLimit_beforeTheFirstRecord_keepsLineNumbers() throws {
        let text = String(repeating: " ", count: 5 * limit) + "\n\n" + #"{"n":1}"# + "\n"
        let result = try read(Array(text.utf8), limit: limit)
        XCTAssertEqual(result.texts, [#"{"n":1}"#])
        XCTAssertEqual(result.lines, [3])
        XCTAssertTrue(result.problems.isEmpty)
    }
}

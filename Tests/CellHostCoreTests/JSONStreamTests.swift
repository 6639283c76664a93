@testable import CellHostCore
import Foundation
import XCTest

/// `JSONStream`: the importers' walker over documents of any size.
final class JSONStreamTests: XCTestCase {
    private struct Walk {
        var captured: [(path: String, text: String, line: Int, offset: Int)] = []
        var ended: [String] = []
        var problems: [String] = []
    }

    private func spell(_ path: [JSONStream.Step]) -> String { path.map(\.description).joined(separator: ".") }

    /// Walks `text`, descending into every object and array whose path `descend`
    /// accepts and capturing every other value.
    private func walk(_ text: String, limit: Int = 1 << 20, chunked: Bool = false,
                      descend: ([JSONStream.Step]) -> Bool = { _ in true }) throws -> Walk {
        var result = Walk()
        let stream = JSONStream(source: ByteSource(bytes: Array(text.utf8)), valueLimit: limit)
        try stream.walk(decide: { path, first in
            (first == UInt8(ascii: "{") || first == UInt8(ascii: "[")) && descend(path) ? .descend : .capture
        }, value: { path, value in
            result.captured.append((spell(path), String(decoding: value.bytes, as: UTF8.self), value.line, value.offset))
        }, end: { result.ended.append(spell($0)) }, problem: { line, reason in result.problems.append("\(line): \(reason)") })
        return result
    }

    func test_capturesEachElementOfADescendedArrayWithItsLineAndOffset() throws {
        let text = "{\"name\": \"x\",\n \"messages\": [\n  {\"id\": 1},\n  {\"id\": 2, \"t\": \"a\\\"}\"}\n ]\n}"
        let result = try walk(text) { $0.count < 2 }
        XCTAssertEqual(result.captured.map(\.path), ["name", "messages.[0]", "messages.[1]"])
        XCTAssertEqual(result.captured.map(\.text), ["\"x\"", "{\"id\": 1}", "{\"id\": 2, \"t\": \"a\\\"}\"}"])
        XCTAssertEqual(result.captured.map(\.line), [1, 3, 4])
        let bytes = Array(text.utf8)
        for item in result.captured {
            XCTAssertEqual(String(decoding: bytes[item.offset..<(item.offset + item.text.utf8.count)], as: UTF8.self), item.text)
        }
    }

    func test_reportsTheEndOfEachDescendedContainerWithItsOwnPath() throws {
        let result = try walk("{\"a\": [[1], []], \"b\": {}}")
        XCTAssertEqual(result.ended, ["a.[0]", "a.[1]", "a", "b", ""])
    }

    func test_walksSeveralRootValuesInARowEachWithTheEmptyPath() throws {
        let result = try walk("{\"x\": 1}\n{\"x\": 2}\n\"s\" 7", descend: { !$0.isEmpty })
        XCTAssertEqual(result.captured.map(\.text), ["{\"x\": 1}", "{\"x\": 2}", "\"s\"", "7"])
        XCTAssertEqual(result.captured.map(\.line), [1, 2, 3, 3])
    }

    func test_skippedValuesAreNotHandedOver() throws {
        var captured: [String] = []
        let stream = JSONStream(source: ByteSource(bytes: Array("{\"big\": [1, {\"x\": \"]\"}], \"k\": true}".utf8)))
        try stream.walk(decide: { path, _ in
            path.isEmpty ? .descend : path == [.key("big")] ? .skip : .capture
        }, value: { _, value in captured.append(String(decoding: value.bytes, as: UTF8.self)) }, problem: { _, _ in })
        XCTAssertEqual(captured, ["true"])
    }

    func test_aValueOverTheLimitIsReportedAndSkippedAndTheNextOneStillArrives() throws {
        let long = String(repeating: "x", count: 200_000)
        let result = try walk("[\"\(long)\", \"short\"]", limit: 100_000)
        XCTAssertEqual(result.captured.map(\.text), ["\"short\""])
        XCTAssertEqual(result.problems.count, 1)
        XCTAssertTrue(result.problems[0].contains("longer than"), result.problems[0])
    }

    func test_aValueOverTheLimitThatArrivesInOneReadIsAlsoSkipped() throws {
        // 100 KiB in memory arrive in one piece: the limit is checked when the value ends too.
        let long = String(repeating: "y", count: 100_000)
        let result = try walk("[\"\(long)\", 2]", limit: 50_000)
        XCTAssertEqual(result.captured.map(\.text), ["2"])
        XCTAssertEqual(result.problems.count, 1, "\(result.problems)")
    }

    func test_aTruncatedDocumentThrowsNamingWhereItEndsAfterHandingOverWhatCame() {
        var captured = 0
        let stream = JSONStream(source: ByteSource(bytes: Array("{\"messages\": [{\"id\": 1},\n {\"id\": 2".utf8)))
        XCTAssertThrowsError(try stream.walk(decide: { path, _ in path.count < 2 ? .descend : .capture },
                                             value: { _, _ in captured += 1 }, problem: { _, _ in })) { error in
            let error = error as? ImportError
            XCTAssertEqual(error?.line, 2)
            XCTAssertEqual(error?.reason, "the file ends in the middle of 'messages' (truncated?)")
        }
        XCTAssertEqual(captured, 1)
    }

    func test_malformedStructureThrowsWithTheLineAndWhatWasFound() {
        XCTAssertThrowsError(try walk("{\"a\": 1,\n\n \"b\" 2}")) { error in
            XCTAssertEqual((error as? ImportError)?.line, 3)
            XCTAssertEqual((error as? ImportError)?.reason, "malformed JSON: expected ':', found '2'")
        }
        XCTAssertThrowsError(try walk("{\"a\": \u{1}}")) { error in
            XCTAssertEqual((error as? ImportError)?.reason, "malformed JSON: expected a value, found byte 0x01")
        }
    }

    func test_anEmptyInputHasNoValue() {
        XCTAssertThrowsError(try walk("  \n")) { error in
            XCTAssertEqual((error as? ImportError)?.reason, "no JSON value in the input")
        }
    }

    func test_aByteOrderMarkIsSkipped() throws {
        let result = try walk("\u{FEFF}[1]")
        XCTAssertEqual(result.captured.map(\.text), ["1"])
    }

    func test_keysWithEscapesArePathSteps() throws {
        let result = try walk("{\"a\\\"b\": 1, \"m.relates_to\": 2}")
        XCTAssertEqual(result.captured.map(\.path), ["a\"b", "m.relates_to"])
    }

    func test_valuesLargerThanTheReadBufferArriveWhole() throws {
        // Several reads' worth of one element, then one more.
        let big = String(repeating: "é", count: 300_000)
        let result = try walk("{\"m\": [\"\(big)\", 1]}") { $0.count < 2 }
        XCTAssertEqual(result.captured.count, 2)
        XCTAssertEqual(result.captured[0].text.count, big.count + 2)
        XCTAssertEqual(result.captured[1].text, "1")
    }

    func test_readsAFileDescriptorInPiecesTheSameAsMemory() throws {
        var pipe: [Int32] = [0, 0]
        XCTAssertEqual(Glibc.pipe(&pipe), 0)
        let text = "{\"messages\": [" + (0..<5000).map { "{\"id\": \($0), \"t\": \"\(String(repeating: "z", count: $0 % 50))\"}" }.joined(separator: ",\n") + "]}"
        let writeEnd = pipe[1]
        let writer = Thread {
            let bytes = Array(text.utf8)
            var written = 0
            while written < bytes.count {
                let count = bytes[written...].withUnsafeBytes { write(writeEnd, $0.baseAddress!, min(1000, $0.count)) }
                if count <= 0 { break }
                written += count
            }
            close(writeEnd)
        }
        writer.start()
        var ids: [Int] = []
        let stream = JSONStream(source: ByteSource(fd: pipe[0]))
        try stream.walk(decide: { path, _ in path.count < 2 ? .descend : .capture }, value: { _, value in
            var document = JSONDocument()
            try? document.parse(value.bytes)
            if let id = document.member(JSONDocument.root, "id").flatMap({ document.integer($0) }) { ids.append(Int(id)) }
        }, problem: { _, _ in })
        close(pipe[0])
        XCTAssertEqual(ids, Array(0..<5000))
    }
}

import Foundation
import XCTest

/// The input rules of `cellhost render` (docs/cli.md, "Input rules"): a record
/// that is not a JSON object is reported as `cellhost: FILE:LINE: reason`
/// (FILE exactly as given on the command line, `<stdin>` for `-`) and
/// skipped, the records after it still render, and the exit status is 1;
/// blank lines, objects without a usable type and invalid UTF-8 are not
/// errors; a file whose first non-blank byte is `[` is one JSON array; a
/// missing file and a bad option are usage errors (exit 2).
final class InputErrorTests: EndToEndTestCase {

    private let good1 = #"{"id":"first","type":"text","text":"first message"}"#
    private let good2 = #"{"id":"last","type":"text","text":"last message"}"#

    /// Writes `lines` to `<scratch>/inputs/<name>`, renders it as JSON with the
    /// relative path `inputs/<name>` (run from the scratch directory) and
    /// returns the records and the run.
    private func render(_ name: String, _ lines: [String], expectStatus: Int32,
                        file: StaticString = #filePath, line: UInt = #line) throws
        -> (records: [RenderRecord], run: RawRun, path: String) {
        try writeInput(name, lines: lines)
        let path = "inputs/\(name)"
        let run = try renderRaw([path, "--format", "json", "--width", "60"], currentDirectory: scratchDir,
                                expectStatus: expectStatus, file: file, line: line)
        return (try records(run, file: file, line: line), run, path)
    }

    /// Asserts the whole story of one bad record on line `badLine` of a file
    /// whose other records are `good1` (line 1) and `good2` (last line):
    /// exactly one diagnostic, `cellhost: <path>:<badLine>: <reason>` with a
    /// reason containing one of `reasonWords` (case-insensitive), both good
    /// records rendered, exit status 1.
    private func assertOneBadRecord(_ name: String, bad: String, reasonWords: [String],
                                    file: StaticString = #filePath, line: UInt = #line) throws {
        let (records, run, path) = try render(name, [good1, bad, good2], expectStatus: 1, file: file, line: line)
        XCTAssertEqual(records.map(\.id), ["first", "last"], "the records around the bad one render",
                       file: file, line: line)
        XCTAssertEqual(records.map(\.line), [1, 3], file: file, line: line)
        assertDiagnostic(run, path: path, line: 2, reasonWords: reasonWords, file: file, line: line)
    }

    private func assertDiagnostic(_ run: RawRun, path: String, line badLine: Int, reasonWords: [String],
                                  file: StaticString = #filePath, line: UInt = #line) {
        let prefix = "cellhost: \(path):\(badLine): "
        XCTAssertEqual(run.diagnostics.count, 1, "one diagnostic per bad record; stderr:\n\(run.stderr)",
                       file: file, line: line)
        guard let diagnostic = run.diagnostics.first(where: { $0.hasPrefix(prefix) }) else {
            return XCTFail("no stderr line starting “\(prefix)”; stderr:\n\(run.stderr)", file: file, line: line)
        }
        let reason = diagnostic.dropFirst(prefix.count).lowercased()
        XCTAssertFalse(reason.trimmingCharacters(in: .whitespaces).isEmpty, "a reason is given", file: file, line: line)
        XCTAssertTrue(reasonWords.contains { reason.contains($0.lowercased()) },
                      "the reason “\(reason)” should mention one of \(reasonWords)", file: file, line: line)
    }

    // MARK: - Records that are not JSON objects

    func test_badJSON_isReportedWithFileAndLine_andTheOtherLinesRender() throws {
        try assertOneBadRecord("bad-json.jsonl", bad: #"{"id":"x", type: text}"#, reasonWords: ["expected", "invalid", "json"])
    }

    func test_jsonArrayOnALine_isReported() throws {
        // Not the first line, so the file is JSON Lines, not one array.
        try assertOneBadRecord("array-line.jsonl", bad: #"[{"id":"x","type":"text","text":"in an array"}]"#,
                               reasonWords: ["array"])
    }

    func test_jsonArrayOnALine_diagnosticIsTheWordingDocsCliQuotes() throws {
        let input = try writeFile("chat.jsonl", Data((#"{"id":"a","type":"text","text":"x"}"# + "\n[1]\n").utf8), in: scratchDir)
        let result = try run(["render", input.path, "--format", "plain"], env: defaultEnvironment)
        XCTAssertEqual(result.status, 1)
        XCTAssertEqual(result.stderr, "cellhost: \(input.path):2: expected a JSON object, found an array at column 1\n")
    }

    func test_bareValues_areReported() throws {
        for (index, value) in ["42", #""just a string""#, "true", "null"].enumerated() {
            try assertOneBadRecord("bare-\(index).jsonl", bad: value, reasonWords: ["object", "bare", "value"])
        }
    }

    func test_NaNAndInfinity_areReported() throws {
        try assertOneBadRecord("nan.jsonl", bad: #"{"id":"x","type":"text","text":"n","n":NaN}"#, reasonWords: ["nan"])
        try assertOneBadRecord("inf.jsonl", bad: #"{"id":"x","type":"text","text":"n","n":-Infinity}"#,
                               reasonWords: ["infinity", "nan"])
    }

    func test_nestingDeeperThan64Levels_isReported_and64LevelsAreAccepted() throws {
        /// An object nested `depth` levels deep in total: the message object
        /// plus depth-1 arrays.
        func nested(_ id: String, depth: Int) -> String {
            #"{"id":"\#(id)","type":"text","text":"deep","a":"# + String(repeating: "[", count: depth - 1) + "1"
                + String(repeating: "]", count: depth - 1) + "}"
        }
        try assertOneBadRecord("deep.jsonl", bad: nested("x", depth: 65), reasonWords: ["64", "nest", "deep"])
        try assertOneBadRecord("deeper.jsonl", bad: nested("x", depth: 10_000), reasonWords: ["64", "nest", "deep"])
        let (records, run, _) = try render("deep-ok.jsonl", [good1, nested("ok64", depth: 64), good2], expectStatus: 0)
        XCTAssertEqual(records.map(\.id), ["first", "ok64", "last"], "64 levels are fine; stderr:\n\(run.stderr)")
    }

    func test_unterminatedString_isReported() throws {
        try assertOneBadRecord("unterminated.jsonl", bad: #"{"id":"x","type":"text","text":"no end"#,
                               reasonWords: ["unterminated", "end"])
    }

    func test_recordOver16MiB_isReportedAndSkipped() throws {
        let huge = #"{"id":"huge","type":"text","text":""# + String(repeating: "x", count: 17 << 20) + #""}"#
        try assertOneBadRecord("huge.jsonl", bad: huge, reasonWords: ["16 mib", "longer", "large", "long"])
    }

    func test_lineNumbersCountBlankLines_andEveryBadRecordIsReported() throws {
        let lines = [good1, "", "   ", "{bad", "", #"[1]"#, "7", good2]
        let (records, run, path) = try render("several.jsonl", lines, expectStatus: 1)
        XCTAssertEqual(records.map(\.id), ["first", "last"])
        XCTAssertEqual(records.map(\.line), [1, 8])
        XCTAssertEqual(run.diagnostics.count, 3, run.stderr)
        for badLine in [4, 6, 7] {
            XCTAssertTrue(run.diagnostics.contains { $0.hasPrefix("cellhost: \(path):\(badLine): ") },
                          "line \(badLine) reported; stderr:\n\(run.stderr)")
        }
    }

    func test_absolutePath_isReportedAsGiven() throws {
        let url = try writeInput("absolute.jsonl", lines: [good1, "[]", good2])
        let run = try renderRaw([url.path, "--format", "json"], expectStatus: 1)
        XCTAssertEqual(try records(run).map(\.id), ["first", "last"])
        assertDiagnostic(run, path: url.path, line: 2, reasonWords: ["array"])
    }

    func test_stdin_isReportedAsStdin() throws {
        let input = Data([good1, "{bad", good2].map { $0 + "\n" }.joined().utf8)
        let run = try renderRaw(["-", "--format", "json"], stdin: input, expectStatus: 1)
        XCTAssertEqual(try records(run).map(\.id), ["first", "last"])
        assertDiagnostic(run, path: "<stdin>", line: 2, reasonWords: ["expected", "invalid", "json", "key"])

        let implicit = try renderRaw(["--format", "json"], stdin: input, expectStatus: 1)
        XCTAssertEqual(try records(implicit).map(\.id), ["first", "last"], "no file means stdin")
        assertDiagnostic(implicit, path: "<stdin>", line: 2, reasonWords: ["expected", "invalid", "json", "key"])
    }

    func test_errorsInSeveralFiles_nameEachFile_andLinesRestartAtOne() throws {
        try writeInput("one.jsonl", lines: [good1, "{bad"])
        try writeInput("two.jsonl", lines: ["42", good2])
        let run = try renderRaw(["inputs/one.jsonl", "inputs/two.jsonl", "--format", "json"],
                                currentDirectory: scratchDir, expectStatus: 1)
        let records = try records(run)
        XCTAssertEqual(records.map(\.id), ["first", "last"])
        XCTAssertEqual(records.map(\.line), [1, 2])
        XCTAssertTrue(run.diagnostics.contains { $0.hasPrefix("cellhost: inputs/one.jsonl:2: ") }, run.stderr)
        XCTAssertTrue(run.diagnostics.contains { $0.hasPrefix("cellhost: inputs/two.jsonl:1: ") }, run.stderr)
        XCTAssertEqual(run.diagnostics.count, 2, run.stderr)
    }

    // MARK: - Not errors

    func test_cleanFile_exitsZero_withNothingOnStderr() throws {
        let (records, run, _) = try render("clean.jsonl", [good1, good2], expectStatus: 0)
        XCTAssertEqual(records.map(\.id), ["first", "last"])
        XCTAssertEqual(run.stderr, "")
    }

    func test_blankLines_areIgnored() throws {
        let (records, run, _) = try render("blank.jsonl", ["", "  \t ", good1, "", "\r", good2, "", ""],
                                           expectStatus: 0)
        XCTAssertEqual(records.map(\.id), ["first", "last"])
        XCTAssertEqual(records.map(\.line), [3, 6])
        XCTAssertEqual(run.stderr, "")
    }

    func test_crlfLineEndings_areAccepted() throws {
        let url = try writeInput("crlf.jsonl", bytes: Data((good1 + "\r\n" + good2 + "\r\n").utf8))
        let run = try renderRaw([url.path, "--format", "json"], expectStatus: 0)
        XCTAssertEqual(try records(run).map(\.id), ["first", "last"])
    }

    func test_lastLineWithoutNewline_isRendered() throws {
        let url = try writeInput("no-newline.jsonl", bytes: Data((good1 + "\n" + good2).utf8))
        let run = try renderRaw([url.path, "--format", "json"], expectStatus: 0)
        XCTAssertEqual(try records(run).map(\.id), ["first", "last"])
    }

    func test_objectWithoutUsableType_isRenderedByUnknownMessageCell() throws {
        let lines = [#"{"id":"none","text":"no type at all"}"#,
                     #"{"id":"number","type":7,"text":"type is a number"}"#,
                     #"{"id":"empty","type":"","text":"type is empty"}"#,
                     #"{"id":"long","type":"\#(String(repeating: "t", count: 65))","text":"type is too long"}"#,
                     #"{"id":"nothing"}"#,
                     #"{}"#]
        let (records, run, _) = try render("untyped.jsonl", lines, expectStatus: 0)
        XCTAssertEqual(records.map(\.id), ["none", "number", "empty", "long", "nothing", nil])
        XCTAssertEqual(run.stderr, "")
        for record in records {
            let what = record.id ?? "{}"
            XCTAssertEqual(record.className, "UnknownMessageCell", what)
            XCTAssertEqual(record.plugin, hostPluginID, what)
            XCTAssertFalse(record.lines.filter { !$0.isEmpty }.isEmpty, "\(what) is shown")
            XCTAssertEqual(record.fallback?.chain.last?.result, .missingType, "\(what): \(String(describing: record.fallback))")
        }
        XCTAssertTrue(records[0].lines.contains { $0.contains("no type at all") }, "the text is shown: \(records[0].lines)")
        XCTAssertNil(records[0].type, "a missing type is null")
    }

    func test_invalidUTF8_becomesReplacementCharacters_andExitsZero() throws {
        var bytes = Array(#"{"id":"bad-utf8","type":"text","sender":{"id":"u","name":"N"#.utf8) + [0xFF]
        bytes += Array(#""},"text":"a"#.utf8) + [0xFF] + Array(" b".utf8) + [0xC3] + Array(#" c"}"#.utf8) + [0x0A]
        bytes += Array((good2 + "\n").utf8)
        let url = try writeInput("invalid-utf8.jsonl", bytes: Data(bytes))
        let run = try renderRaw([url.path, "--format", "json", "--width", "60"], expectStatus: 0)
        let records = try records(run)
        XCTAssertEqual(records.map(\.id), ["bad-utf8", "last"])
        XCTAssertTrue(records[0].lines.contains { $0.contains("a\u{FFFD} b\u{FFFD} c") }, "\(records[0].lines)")
        XCTAssertTrue(records[0].lines.contains { $0.contains("N\u{FFFD}") }, "\(records[0].lines)")
        XCTAssertEqual(records[0].className, "TextMessageCell")
        XCTAssertEqual(run.stderr, "", "invalid UTF-8 is repaired, not reported")
    }

    func test_byteOrderMark_isSkipped() throws {
        let url = try writeInput("bom.jsonl", bytes: Data([0xEF, 0xBB, 0xBF] + Array((good1 + "\n" + good2 + "\n").utf8)))
        let run = try renderRaw([url.path, "--format", "json"], expectStatus: 0)
        XCTAssertEqual(try records(run).map(\.id), ["first", "last"])
    }

    // MARK: - JSON array files

    func test_jsonArrayFile_onOneLine_rendersEveryElement() throws {
        let url = try writeInput("array-one-line.json", bytes: Data(("[" + [good1, good2].joined(separator: ",") + "]\n").utf8))
        let run = try renderRaw([url.path, "--format", "json"], expectStatus: 0)
        XCTAssertEqual(try records(run).map(\.id), ["first", "last"], "stderr:\n\(run.stderr)")
        XCTAssertEqual(run.stderr, "")
    }

    func test_jsonArrayFile_prettyPrinted_rendersEveryElement_withTheLineEachStartsOn() throws {
        let text = """

            [
              {"id": "first", "type": "text",
               "text": "first, with a comma, and [brackets] {braces} \\"quotes\\""},
              {
                "id": "middle",
                "type": "text",
                "sender": {"id": "u-bob", "name": "Bob"},
                "text": "middle"
              },
              {"id": "last", "type": "text", "text": "last message"}
            ]

            """
        let url = try writeInput("array-pretty.json", bytes: Data(text.utf8))
        let run = try renderRaw([url.path, "--format", "json"], expectStatus: 0)
        let records = try records(run)
        XCTAssertEqual(records.map(\.id), ["first", "middle", "last"], "stderr:\n\(run.stderr)")
        XCTAssertEqual(records.map(\.line), [3, 5, 11], "`line` is where each element starts")
        XCTAssertTrue(records.first?.lines.contains { $0.contains("first, with a comma") } ?? false,
                      "\(records.first?.lines ?? [])")
        XCTAssertEqual(run.stderr, "")
    }

    func test_jsonArrayFile_badElement_isReported_andTheOthersRender() throws {
        let text = "[\n" + good1 + ",\n42,\n" + good2 + "\n]\n"
        let url = try writeInput("array-bad.json", bytes: Data(text.utf8))
        let run = try renderRaw([url.path, "--format", "json"], expectStatus: 1)
        XCTAssertEqual(try records(run).map(\.id), ["first", "last"], "stderr:\n\(run.stderr)")
        assertDiagnostic(run, path: url.path, line: 3, reasonWords: ["object", "bare", "value"])
    }

    func test_exampleConversationJSON_rendersLikeTheJSONLinesFile() throws {
        func render(_ name: String) throws -> [RenderRecord] {
            let run = try renderRaw([name, "--me", "u-alice", "--format", "json", "--width", "80"],
                                    currentDirectory: Self.examplesDirectory, expectStatus: 0)
            XCTAssertEqual(run.stderr, "", "\(name): stderr")
            return try records(run)
        }
        let array = try render("conversation.json")
        let lines = try render("conversation.jsonl")
        XCTAssertEqual(array.count, 29)
        XCTAssertEqual(array.map(\.id), lines.map(\.id))
        XCTAssertEqual(array.map(\.className), lines.map(\.className))
        XCTAssertEqual(array.map(\.lines), lines.map(\.lines), "the same messages render the same")
    }

    // MARK: - Usage errors

    func test_missingFile_exitsOne_namingThePath() throws {
        let run = try renderRaw(["inputs/does-not-exist.jsonl", "--format", "json"], currentDirectory: scratchDir,
                                expectStatus: 1)
        XCTAssertTrue(run.diagnostics.contains { $0.contains("inputs/does-not-exist.jsonl") },
                      "stderr names the path:\n\(run.stderr)")
        XCTAssertEqual(run.stderr.split(separator: "\n").count, 1, "one line:\n\(run.stderr)")
    }

    func test_aMissingFileAmongSeveral_isReportedInItsPlace_andTheOthersRender() throws {
        try writeInput("one.jsonl", lines: [good1])
        try writeInput("two.jsonl", lines: [good2])
        let run = try renderRaw(["inputs/one.jsonl", "inputs/gone.jsonl", "inputs/two.jsonl", "--format", "json"],
                                currentDirectory: scratchDir, expectStatus: 1)
        XCTAssertEqual(try records(run).map(\.id), ["first", "last"])
        XCTAssertEqual(run.diagnostics, ["cellhost: inputs/gone.jsonl: No such file or directory"])
    }

    func test_aDirectoryThatIsNotASlackExport_isReportedAndExitsOne() throws {
        let run = try renderRaw([scratchDir.path, "--format", "json"], expectStatus: 1)
        XCTAssertEqual(run.diagnostics, ["cellhost: \(scratchDir.path): not a chat CellHost can read: it is a directory "
                                         + "without users.json or channels.json (only a Slack export is read as a directory)"])
    }

    func test_unknownFormat_exitsTwo() throws {
        try writeInput("ok.jsonl", lines: [good1])
        let run = try renderRaw(["inputs/ok.jsonl", "--format", "bogus"], currentDirectory: scratchDir,
                                expectStatus: 2)
        XCTAssertTrue(run.diagnostics.contains { $0.contains("bogus") }, "stderr names the value:\n\(run.stderr)")
        XCTAssertTrue(run.stdout.isEmpty, "nothing is rendered")
    }

    func test_badWidth_exitsTwo() throws {
        for value in ["abc", "-3", ""] {
            let run = try renderRaw(["-", "--width", value], stdin: Data((good1 + "\n").utf8), expectStatus: 2)
            XCTAssertFalse(run.diagnostics.isEmpty, "--width \(value): \(run.stderr)")
        }
    }
}

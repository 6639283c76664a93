import Foundation
import XCTest

/// `cellhost render` tells each input's format from its content, says so with
/// `--verbose`, and reports what it cannot read instead of a stream of JSON errors.
final class ImportDetectionTests: EndToEndTestCase {
    private let formats = "Formats: cellhost, telegram, matrix, discord, slack, whatsapp; choose one with --from FORMAT"

    func test_anUnknownJSONDocumentIsOneDiagnosticNamingItsKeys_andNothingIsRendered() throws {
        let url = try writeInput("data.json", bytes: Data("{\n  \"version\": 2,\n  \"items\": [1, 2]\n}\n".utf8))
        let run = try renderRaw([url.path, "--format", "plain"], expectStatus: 1)
        XCTAssertEqual(run.diagnostics, ["cellhost: \(url.path): not a chat CellHost can read: it looks like a JSON document "
                                         + "with the keys \"version\", \"items\", which no importer reads. \(formats)"])
        XCTAssertEqual(run.stdout, Data())
    }

    func test_textThatIsNoExportIsDescribedByItsFirstLine() throws {
        let url = try writeInput("notes.txt", bytes: Data("# Notes\n\nnothing here\n".utf8))
        let run = try renderRaw([url.path], expectStatus: 1)
        XCTAssertEqual(run.diagnostics, ["cellhost: \(url.path): not a chat CellHost can read: it looks like text whose first "
                                         + "line is \"# Notes\", not JSON nor a WhatsApp export. \(formats)"])
    }

    func test_anUnreadableInputDoesNotStopTheNextOne() throws {
        let bad = try writeInput("notes.txt", bytes: Data("just words\n".utf8))
        let good = try writeInput("ok.jsonl", lines: [#"{"id":"m-1","type":"text","text":"still here"}"#])
        let run = try renderRaw([bad.path, good.path, "--format", "json"], expectStatus: 1)
        XCTAssertEqual(try records(run).map(\.id), ["m-1"])
        XCTAssertEqual(run.diagnostics.count, 1, run.stderr)
    }

    func test_verboseSaysWhichFormatEachInputWasReadAs() throws {
        let url = try writeInput("ok.jsonl", lines: [#"{"id":"m-1","type":"text","text":"hi"}"#])
        let run = try renderRaw([url.path, "--verbose", "--format", "plain"])
        XCTAssertTrue(run.diagnostics.contains("cellhost: \(url.path): read as CellHost JSON Lines"), run.stderr)
        let forced = try renderRaw([url.path, "--verbose", "--from", "cellhost", "--format", "plain"])
        XCTAssertTrue(forced.diagnostics.contains("cellhost: \(url.path): read as CellHost JSON Lines (--from)"), forced.stderr)
    }

    func test_fromNamesTheFormatsWhenGivenAnother() throws {
        let run = try renderRaw(["-", "--from", "irc"], stdin: Data(), expectStatus: 2)
        XCTAssertEqual(run.diagnostics, ["cellhost: --from must be one of cellhost, telegram, matrix, discord, slack, whatsapp, not 'irc'"])
    }

    func test_aLiveStreamIsDetectedOnItsFirstLine() throws {
        // The input never ends while the first message must already be out:
        // detection may not wait for 64 KiB.
        let pipe = Pipe()
        let process = Process()
        process.executableURL = binary
        process.arguments = ["render", "-", "--format", "json"]
        process.environment = renderEnvironment(tz: "UTC", ansi: false)
        process.standardInput = pipe
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        pipe.fileHandleForWriting.write(Data((#"{"id":"live-1","type":"text","text":"now"}"# + "\n").utf8))
        let line = try XCTUnwrap(readLine(output.fileHandleForReading))
        XCTAssertTrue(line.contains("\"id\":\"live-1\""), line)
        try pipe.fileHandleForWriting.close()
        process.waitUntilExit()
    }

    /// One line from `handle`, read as it arrives.
    private func readLine(_ handle: FileHandle) throws -> String? {
        var bytes = Data()
        while true {
            let byte = handle.readData(ofLength: 1)
            if byte.isEmpty { return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self) }
            if byte == Data([0x0A]) { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(byte)
        }
    }

    // MARK: Times

    func test_aZonelessTimeIsLocalTimeInTheRunsZone() throws {
        let url = try writeInput("t.jsonl", lines: [#"{"id":"a","type":"text","text":"x","time":"2020-01-29T11:41:46"}"#,
                                                    #"{"id":"b","type":"text","text":"y","time":"1580298106"}"#])
        let run = try renderRaw([url.path, "--format", "plain", "--width", "60"], tz: "America/New_York")
        let lines = run.text.split(separator: "\n").map(String.init)
        XCTAssertTrue(lines.contains("11:41"), "local time as written:\n\(run.text)")
        XCTAssertTrue(lines.contains("06:41"), "seconds as text are UTC instants (11:41:46Z is 06:41 in New York):\n\(run.text)")
    }

    func test_unreadableTimesAreCountedAndTheFirstNamedWithVerbose() throws {
        let url = try writeInput("t.jsonl", lines: [#"{"id":"a","type":"text","text":"x","time":"2026-11-29T10:00:00Z"}"#,
                                                    #"{"id":"b","type":"text","text":"y","time":"yesterday"}"#,
                                                    #"{"id":"c","type":"text","text":"z","time":"2026-02-30T10:00:00Z"}"#])
        let run = try renderRaw([url.path, "--format", "json", "--verbose"])
        XCTAssertEqual(try records(run).map(\.id), ["a", "b", "c"], "messages with unreadable times are still rendered")
        XCTAssertTrue(run.diagnostics.contains("cellhost: \(url.path):2: 2 times could not be read (the first: \"yesterday\"); shown without a time"),
                      run.stderr)
        let quiet = try renderRaw([url.path, "--format", "json"])
        XCTAssertEqual(quiet.diagnostics, [], "without --verbose nothing is printed")
    }

    // MARK: The model's system lines and missing media

    func test_aSystemMessageIsCentredWithNoSenderOrBubble() throws {
        let url = try writeInput("s.jsonl", lines: [
            #"{"id":"1","type":"text","sender":{"id":"a","name":"Alice"},"time":"2026-11-29T10:00:00Z","text":"hi"}"#,
            #"{"id":"2","type":"system","sender":{"id":"a","name":"Alice"},"time":"2026-11-29T10:01:00Z","text":"Alice pinned a message","system":{"event":"pin"}}"#,
        ])
        let lines = try plainLines(url, width: 40)
        let line = try XCTUnwrap(lines.first { $0.contains("Alice pinned a message") })
        XCTAssertEqual(line, String(repeating: " ", count: (40 - 22) / 2) + "Alice pinned a message")
        XCTAssertEqual(lines.filter { $0.hasPrefix("Alice") }.count, 1, "no sender header for the system line:\n\(lines.joined(separator: "\n"))")
    }

    func test_aConversationHeadingIsDrawnBetweenDoubleRulesAndTheDaySeparatorComesAgain() throws {
        let message = #"{"id":"1","type":"text","sender":{"id":"a","name":"A"},"time":"2026-11-29T10:00:00Z","text":"hi"}"#
        let url = try writeInput("c.jsonl", lines: [
            #"{"id":"h1","type":"system","text":"First","system":{"event":"conversation"}}"#, message,
            #"{"id":"h2","type":"system","text":"Second","system":{"event":"conversation"}}"#, message,
        ])
        let lines = try plainLines(url, width: 30)
        XCTAssertEqual(lines.filter { $0.hasPrefix("═") }, ["═══════════ First ════════════", "═══════════ Second ═══════════"])
        XCTAssertEqual(lines.filter { $0.contains("Sunday, 29 November 2026") }.count, 2, lines.joined(separator: "\n"))
    }

    func test_mediaAnExportDidNotIncludeIsMarkedMissingWithTheReason() throws {
        let url = try writeInput("m.jsonl", lines: [
            #"{"id":"1","type":"image","text":"our cat","image":{"unavailable":"not included in the export"}}"#,
            #"{"id":"2","type":"voice","voice":{"duration":3,"unavailable":"not included in the export"}}"#,
            #"{"id":"3","type":"file","file":{"name":"plan.pdf","unavailable":"too large for the export"}}"#,
        ])
        let text = try plainLines(url, width: 80).joined(separator: "\n")
        XCTAssertTrue(text.contains("[IMG] image\n│ missing: not included in the export\n│ our cat"), text)
        XCTAssertTrue(text.contains("▶ 0:03\n│ missing: not included in the export"), text)
        XCTAssertTrue(text.contains("[PDF] plan.pdf\n│ application/pdf · missing: too large for the export"), text)
    }
}

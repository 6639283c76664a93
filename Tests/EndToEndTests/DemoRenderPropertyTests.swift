import Foundation
import XCTest

/// Properties of rendering the demo conversation (`Examples/conversation.jsonl`,
/// `--me u-alice`) that must hold whatever the exact layout: every message
/// shown once and in order by the class of its type, plain output free of
/// escape sequences, ANSI output that is the plain output plus SGR only, and
/// no line wider than the width.
final class DemoRenderPropertyTests: EndToEndTestCase {

    private struct InputMessage {
        let id: String
        let type: String
        let text: String?
        let pollQuestion: String?
    }

    /// The messages of the demo file, read independently of the host.
    private func demoMessages(file: StaticString = #filePath, line: UInt = #line) throws -> [InputMessage] {
        let url = Self.examplesDirectory.appendingPathComponent("conversation.jsonl")
        let text = try String(contentsOf: url, encoding: .utf8)
        return try text.split(separator: "\n").map { row in
            let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(row.utf8)) as? [String: Any],
                                       file: file, line: line)
            let poll = object["poll"] as? [String: Any]
            return InputMessage(id: try XCTUnwrap(object["id"] as? String, file: file, line: line),
                                type: try XCTUnwrap(object["type"] as? String, file: file, line: line),
                                text: object["text"] as? String,
                                pollQuestion: poll?["question"] as? String)
        }
    }

    private func renderDemo(_ format: String, width: Int, ansi: Bool = false, extraArgs: [String] = [],
                            file: StaticString = #filePath, line: UInt = #line) throws -> RawRun {
        try renderRaw(["conversation.jsonl", "--me", "u-alice", "--format", format, "--width", String(width)]
                      + extraArgs, ansi: ansi, currentDirectory: Self.examplesDirectory, file: file, line: line)
    }

    // MARK: - JSON

    func test_json_everyInputIdAppearsExactlyOnce_inInputOrder_withItsLineAndType() throws {
        let input = try demoMessages()
        XCTAssertEqual(input.count, 29, "the demo has 29 messages (Examples/README.md)")
        for width in [40, 100] {
            let rendered = try records(try renderDemo("json", width: width))
            XCTAssertEqual(rendered.map(\.id), input.map(\.id), "ids in input order, once each (width \(width))")
            XCTAssertEqual(rendered.map(\.type), input.map(\.type), "types (width \(width))")
            XCTAssertEqual(rendered.map(\.line), Array(1...input.count), "`line` is the input line (width \(width))")
            XCTAssertEqual(Set(rendered.compactMap(\.id)).count, rendered.count, "no id twice (width \(width))")
        }
    }

    func test_json_eachTypeIsRenderedByItsOwnClass_andLocationByUnknownMessageCellWithAFallbackChain() throws {
        let expected: [String: (className: String, plugin: String)] = [
            "text": ("TextMessageCell", "org.cellhost.text"),
            "file": ("FileMessageCell", "org.cellhost.file"),
            "image": ("ImageMessageCell", "org.cellhost.image"),
            "voice": ("VoiceMessageCell", "org.cellhost.voice"),
            "poll": ("PollMessageCell", "org.cellhost.poll"),
        ]
        let rendered = try records(try renderDemo("json", width: 100))
        XCTAssertEqual(Set(rendered.compactMap(\.type)), Set(expected.keys).union(["location"]),
                       "the demo covers every shipped type and one unregistered type")
        for record in rendered {
            let what = "\(record.id ?? "nil") (\(record.type ?? "nil"))"
            if let (className, plugin) = expected[record.type ?? ""] {
                XCTAssertEqual(record.className, className, what)
                XCTAssertEqual(record.plugin, plugin, what)
                XCTAssertEqual(record.renderedAs, record.type, what)
                XCTAssertNil(record.fallback, "\(what): rendered by the first candidate, so no fallback")
            } else {
                XCTAssertEqual(record.type, "location", what)
                XCTAssertEqual(record.className, "UnknownMessageCell", what)
                XCTAssertEqual(record.plugin, hostPluginID, what)
                XCTAssertEqual(record.renderedAs, "location", what)
                let fallback = try XCTUnwrap(record.fallback, "\(what): an unregistered type is a fallback")
                XCTAssertEqual(fallback.chain.count, 1, "\(what): chain \(fallback.chain)")
                XCTAssertEqual(fallback.chain.first?.messageClass, "location", what)
                XCTAssertNil(fallback.chain.first?.className, what)
                XCTAssertNil(fallback.chain.first?.plugin, what)
                XCTAssertEqual(fallback.chain.first?.result, .unregistered, what)
                XCTAssertTrue(fallback.reason.contains("location"), "\(what): reason \(fallback.reason)")
            }
        }
    }

    func test_json_everyMessageShowsItsContent() throws {
        let input = try demoMessages()
        for width in [40, 100] {
            let rendered = try records(try renderDemo("json", width: width))
            XCTAssertEqual(rendered.count, input.count)
            for (message, record) in zip(input, rendered) {
                let shown = record.lines.joined(separator: "\n")
                // The poll's `text` is its fallback; the poll cell shows the question.
                let source = message.type == "poll" ? (message.pollQuestion ?? "") : (message.text ?? "")
                let word = source.split(whereSeparator: { !$0.isLetter && !$0.isNumber })
                    .first { $0.count >= 3 }.map(String.init) ?? ""
                XCTAssertFalse(word.isEmpty, "\(message.id) has text")
                XCTAssertTrue(shown.contains(word),
                              "\(message.id) at width \(width) should show “\(word)”; lines:\n\(shown)")
            }
        }
    }

    func test_json_linesJoinedAreExactlyThePlainOutput() throws {
        // Previews differ on purpose (JSON keeps their colours, plain draws
        // them in braille), so they are left out here.
        for width in [40, 100] {
            let plain = try renderDemo("plain", width: width, extraArgs: ["--images", "none"])
            let rendered = try records(try renderDemo("json", width: width, extraArgs: ["--images", "none"]))
            let joined = rendered.flatMap(\.lines).map { $0 + "\n" }.joined()
            XCTAssertEqual(joined, plain.text, "json `lines` are the plain lines, chrome included (width \(width))")
            assertNoLineWider(than: width, rendered.flatMap(\.lines), "json lines at width \(width)")
        }
    }

    // MARK: - Plain

    func test_plain_hasNoEscapeOrControlByte_andNoLineWiderThanTheWidth() throws {
        for width in [12, 40, 100] {
            let plain = try renderDemo("plain", width: width)
            XCTAssertFalse(plain.stdout.contains(0x1B), "plain output contains ESC (width \(width))")
            assertSafePlainOutput(plain.stdout, width: width, "demo, plain, width \(width)")
            XCTAssertGreaterThan(plain.lines.count, 29, "width \(width)")
        }
    }

    func test_aWidthOutsideTheRangeIsAUsageErrorNamingTheRange() throws {
        for width in ["5", "5000", "0", "wide"] {
            let run = try renderRaw(["conversation.jsonl", "--width", width], currentDirectory: Self.examplesDirectory, expectStatus: 2)
            XCTAssertEqual(run.diagnostics, ["cellhost: --width must be a whole number from 12 to 1000, not '\(width)'"])
        }
    }

    func test_plain_theWidestWidthReachesTheRightEdge() throws {
        let maximum = try renderDemo("plain", width: 1000)
        assertSafePlainOutput(maximum.stdout, width: 1000, "demo, plain, width 1000")
        XCTAssertEqual(maximum.lines.map { displayWidth($0) }.max(), 1000,
                       "day separators and outgoing lines reach the right edge at 1000")
    }

    // MARK: - ANSI

    func test_ansi_hasSGRSequencesOnly_andIsThePlainOutputWithStyles() throws {
        for width in [40, 100] {
            let ansi = try renderDemo("ansi", width: width, ansi: true, extraArgs: ["--color", "always"])
            XCTAssertTrue(ansi.text.contains("\u{1B}["), "ansi output has ESC[ sequences (width \(width))")
            XCTAssertTrue(ansi.text.contains("38;5;"), "TERM=xterm-256color gives 256-colour SGR (width \(width))")
            XCTAssertFalse(ansi.text.contains("38;2;"), "no truecolor without COLORTERM (width \(width))")
            assertOnlySGRSequences(ansi.stdout, "demo, ansi, width \(width)")
            // Image previews differ by design (colour blocks in ANSI, braille
            // dots in plain), so the text is compared without them.
            let ansiText = try renderDemo("ansi", width: width, ansi: true,
                                          extraArgs: ["--color", "always", "--images", "none"])
            let plain = try renderDemo("plain", width: width, extraArgs: ["--images", "none"])
            let stripped = strippingSGR(ansiText.stdout)
            XCTAssertEqual(String(decoding: stripped, as: UTF8.self), plain.text,
                           "ansi without its SGR sequences is the plain output (width \(width))")
        }
    }

    func test_ansi_colorDepthFollowsTheEnvironment() throws {
        let args = ["conversation.jsonl", "--me", "u-alice", "--format", "ansi", "--width", "60"]
        var env = renderEnvironment(ansi: true)
        env["COLORTERM"] = "truecolor"
        let truecolor = try runRaw(args.prefixedWithRender + ["--color", "always"], env: env,
                                   currentDirectory: Self.examplesDirectory)
        XCTAssertEqual(truecolor.status, 0, truecolor.stderr)
        XCTAssertTrue(truecolor.text.contains("38;2;"), "COLORTERM=truecolor gives 24-bit colours")
        assertOnlySGRSequences(truecolor.stdout, "truecolor")

        let never = try renderRaw(args + ["--color", "never"], ansi: true,
                                  currentDirectory: Self.examplesDirectory)
        XCTAssertFalse(never.text.contains("38;5;"), "--color never: no colours")
        XCTAssertFalse(never.text.contains("38;2;"), "--color never: no colours")
        assertOnlySGRSequences(never.stdout, "--color never")
    }
}

private extension Array where Element == String {
    /// `["render"] + self`, for `runRaw`, which takes the whole argument list.
    var prefixedWithRender: [String] { ["render"] + self }
}

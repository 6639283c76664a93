import Foundation
import XCTest

/// Hostile strings through every cell and every piece of chrome: escape
/// sequences (CSI, OSC 8 hyperlinks, OSC 52 clipboard writes, with BEL and ST
/// terminators), C0/C1 controls, bidi overrides, invalid UTF-8, a 100 000
/// character line and 10 000 combining marks — as the text of a text message,
/// a file's name/mime/path, an image path, a voice message's text, a poll's
/// question and option, an unknown type's text, a sender name, a reaction
/// emoji, a reply quote, a reply_to id and an outgoing message.
///
/// The plain output must stay safe (no control byte but "\n", no DEL, no C1,
/// no raw bidi control, valid UTF-8), no line may be wider than the width (40
/// and 100), every message must still be rendered (its id in the JSON output)
/// and the messages around it too. Every run is bounded by `runTimeout`.
final class HostileInputTests: EndToEndTestCase {

    private let runTimeout: TimeInterval = 30

    /// A hostile string: either text (JSON-escaped where JSON requires it,
    /// everything else raw UTF-8) or raw bytes spliced into a JSON string.
    enum Payload {
        case text(String)
        case bytes([UInt8])

        var jsonBytes: [UInt8] {
            switch self {
            case .text(let value): return Array(jsonString(value).utf8)
            case .bytes(let raw): return [UInt8(ascii: "\"")] + raw + [UInt8(ascii: "\"")]
            }
        }
    }

    // MARK: - Payloads

    static let escapes = "A\u{1B}[31mRED\u{1B}[2J\u{1B}[H B "
        + "\u{1B}]8;;http://evil.example/bel\u{07}LINK-BEL\u{1B}]8;;\u{07} C "
        + "\u{1B}]8;;http://evil.example/st\u{1B}\\LINK-ST\u{1B}]8;;\u{1B}\\ D "
        + "\u{1B}]52;c;ZXZpbA==\u{07} E \u{1B}]52;c;ZXZpbA==\u{1B}\\ F \u{1B}P1$qm\u{1B}\\ G \u{1B}7\u{1B}c END"

    /// Lone C1 controls and C1-introduced sequences (CSI, OSC, DCS, APC), each
    /// terminated (an unterminated string control would run to the end).
    static let c1 = "C1: NEL\u{85} CSI\u{9B}31m OSC\u{9D}0;title\u{9C} DCS\u{90}q\u{9C} "
        + "PAD\u{80} RI\u{8D} SGCI\u{99} APC\u{9F}app\u{9C} ST\u{9C} END"

    static let bidi = "BIDI: \u{202E}override\u{202C} \u{2066}isolate\u{2069} "
        + "\u{2067}rtl\u{2069} \u{2068}fsi\u{2069} \u{202A}lre\u{202B}rle\u{202D}lro \u{200E}\u{200F}\u{061C} END"

    static let controls = "C0: NUL\u{0} BEL\u{7} BS\u{8} TAB\t VT\u{B} FF\u{C} CR\r LF\n "
        + "SO\u{E} SI\u{F} SUB\u{1A} ESC\u{1B} US\u{1F} DEL\u{7F} END"

    /// Control bytes written raw into the JSON string (not as \u escapes);
    /// the contract accepts them ("shown visibly"). No raw "\n": it would end
    /// the JSON line.
    static let rawControls: [UInt8] = Array("RAW: ".utf8)
        + [0x01, 0x07, 0x08, 0x09, 0x0B, 0x0C, 0x0D, 0x1B] + Array("[31mRED ".utf8)
        + [0x1B] + Array("]8;;http://evil.example/\u{07}x ".utf8)
        + [0x7F, 0xC2, 0x85, 0xC2, 0x9B] + Array("31m END".utf8)

    /// Invalid UTF-8 inside the JSON string: a lone 0xFF, a truncated
    /// sequence (0xC3 then a space), an overlong "/", an encoded surrogate,
    /// a 5-byte form and a truncation at the very end of the string.
    static let invalidUTF8: [UInt8] = Array("BAD: ".utf8) + [0xFF] + Array(" x ".utf8) + [0xC3]
        + Array(" y ".utf8) + [0xC0, 0xAF] + Array(" z ".utf8) + [0xED, 0xA0, 0x80]
        + Array(" w ".utf8) + [0xF8, 0x88, 0x80, 0x80, 0x80] + Array(" END ".utf8) + [0xE2, 0x82]

    /// 100 000 characters without a break opportunity.
    static let longLine = String(repeating: "x", count: 100_000)

    /// 100 000 characters of words, CJK, emoji and ZWJ sequences (many wrap points).
    static let longMixed: String = {
        let unit = "word 界界 😀 👩‍💻 🇻🇳 e\u{301} "
        let repeats = 100_000 / unit.count + 1
        return String(String(repeating: unit, count: repeats).prefix(100_000))
    }()

    /// One grapheme cluster of 10 001 scalars, then more text.
    static let combining = "e" + String(repeating: "\u{301}", count: 10_000) + " tail END"

    // MARK: - The messages

    /// Every place a string from a message reaches the screen, each carrying `h`.
    static func hostileMessages(_ h: Payload) -> [[UInt8]] {
        let templates = [
            #"{"id":"before","type":"text","sender":{"id":"u-bob","name":"Bob"},"time":"2026-01-01T10:00:00Z","text":"before-marker"}"#,
            #"{"id":"h-text","type":"text","sender":{"id":"u-h","name":@H@},"time":"2026-01-01T10:01:00Z","text":@H@,"reactions":[{"emoji":@H@,"count":2},{"emoji":"👍","count":1}]}"#,
            #"{"id":"h-sender","type":"text","sender":{"id":@H@,"name":@H@},"time":"2026-01-01T10:02:00Z","text":"sender-only"}"#,
            #"{"id":"h-quote","type":"text","sender":{"id":"u-bob","name":"Bob"},"reply_to":"h-text","text":"quote-marker"}"#,
            #"{"id":"h-reply-id","type":"text","reply_to":@H@,"text":"reply-id-marker"}"#,
            #"{"id":"h-file","type":"file","text":@H@,"file":{"name":@H@,"size":1234,"mime":@H@,"path":@H@}}"#,
            #"{"id":"h-file-name","type":"file","text":"file-marker","file":{"name":@H@,"size":1,"mime":"text/plain","path":"x.txt"}}"#,
            #"{"id":"h-image","type":"image","text":@H@,"image":{"path":@H@,"width":64,"height":48}}"#,
            #"{"id":"h-image-path","type":"image","text":"image-marker","image":{"path":@H@,"width":64,"height":48}}"#,
            #"{"id":"h-voice","type":"voice","text":@H@,"voice":{"path":@H@,"duration":2.5,"waveform":[0,1,0.5]}}"#,
            #"{"id":"h-poll","type":"poll","text":@H@,"poll":{"question":@H@,"options":[{"text":@H@,"votes":1},{"text":"plain option","votes":2}]}}"#,
            #"{"id":"h-poll-option","type":"poll","text":"poll-marker","poll":{"question":"poll-marker?","options":[{"text":@H@,"votes":3}]}}"#,
            #"{"id":"h-unknown","type":"location","text":@H@,"location":{"name":@H@}}"#,
            #"{"id":"h-out","type":"text","sender":{"id":"me","name":@H@},"status":"read","edited":true,"text":@H@,"reactions":[{"emoji":@H@,"count":5}]}"#,
            #"{"id":"h-out-status","type":"text","sender":{"id":"me","name":"Me"},"status":@H@,"time":@H@,"text":"status-marker"}"#,
            #"{"id":"after","type":"text","sender":{"id":"u-bob","name":"Bob"},"time":"2026-01-01T10:30:00Z","text":"after-marker"}"#,
        ]
        let placeholder = Array("@H@".utf8)
        let payload = h.jsonBytes
        return templates.map { template in
            let bytes = Array(template.utf8)
            var out: [UInt8] = []
            var index = 0
            while index < bytes.count {
                if index + placeholder.count <= bytes.count, Array(bytes[index..<index + placeholder.count]) == placeholder {
                    out += payload
                    index += placeholder.count
                } else {
                    out.append(bytes[index])
                    index += 1
                }
            }
            return out
        }
    }

    /// Every payload, by name (HTMLTranscriptTests renders them all as a page).
    static let corpus: [(name: String, payload: Payload)] = [
        ("escapes", .text(escapes)), ("c1", .text(c1)), ("bidi", .text(bidi)), ("controls", .text(controls)),
        ("raw-controls", .bytes(rawControls)), ("invalid-utf8", .bytes(invalidUTF8)), ("long-line", .text(longLine)),
        ("long-mixed", .text(longMixed)), ("combining", .text(combining)),
    ]

    static let expectedIDs = ["before", "h-text", "h-sender", "h-quote", "h-reply-id", "h-file",
                                      "h-file-name", "h-image", "h-image-path", "h-voice", "h-poll",
                                      "h-poll-option", "h-unknown", "h-out", "h-out-status", "after"]

    /// Renders the hostile messages carrying `payload` in plain (widths 40 and
    /// 100), JSON and ANSI, checks every safety property, and returns the JSON
    /// records (width 100) for payload-specific checks.
    @discardableResult
    private func checkHostile(_ name: String, _ payload: Payload,
                              file: StaticString = #filePath, line: UInt = #line) throws -> [String: RenderRecord] {
        let lines = Self.hostileMessages(payload)
        let input = try writeInput("hostile-\(name).jsonl", bytes: Data(lines.flatMap { $0 + [0x0A] }))

        for width in [40, 100] {
            // A 100 000-character file name wraps past the default 1000-row cap,
            // hiding the caption marker after it: raise the cap (OutputCapTests test the cap).
            let plain = try renderRaw([input.path, "--format", "plain", "--width", String(width), "--me", "me",
                                       "--max-rows", "100000"],
                                      timeout: runTimeout, file: file, line: line)
            XCTAssertEqual(plain.status, 0, "\(name): stderr \(plain.stderr.prefix(2000))", file: file, line: line)
            assertSafePlainOutput(plain.stdout, width: width, "\(name), plain, width \(width)", file: file, line: line)
            let text = plain.text
            for marker in ["before-marker", "after-marker", "quote-marker", "reply-id-marker", "file-marker",
                           "image-marker", "poll-marker", "status-marker", "sender-only"] {
                XCTAssertTrue(text.contains(marker), "\(name), width \(width): “\(marker)” is rendered",
                              file: file, line: line)
            }
        }

        let json = try renderRaw([input.path, "--format", "json", "--width", "100", "--me", "me"],
                                 timeout: runTimeout, file: file, line: line)
        let records = try self.records(json, file: file, line: line)
        XCTAssertEqual(records.map { $0.id ?? "<nil>" }, Self.expectedIDs,
                       "\(name): every message is rendered, in order", file: file, line: line)
        var byID: [String: RenderRecord] = [:]
        for record in records {
            byID[record.id ?? ""] = record
            XCTAssertFalse(record.lines.filter { !$0.isEmpty }.isEmpty, "\(name): \(record.id ?? "?") has lines",
                           file: file, line: line)
            assertNoLineWider(than: 100, record.lines, "\(name): json lines of \(record.id ?? "?")",
                              file: file, line: line)
        }
        let expectedClasses = ["h-text": "TextMessageCell", "h-file": "FileMessageCell",
                               "h-image": "ImageMessageCell", "h-voice": "VoiceMessageCell",
                               "h-poll": "PollMessageCell", "h-unknown": "UnknownMessageCell"]
        for (id, className) in expectedClasses {
            XCTAssertEqual(byID[id]?.className, className,
                           "\(name): \(id) is still rendered by its own class (fallback: "
                           + "\(byID[id]?.fallback.map { "\($0.reason)" } ?? "none"))", file: file, line: line)
        }
        // Every string in the JSON output is safe too, once decoded.
        let allLines = records.flatMap(\.lines).map { $0 + "\n" }.joined()
        assertSafePlainOutput(Data(allLines.utf8), width: 100, "\(name), json lines", file: file, line: line)

        let ansi = try renderRaw([input.path, "--format", "ansi", "--color", "always", "--width", "40", "--me", "me"],
                                 ansi: true, timeout: runTimeout, file: file, line: line)
        assertOnlySGRSequences(ansi.stdout, "\(name), ansi", file: file, line: line)
        assertSafePlainOutput(strippingSGR(ansi.stdout), width: 40, "\(name), ansi without SGR",
                              file: file, line: line)

        return byID
    }

    // MARK: - Tests

    func test_escapeSequences_CSI_OSC8_OSC52_withBELandST_throughEveryCell() throws {
        let records = try checkHostile("escapes", .text(Self.escapes))
        let text = records["h-text"]?.lines.joined(separator: "\n") ?? ""
        XCTAssertTrue(text.contains("RED"), "the text around the sequences stays: \(text)")
        XCTAssertTrue(text.contains("END"), "the text after the sequences stays: \(text)")
    }

    /// "escape sequences removed whole": no parameter, URL, payload or
    /// terminator of a sequence may show, in any cell.
    func test_escapeSequences_areRemovedWhole_noPartOfThemIsShown() throws {
        let input = try writeInput("escapes-whole.jsonl",
                                   bytes: Data(Self.hostileMessages(.text(Self.escapes)).flatMap { $0 + [0x0A] }))
        let plain = try renderRaw([input.path, "--format", "json", "--width", "100", "--me", "me"],
                                  timeout: runTimeout)
        for record in try records(plain) {
            let text = record.lines.joined(separator: "\n")
            for leftover in ["[31m", "[2J", "]8;;", "evil.example", "]52;", "ZXZpbA==", "LINK-BEL\u{2407}",
                             "\u{2407}", "1$qm", "\u{241B}"] {
                XCTAssertFalse(text.contains(leftover),
                               "\(record.id ?? "?") (\(record.className)) shows “\(leftover)” of an escape sequence:\n"
                               + text.prefix(1500))
            }
        }
    }

    func test_C1Controls_throughEveryCell() throws {
        let records = try checkHostile("c1", .text(Self.c1))
        let text = records["h-text"]?.lines.joined(separator: "\n") ?? ""
        XCTAssertTrue(text.contains("NEL") && text.contains("END"), text)
    }

    func test_bidiControls_throughEveryCell_areShownVisibly() throws {
        let records = try checkHostile("bidi", .text(Self.bidi))
        let text = records["h-text"]?.lines.joined(separator: "\n") ?? ""
        XCTAssertTrue(text.contains("<U+202E>"), "U+202E is shown as <U+202E>: \(text)")
        XCTAssertTrue(text.contains("<U+2066>"), "U+2066 is shown as <U+2066>: \(text)")
        XCTAssertTrue(text.contains("override") && text.contains("isolate"), text)
    }

    func test_C0ControlsAndDEL_escapedInJSON_throughEveryCell() throws {
        let records = try checkHostile("controls", .text(Self.controls))
        let text = records["h-text"]?.lines.joined(separator: "\n") ?? ""
        XCTAssertTrue(text.contains("NUL") && text.contains("END"), text)
    }

    func test_rawControlBytesInsideJSONStrings_throughEveryCell() throws {
        let records = try checkHostile("raw-controls", .bytes(Self.rawControls))
        let text = records["h-text"]?.lines.joined(separator: "\n") ?? ""
        XCTAssertTrue(text.contains("RAW:") && text.contains("END"), "raw controls are accepted: \(text)")
    }

    func test_invalidUTF8_throughEveryCell_becomesReplacementCharacters() throws {
        let records = try checkHostile("invalid-utf8", .bytes(Self.invalidUTF8))
        let text = records["h-text"]?.lines.joined(separator: "\n") ?? ""
        XCTAssertTrue(text.contains("\u{FFFD}"), "invalid UTF-8 becomes U+FFFD: \(text)")
        XCTAssertTrue(text.contains("BAD:") && text.contains("END"), text)
    }

    func test_100000CharacterLine_withoutBreaks_throughEveryCell() throws {
        let records = try checkHostile("long-line", .text(Self.longLine))
        let shown = records["h-text"]?.lines.map { $0.filter { $0 == "x" }.count }.reduce(0, +) ?? 0
        XCTAssertGreaterThan(shown, 0, "the long line is shown (wrapped or truncated)")
    }

    func test_100000CharacterLine_ofWordsCJKAndEmoji_throughEveryCell() throws {
        try checkHostile("long-mixed", .text(Self.longMixed))
    }

    func test_10000CombiningMarks_throughEveryCell() throws {
        let records = try checkHostile("combining", .text(Self.combining))
        let text = records["h-text"]?.lines.joined(separator: "\n") ?? ""
        XCTAssertTrue(text.contains("tail"), "the text after the huge cluster is shown: \(text.prefix(300))")
    }

    /// A short hostile `type` (under 64 bytes, so still a type): the unknown
    /// cell names it, sanitized.
    func test_hostileTypeName_isShownSanitized_byUnknownMessageCell() throws {
        let types = ["x\u{1B}[2Jloc\u{202E}", "\u{1B}]52;c;ZXZpbA==\u{07}t", "t\u{85}\u{9B}1m\u{7F}", "t\u{0}n"]
        var lines = [#"{"id":"before","type":"text","text":"before-marker"}"#]
        for (index, type) in types.enumerated() {
            lines.append(#"{"id":"t\#(index)","type":\#(jsonString(type)),"text":"body \#(index)"}"#)
        }
        lines.append(#"{"id":"after","type":"text","text":"after-marker"}"#)
        let input = try writeInput("types.jsonl", lines: lines)
        for width in [40, 100] {
            let plain = try renderRaw([input.path, "--format", "plain", "--width", String(width)], timeout: runTimeout)
            assertSafePlainOutput(plain.stdout, width: width, "hostile types, width \(width)")
            XCTAssertTrue(plain.text.contains("before-marker") && plain.text.contains("after-marker"))
        }
        let records = try jsonRecords(input, width: 100)
        XCTAssertEqual(records.map { $0.id ?? "" }, ["before", "t0", "t1", "t2", "t3", "after"])
        for record in records where record.id?.hasPrefix("t") == true {
            XCTAssertEqual(record.className, "UnknownMessageCell", "\(record.id!)")
            XCTAssertTrue(record.lines.contains { $0.contains("body") }, "\(record.lines)")
        }
        let first = records[1].lines.joined(separator: "\n")
        XCTAssertTrue(first.contains("<U+202E>"), "the type is shown, bidi made visible: \(first)")
    }

    /// A message that is huge in every respect at once still renders within
    /// the time bound, and the next one renders after it.
    func test_manyHostileMessagesInOneFile_allRenderSafely() throws {
        var bytes: [UInt8] = []
        for payload in [Payload.text(Self.escapes), .text(Self.c1), .text(Self.bidi), .bytes(Self.invalidUTF8),
                        .text(Self.combining), .text(Self.longMixed)] {
            for line in Self.hostileMessages(payload) { bytes += line + [0x0A] }
        }
        let input = try writeInput("all-hostile.jsonl", bytes: Data(bytes))
        let plain = try renderRaw([input.path, "--format", "plain", "--width", "80"], timeout: runTimeout)
        assertSafePlainOutput(plain.stdout, width: 80, "all hostile payloads, width 80")
        XCTAssertEqual(plain.text.components(separatedBy: "after-marker").count - 1, 6,
                       "the message after each hostile batch renders")
    }
}

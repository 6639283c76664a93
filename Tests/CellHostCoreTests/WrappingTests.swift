import XCTest
@testable import CellHostCore

/// The wrapper and the chrome, seen through `CellHost.renderLines`: no line
/// is wider than the output, and text wraps at spaces.
final class WrappingTests: XCTestCase {

    private func render(_ json: String, width: Int, me: String? = nil) throws -> [String] {
        try CellHost().renderLines(json, width: width, me: me)
    }

    private func message(_ text: String, extra: String = "") -> String {
        var escaped = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": escaped += "\\\""
            case "\\": escaped += "\\\\"
            case "\n": escaped += "\\n"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return #"{"id":"m1","type":"text","sender":{"id":"u1","name":"Ann"},"text":""# + escaped + "\"" + extra + "}"
    }

    private func assertFits(_ lines: [String], width: Int, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertFalse(lines.isEmpty, file: file, line: line)
        for text in lines {
            XCTAssertLessThanOrEqual(DisplayWidth.width(of: text), width, "'\(text)' is wider than \(width)", file: file, line: line)
        }
    }

    private static let samples = [
        "short",
        String(repeating: "x", count: 300),
        "a " + String(repeating: "supercalifragilistic", count: 8) + " end",
        String(repeating: "日本語のテキスト", count: 12),
        String(repeating: "😀", count: 70),
        String(repeating: "👨\u{200D}👩\u{200D}👧\u{200D}👦🇻🇳", count: 30),
        "mixed 日本 text with 😀 emoji and e\u{301} marks " + String(repeating: "词", count: 41),
        "tabs\tand\tmore\ttabs " + String(repeating: "\t", count: 40),
        "hostile \u{1B}[31m\u{202E} bidi \u{7F} " + String(repeating: "\u{85}", count: 20),
        "a" + String(repeating: "\u{301}", count: 5_000) + " zalgo",
        "line one\nline two which is somewhat longer than the others\n\n" + String(repeating: "w ", count: 100),
    ]

    func test_noLineExceedsTheWidth_forLongWordsCJKAndEmoji() throws {
        for width in [12, 13, 20, 29, 30, 31, 47, 80, 133] {
            for text in Self.samples {
                assertFits(try render(message(text), width: width), width: width)
            }
        }
    }

    func test_noLineExceedsTheWidth_forOutgoingMessagesWithFullChrome() throws {
        let extra = #","time":"2026-11-29T10:02:00Z","status":"read","edited":true,"reply_to":"m0","reactions":[{"emoji":"👍","count":2},{"emoji":"🎉🎉🎉🎉🎉🎉🎉🎉🎉","count":300}]"#
        for width in [12, 17, 30, 64, 101] {
            for text in Self.samples {
                assertFits(try render(message(text, extra: extra), width: width, me: "u1"), width: width)
                assertFits(try render(message(text, extra: extra), width: width), width: width)
            }
        }
    }

    func test_longSenderNames_areCutToTheWidth() throws {
        let json = #"{"type":"text","sender":{"id":"u9","name":""# + String(repeating: "名前", count: 60)
            + #""},"time":"2026-11-29T10:02:00Z","text":"hi"}"#
        for width in [12, 25, 40] {
            let lines = try render(json, width: width)
            assertFits(lines, width: width)
            XCTAssertTrue(lines.contains { $0.contains("…") }, "the name is cut with an ellipsis: \(lines)")
        }
    }

    func test_words_wrapAtSpaces() throws {
        let lines = try render(message("alpha beta gamma delta epsilon"), width: 16)
        XCTAssertEqual(contentLines(lines), ["alpha beta", "gamma delta", "epsilon"])
    }

    func test_wrappedLines_doNotStartWithASpace() throws {
        let lines = contentLines(try render(message(String(repeating: "word ", count: 40)), width: 23))
        XCTAssertGreaterThan(lines.count, 1)
        for line in lines { XCTAssertFalse(line.hasPrefix(" "), "'\(line)'") }
    }

    func test_wordLongerThanALine_isBrokenAtTheWidth() throws {
        let lines = contentLines(try render(message(String(repeating: "x", count: 50)), width: 20))
        XCTAssertEqual(lines, [String(repeating: "x", count: 18), String(repeating: "x", count: 18), String(repeating: "x", count: 14)])
    }

    func test_longWordAfterText_startsOnAFreshLine() throws {
        let lines = contentLines(try render(message("hi " + String(repeating: "y", count: 30)), width: 20))
        XCTAssertEqual(lines.first, "hi")
        XCTAssertEqual(lines.dropFirst().joined(), String(repeating: "y", count: 30))
    }

    func test_cjkText_wrapsBetweenCharacters() throws {
        let lines = contentLines(try render(message(String(repeating: "日", count: 20)), width: 20))
        XCTAssertEqual(lines, [String(repeating: "日", count: 9), String(repeating: "日", count: 9), "日日"])
    }

    func test_emojiSequence_isNeverSplit() throws {
        let family = "👨\u{200D}👩\u{200D}👧\u{200D}👦"
        let lines = contentLines(try render(message(String(repeating: family, count: 15)), width: 20))
        for line in lines {
            XCTAssertTrue(line.unicodeScalars.elementsEqual(String(repeating: family, count: line.count).unicodeScalars),
                          "'\(line)' holds only whole families")
        }
        XCTAssertEqual(lines.map(\.count).reduce(0, +), 15)
    }

    func test_explicitLineBreaks_areKept() throws {
        XCTAssertEqual(contentLines(try render(message("one\ntwo\n\nfour"), width: 40)), ["one", "two", "", "four"])
    }

    func test_content_isSanitizedBeforeLayout() throws {
        let lines = try render(#"{"type":"text","text":"\u001b]8;;http://evil\u0007click\u001b]8;;\u0007 \u202Egnp.exe \u001b[2J"}"#, width: 60)
        let joined = lines.joined(separator: "\n")
        XCTAssertFalse(joined.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" }, joined)
        XCTAssertTrue(joined.contains("click <U+202E>gnp.exe"), joined)
    }
}

/// The fast paths for the symbols previews are made of agree with the slow ones.
final class BlockCellFastPathTests: XCTestCase {
    func test_everyScalarOfTheNarrowSymbolRanges_isOneColumnWide() {
        for scalar in Array(0x2500...0x259F) + Array(0x2800...0x28FF) {
            XCTAssertTrue(CodePointProperties.isNarrowSymbol(UInt32(scalar)))
            let text = String(Character(Unicode.Scalar(UInt32(scalar))!))
            XCTAssertEqual(DisplayWidth.width(of: text), 1, String(scalar, radix: 16))
            for mode in WidthMode.allCases { XCTAssertEqual(DisplayWidth.width(of: text, mode: mode), 1) }
            // Each starts a cluster of its own (the scanner joins runs of them without a look-up).
            let properties = CodePointProperties.of(UInt32(scalar))
            XCTAssertTrue(properties.startsCluster && !properties.isPrepend && properties.width == 1, String(scalar, radix: 16))
        }
        XCTAssertFalse(CodePointProperties.isNarrowSymbol(0x25FE), "◾ is an emoji, two columns wide")
    }

    func test_blockSequence_isTheGeneralSequence_atEveryDepth() {
        let piece = Piece(start: 0, end: 3, width: 1, style: [.customForeground, .customBackground],
                          foreground: 0xA8713A, background: 0x05FFC8)
        let fgOnly = Piece(start: 0, end: 3, width: 1, style: [.customForeground], foreground: 0x010203)
        for depth in [ColorDepth.trueColor, .ansi256, .ansi16] {
            for each in [piece, fgOnly] {
                let out = OutputBuffer(fd: -1)
                XCTAssertTrue(ANSIStyle.appendBlockSequence(for: each, depth: depth, to: out))
                XCTAssertEqual(String(decoding: out.bytes, as: UTF8.self), ANSIStyle.sequence(for: each, depth: depth), "\(depth)")
            }
        }
        let styled = Piece(start: 0, end: 3, width: 1, style: [.customForeground, .strong], foreground: 1)
        XCTAssertFalse(ANSIStyle.appendBlockSequence(for: styled, depth: .trueColor, to: OutputBuffer(fd: -1)))
    }
}

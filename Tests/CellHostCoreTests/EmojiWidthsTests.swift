import XCTest
@testable import CellHostCore

/// The footer measures a reactions line from the widths of its emoji
/// (`EmojiWidths`) instead of sanitizing and measuring the line. Whenever
/// every emoji has a width, the line must be what `Chrome.fitted` makes of
/// it: the same bytes (it was safe) and the same width.
final class EmojiWidthsTests: XCTestCase {
    static let emoji: [String] = [
        "👍", "❤️", "😂", "🎉", "🙏", "😮", "👩‍💻", "👩‍👩‍👧‍👦", "🇯🇵", "🇯", "👍🏽", "🏽", "ok", "+1", "a b", " ", "x ",
        "e\u{301}", "\u{301}", "\u{301}x", "\u{200D}", "x\u{200D}", "\u{600}", "x\u{600}", "\u{1100}\u{1161}",
        "\u{1161}", "\u{202E}", "\u{7}", "\u{1B}[31m", "\t", "\u{FE0F}", "✓", "日本", "\u{E0067}", "🏴\u{E0067}\u{E0062}\u{E007F}",
        "😀😀😀😀😀", "ééééééééé", "\u{AD}", "\u{85}",
    ]

    func test_knownWidth_isWhatFittedGives() throws {
        for mode in WidthMode.allCases {
            let chrome = Chrome(width: 200, mode: mode)
            var widths = EmojiWidths(mode: mode)
            for first in Self.emoji {
                for second in ["👍", "e\u{301}", "\u{301}", "ok", first] {
                    for count in [1, 2, 1_000_000] {
                        let reactions = #"[{"emoji":"\#(Self.escaped(first))","count":\#(count)},{"emoji":"\#(Self.escaped(second))"}]"#
                        let message = try ChromeReactionsTests.message(Array(reactions.utf8))
                        var line: [UInt8] = []
                        guard let columns = Chrome.reactions(message, into: &line, widths: &widths) else { continue }
                        var bytes = UnsafeList<UInt8>(capacity: 16)
                        defer { bytes.deallocate() }
                        let piece = line.withUnsafeBufferPointer { chrome.fitted(utf8: $0, style: [], maxWidth: 10_000, into: &bytes) }
                        XCTAssertEqual(Array(bytes.elements), line, "\(mode) \(reactions)")
                        XCTAssertEqual(Int(piece.width), columns, "\(mode) \(reactions)")
                    }
                }
            }
        }
    }

    /// An emoji whose bytes were measured before goes into the line as the
    /// record has them (`EmojiWidths.knownWidth`): the line must be what
    /// decoding and cutting each emoji gives (`Chrome.reactions(_:into:)`,
    /// which never takes that way), for emoji met before or not, escaped
    /// or not, cut to 8 characters or not, and invalid UTF-8.
    func test_knownEmoji_giveTheLineThatDecodingGives() throws {
        var raw: [[UInt8]] = Self.emoji.map { Array(Self.escaped($0).utf8) }
        raw += [[0xFF], [0xF0, 0x9F, 0x91], [0xF0, 0x9F, 0x91, 0x8D, 0xFF], [0xC3], Array("abcdefgh".utf8),
                Array("abcdefghij".utf8), Array("abcdefghijklmnop".utf8), Array("abcdefghijklmnopq".utf8),
                Array(#"\ud83d\udc4d"#.utf8), Array(#"\u00e9"#.utf8), Array("é".utf8), Array("👍👍👍👍".utf8), Array("x".utf8)]
        for mode in WidthMode.allCases {
            let chrome = Chrome(width: 200, mode: mode)
            var widths = EmojiWidths(mode: mode)
            // Twice each, so the second time the widths know the first.
            for round in 0..<2 {
                for first in raw {
                    for second in [Array("👍".utf8), Array("é".utf8), first] {
                        for count in ["1", "2", "1000000"] {
                            let json = Array(#"[{"emoji":""#.utf8) + first + Array(#"","count":\#(count)},{"emoji":""#.utf8)
                                + second + Array(#""}]"#.utf8)
                            let message = try ChromeReactionsTests.message(json)
                            let what = "\(mode) round \(round) \(json)"
                            var expected: [UInt8] = []
                            Chrome.reactions(message, into: &expected)
                            var line: [UInt8] = [0x2A] // a byte before, as the footer's buffer may hold
                            let columns = Chrome.reactions(message, into: &line, widths: &widths)
                            XCTAssertEqual(Array(line.dropFirst()), expected, what)
                            guard let columns else { continue }
                            var bytes = UnsafeList<UInt8>(capacity: 16)
                            defer { bytes.deallocate() }
                            let piece = expected.withUnsafeBufferPointer {
                                chrome.fitted(utf8: $0, style: [], maxWidth: 10_000, into: &bytes)
                            }
                            XCTAssertEqual(Int(piece.width), columns, what)
                        }
                    }
                }
            }
        }
    }

    /// Emoji that join a space next to them, or that the sanitizer changes,
    /// have no width of their own.
    func test_joiningOrUnsafeEmoji_haveNoWidth() {
        for mode in WidthMode.allCases {
            var widths = EmojiWidths(mode: mode)
            for emoji in ["\u{301}", "\u{200D}", "\u{1B}[31m", "\u{7}", "\u{202E}", " ", ""] {
                let bytes = Array(emoji.utf8)
                XCTAssertNil(bytes.withUnsafeBufferPointer { widths.width(of: $0) }, "\(mode) \(emoji.unicodeScalars.map { $0.value })")
            }
            // Invalid UTF-8, and more than 16 bytes.
            for bytes in [[0xF0, 0x9F, 0x91] as [UInt8], [0xFF], Array("😀😀😀😀😀".utf8)] {
                XCTAssertNil(bytes.withUnsafeBufferPointer { widths.width(of: $0) })
            }
            let thumbs = Array("👍".utf8)
            XCTAssertEqual(thumbs.withUnsafeBufferPointer { widths.width(of: $0) }, 2)
        }
    }

    /// `text` as the inside of a JSON string.
    static func escaped(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x22: result += "\\\""
            case 0x5C: result += "\\\\"
            case 0..<0x20: result += String(format: "\\u%04x", scalar.value)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}

import XCTest
@testable import CellHostCore

/// A reply quote's preview is the first 120 characters of the quoted text:
/// `CharacterPrefix.cut` keeps exactly what `String(decoding:as:).prefix`
/// keeps, whichever of its ways it takes.
final class QuotePreviewTests: XCTestCase {
    /// `String`'s answer, as bytes.
    static func reference(_ bytes: [UInt8], _ limit: Int) -> [UInt8] {
        Array(String(decoding: bytes, as: UTF8.self).prefix(limit).utf8)
    }

    static func cut(_ bytes: [UInt8], _ limit: Int, after prefix: [UInt8] = []) -> [UInt8] {
        var buffer = prefix + bytes
        CharacterPrefix.cut(&buffer, from: prefix.count, toCharacters: limit)
        XCTAssertEqual(Array(buffer[..<prefix.count]), prefix, "the bytes before the text are kept")
        return Array(buffer[prefix.count...])
    }

    /// Pieces that stand alone, next to ones that join their neighbours
    /// (marks, joiners, variation selectors, skin tones, flags, jamo, CR LF,
    /// prepend, kana voicing, invalid UTF-8) and the edges of each range.
    static let pieces: [[UInt8]] = [
        "a", "word ", " ", "\n", "\r", "\r\n", "\t", "é", "e\u{301}", "日本", "天气很好，", "👩‍💻", "🇯🇵", "🇯", "x\u{200D}",
        "\u{200C}", "Ω", "ж\u{483}", "\u{489}", "שלום", "شكرا", "\u{64B}", "\u{600}", "\u{6DD}x", "❤️", "❤", "👍🏽", "\u{1F3FB}",
        "\u{1F3FA}", "\u{1FAFF}", "한국어", "\u{1100}\u{1161}", "\u{AC00}\u{11A8}", "\u{3099}", "か\u{3099}", "\u{302A}", "ｶﾞ",
        "\u{FF9E}", "—", "…", "\u{2028}", "\u{20D0}", "\u{2BFF}", "\u{2E80}", "\u{3000}", "\u{30FF}", "\u{9FFF}", "\u{20000}",
        "\u{3FFFD}", "\u{AD}", "\u{7F}", "\u{85}", "\u{2FF}", "\u{300}", "\u{52F}", "\u{530}", "\u{0915}\u{094D}\u{0937}",
        "\u{E0061}", "\u{FE0F}", "\u{FFFD}",
    ].map { Array($0.utf8) } + [[0xFF], [0xE2, 0x82], [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0x80]]

    func test_cut_keepsWhatStringPrefixKeeps_onRandomMixedText() {
        var generator = SystemRandomNumberGenerator()
        for round in 0..<4000 {
            let count = Int.random(in: 0...(round % 2 == 0 ? 12 : 90), using: &generator)
            let text = (0..<count).flatMap { _ in Self.pieces.randomElement(using: &generator)! }
            let limit = round % 3 == 0 ? Int.random(in: 0...8, using: &generator) : ReplyQuote.previewLength
            let after = round % 5 == 0 ? Array("Bob".utf8) : []
            XCTAssertEqual(Self.cut(text, limit, after: after), Self.reference(text, limit),
                           "\(text) limit \(limit)")
        }
    }

    func test_cut_ofEveryPieceRepeated_keepsWhatStringPrefixKeeps() {
        for piece in Self.pieces {
            for count in [1, 2, 3, 119, 120, 121, 200] {
                let text = Array([[UInt8]](repeating: piece, count: count).joined())
                for limit in [0, 1, 2, 120] {
                    XCTAssertEqual(Self.cut(text, limit), Self.reference(text, limit), "\(piece) × \(count), limit \(limit)")
                }
            }
        }
    }

    func test_longText_ofCodePointsThatStandAlone_isCutWithoutString() {
        let ascii = Array(String(repeating: "abc ", count: 50).utf8)
        XCTAssertEqual(CharacterPrefix.plan(ascii.withUnsafeBufferPointer { $0 }, from: 0, limit: 120), .at(120))
        let cyrillic = Array(String(repeating: "жизнь ", count: 30).utf8)
        XCTAssertEqual(Self.cut(cyrillic, 120).count, Self.reference(cyrillic, 120).count)
        cyrillic.withUnsafeBufferPointer {
            guard case .at = CharacterPrefix.plan($0, from: 0, limit: 120) else { return XCTFail("not cut by code points") }
        }
        // At most `limit` code points: kept whole, joiners and all.
        let short = Array("e\u{301}👩‍💻🇯🇵".utf8)
        short.withUnsafeBufferPointer { XCTAssertEqual(CharacterPrefix.plan($0, from: 0, limit: 120), .whole) }
    }

    func test_textOfAtMostTheLimit_isKeptWhole_andEmptyTextStaysEmpty() {
        XCTAssertEqual(Self.cut([], 120), [])
        let text = Array("Café Lumière ☕".utf8)
        XCTAssertEqual(Self.cut(text, 120), text)
    }
}

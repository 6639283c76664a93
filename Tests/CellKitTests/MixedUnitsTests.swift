@testable import CellKit
import XCTest

/// `MixedUnits` parses non-ASCII texts a byte at a time when every ASCII
/// byte is a cluster of its own (`MixedUnits.fit`): it must give exactly
/// what `GraphemeUnits` gives, and the facts about scalars it relies on
/// must hold for the standard library in use.
final class MixedUnitsTests: XCTestCase {
    /// The spans `units` parse into.
    private func spans<Units: MarkupUnits>(_ units: Units, _ shape: TextShape) -> [StyledSpan] {
        var collector = SpanCollector()
        MarkupParser.run(units, shape, into: &collector)
        return collector.spans
    }

    /// Both parses of `text`, when it fits; nil when it does not.
    private func parses(_ text: String) -> (mixed: [StyledSpan], graphemes: [StyledSpan])? {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBufferPointer { buffer in
            let shape = TextShape(of: buffer)
            guard shape.isValidUTF8, shape.needsGraphemes, MixedUnits.fit(buffer, shape) == .bytes else { return nil }
            let mixed = spans(MixedUnits(buffer), shape)
            let graphemes = GraphemeUnits.with(buffer) { spans($0, shape) }
            return (mixed, graphemes)
        }
    }

    private func fits(_ text: String) -> Bool {
        Array(text.utf8).withUnsafeBufferPointer { MixedUnits.fit($0, TextShape(of: $0)) == .bytes }
    }

    func test_fitsTakesOrdinaryTextsAndRefusesJoinedASCII() {
        for text in ["Café *crème* brûlée", "天气*很好*，去海边", "👍 *x* 👍", "you ❤️ _it_", "שלום *עולם* x",
                     "Ğüzel https://example.org/é?x=1 *b*", "a 👨‍👩‍👧 `code` 🇫🇷 b", "α*β*", "*é*", "🌊 *wave*",
                     "👍*x*", "🌊*wave*", "*עולם*", "_αβγ_"] {
            XCTAssertTrue(fits(text), text.debugDescription)
        }
        for text in ["e\u{301}*x*", "*\u{301}x*", "👍🏽*x*", "🇫🇷*x*", "\u{600} *x*", "a\r\n*b*", "https://x.y。",
                     "see https://a.b\u{37E}", "\u{1FEF}code\u{1FEF}", "x\u{200D}y", "👨‍👩‍👧_x_", "é\u{301}h",
                     "\u{1100}\u{AC00}*x*", "👍\u{200D}\u{A9}*x*", "\u{600}é*x*"] {
            XCTAssertFalse(fits(text), text.debugDescription)
        }
    }

    func test_handPickedTextsParseAsClusters() {
        let cases = ["Café *crème* brûlée _naïve_", "天气*很好*！ok", "*天*", "_é_", "é*x*é", "x*é*x", "½*x*", "٣*x*",
                     "*x*½", "Ⅻ_x_", "שלום *עולם*", "https://x.y/é", "https://x.y/é). z", "(https://é.y)",
                     "https://x.y\u{3000}z", "https://x.y\u{A0}z", "https://x.y\u{2028}z", "👍 *x* 👍",
                     "you ❤️ `a` ❤️ *b*", "\u{A0}*x*\u{A0}", "\u{3000}_x_", "🇫🇷 **x** 🇫🇷", "é\\*x\\*",
                     "*a é* _b é_", "`é`", "`é\\`", "**é**", "__é__", "***é***", "한국어 *굵게*"]
        for text in cases {
            guard let (mixed, graphemes) = parses(text) else { return XCTFail("does not fit: \(text.debugDescription)") }
            XCTAssertEqual(mixed, graphemes, text.debugDescription)
        }
    }

    /// Generated texts: whenever one fits, the byte parse equals the
    /// cluster parse (and enough of them fit to make this a test).
    func test_generatedTextsParseAsClusters() {
        var random = SplitMix64(seed: 0xB17E)
        let pieces = MarkupEquivalenceTests.pieces.filter { !$0.contains("\r") }
            + ["天", "é", "ש", "α", "❤️", " 👍", "\u{3000}", "\u{A0}", "ğ", "ё", "ك", "\u{AC00}", "©", "\u{1100}", "\u{1161}"]
        var fitted = 0
        for round in 0..<20000 {
            let length = round % 7 == 0 ? Int(random.next() % 80) : Int(random.next() % 16)
            var text = ""
            for _ in 0..<length { text += pieces[Int(random.next() % UInt64(pieces.count))] }
            guard let (mixed, graphemes) = parses(text) else { continue }
            fitted += 1
            XCTAssertEqual(mixed, graphemes, text.debugDescription)
        }
        XCTAssertGreaterThan(fitted, 2000)
    }

    /// The ranges `MixedUnits` takes as never joining, or never Prepend,
    /// really are, with this standard library.
    func test_knownRangesNeverJoin() {
        for value in UInt32(0)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let string = String(scalar)
            if MixedUnits.neverJoins(scalar) {
                XCTAssertEqual(("a" + string).count, 2, "U+\(String(value, radix: 16)) after a letter")
            }
            if MixedUnits.neverPrepend(scalar) {
                XCTAssertEqual((string + "a").count, 2, "U+\(String(value, radix: 16)) before a letter")
            }
        }
    }

    /// A lone letter starts a cluster after a simple scalar or one of the
    /// `neverJoins` ranges (one of each kind here).
    func test_loneLettersJoinNothingBefore() {
        let neighbours = ["a", "é", "\u{4E00}", "\u{AC00}", "\u{D7A3}", "\u{A9}", "\u{3000}", "\u{FF01}", "\u{627}",
                          "👍", "🇫", "\u{2764}", "\u{2192}", "\u{5D0}", "\u{3B1}", "\u{E01}", "\u{671}"]
        for value in UInt32(0x80)...0xFFFF {
            guard let scalar = Unicode.Scalar(value), MixedUnits.isLoneLetter(scalar) else { continue }
            for neighbour in neighbours {
                XCTAssertEqual((neighbour + String(scalar)).count, neighbour.count + 1,
                               "U+\(String(value, radix: 16)) after \(neighbour.debugDescription)")
            }
        }
    }

    /// `MixedUnits.isWhitespace` asks the standard library only in the
    /// ranges that hold whitespace, and agrees with it on every scalar.
    func test_noWhitespaceOutsideTheCheckedRanges() {
        for value in UInt32(0)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let inRanges = value <= 0xA0 || value == 0x1680 || (0x2000...0x205F).contains(value) || value == 0x3000
            if !inRanges || value == 0x200D {
                XCTAssertFalse(scalar.properties.isWhitespace, "U+\(String(value, radix: 16))")
            }
            XCTAssertEqual(MixedUnits.isWhitespace(scalar), scalar.properties.isWhitespace,
                           "U+\(String(value, radix: 16))")
        }
    }

    /// The sixteen-byte scan flags exactly the bytes it looks for, every
    /// byte value at the edges and the middle of texts of the lengths that
    /// take each read (short, two words, whole vectors, an overlapping tail).
    func test_seenBytesFlagsExactlyItsBytes() {
        for length in [1, 2, 7, 8, 9, 15, 16, 17, 23, 31, 32, 33, 40] {
            for position in Set([0, 1, length / 2, length - 2, length - 1]) where position >= 0 && position < length {
                for byte in UInt8(1)...0xFF {
                    for filler in [UInt8(ascii: "a"), 0xA0] {
                        var text = [UInt8](repeating: filler, count: length)
                        text[position] = byte
                        let seen = text.withUnsafeBufferPointer { SeenBytes($0) }
                        let message = "byte \(byte) at \(position) of \(length) among \(filler)"
                        XCTAssertEqual(seen.emphasisOrEscape, byte == 0x2A || byte == 0x5F || byte == 0x5C, message)
                        XCTAssertEqual(seen.backtick, byte == 0x60, message)
                        XCTAssertEqual(seen.colon, byte == 0x3A, message)
                        XCTAssertEqual(seen.carriageReturn, byte == 0x0D, message)
                        XCTAssertEqual(seen.leadE1, byte == 0xE1, message)
                        XCTAssertEqual(seen.nonASCII, byte >= 0x80 || (filler >= 0x80 && length > 1), message)
                    }
                }
            }
        }
    }
}

@testable import CellKit
import CellHostABI
import XCTest

/// The UTF-8 parser must give exactly what the original Character-based
/// parser (ReferenceMarkup) gave, byte for byte, on every input: these tests
/// compare them on hand-picked edge cases and on many generated texts made
/// of the pieces that matter (markers, URLs, brackets, punctuation that
/// equals ASCII as a Character, combining marks, CR LF, prepended and joined
/// clusters, invalid UTF-8).
final class MarkupEquivalenceTests: XCTestCase {
    // MARK: Helpers

    /// Spans as (bytes, style): `String ==` would hide differences between
    /// canonically equivalent texts.
    private func bytes(_ spans: [StyledSpan]) -> [Piece] {
        spans.map { Piece(bytes: Array($0.text.utf8), style: $0.style.rawValue) }
    }

    private func assertEquivalent(_ text: String, file: StaticString = #filePath, line: UInt = #line) {
        let expected = bytes(ReferenceMarkup.parse(text))
        XCTAssertEqual(bytes(InlineMarkup.parse(text)), expected, "parse \(text.debugDescription)", file: file, line: line)
        let expectedPlain = Array(ReferenceMarkup.plainText(text).utf8)
        XCTAssertEqual(Array(InlineMarkup.plainText(text).utf8), expectedPlain,
                       "plainText \(text.debugDescription)", file: file, line: line)
        // The builder paths: one append per span, and one for the plain text.
        XCTAssertEqual(RecordingBuilder.appends { InlineMarkup.append(text, to: &$0) }, expected,
                       "append \(text.debugDescription)", file: file, line: line)
        XCTAssertEqual(RecordingBuilder.appends { InlineMarkup.appendPlainText(text, to: &$0) },
                       expectedPlain.isEmpty ? [] : [Piece(bytes: expectedPlain, style: 0)],
                       "appendPlainText \(text.debugDescription)", file: file, line: line)
        // The same for the text as a host string (valid UTF-8, shape read without validating).
        let utf8 = Array(text.utf8)
        XCTAssertEqual(RecordingBuilder.appends { cell in
            utf8.withUnsafeBufferPointer { InlineMarkup.append(hostString: $0, to: &cell) }
        }, expected, "append(hostString:) \(text.debugDescription)", file: file, line: line)
        XCTAssertEqual(RecordingBuilder.appends { cell in
            utf8.withUnsafeBufferPointer { InlineMarkup.appendPlainText(hostString: $0, to: &cell) }
        }, expectedPlain.isEmpty ? [] : [Piece(bytes: expectedPlain, style: 0)],
        "appendPlainText(hostString:) \(text.debugDescription)", file: file, line: line)
    }

    // MARK: Cases

    func test_handPickedEdgeCases() {
        let cases = [
            "", "a", "*", "**", "*a*", "_a_", "`a`", "`a` `b`", "``a``", "x*y*", "*y*x", "(*y*)", "*a _b_*",
            "*x _y_*_*z*_",                      // two non-adjacent pieces merge into one span
            "\u{1FEF}code\u{1FEF}",               // GREEK VARIA equals ` as a Character
            "`a\u{1FEF} x", "\u{1FEF}\u{1FEF}a`",
            "https://a.b\u{37E}", "see https://a.b;",   // GREEK QUESTION MARK equals ;
            "*\u{301}x*", "*x*\u{301}", "_\u{301}_x_",  // a marker with a combining mark is no marker
            "e\u{301}*x*", " \u{301}*x*", "\u{345}*x*", // the first scalar decides letter or space
            "a\r\n*b*\r\n", "\r*a*\r", "*a\r\n*", "x\r\n_y_",
            "\u{600}*x*", "\u{600} *x*",                  // a prepended mark joins what follows
            "👨‍👩‍👧*x*", "*👍🏽*", "🇫🇷*x*🇫🇷", "a\u{200D}*x*",
            "क्ष*x*", "\u{1100}\u{1161}*x*",
            "https://x.y/(a)", "https://x.y/a)", "(https://x.y)", "https://x.y/[a]]", "HTTP://X.Y", "hTtPs://x.y.",
            "http://", "https://", "https://…", "https://x.y。", "https://x.y，ok", "https://x.y\u{3000}z",
            "https://x.y\u{A0}z", "https://x.y\u{2028}z", "xhttps://a.b", "1https://a.b", "_https://a.b_",
            "`https://a.b`", "https://a.b/`x`", "https://x.y/`. foo`", "*https://a.b*", "https://a.b*c*",
            "½*x*", "٣*x*", "*x*½", "Ⅻ_x_",
            "天气*很好*！", "Tickets: `COAST-8F2K` 🎫", "é*x*", "🌊*wave*",
            "\u{FEFF}*x*", "\t*x*\t", "\u{0B}*x*", "\u{1C}*x*",
            String(repeating: "*a* ", count: 40), String(repeating: "_", count: 17) + "x_",
            // Doubled markers.
            "**a**", "__a__", "***a***", "**a*", "*a**", "**a** **b**", "**a __b__**", "*a **b** c*", "**a *b* c**",
            "snake__case__x", "__init__.py", "**https://a.b**", "`**a**`", "**`a`**", "**a\u{301}**", "**\u{301}a**",
            // Escapes.
            #"\*a\*"#, #"\_a\_"#, #"\`a\`"#, #"\\"#, #"\\\"#, #"\\\\"#, #"\\*a*"#, #"\\\*a*"#, #"\**a*"#,
            #"*a*\*"#, #"*\**"#, #"*\*"#, #"\***a**"#, #"**a\***"#, #"*a \* b*"#, #"\"#, #"a\"#, #"C:\x"#,
            #"\ *a*"#, #"`a\`"#, #"`a\``"#, #"\``a`"#, #"`a\`b`"#, #"\\`a`"#, "\\\u{1FEF}a\u{1FEF}",
            "\\*\u{301}a*", "\\\u{301}*a*", #"https://a.b/\*c*"#, #"*see https://a.b/x\*"#, #"https://x.y/\`a`"#,
            #"https://x.y/\\*a*"#, #"\https://a.b"#, #"_https://a.b/\_"#, "a\\\r\n*b*", "\\\r\n*b*",
            // ] and ^ lie between \ and _ (TextShape once flagged them as markup).
            "[see] x^2 for a plain text with ] and ^", "some]more^words*a*",
            // A colon without `://` holds no URL (the text is one plain span).
            "10:30 at the gate", "Note: bring tickets", "ж: 10:30。", "a:/b", "http:/x", "h://x", "://", "::/ /",
            "at 10:30 see https://x.y/a:b", "10:30 https:/x http://y", "Ѐ10:30…*x*", "x:\u{1FEF}y\u{1FEF}",
            // Many regions: the region storage is sized from the length.
            String(repeating: "`a` ", count: 120), String(repeating: "http://x ", count: 70),
            String(repeating: "`a`http://xy ", count: 40), String(repeating: "ж`a` https://b.c ", count: 30),
            String(repeating: "`a`", count: 200),
        ]
        for text in cases { assertEquivalent(text) }
    }

    func test_generatedTexts() {
        var random = SplitMix64(seed: 0x5EED)
        for round in 0..<20000 {
            let length = round % 7 == 0 ? Int(random.next() % 120) : Int(random.next() % 16)
            var text = ""
            for _ in 0..<length { text += Self.pieces[Int(random.next() % UInt64(Self.pieces.count))] }
            assertEquivalent(text)
        }
    }

    func test_invalidUTF8IsRepairedFirst() {
        var random = SplitMix64(seed: 42)
        let fragments: [[UInt8]] = [[0xFF], [0xC3], [0xE1, 0xBF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80],
                                    [0xC0, 0xAF], [0x80], Array("*a* ".utf8), Array("_b_".utf8),
                                    Array("`c`".utf8), Array(" https://x.y ".utf8), Array("é".utf8),
                                    [0xE1, 0xBF, 0xAF], Array("\r\n".utf8), Array("word".utf8),
                                    Array("\\".utf8), Array("**d**".utf8)]
        for _ in 0..<2000 {
            var bytes: [UInt8] = []
            for _ in 0..<Int(random.next() % 12) { bytes += fragments[Int(random.next() % UInt64(fragments.count))] }
            let repaired = String(decoding: bytes, as: UTF8.self)
            let expected = self.bytes(ReferenceMarkup.parse(repaired))
            let appended = RecordingBuilder.appends { cell in
                bytes.withUnsafeBufferPointer { InlineMarkup.append($0, to: &cell) }
            }
            XCTAssertEqual(appended, expected, "\(bytes)")
            let plain = RecordingBuilder.appends { cell in
                bytes.withUnsafeBufferPointer { InlineMarkup.appendPlainText($0, to: &cell) }
            }
            let expectedPlain = Array(ReferenceMarkup.plainText(repaired).utf8)
            XCTAssertEqual(plain, expectedPlain.isEmpty ? [] : [Piece(bytes: expectedPlain, style: 0)], "\(bytes)")
        }
    }

    /// A host string that breaks the ABI's promise of valid UTF-8 is still
    /// parsed as its repaired copy whenever it has markup (the parse
    /// validates it: `MixedUnits.fit`, or before cutting clusters), however
    /// the invalid bytes sit beside markers, CRs and joining scalars, at the
    /// start, the end or after a run that decides the clusters are needed.
    func test_invalidHostStringsWithMarkupParseAsRepaired() {
        var random = SplitMix64(seed: 0x1A7E)
        let fragments: [[UInt8]] = [[0xFF], [0xC3], [0xE1, 0xBF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80],
                                    [0xC0, 0xAF], [0x80], [0xE2, 0x96], [0xF0, 0x9F, 0x91],
                                    Array("*a* ".utf8), Array("_b_".utf8), Array("`c`".utf8),
                                    Array(" https://x.y ".utf8), Array("é".utf8), Array("天气".utf8),
                                    Array("e\u{301}".utf8), Array("👍🏽".utf8), [0xE1, 0xBF, 0xAF],
                                    Array("\r\n".utf8), Array("word".utf8), Array("\\".utf8), Array("h".utf8)]
        var checked = 0
        for round in 0..<6000 {
            var bytes: [UInt8] = []
            for _ in 0..<Int(random.next() % (round % 3 == 0 ? 24 : 8)) {
                bytes += fragments[Int(random.next() % UInt64(fragments.count))]
            }
            let (isValid, hasMarkup) = bytes.withUnsafeBufferPointer { buffer in
                (UTF8Scalar.isValid(buffer), TextShape(ofHostString: buffer).hasMarkup)
            }
            guard !isValid, hasMarkup else { continue }
            checked += 1
            let general = RecordingBuilder.appends { cell in
                bytes.withUnsafeBufferPointer { InlineMarkup.append($0, to: &cell) }
            }
            let host = RecordingBuilder.appends { cell in
                bytes.withUnsafeBufferPointer { InlineMarkup.append(hostString: $0, to: &cell) }
            }
            XCTAssertEqual(host, general, "\(bytes)")
            let generalPlain = RecordingBuilder.appends { cell in
                bytes.withUnsafeBufferPointer { InlineMarkup.appendPlainText($0, to: &cell) }
            }
            let hostPlain = RecordingBuilder.appends { cell in
                bytes.withUnsafeBufferPointer { InlineMarkup.appendPlainText(hostString: $0, to: &cell) }
            }
            XCTAssertEqual(hostPlain, generalPlain, "\(bytes)")
        }
        XCTAssertGreaterThan(checked, 1000)
    }

    /// `MixedUnits.fit` finds invalid UTF-8 wherever it is in a text it
    /// would otherwise parse by bytes, and takes the same text once valid.
    func test_fitFindsInvalidUTF8() {
        let invalid: [[UInt8]] = [[0xFF], [0xC3], [0xE1, 0xBF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80],
                                  [0xC0, 0xAF], [0x80], [0xE0, 0x80, 0x80], [0xF0, 0x9F, 0x91]]
        let valid = Array("é *x* 天气 `y` é".utf8)
        valid.withUnsafeBufferPointer { XCTAssertEqual(MixedUnits.fit($0, TextShape(ofHostString: $0)), .bytes) }
        for sequence in invalid {
            for position in 0...valid.count {
                var bytes = valid
                bytes.insert(contentsOf: sequence, at: position)
                let fit = bytes.withUnsafeBufferPointer { MixedUnits.fit($0, TextShape(ofHostString: $0)) }
                XCTAssertEqual(fit, .invalidUTF8, "\(bytes)")
            }
        }
    }

    /// The grapheme cutter agrees with `String`'s Characters.
    func test_graphemeClustersMatchCharacters() {
        var random = SplitMix64(seed: 7)
        for _ in 0..<4000 {
            var text = ""
            for _ in 0..<Int(random.next() % 20) { text += Self.pieces[Int(random.next() % UInt64(Self.pieces.count))] }
            var expected: [Int] = []
            var index = text.startIndex
            while index < text.endIndex {
                expected.append(text.utf8.distance(from: text.startIndex, to: index))
                index = text.index(after: index)
            }
            expected.append(text.utf8.count)
            let utf8 = Array(text.utf8)
            let starts = utf8.withUnsafeBufferPointer { buffer in
                withUnsafeTemporaryAllocation(of: Int.self, capacity: buffer.count + 1) { starts in
                    let count = GraphemeUnits.cut(buffer, into: starts)
                    return Array(starts[0...count])
                }
            }
            XCTAssertEqual(starts, expected, text.debugDescription)
        }
    }

    /// Two simple scalars never share a grapheme cluster: no simple scalar
    /// attaches to what precedes or follows it, or to itself.
    func test_simpleScalarsNeverJoin() {
        for value in UInt32(0)...0xFFFF {
            guard let scalar = Unicode.Scalar(value), GraphemeUnits.isSimple(scalar), scalar != "\r" else { continue }
            let string = String(scalar)
            for neighbour in ["a", "\u{4E00}", "\u{AC00}", "\u{FF01}", string] {
                XCTAssertEqual((neighbour + string).count, 2, "U+\(String(value, radix: 16)) after \(neighbour)")
                XCTAssertEqual((string + neighbour).count, 2, "U+\(String(value, radix: 16)) before \(neighbour)")
            }
        }
    }

    /// The ASCII character classes agree with `Character`.
    func test_asciiClassesMatchCharacter() {
        for byte in UInt8(0)..<0x80 {
            let character = Character(Unicode.Scalar(byte))
            XCTAssertEqual(ASCIIClass.isWord(byte), character.isLetter || character.isNumber, "\(byte)")
            XCTAssertEqual(ASCIIClass.isSpace(byte), character.isWhitespace, "\(byte)")
        }
    }

    /// The URL scan's one-bit test is whitespace or a bracket, byte for byte.
    func test_spaceOrBracketBitsMatchTheClasses() {
        for code in UInt8(0)..<0x80 {
            XCTAssertEqual(MarkupParser<ASCIIUnits>.isSpaceOrBracket(code),
                           ASCIIClass.isSpace(code) || MarkupParser<ASCIIUnits>.isBracket(code), "\(code)")
        }
    }

    /// The quick pass finds markup wherever it is in the 8-byte words.
    func test_textShapeFindsEveryMarker() {
        for marker in ["*", "_", "`", ":", "\\", "\r", "\u{1FEF}", "é"] {
            for position in 0..<20 {
                let text = String(repeating: "a", count: position) + marker + String(repeating: "b", count: 19 - position)
                let shape = Array(text.utf8).withUnsafeBufferPointer { TextShape(of: $0) }
                XCTAssertEqual(shape.hasEmphasisOrEscape, marker == "*" || marker == "_" || marker == "\\",
                               "\(marker) at \(position)")
                XCTAssertEqual(shape.hasBacktick, marker == "`" || marker == "\u{1FEF}", "\(marker) at \(position)")
                XCTAssertEqual(shape.hasColon, marker == ":", "\(marker) at \(position)")
                XCTAssertEqual(shape.needsGraphemes, marker == "\r" || !marker.utf8.allSatisfy { $0 < 0x80 },
                               "\(marker) at \(position)")
                XCTAssertTrue(shape.isValidUTF8)
            }
        }
        let invalid: [UInt8] = Array("abcdefgh".utf8) + [0xFF] + Array("abcdefgh".utf8)
        XCTAssertFalse(invalid.withUnsafeBufferPointer { TextShape(of: $0) }.isValidUTF8)
    }

    /// The host-string shape finds every marker at every position of texts
    /// of each length the scan reads differently, beside non-ASCII bytes.
    func test_hostStringShapeFindsEveryMarker() {
        for marker in ["*", "_", "`", ":", "\\", "\r", "\u{1FEF}", "é", "\u{1F00}", "]"] {
            for filler in ["a", "ж"] {
                for length in [1, 5, 8, 13, 20, 37] {
                    for position in 0..<length {
                        let text = String(repeating: filler, count: position) + marker
                            + String(repeating: filler, count: length - position - 1)
                        assertSameShape(Array(text.utf8))
                    }
                }
            }
        }
    }

    /// `TextShape(ofHostString:)` gives `TextShape(of:)`'s flags for valid
    /// UTF-8, and finds invalid UTF-8 whenever the parser would decode it
    /// (non-ASCII text with markup).
    func test_hostStringShapeMatchesTheGeneralPass() {
        var random = SplitMix64(seed: 0x4057)
        let invalid: [[UInt8]] = [[0xFF], [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xE2, 0x96], [0xF4, 0x90, 0x80, 0x80],
                                  [0x80], [0xE1], [0xE1, 0xBF]]
        for round in 0..<20000 {
            var bytes: [UInt8] = []
            for _ in 0..<Int(random.next() % (round % 4 == 0 ? 60 : 12)) {
                bytes += Array(Self.pieces[Int(random.next() % UInt64(Self.pieces.count))].utf8)
            }
            if round % 5 == 4 {
                let position = Int(random.next() % UInt64(bytes.count + 1))
                bytes.insert(contentsOf: invalid[Int(random.next() % UInt64(invalid.count))], at: position)
            }
            assertSameShape(bytes)
        }
        assertSameShape([])
    }

    private func assertSameShape(_ bytes: [UInt8], file: StaticString = #filePath, line: UInt = #line) {
        let general = bytes.withUnsafeBufferPointer { TextShape(of: $0) }
        let host = bytes.withUnsafeBufferPointer { TextShape(ofHostString: $0) }
        XCTAssertEqual(bytes.withUnsafeBufferPointer { UTF8Scalar.isValid($0) }, general.isValidUTF8, "\(bytes)",
                       file: file, line: line)
        guard general.isValidUTF8 else {
            // Left to the parse to validate whenever it would decode the text.
            if host.hasMarkup && host.needsGraphemes {
                XCTAssertTrue(host.needsValidation, "\(bytes)", file: file, line: line)
            }
            return
        }
        XCTAssertTrue(host.isValidUTF8, "\(bytes)", file: file, line: line)
        let scalars = String(decoding: bytes, as: UTF8.self).unicodeScalars
        XCTAssertEqual(host.hasEmphasisOrEscape, scalars.contains { $0 == "*" || $0 == "_" || $0 == "\\" },
                       "\(bytes)", file: file, line: line)
        XCTAssertEqual(host.hasBacktick, scalars.contains { $0 == "`" || $0 == "\u{1FEF}" }, "\(bytes)",
                       file: file, line: line)
        XCTAssertEqual(host.hasColon, scalars.contains(":"), "\(bytes)", file: file, line: line)
        XCTAssertEqual(host.hasURLScheme, String(decoding: bytes, as: UTF8.self).utf8.contains("://".utf8),
                       "\(bytes)", file: file, line: line)
        XCTAssertEqual(host.hasURLScheme, general.hasURLScheme, "\(bytes)", file: file, line: line)
        if host.hasMarkup {
            XCTAssertTrue(bytes.withUnsafeBufferPointer { MarkupBytes.mayHaveMarkup($0) }, "\(bytes)",
                          file: file, line: line)
        }
        XCTAssertEqual(host.needsGraphemes, scalars.contains { $0 == "\r" || !$0.isASCII }, "\(bytes)",
                       file: file, line: line)
        XCTAssertEqual(host.hasEmphasisOrEscape, general.hasEmphasisOrEscape, "\(bytes)", file: file, line: line)
        XCTAssertEqual(host.hasBacktick, general.hasBacktick, "\(bytes)", file: file, line: line)
        XCTAssertEqual(host.hasColon, general.hasColon, "\(bytes)", file: file, line: line)
        XCTAssertEqual(host.needsGraphemes, general.needsGraphemes, "\(bytes)", file: file, line: line)
        XCTAssertEqual(host.hasCarriageReturn, general.hasCarriageReturn, "\(bytes)", file: file, line: line)
    }

    /// `MarkupBytes` answers true exactly when a byte of its classes
    /// (`*`, `:`, 0x5C...0x60, 0xE1) is in the text, at every position of
    /// texts of every length up to 70 (the 8, 16 and 32-byte steps and
    /// tails), with ASCII and non-ASCII bytes around it: false, which sends
    /// the text to the builder unparsed, is never wrong.
    func test_markupBytesFindEveryMarkupByte() {
        let classes: Set<UInt8> = [0x2A, 0x3A, 0x5C, 0x5D, 0x5E, 0x5F, 0x60, 0xE1]
        for filler in [UInt8(ascii: "a"), 0xD0, 0x80, 0xFF, 0x00] {
            for length in 0...70 {
                let plain = [UInt8](repeating: filler, count: length)
                XCTAssertFalse(plain.withUnsafeBufferPointer { MarkupBytes.mayHaveMarkup($0) }, "\(filler) \(length)")
                for position in 0..<length {
                    for byte in UInt8(0)...UInt8(255) {
                        var bytes = plain
                        bytes[position] = byte
                        let found = bytes.withUnsafeBufferPointer { MarkupBytes.mayHaveMarkup($0) }
                        guard found != classes.contains(byte) else { continue }
                        XCTFail("byte \(byte) at \(position) of \(length) (filler \(filler)): \(found)")
                    }
                }
            }
        }
    }

    /// `ByteScan.firstIndex` finds the first of its three bytes from any
    /// start to any end, in the 16-byte steps, the 8-byte step and the
    /// bytes after them, with every byte value around it.
    func test_byteScanFindsTheFirstMatch() {
        var random = SplitMix64(seed: 0xB5CA)
        for round in 0..<20000 {
            let length = Int(random.next() % 72)
            let bytes = (0..<length).map { _ in
                random.next() % 4 == 0 ? [UInt8(ascii: "*"), UInt8(ascii: "_"), UInt8(ascii: "\\"), 0x80, 0xFF, 0][Int(random.next() % 6)]
                    : UInt8(truncatingIfNeeded: random.next() % (round % 2 == 0 ? 128 : 256))
            }
            let start = Int(random.next() % UInt64(length + 2))
            let end = Int(random.next() % UInt64(length + 1))
            let (a, b, c) = round % 3 == 0 ? (UInt8(ascii: "*"), UInt8(ascii: "_"), UInt8(ascii: "\\"))
                : (UInt8(truncatingIfNeeded: random.next()), UInt8(ascii: "*"), UInt8(ascii: "*"))
            var expected = max(start, end)
            if start < end, let hit = (start..<end).first(where: { bytes[$0] == a || bytes[$0] == b || bytes[$0] == c }) {
                expected = hit
            }
            let found = bytes.withUnsafeBufferPointer { ByteScan.firstIndex(of: a, b, c, in: $0.baseAddress, from: start, to: end) }
            XCTAssertEqual(found, expected, "\(bytes) \(start)..<\(end) \(a) \(b) \(c)")
        }
    }

    /// The quick pass agrees with a scalar-by-scalar reading of the text on
    /// generated texts, ASCII and not, with invalid bytes now and then: its
    /// flags are exact.
    func test_textShapeMatchesAScalarReading() {
        var random = SplitMix64(seed: 21)
        let invalid: [[UInt8]] = [[0xFF], [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xE2, 0x96], [0xF4, 0x90, 0x80, 0x80], [0x80]]
        for round in 0..<6000 {
            var bytes: [UInt8] = []
            for _ in 0..<Int(random.next() % 40) {
                bytes += Array(Self.pieces[Int(random.next() % UInt64(Self.pieces.count))].utf8)
            }
            if round % 5 == 4 {
                let position = Int(random.next() % UInt64(bytes.count + 1))
                bytes.insert(contentsOf: invalid[Int(random.next() % UInt64(invalid.count))], at: position)
            }
            let shape = bytes.withUnsafeBufferPointer { TextShape(of: $0) }
            let valid = String(validating: bytes, as: UTF8.self)
            XCTAssertEqual(shape.isValidUTF8, valid != nil, "\(bytes)")
            guard let text = valid else { continue }
            let scalars = text.unicodeScalars
            XCTAssertEqual(shape.hasEmphasisOrEscape, scalars.contains { $0 == "*" || $0 == "_" || $0 == "\\" },
                           text.debugDescription)
            XCTAssertEqual(shape.hasBacktick, scalars.contains { $0 == "`" || $0 == "\u{1FEF}" }, text.debugDescription)
            XCTAssertEqual(shape.hasColon, scalars.contains(":"), text.debugDescription)
            XCTAssertEqual(shape.hasURLScheme, text.utf8.contains("://".utf8), text.debugDescription)
            XCTAssertEqual(shape.needsGraphemes, scalars.contains { $0 == "\r" || !$0.isASCII }, text.debugDescription)
        }
    }

    // MARK: Material

    /// Pieces the generated texts are made of.
    static let pieces: [String] = [
        "a", "b", "Z", "h", "H", "t", "p", "s", "x", "1", "9", " ", " ", " ", "\t", "\n", "\r", "\r\n",
        "*", "*", "_", "_", "`", "`", "**", "__", "***", "\\", "\\", "\\",
        ".", ",", ";", ":", "!", "?", "'", "\"", "(", ")", "[", "]", "{", "}", "<", ">", "/", "-",
        "http://", "https://", "HTTPS://", "Http://", "http:/", "https:", "://", "www.x.y",
        "\u{301}", "\u{345}", "\u{1FEF}", "\u{37E}", "\u{3002}", "\u{3001}", "\u{FF0C}", "\u{FF01}", "\u{FF1F}",
        "\u{2026}", "\u{3000}", "\u{A0}", "\u{2028}", "\u{85}", "\u{200D}", "\u{FE0F}", "\u{600}", "\u{903}",
        "é", "e\u{301}", "天", "气", "🎫", "👍", "🏽", "👨‍👩‍👧", "🇫", "🇷", "क", "्", "ष", "\u{1100}", "\u{1161}",
        "½", "٣", "Ⅻ", "\u{212A}", "İ",
        // The edges of the scalars `MixedUnits.fit` takes from their bytes.
        "ب", "\u{61C}", "\u{61D}", "\u{64A}", "\u{64B}", "\u{2FF}", "\u{C0}", "\u{47F}", "\u{480}", "\u{4000}",
        "\u{9FFF}", "\u{3FFF}", "\u{A000}",
    ]
}

/// One append the builder received.
struct Piece: Equatable, CustomStringConvertible {
    var bytes: [UInt8]
    var style: UInt32
    var description: String { "\(String(decoding: bytes, as: UTF8.self).debugDescription)[\(style)]" }
}

/// A CellBuilder over the fake host that records what is appended.
enum RecordingBuilder {
    static func appends(_ body: (inout CellBuilder) -> Void) -> [Piece] {
        FakeHost.appends = []
        var cell = FakeHost.builder()
        body(&cell)
        return FakeHost.appends
    }
}

/// A small seeded generator, so failures can be replayed.
struct SplitMix64 {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

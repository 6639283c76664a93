import XCTest
@testable import CellHostCore

/// `Sanitizer`: untrusted text made safe for a terminal.
final class SanitizerTests: XCTestCase {

    private func clean(_ text: String) -> String { Sanitizer.sanitize(text) }

    /// Fails when `bytes` could do anything on a terminal: invalid UTF-8, C0
    /// controls, DEL, C1 controls, or raw bidi controls.
    private func assertTerminalSafe(_ bytes: [UInt8], _ input: [UInt8], file: StaticString = #filePath, line: UInt = #line) {
        let text = String(decoding: bytes, as: UTF8.self)
        let validUTF8 = Array(text.utf8) == bytes
        let hasC0OrDEL = bytes.contains { $0 < 0x20 || $0 == 0x7F }
        let hasC1 = text.unicodeScalars.contains { (0x80..<0xA0).contains($0.value) }
        let hasBidi = text.unicodeScalars.contains {
            (0x202A...0x202E).contains($0.value) || (0x2066...0x2069).contains($0.value) || $0.value == 0x200E || $0.value == 0x200F
        }
        if !validUTF8 || hasC0OrDEL || hasC1 || hasBidi {
            XCTFail("unsafe output \(bytes) for input \(input): valid UTF-8 \(validUTF8), C0/DEL \(hasC0OrDEL), "
                    + "C1 \(hasC1), bidi \(hasBidi)", file: file, line: line)
        }
    }

    // MARK: Escape sequences

    func test_plainText_isUnchanged() {
        XCTAssertEqual(clean("Hello, world! 日本語 😀"), "Hello, world! 日本語 😀")
    }

    func test_sgrSequence_isRemovedWhole() {
        XCTAssertEqual(clean("a\u{1B}[31mred\u{1B}[0m b"), "ared b")
    }

    func test_csiWithParametersAndIntermediates_isRemovedWhole() {
        XCTAssertEqual(clean("x\u{1B}[?1049hy\u{1B}[2 qz"), "xyz")
    }

    func test_osc8Hyperlink_terminatedByBEL_isRemovedWhole() {
        XCTAssertEqual(clean("\u{1B}]8;;https://evil.example\u{07}click\u{1B}]8;;\u{07}"), "click")
    }

    func test_osc8Hyperlink_terminatedByST_isRemovedWhole() {
        XCTAssertEqual(clean("\u{1B}]8;;https://evil.example\u{1B}\\click\u{1B}]8;;\u{1B}\\"), "click")
    }

    func test_oscTitle_terminatedByC1ST_isRemovedWhole() {
        XCTAssertEqual(clean("\u{1B}]0;pwned\u{9C}after"), "after")
    }

    func test_unterminatedOSC_isRemovedToTheEnd() {
        XCTAssertEqual(clean("before\u{1B}]0;title without end"), "before")
    }

    func test_dcs_isRemovedWhole() {
        XCTAssertEqual(clean("\u{1B}Pq#0;2;0;0;0#0~~@@\u{1B}\\after"), "after")
    }

    func test_apcPmAndSos_areRemovedWhole() {
        XCTAssertEqual(clean("a\u{1B}_apc\u{1B}\\b\u{1B}^pm\u{1B}\\c\u{1B}Xsos\u{1B}\\d"), "abcd")
    }

    func test_c1CSI_isRemovedWhole() {
        XCTAssertEqual(clean("a\u{9B}31mb"), "ab")
    }

    func test_c1OSCAndDCS_areRemovedWhole() {
        XCTAssertEqual(clean("a\u{9D}0;title\u{07}b\u{90}data\u{9C}c"), "abc")
    }

    func test_twoByteEscape_isRemovedWhole() {
        XCTAssertEqual(clean("a\u{1B}cb\u{1B}7c"), "abc")
    }

    func test_nFEscape_isRemovedWhole() {
        XCTAssertEqual(clean("a\u{1B}(Bb"), "ab")
    }

    func test_loneESC_atTheEnd_isDropped() {
        XCTAssertEqual(clean("text\u{1B}"), "text")
    }

    func test_loneESC_beforeNonASCII_isDropped_keepingWhatFollows() {
        XCTAssertEqual(clean("a\u{1B}é"), "aé")
    }

    // MARK: Controls and format characters

    func test_c0Controls_becomeControlPictures() {
        XCTAssertEqual(clean("a\u{0}b\u{1}c\u{7}d\u{8}e\r"), "a\u{2400}b\u{2401}c\u{2407}d\u{2408}e\u{240D}")
    }

    func test_newline_becomesAControlPicture() {
        XCTAssertEqual(clean("a\nb"), "a\u{240A}b")
    }

    func test_DEL_becomesSymbolForDelete() {
        XCTAssertEqual(clean("a\u{7F}b"), "a␡b")
    }

    func test_c1Control_isShownAsCodePoint() {
        XCTAssertEqual(clean("a\u{85}b"), "a<U+0085>b")
        XCTAssertEqual(clean("\u{80}"), "<U+0080>")
    }

    func test_bidiOverride_isShownAsCodePoint() {
        XCTAssertEqual(clean("invoice\u{202E}fdp.exe"), "invoice<U+202E>fdp.exe")
    }

    func test_bidiIsolatesAndMarks_areShownAsCodePoints() {
        XCTAssertEqual(clean("\u{2066}x\u{2069}\u{200F}"), "<U+2066>x<U+2069><U+200F>")
    }

    func test_zeroWidthSpaceAndSoftHyphen_areShown() {
        XCTAssertEqual(clean("a\u{200B}b\u{AD}c"), "a<U+200B>b<U+00AD>c")
    }

    func test_lineSeparator_isShown() {
        XCTAssertEqual(clean("a\u{2028}b"), "a<U+2028>b")
    }

    func test_zeroWidthJoiner_isKept() {
        let family = "👨\u{200D}👩\u{200D}👧"
        XCTAssertEqual(clean(family), family)
        XCTAssertEqual(clean("a\u{200C}b"), "a\u{200C}b")
    }

    func test_emojiTagSequence_isKept() {
        let scotland = "🏴\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}"
        XCTAssertEqual(clean(scotland), scotland)
    }

    func test_tab_becomesFourSpaces() {
        XCTAssertEqual(clean("a\tb"), "a    b")
    }

    // MARK: Invalid UTF-8

    func test_invalidUTF8_becomesReplacementCharacter() {
        XCTAssertEqual(sanitize(bytes: [0x61, 0xFF, 0x62]), Array("a\u{FFFD}b".utf8))
    }

    func test_truncatedSequence_becomesOneReplacementCharacter() {
        XCTAssertEqual(sanitize(bytes: [0x61, 0xE6, 0x97, 0x62]), Array("a\u{FFFD}b".utf8))
    }

    func test_encodedSurrogate_becomesReplacementCharacters() {
        let output = String(decoding: sanitize(bytes: [0xED, 0xA0, 0x80]), as: UTF8.self)
        XCTAssertFalse(output.isEmpty)
        XCTAssertTrue(output.unicodeScalars.allSatisfy { $0 == "\u{FFFD}" })
    }

    func test_overlongEncoding_becomesReplacementCharacters() {
        let output = String(decoding: sanitize(bytes: [0xC0, 0xAF, 0x41]), as: UTF8.self)
        XCTAssertTrue(output.hasSuffix("A"))
        XCTAssertFalse(output.contains("/"))
    }

    func test_rawC1ByteWithoutLead_isReplacementCharacter() {
        XCTAssertEqual(sanitize(bytes: [0x9B, 0x33, 0x31, 0x6D]), Array("\u{FFFD}31m".utf8))
    }

    func test_sanitizeReportsWhetherTheInputWasAlreadySafe() {
        var output: [UInt8] = []
        let plain: [UInt8] = Array("safe text".utf8)
        XCTAssertTrue(plain.withUnsafeBufferPointer { Sanitizer.sanitize($0, into: &output) })
        XCTAssertEqual(output, plain)
        output = []
        XCTAssertFalse([UInt8(0x1B), 0x5B, 0x6D].withUnsafeBufferPointer { Sanitizer.sanitize($0, into: &output) })
    }

    // MARK: Whatever the input

    func test_hostileCorpus_isAlwaysTerminalSafe() {
        let corpus: [[UInt8]] = [
            Array("\u{1B}[31m\u{1B}]8;;x\u{07}\u{1B}P\u{1B}\\\u{9B}1m\u{9D}x\u{9C}\u{85}\u{202E}\u{7F}\t\r\n".utf8),
            [0x1B], [0x1B, 0x5B], [0x1B, 0x5D], [0xC2], [0xC2, 0x9B], [0xC2, 0x9D, 0x41], [0xE2, 0x80], [0xF4, 0x90, 0x80, 0x80],
            [0x1B, 0x1B, 0x1B, 0x41], [0x1B, 0x28], [0x1B, 0x5B, 0xFF, 0x6D], [0x1B, 0x5D, 0xC2],
            Array(repeating: 0x1B, count: 100), Array(0...255).map { UInt8($0) },
        ]
        for input in corpus { assertTerminalSafe(sanitize(bytes: input), input) }
    }

    func test_randomBytes_areAlwaysTerminalSafe() {
        var random = SplitMix64(state: 0xC311_4057)
        // Biased towards the bytes that start or end sequences.
        let interesting: [UInt8] = [0x1B, 0x5B, 0x5D, 0x50, 0x5C, 0x07, 0x9B, 0x9C, 0x9D, 0xC2, 0xE2, 0x80, 0xAE, 0x85,
                                    0x00, 0x0A, 0x0D, 0x09, 0x7F, 0xFF, 0xED, 0xF0, 0x9F, 0x41, 0x3B, 0x20]
        for _ in 0..<5_000 {
            let count = random.below(40)
            let input: [UInt8] = (0..<count).map { _ in
                random.below(3) == 0 ? UInt8(truncatingIfNeeded: random.next()) : interesting[random.below(interesting.count)]
            }
            assertTerminalSafe(sanitize(bytes: input), input)
        }
    }

    /// The safe-run scan's shortcuts (a word of ASCII cut at its first
    /// unsafe byte, runs of box drawing, block elements and braille taken on
    /// their bytes) against a scalar-by-scalar answer, on every prefix of
    /// random text made of such pieces, their neighbours and broken ones.
    func test_isSafe_matchesTheScalarByScalarAnswer() {
        var random = SplitMix64(state: 0x5AFE_2026)
        let pieces: [[UInt8]] = [
            Array("ab".utf8), Array("x y".utf8), [0x0A], [0x09], [0x1B], [0x7F], [0x00], [0xFF], [0x80],
            Array("é".utf8), Array("日".utf8), Array("─".utf8), Array("▁".utf8), Array("█".utf8),
            Array("▟".utf8), Array("■".utf8), Array("⠀".utf8), Array("⣿".utf8), Array("⤀".utf8),
            Array("…".utf8), Array("\u{200B}".utf8), Array("\u{202E}".utf8), Array("\u{2593}".utf8),
            [0xE2, 0x96], [0xE2, 0x96, 0x41], [0xE2, 0xA0], [0xE2, 0x96, 0xC0], [0xE2, 0x93, 0xBF], [0xE2, 0xA4, 0x80],
        ]
        for _ in 0..<3_000 {
            var input: [UInt8] = []
            for _ in 0..<random.below(16) { input += pieces[random.below(pieces.count)] }
            for end in 0...input.count {
                let prefix = Array(input[..<end])
                for keepingNewlines in [false, true] {
                    let expected = Self.isSafeByScalars(prefix, keepingNewlines: keepingNewlines)
                    XCTAssertEqual(prefix.withUnsafeBufferPointer { Sanitizer.isSafe($0, keepingNewlines: keepingNewlines) },
                                   expected, "\(prefix) keeping newlines \(keepingNewlines)")
                }
            }
        }
    }

    /// The sixteen-byte scan of printable ASCII: one unsafe byte (or a
    /// non-ASCII character, valid or not) at every position of ASCII runs
    /// of every length around the vector's, against the scalar-by-scalar
    /// answer.
    func test_isSafe_findsAnUnsafeByteAtEveryPositionOfLongASCIIRuns() {
        let inserts: [[UInt8]] = [[], [0x1F], [0x00], [0x7F], [0x80], [0xFF], [0x0A], Array("é".utf8),
                                  Array("\u{200B}".utf8), Array("▁".utf8), [0xC3]]
        for length in 0..<50 {
            let run = (0..<length).map { UInt8(0x20 + ($0 * 7) % 0x5F) }
            for insert in inserts {
                for at in 0...length {
                    let input = Array(run[..<at]) + insert + Array(run[at...])
                    for keepingNewlines in [false, true] {
                        XCTAssertEqual(input.withUnsafeBufferPointer { Sanitizer.isSafe($0, keepingNewlines: keepingNewlines) },
                                       Self.isSafeByScalars(input, keepingNewlines: keepingNewlines),
                                       "\(input) keeping newlines \(keepingNewlines)")
                    }
                }
            }
        }
    }

    /// Valid UTF-8 of printable ASCII (and newlines, when kept) or of
    /// visible characters from U+00A0: what the sanitizer leaves as it is.
    private static func isSafeByScalars(_ bytes: [UInt8], keepingNewlines: Bool) -> Bool {
        guard let text = String(validating: bytes, as: UTF8.self) else { return false }
        return text.unicodeScalars.allSatisfy { scalar in
            let value = scalar.value
            if value < 0x80 { return (value >= 0x20 && value < 0x7F) || (value == 0x0A && keepingNewlines) }
            return value >= 0xA0 && !Sanitizer.isHiddenFormat(value)
        }
    }
}

/// `DisplayWidth`: terminal columns by grapheme cluster.
final class DisplayWidthTests: XCTestCase {

    func test_ascii_isOneColumnPerCharacter() {
        XCTAssertEqual(DisplayWidth.width(of: "hello"), 5)
        XCTAssertEqual(DisplayWidth.width(of: " "), 1)
        XCTAssertEqual(DisplayWidth.width(of: ""), 0)
    }

    func test_cjk_isTwoColumnsPerCharacter() {
        XCTAssertEqual(DisplayWidth.width(of: "日本"), 4)
        XCTAssertEqual(DisplayWidth.width(of: "한국어"), 6)
        XCTAssertEqual(DisplayWidth.width(of: "a日b"), 4)
    }

    func test_fullwidthForms_areTwoColumns() {
        XCTAssertEqual(DisplayWidth.width(of: "ＡＢ"), 4)
    }

    func test_emoji_isTwoColumns() {
        XCTAssertEqual(DisplayWidth.width(of: "😀"), 2)
        XCTAssertEqual(DisplayWidth.width(of: "👍🏽"), 2)
    }

    func test_emojiPresentationSelector_makesTwoColumns() {
        XCTAssertEqual(DisplayWidth.width(of: "❤\u{FE0F}"), 2)
    }

    func test_zwjFamilySequence_isTwoColumns() {
        XCTAssertEqual(DisplayWidth.width(of: "👨\u{200D}👩\u{200D}👧\u{200D}👦"), 2)
    }

    func test_flag_isTwoColumns() {
        XCTAssertEqual(DisplayWidth.width(of: "🇻🇳"), 2)
        XCTAssertEqual(DisplayWidth.width(of: "🇻🇳🇯🇵"), 4)
    }

    func test_combiningMark_addsNoColumn() {
        XCTAssertEqual(DisplayWidth.width(of: "e\u{301}"), 1)
        XCTAssertEqual(DisplayWidth.width(of: "e\u{301}e\u{301}"), 2)
        XCTAssertEqual(DisplayWidth.width(of: "é\u{323}"), 1)
    }

    func test_tenThousandCombiningMarksOnOneBase_isStillOneColumn() {
        let zalgo = "a" + String(repeating: "\u{301}", count: 10_000)
        XCTAssertEqual(DisplayWidth.width(of: zalgo), 1)
        XCTAssertEqual(DisplayWidth.width(of: zalgo + "b"), 2)
    }

    func test_hangulJamoSequence_isOneCluster() {
        XCTAssertEqual(DisplayWidth.width(of: "\u{1100}\u{1161}\u{11A8}"), 2)
    }

    func test_visibleCodePointMarkers_countTheirCharacters() {
        XCTAssertEqual(DisplayWidth.width(of: Sanitizer.sanitize("\u{202E}")), 8)
    }
}

/// `sanitizeLines`, used for the `list-plugins` report: each line on its own.
final class SanitizeLinesTests: XCTestCase {
    func test_eachLineIsSanitizedOnItsOwn_andNewlinesStay() {
        let text = "plugin \u{1B}]0;title-never-ended\nnext line\n\u{07}bell\n"
        XCTAssertEqual(Sanitizer.sanitizeLines(text), "plugin \nnext line\n␇bell\n")
    }

    func test_emptyTextAndEmptyLines_areKept() {
        XCTAssertEqual(Sanitizer.sanitizeLines(""), "")
        XCTAssertEqual(Sanitizer.sanitizeLines("\n\n"), "\n\n")
    }
}

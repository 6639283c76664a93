import CellHostABI
import XCTest
@testable import CellHostCore

/// The wrapper's and the plain encoder's fast paths against the plain
/// versions: word boundaries found eight bytes at a time against loops per
/// byte, runs of narrow symbols against decoding, the wrapper's pieces and
/// lines (styles included) against the greedy rule applied cluster by
/// cluster, and the output buffer's copies and padding against appending
/// byte by byte.
final class WrapFastPathTests: XCTestCase {
    // MARK: Word boundaries

    /// Bytes that sit next to the ones searched for: space, the bytes
    /// around it, letters, bytes from 0x80, and zero (what reads past the
    /// end look like).
    static let asciiAlphabet: [UInt8] = [0x20, 0x20, 0x20, 0x1F, 0x21, 0x00, 0x61, 0x62, 0x7A, 0x7F, 0x80, 0xA0, 0xC3, 0xE2, 0xFF]

    func test_wordBoundaries_matchLoopsPerByte_atEveryPositionAndEnd() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<600 {
            let length = Int.random(in: 0...40, using: &generator)
            let bytes: [UInt8] = (0..<length).map { _ in Self.asciiAlphabet.randomElement(using: &generator)! }
            bytes.withUnsafeBufferPointer { buffer in
                for start in 0...length {
                    for end in start...length {
                        let message = "\(bytes) \(start)..<\(end)"
                        XCTAssertEqual(ASCIIWords.nextSpace(buffer, from: start, end: end),
                                       (start..<end).first { bytes[$0] == 0x20 } ?? end, message)
                        XCTAssertEqual(ASCIIWords.nextNonSpace(buffer, from: start, end: end),
                                       (start..<end).first { bytes[$0] != 0x20 } ?? end, message)
                        XCTAssertEqual(ASCIIWords.firstNonASCII(buffer, from: start, end: end),
                                       (start..<end).first { bytes[$0] >= 0x80 } ?? end, message)
                        if end > start {
                            // `reach` is at most the last byte of the range.
                            XCTAssertEqual(ASCIIWords.lastWordEnd(buffer, from: start, reach: end - 1),
                                           Self.referenceLastWordEnd(bytes, from: start, reach: end - 1), message)
                        }
                    }
                }
            }
        }
    }

    /// ASCII runs short and long, so the 32-byte step and the overlapping
    /// words of the rest are taken, with a byte from 0x80 at every
    /// position, and bytes from 0x80 past the end (which must not count).
    func test_firstNonASCII_findsTheByte_pastTheWideSteps() {
        for length in [0, 1, 7, 8, 9, 15, 16, 17, 24, 31, 32, 33, 39, 40, 41, 63, 64, 65, 100] {
            for position in 0...length {
                for after in [0, 1, 9] {
                    var bytes = [UInt8](repeating: 0x61, count: length) + [UInt8](repeating: 0xE4, count: after)
                    if position < length { bytes[position] = 0xC3 }
                    bytes.withUnsafeBufferPointer {
                        for start in [0, 1, 7, 9] where start <= position {
                            XCTAssertEqual(ASCIIWords.firstNonASCII($0, from: start, end: length), position,
                                           "\(length) \(position) \(start) \(after)")
                        }
                    }
                }
            }
        }
    }

    /// What the wrapper did before: back from `reach` to a space, then back
    /// over the spaces before it.
    static func referenceLastWordEnd(_ bytes: [UInt8], from start: Int, reach: Int) -> Int {
        var index = reach
        while index > start, bytes[index] != 0x20 { index -= 1 }
        while index > start, bytes[index - 1] == 0x20 { index -= 1 }
        return index
    }

    // MARK: Narrow symbols

    /// Every three-byte sequence E2 xx yy, and others around it: a run
    /// ends where decoding finds something other than a narrow symbol.
    func test_narrowSymbolRuns_endWhereDecodingSaysSo() {
        var sequences: [[UInt8]] = []
        for second in UInt8(0x00)...0xFF {
            for third in [0x00, 0x41, 0x7F, 0x80, 0x81, 0x9F, 0xA0, 0xBF, 0xC0, 0xFF] as [UInt8] {
                sequences.append([0xE2, second, third])
            }
        }
        sequences += [[0xE1, 0x96, 0x88], [0xE3, 0x96, 0x88], [0x61], [0x20], [0xC3, 0xA9], [0xF0, 0x9F, 0x98, 0x80]]
        let blocks: [[UInt8]] = [[0xE2, 0x96, 0x88], [0xE2, 0x96, 0x81], [0xE2, 0x96, 0x9F], [0xE2, 0x94, 0x80], [0xE2, 0xA3, 0xBF]]
        let block = blocks[0] // █
        for sequence in sequences {
            // Runs of one to five symbols before it (pairs of block elements
            // are checked at once), and of 6 to 17 block elements (eight
            // at a time), so it falls at each place of an eight.
            for prefix in 0...17 {
                let symbols = prefix <= 5 ? blocks : Array(blocks[0..<3])
                let bytes = (0..<prefix).flatMap { symbols[($0 + sequence.count) % symbols.count] } + sequence + block
                bytes.withUnsafeBufferPointer { buffer in
                    for end in 0...buffer.count {
                        XCTAssertEqual(CodePointProperties.narrowSymbolRunEnd(buffer, from: 0, end: end),
                                       Self.referenceSymbolRunEnd(buffer, end: end), "\(bytes) end \(end)")
                    }
                }
            }
        }
    }

    static func referenceSymbolRunEnd(_ bytes: UnsafeBufferPointer<UInt8>, end: Int) -> Int {
        var index = 0
        while index < end, let (value, length) = UTF8Repair.decodeValid(bytes, at: index), length == 3,
              index + length <= end, CodePointProperties.isNarrowSymbol(value) {
            index += length
        }
        return index
    }

    // MARK: Two-byte letters

    /// The set of two-byte letters against the table, code point by code
    /// point: one column, and a cluster (a unit) of their own.
    func test_narrowLetters_matchTheTable() {
        for scalar in UInt32(0x80)...0x7FF {
            let properties = CodePointProperties.of(scalar)
            let expected = properties.width == 1 && properties.startsCluster
            let bit = CodePointProperties.narrowLetters[Int(scalar >> 6)] >> UInt64(scalar & 0x3F) & 1 != 0
            XCTAssertEqual(bit, expected, "U+\(String(scalar, radix: 16))")
        }
    }

    /// Runs of two-byte letters taken at once (`narrowLetterRunEnd`) against
    /// `ClusterScanner` on the same bytes, in both width modes: the run
    /// ends where a cluster ends, and each cluster in it is one code point
    /// of two bytes and one column. Around and among them: combining marks
    /// (after Latin, Hebrew and Arabic letters), a joiner, a variation
    /// selector, a prepend mark, a soft hyphen, wide characters, ASCII,
    /// and stray or cut-off bytes.
    func test_narrowLetterRuns_areClustersTheScannerFinds() {
        let texts = ["é", "ж", "ש", "ب", "Ω", "ß", "\u{301}", "\u{5B4}", "\u{64E}", "\u{200D}", "\u{FE0F}", "\u{600}",
                     "\u{AD}", "\u{A0}", "日", "😀", "a", " "]
        let pieces = texts.map { Array($0.utf8) } + [[0xC3], [0xA9], [0xC0, 0x80], [0xC1, 0xBF], [0xFF], [0xD7], [0xE2, 0x96]]
        var generator = SystemRandomNumberGenerator()
        var longest = 0
        for _ in 0..<20000 {
            let bytes = (0..<Int.random(in: 0...7, using: &generator)).flatMap { _ in pieces.randomElement(using: &generator)! }
            bytes.withUnsafeBufferPointer { buffer in
                let runEnd = CodePointProperties.narrowLetterRunEnd(buffer, from: 0, end: buffer.count)
                longest = max(longest, runEnd)
                for mode in WidthMode.allCases {
                    var scanner = ClusterScanner(buffer, 0..<buffer.count, mode: mode)
                    var position = 0
                    while position < runEnd, let cluster = scanner.next() {
                        XCTAssertEqual([cluster.end - cluster.start, cluster.width], [2, 1], "\(bytes) \(mode) at \(position)")
                        position = Int(cluster.end)
                    }
                    XCTAssertEqual(position, runEnd, "\(bytes) \(mode)")
                }
            }
        }
        XCTAssertGreaterThan(longest, 4)
    }

    // MARK: The wrapper

    /// Pieces of text the random contents are made of: short, long and
    /// exactly-fitting words, runs of spaces, a tab (four spaces once
    /// sanitized), control bytes (shown as symbols), accented and other
    /// one-column letters (runs of two-byte ones, with marks, a joiner or
    /// a variation selector after them), marks and joiners (alone and after
    /// ASCII), a prepend mark, wide characters and emoji (alone, in runs longer than
    /// a line, a mark in a run), runs of block elements
    /// and braille (a mark after one), and line breaks.
    static let fragments = [
        "a", "to", "word", "wrapped", "abcdefgh", "abcdefghijklmnopqrstuvwxyz0123", " ", " ", " ", "   ", "\t", "\u{1}",
        "\u{7F}", "é", "Café", "naïve", "жук", "Ω", "e\u{301}", "a\u{200D}", "\u{301}", "\u{0600}x", "日本", "語", "。", "좋은",
        "天气很好，我们去海边吧！", "中\u{301}文", "שלום", "עִבְרִית", "مرحبا", "مَرْحَبًا", "é\u{301}x",
        "ü\u{200D}", "ö\u{FE0F}", "ñ日", "Ωé😀", "é\u{600}", "Привет", "\u{AD}", "日本語😀😀", "😀", "👩‍💻", "❤️", "🇯🇵", "▁▂▃▄▅▆▇█", "████", "█\u{301}", "⠁⠂⠃", "─┃", "\n", "\n\n", " \n",
    ]

    /// Styles of the items (text appended in one call is an item per line).
    static let styles: [Style] = [[], .strong, .emphasis, .code]

    /// A canvas with random content: a few appends of random fragments,
    /// each in a random style, and now and then a row of block cells.
    static func randomCanvas(_ generator: inout SystemRandomNumberGenerator) -> CellCanvas {
        let canvas = CellCanvas()
        for _ in 0..<Int.random(in: 1...6, using: &generator) {
            if Int.random(in: 0..<12, using: &generator) == 0 {
                let cells = (0..<Int.random(in: 0...5, using: &generator)).map { index in
                    cellhost_block_cell(codepoint: [0x2588, 0x41, 0x4E2D, 0x7][index % 4], fg: 0x102030, bg: 0,
                                        flags: UInt32(CELLHOST_BLOCK_HAS_FG))
                }
                cells.withUnsafeBufferPointer { canvas.appendRow($0) }
                continue
            }
            let text = (0..<Int.random(in: 1...12, using: &generator)).map { _ in
                Self.fragments.randomElement(using: &generator)!
            }.joined()
            canvas.append(text, style: Self.styles.randomElement(using: &generator)!)
        }
        return canvas
    }

    /// The layout `Wrapper` makes of a fresh canvas holding `canvas`'s
    /// content (the reference reads `canvas` itself, unwrapped).
    static func wrapCopy(of canvas: CellCanvas, width: Int, mode: WidthMode) -> Layout {
        let wrapped = CellCanvas()
        wrapped.bytes.append(contentsOf: canvas.bytes.elements)
        wrapped.items.append(contentsOf: canvas.items.elements)
        wrapped.blockCells = canvas.blockCells
        Wrapper(width: width, mode: mode).wrap(wrapped)
        return Layout(wrapped)
    }

    func test_wrapper_placesWhatTheGreedyRuleClusterByClusterPlaces_onRandomContent() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<3000 {
            let canvas = Self.randomCanvas(&generator)
            let width = Int.random(in: 1...24, using: &generator)
            for mode in WidthMode.allCases {
                let expected = ReferenceWrapper.layout(canvas, width: width, mode: mode)
                let actual = Self.wrapCopy(of: canvas, width: width, mode: mode)
                let content = String(decoding: canvas.bytes.elements, as: UTF8.self)
                XCTAssertEqual(actual, expected, "\(mode) width \(width): \(content.debugDescription) \(Array(canvas.items.elements))")
                if actual != expected { return }
            }
        }
    }

    /// Words that exactly fill the line, one column short or over it, in
    /// one item and split over items of different styles.
    func test_wrapper_placesExactFits_likeTheGreedyRule() {
        let texts = ["abcd efgh ijkl", "abcd  efgh", "abcde fghij", "ab cd ef gh ij", "abcdefghi", " abcd efgh", "abcd efgh "]
        for text in texts {
            for width in 3...11 {
                for split in 0...text.utf8.count {
                    let canvas = CellCanvas()
                    let bytes = Array(text.utf8)
                    canvas.append(String(decoding: bytes[..<split], as: UTF8.self), style: [])
                    canvas.append(String(decoding: bytes[split...], as: UTF8.self), style: .strong)
                    for mode in WidthMode.allCases {
                        XCTAssertEqual(Self.wrapCopy(of: canvas, width: width, mode: mode),
                                       ReferenceWrapper.layout(canvas, width: width, mode: mode),
                                       "\(text.debugDescription) split \(split) width \(width)")
                    }
                }
            }
        }
    }

    /// A word placed after spaces an item ended with, and a word that
    /// goes on from the item before (ASCII, or accented letters collected
    /// at once) finished by ASCII: placed at once when one segment of
    /// spaces and one of the word fit (`placeCollectedWord`), else by
    /// `placeWord`. Three items of
    /// alternating styles, split at every pair of bytes (a split inside a
    /// letter gives U+FFFD on both sides, as the sanitizer makes it).
    func test_wrapper_placesWordsAfterCollectedSpacesAndLetters_likeTheGreedyRule() {
        let texts = ["abcd efgh ij", "ab  cd ef", "naïve café au", "Ğüzel x yz", "  lead in", "a é  b"]
        for text in texts {
            let bytes = Array(text.utf8)
            for first in 0...bytes.count {
                for second in first...bytes.count {
                    let canvas = CellCanvas()
                    canvas.append(String(decoding: bytes[..<first], as: UTF8.self), style: [])
                    canvas.append(String(decoding: bytes[first..<second], as: UTF8.self), style: .strong)
                    canvas.append(String(decoding: bytes[second...], as: UTF8.self), style: [])
                    for width in 1...14 {
                        for mode in WidthMode.allCases {
                            let expected = ReferenceWrapper.layout(canvas, width: width, mode: mode)
                            let actual = Self.wrapCopy(of: canvas, width: width, mode: mode)
                            XCTAssertEqual(actual, expected,
                                           "\(text.debugDescription) split \(first) \(second) width \(width) \(mode)")
                            if actual != expected { return }
                        }
                    }
                }
            }
        }
    }

    /// ASCII text over several lines: a line filled up to the last space
    /// within reach ends at once, the next word (past the line's end)
    /// starting the next line; runs of spaces at the break, a word that
    /// goes on in the next item, a word longer than a line, spaces at the
    /// end (of the content, or before a line break). Split over two items
    /// of different styles at every byte.
    func test_wrapper_breaksFilledLines_likeTheGreedyRule() {
        let texts = ["one two three four five six", "ab  cd   ef    gh", "a bb ccc dddd eeeee ffffff", "tiny enormousword x y",
                     "abc def ghi   ", "abc def   \nghi jkl", "   lead in words here"]
        for text in texts {
            for width in 1...14 {
                for split in 0...text.utf8.count {
                    let canvas = CellCanvas()
                    let bytes = Array(text.utf8)
                    canvas.append(String(decoding: bytes[..<split], as: UTF8.self), style: [])
                    canvas.append(String(decoding: bytes[split...], as: UTF8.self), style: .strong)
                    XCTAssertEqual(Self.wrapCopy(of: canvas, width: width, mode: .grapheme),
                                   ReferenceWrapper.layout(canvas, width: width, mode: .grapheme),
                                   "\(text.debugDescription) split \(split) width \(width)")
                }
            }
        }
    }

    /// Wrapping replaces the layout the canvas held (`reset` leaves it):
    /// wrapping again, or after a reset and new content, gives the layout
    /// of that content alone.
    func test_wrapper_replacesTheEarlierLayout() {
        let canvas = CellCanvas()
        canvas.append("one two three", style: [])
        Wrapper(width: 5).wrap(canvas)
        let first = Layout(canvas)
        Wrapper(width: 5).wrap(canvas)
        XCTAssertEqual(Layout(canvas), first)
        canvas.pieces.append(.padding(3))
        canvas.reset()
        canvas.append("four", style: .strong)
        Wrapper(width: 5).wrap(canvas)
        XCTAssertEqual(Layout(canvas).pieces, [[0, 4, 4, Int64(Style.strong.rawValue)]])
        XCTAssertEqual(Layout(canvas).lines, [[0, 1, 4]])
    }

    /// One canvas wrapped again and again, as a slot's canvas is: the
    /// word and the spaces collected outgrow their room on the stack
    /// (`Wrapper.segmentsOnStack` segments each) on a word, or a run of
    /// spaces, of many styles (a segment each), and the glyphs grow on a
    /// long row (and go back to the canvas only then); every layout is
    /// still that of its content alone.
    func test_wrapper_keepsItsGrownWorkLists_acrossWraps() {
        var generator = SystemRandomNumberGenerator()
        let canvas = CellCanvas()
        for round in 0..<300 {
            let source: CellCanvas
            switch round % 5 {
            case 0:
                // One word of one-letter items, styles alternating: a segment each.
                source = CellCanvas()
                for index in 0..<(60 + round) { source.append("x", style: Self.styles[index % 2]) }
                source.append(" end", style: [])
            case 1:
                // A row of block cells of three bytes each, then text.
                source = CellCanvas()
                let cells = (0..<(20 + round)).map { _ in cellhost_block_cell(codepoint: 0x2588, fg: 0, bg: 0, flags: 0) }
                cells.withUnsafeBufferPointer { source.appendRow($0) }
                source.append("after the row", style: .strong)
            case 2:
                // Spaces of one-space items, styles alternating, between
                // two words: a segment each, kept when the second word
                // fits after them, dropped when it does not.
                source = CellCanvas()
                source.append("a", style: [])
                for index in 0..<(20 + round / 4) { source.append(" ", style: Self.styles[index % 2]) }
                source.append("b", style: .strong)
            default:
                source = Self.randomCanvas(&generator)
            }
            // Rows are cut to the width: a wide one grows the glyphs more.
            let width = round % 5 == 1 ? Int.random(in: 20...200, using: &generator)
                : round % 5 == 2 ? Int.random(in: 1...120, using: &generator) : Int.random(in: 1...24, using: &generator)
            let expected = ReferenceWrapper.layout(source, width: width, mode: .grapheme)
            canvas.reset()
            canvas.bytes.append(contentsOf: source.bytes.elements)
            canvas.items.append(contentsOf: source.items.elements)
            canvas.blockCells = source.blockCells
            Wrapper(width: width).wrap(canvas)
            XCTAssertEqual(Layout(canvas), expected, "round \(round) width \(width)")
            if Layout(canvas) != expected { return }
        }
    }

    /// The layout a wrapper leaves: pieces as [start, end, width, style]
    /// and lines as [first piece, end piece, width].
    struct Layout: Equatable, CustomStringConvertible {
        var pieces: [[Int64]] = []
        var lines: [[Int32]] = []

        init() {}

        init(_ canvas: CellCanvas) {
            pieces = canvas.pieces.elements.map { [Int64($0.start), Int64($0.end), Int64($0.width), Int64($0.style.rawValue)] }
            lines = canvas.contentLines.elements.map { [$0.firstPiece, $0.endPiece, $0.width] }
        }

        var description: String { "pieces \(pieces) lines \(lines)" }
    }

    /// Greedy wrapping written out plainly, one cluster at a time
    /// (`DisplayWidth.clusters`, ASCII runs split into bytes), with the
    /// wrapper's rules: a word moves to a fresh line when it does not fit
    /// after the spaces before it (which are then dropped, and kept at a
    /// paragraph's start), a wide cluster is a word of its own, a word
    /// wider than a line is cut between clusters, rows are cut to the
    /// width; a line's pieces are joined where their bytes and styles
    /// continue each other. Written from the rules, not from the wrapper.
    struct ReferenceWrapper {
        let canvas: CellCanvas
        let width: Int
        let mode: WidthMode
        var layout = Layout()
        var pending: [Int64]?
        var lineStart = 0
        var lineWidth = 0
        var spaces: [(Cluster, Style)] = []
        var word: [(Cluster, Style)] = []
        var paragraphStart = true
        var glyphs: [UInt8] = []

        /// The layout of `canvas`'s content at `width` columns.
        static func layout(_ canvas: CellCanvas, width: Int, mode: WidthMode) -> Layout {
            var reference = ReferenceWrapper(canvas: canvas, width: width, mode: mode)
            return reference.run()
        }

        private init(canvas: CellCanvas, width: Int, mode: WidthMode) {
            self.canvas = canvas
            self.width = width
            self.mode = mode
        }

        mutating func run() -> Layout {
            for item in canvas.items.elements {
                switch item {
                case let .text(start, end, style):
                    var clusters: [Cluster] = []
                    DisplayWidth.clusters(canvas.bytes.elements, Int(start)..<Int(end), mode: mode, into: &clusters)
                    for cluster in clusters { add(cluster, style) }
                case .lineBreak:
                    flush()
                    spaces = []
                    endLine()
                    paragraphStart = true
                case let .row(start, count):
                    flush()
                    spaces = []
                    if lineWidth > 0 { endLine() }
                    flushPending()
                    for index in Int(start)..<(Int(start) + min(Int(count), width)) {
                        let cell = canvas.blockCells[index]
                        let glyphStart = canvas.bytes.count + glyphs.count
                        Wrapper.blockGlyph(cell.codepoint, into: &glyphs)
                        let style: Style = cell.flags & UInt32(CELLHOST_BLOCK_HAS_FG) != 0 ? .customForeground : []
                        layout.pieces.append([Int64(glyphStart), Int64(canvas.bytes.count + glyphs.count), 1, Int64(style.rawValue)])
                        lineWidth += 1
                    }
                    endLine()
                    paragraphStart = true
                }
            }
            flush()
            flushPending()
            if lineWidth > 0 || layout.lines.isEmpty || layout.pieces.count > lineStart { endLine() }
            return layout
        }

        mutating func add(_ cluster: Cluster, _ style: Style) {
            if cluster.isSpace {
                flush()
                spaces.append((cluster, style))
            } else if cluster.isWide {
                flush()
                word = [(cluster, style)]
                flush()
            } else {
                word.append((cluster, style))
            }
        }

        mutating func flush() {
            guard !word.isEmpty else { return }
            let wordWidth = word.reduce(0) { $0 + Int($1.0.width) }
            let spaceWidth = spaces.reduce(0) { $0 + Int($1.0.width) }
            let keepSpaces = lineWidth > 0 || paragraphStart
            if lineWidth + (keepSpaces ? spaceWidth : 0) + wordWidth <= width {
                if keepSpaces { for (space, style) in spaces { emit(space, style) } }
            } else if lineWidth > 0 {
                endLine()
            }
            if lineWidth + wordWidth <= width {
                for (cluster, style) in word { emit(cluster, style) }
            } else {
                cut()
            }
            word = []
            spaces = []
            paragraphStart = false
        }

        /// A word wider than a line, cut between clusters. Like the
        /// wrapper, this measures again each stretch of the word's bytes in
        /// one style (so a mark that starts an item joins the character
        /// the item before ended with, as if appended together).
        mutating func cut() {
            var stretches: [(start: Int32, end: Int32, style: Style)] = []
            for (cluster, style) in word {
                if let last = stretches.last, last.end == cluster.start, last.style == style {
                    stretches[stretches.count - 1].end = cluster.end
                } else {
                    stretches.append((cluster.start, cluster.end, style))
                }
            }
            for stretch in stretches {
                var clusters: [Cluster] = []
                DisplayWidth.clusters(canvas.bytes.elements, Int(stretch.start)..<Int(stretch.end), mode: mode, into: &clusters)
                for cluster in clusters {
                    if lineWidth + Int(cluster.width) > width, lineWidth > 0 { endLine() }
                    emit(cluster, stretch.style)
                }
            }
        }

        mutating func emit(_ cluster: Cluster, _ style: Style) {
            lineWidth += Int(cluster.width)
            if var piece = pending, piece[1] == Int64(cluster.start), piece[3] == Int64(style.rawValue) {
                piece[1] = Int64(cluster.end)
                piece[2] += Int64(cluster.width)
                pending = piece
                return
            }
            flushPending()
            pending = [Int64(cluster.start), Int64(cluster.end), Int64(cluster.width), Int64(style.rawValue)]
        }

        mutating func flushPending() {
            if let piece = pending { layout.pieces.append(piece) }
            pending = nil
        }

        mutating func endLine() {
            flushPending()
            layout.lines.append([Int32(lineStart), Int32(layout.pieces.count), Int32(lineWidth)])
            lineStart = layout.pieces.count
            lineWidth = 0
        }
    }

    // MARK: The output buffer

    func test_outputBufferCopies_andPadding_matchAppendingByteByByte() {
        var generator = SystemRandomNumberGenerator()
        let source = (0..<200).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
        for _ in 0..<300 {
            let out = OutputBuffer(fd: -1)
            var expected: [UInt8] = []
            for _ in 0..<Int.random(in: 1...40, using: &generator) {
                if Bool.random(using: &generator) {
                    let start = Int.random(in: 0..<source.count, using: &generator)
                    let end = Int.random(in: start...min(source.count, start + 130), using: &generator)
                    source.withUnsafeBufferPointer { out.append(UnsafeBufferPointer(rebasing: $0[start..<end])) }
                    expected += source[start..<end]
                } else {
                    let spaces = Int.random(in: -2...70, using: &generator)
                    out.appendSpaces(spaces)
                    expected += [UInt8](repeating: 0x20, count: max(0, spaces))
                }
                XCTAssertEqual(out.count, expected.count)
            }
            XCTAssertEqual(out.bytes, expected)
            if out.bytes != expected { return }
        }
        // Past the first 64 KiB the buffer grows: copies and padding go on across it.
        let out = OutputBuffer(fd: -1)
        var expected: [UInt8] = []
        while expected.count < 70_000 {
            source.withUnsafeBufferPointer { out.append(UnsafeBufferPointer(rebasing: $0[3..<40])) }
            out.appendSpaces(20)
            expected += source[3..<40] + [UInt8](repeating: 0x20, count: 20)
        }
        XCTAssertEqual(out.bytes, expected)
    }
}

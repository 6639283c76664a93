import XCTest
@testable import CellHostCore

/// The wrapper's fast paths (ASCII items a run at a time, wide clusters
/// placed without collecting them as words) lay out random text exactly as
/// the greedy rule written out plainly here does: words move to a fresh line
/// when they do not fit, spaces are dropped where a line breaks, a wide
/// cluster is a word of its own, and a word wider than a line is cut between
/// clusters.
final class WrapperReferenceTests: XCTestCase {
    /// The pieces random text is made of: ASCII words and spaces, accented
    /// Latin, combining marks, CJK, Hangul, emoji with and without joiners,
    /// a prepend mark.
    static let pieces = ["a", "word", "longerword", "x", " ", " ", " ", "  ", "é", "e\u{301}", "日本", "語",
                         "좋은", "😀", "👩‍💻", "🇯🇵", "❤️", "Ω", "supercalifragilisticexpialidocious",
                         // A prepend mark joins the ASCII after it; a mark after a space joins the space.
                         "\u{0600}", " \u{301}", "\u{301}"]

    /// Lines of `text` wrapped to `width` columns by the plain greedy rule.
    static func referenceLines(_ text: String, width: Int, mode: WidthMode) -> [String] {
        var bytes: [UInt8] = []
        _ = Array(text.utf8).withUnsafeBufferPointer { Sanitizer.sanitize($0, into: &bytes) }
        var clusters: [Cluster] = []
        bytes.withUnsafeBufferPointer { DisplayWidth.clusters($0, 0..<$0.count, mode: mode, into: &clusters) }
        var lines: [String] = []
        var line: [UInt8] = []
        var lineWidth = 0
        var spaces: [Cluster] = []
        var word: [Cluster] = []
        var paragraphStart = true
        func slice(_ cluster: Cluster) -> ArraySlice<UInt8> { bytes[Int(cluster.start)..<Int(cluster.end)] }
        func endLine() {
            lines.append(String(decoding: line, as: UTF8.self))
            line = []
            lineWidth = 0
        }
        func place(_ cluster: Cluster) {
            line += slice(cluster)
            lineWidth += Int(cluster.width)
        }
        func flush() {
            guard !word.isEmpty else { return }
            let wordWidth = word.reduce(0) { $0 + Int($1.width) }
            let spaceWidth = spaces.reduce(0) { $0 + Int($1.width) }
            let keepSpaces = lineWidth > 0 || paragraphStart
            if lineWidth + (keepSpaces ? spaceWidth : 0) + wordWidth <= width {
                if keepSpaces { spaces.forEach(place) }
            } else if lineWidth > 0 {
                endLine()
            }
            for cluster in word {
                if lineWidth + wordWidth > width, lineWidth + Int(cluster.width) > width, lineWidth > 0 { endLine() }
                place(cluster)
            }
            word = []
            spaces = []
            paragraphStart = false
        }
        for cluster in clusters {
            if cluster.isSpace {
                flush()
                spaces.append(cluster)
            } else if cluster.isWide {
                flush()
                word = [cluster]
                flush()
            } else {
                word.append(cluster)
            }
        }
        flush()
        if lineWidth > 0 || lines.isEmpty || !line.isEmpty { endLine() }
        return lines
    }

    /// The content lines CellHost renders for a text message of `text`
    /// (the gutter and the header taken off).
    static func renderedLines(_ text: String, width: Int, mode: WidthMode) throws -> [String] {
        let host = CellHost()
        let output = OutputBuffer(fd: -1)
        let session = RenderSession(host: host, settings: OutputSettings(format: .plain, depth: .none, width: width, widthMode: mode),
                                    me: nil, output: output, limits: .standard)
        var json = #"{"id":"m1","type":"text","sender":{"id":"u1","name":"Ann"},"text":""# + text + #""}"#
        try json.withUTF8 { try session.render($0, line: 1) }
        host.runtime.endConversation()
        let lines = String(decoding: output.bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        // "Ann", then "┃ first line", "│ next line", …, then "" at the end.
        return lines.dropFirst().dropLast().map { String($0.unicodeScalars.dropFirst(2)) }
    }

    func test_wrappedLines_matchThePlainGreedyRule_onRandomText() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<400 {
            let text = (0..<Int.random(in: 1...40, using: &generator)).map { _ in Self.pieces.randomElement(using: &generator)! }.joined()
            let width = Int.random(in: 12...60, using: &generator)
            let contentWidth = Chrome(width: width).contentWidth
            for mode in WidthMode.allCases {
                let rendered = try Self.renderedLines(text, width: width, mode: mode)
                let reference = Self.referenceLines(text, width: contentWidth, mode: mode)
                XCTAssertEqual(rendered, reference, "\(mode) width \(width): \(text.debugDescription)")
                if rendered != reference { return }
            }
        }
    }

    /// The text of each wrapped line of `items` (text in a style each).
    private static func wrappedLines(_ items: [(String, Style)], width: Int) -> [String] {
        let canvas = CellCanvas()
        for (text, style) in items { canvas.append(text, style: style) }
        Wrapper(width: width).wrap(canvas)
        return canvas.contentLines.elements.map { line in
            var text: [UInt8] = []
            for piece in canvas.pieces.elements[Int(line.firstPiece)..<Int(line.endPiece)] where piece.start >= 0 {
                text += canvas.bytes.elements[Int(piece.start)..<Int(piece.end)]
            }
            return String(decoding: text, as: UTF8.self)
        }
    }

    func test_aWordThatGoesOnInTheNextItem_movesToTheNextLineWhole() {
        // "bb" ends its item but the word goes on as "cc" in the next one:
        // "bbcc" does not fit after "aaa", so all of it starts the next line.
        let lines = Self.wrappedLines([("aaa bb", []), ("cc dd", .strong)], width: 7)
        XCTAssertEqual(lines, ["aaa", "bbcc dd"])
    }

    func test_wordsThatEndInsideTheirItem_wrapAsWordsCollectedOneByOne() {
        // Spaces run over an item boundary; a word ends where a space follows it.
        let lines = Self.wrappedLines([("one two  ", []), ("  three four", .emphasis), (" five", [])], width: 9)
        XCTAssertEqual(lines, ["one two", "three", "four five"])
    }
}

import CellHostABI

/// Lays out a cell's content (spans, line breaks, preformatted rows) into
/// lines no wider than the content width: greedy word wrapping at spaces and
/// around wide (CJK, emoji) characters; a word longer than a line is broken
/// between grapheme clusters; rows are cut, never wrapped.
///
/// Printable ASCII — most chat text — is taken a run of letters or spaces at
/// a time instead of a cluster at a time; the result is the same.
struct Wrapper {
    let width: Int
    var mode = WidthMode.grapheme

    func wrap(_ canvas: CellCanvas) {
        // Work on local arrays (moved out of the canvas and back) so appends
        // need no uniqueness checks through the class.
        var output = Output(pieces: canvas.pieces, lines: canvas.contentLines)
        canvas.pieces = []
        canvas.contentLines = []
        var clusters = canvas.clusters
        canvas.clusters = []
        var state = State(width: width, firstPiece: output.pieces.count)
        canvas.bytes.withUnsafeBufferPointer { bytes in
            for item in canvas.items {
                switch item {
                case let .text(start, end, style):
                    let range = Int(start)..<Int(end)
                    if Wrapper.isASCII(bytes, range) {
                        Wrapper.forEachRun(bytes, range) { state.add($0, style, &output) }
                    } else {
                        clusters.removeAll(keepingCapacity: true)
                        DisplayWidth.clusters(bytes, range, mode: mode, into: &clusters)
                        for cluster in clusters { state.add(cluster, style, &output) }
                    }
                case .lineBreak:
                    state.flushWord(&output)
                    state.spaces.removeAll(keepingCapacity: true)
                    state.endLine(&output)
                    state.paragraphStart = true
                case let .row(start, count):
                    state.flushWord(&output)
                    state.spaces.removeAll(keepingCapacity: true)
                    if state.lineWidth > 0 { state.endLine(&output) }
                    let cells = min(Int(count), width)
                    for index in Int(start)..<(Int(start) + cells) {
                        let piece = Wrapper.blockCell(canvas.blockCells[index], canvas)
                        output.pieces.append(piece)
                        state.lineWidth += 1
                    }
                    state.endLine(&output)
                    state.paragraphStart = true
                }
            }
        }
        state.flushWord(&output)
        if state.lineWidth > 0 || output.lines.isEmpty || output.pieces.count > state.firstPiece {
            state.endLine(&output)
        }
        canvas.pieces = output.pieces
        canvas.contentLines = output.lines
        canvas.clusters = clusters
    }

    /// True when every byte is ASCII (sanitized text: then all printable).
    static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Bool {
        for index in range where bytes[index] >= 0x80 { return false }
        return true
    }

    /// Calls `body` with each run of spaces or of other characters of
    /// printable ASCII: the same breaks and widths as one cluster per byte.
    @inline(__always)
    static func forEachRun(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, _ body: (Cluster) -> Void) {
        var index = range.lowerBound
        while index < range.upperBound {
            let isSpace = bytes[index] == 0x20
            let start = index
            while index < range.upperBound, (bytes[index] == 0x20) == isSpace { index += 1 }
            body(Cluster(start: Int32(start), end: Int32(index), width: Int32(index - start),
                         isSpace: isSpace, isWide: false, isRun: true))
        }
    }

    /// One preformatted cell: a printable, one-column glyph (others become
    /// '?', keeping the row aligned) with its colours.
    static func blockCell(_ cell: cellhost_block_cell, _ canvas: CellCanvas) -> Piece {
        var scalar = cell.codepoint
        if scalar < 0x20 || (scalar >= 0x7F && scalar < 0xA0) || scalar > 0x10FFFF
            || (scalar >= 0xD800 && scalar < 0xE000) || Sanitizer.isHiddenFormat(scalar) {
            scalar = 0xFFFD
        }
        let start = canvas.bytes.count
        if Self.isNarrowSymbol(scalar) {
            // Box drawing, block elements and braille (what previews and
            // charts are made of) are one column wide: no need to measure them.
            canvas.bytes.append(0xE0 | UInt8(scalar >> 12))
            canvas.bytes.append(0x80 | UInt8(scalar >> 6 & 0x3F))
            canvas.bytes.append(0x80 | UInt8(scalar & 0x3F))
        } else if scalar >= 0x20 && scalar < 0x7F {
            canvas.bytes.append(UInt8(scalar))
        } else {
            var glyph: [UInt8] = []
            UTF8Repair.appendScalar(scalar, to: &glyph)
            if DisplayWidth.width(of: String(decoding: glyph, as: UTF8.self)) != 1 { glyph = [0x3F] }
            canvas.bytes.append(contentsOf: glyph)
        }
        var style = Style()
        if cell.flags & UInt32(CELLHOST_BLOCK_HAS_FG) != 0 { style.insert(.customForeground) }
        if cell.flags & UInt32(CELLHOST_BLOCK_HAS_BG) != 0 { style.insert(.customBackground) }
        return Piece(start: Int32(start), end: Int32(canvas.bytes.count), width: 1, style: style,
                     foreground: cell.fg, background: cell.bg)
    }

    /// U+2500–U+259F (box drawing, block elements) and U+2800–U+28FF
    /// (braille): one column wide (`DisplayWidth` agrees; a test checks).
    @inline(__always)
    static func isNarrowSymbol(_ scalar: UInt32) -> Bool {
        (scalar >= 0x2500 && scalar <= 0x259F) || (scalar >= 0x2800 && scalar <= 0x28FF)
    }

    /// The pieces and lines being produced.
    struct Output {
        var pieces: [Piece]
        var lines: [Line]
    }

    private struct State {
        let width: Int
        var firstPiece: Int
        var lineWidth = 0
        var word: [(Cluster, Style)] = []
        var wordWidth = 0
        var spaces: [(Cluster, Style)] = []
        var paragraphStart = true

        init(width: Int, firstPiece: Int) {
            self.width = width
            self.firstPiece = firstPiece
        }

        @inline(__always)
        mutating func add(_ cluster: Cluster, _ style: Style, _ output: inout Output) {
            if cluster.isSpace {
                flushWord(&output)
                spaces.append((cluster, style))
            } else if cluster.isWide {
                flushWord(&output)
                word.append((cluster, style))
                wordWidth += Int(cluster.width)
                flushWord(&output)
            } else {
                word.append((cluster, style))
                wordWidth += Int(cluster.width)
            }
        }

        mutating func endLine(_ output: inout Output) {
            output.lines.append(Line(firstPiece: Int32(firstPiece), endPiece: Int32(output.pieces.count), width: Int32(lineWidth)))
            firstPiece = output.pieces.count
            lineWidth = 0
        }

        @inline(__always)
        mutating func emit(_ cluster: Cluster, _ style: Style, _ output: inout Output) {
            if output.pieces.count > firstPiece {
                let last = output.pieces.count - 1
                if output.pieces[last].style == style, output.pieces[last].end == cluster.start, output.pieces[last].start >= 0 {
                    output.pieces[last].end = cluster.end
                    output.pieces[last].width += cluster.width
                    lineWidth += Int(cluster.width)
                    return
                }
            }
            output.pieces.append(Piece(start: cluster.start, end: cluster.end, width: cluster.width, style: style))
            lineWidth += Int(cluster.width)
        }

        mutating func flushWord(_ output: inout Output) {
            guard !word.isEmpty else { return }
            var spaceWidth = 0
            for (space, _) in spaces { spaceWidth += Int(space.width) }
            let keepSpaces = lineWidth > 0 || paragraphStart
            if lineWidth + (keepSpaces ? spaceWidth : 0) + wordWidth <= width {
                if keepSpaces { for (space, style) in spaces { emit(space, style, &output) } }
            } else if lineWidth > 0 {
                // The word goes to a fresh line (cut between clusters if longer than one).
                endLine(&output)
            }
            for (cluster, style) in word {
                if cluster.isRun {
                    // Cut an ASCII run exactly where one cluster per byte would be cut.
                    var rest = cluster
                    while rest.width > 0 {
                        if lineWidth >= width, lineWidth > 0 { endLine(&output) }
                        let take = min(Int(rest.width), max(1, width - lineWidth))
                        var part = rest
                        part.end = rest.start + Int32(take)
                        part.width = Int32(take)
                        emit(part, style, &output)
                        rest.start += Int32(take)
                        rest.width -= Int32(take)
                    }
                    continue
                }
                if lineWidth + Int(cluster.width) > width, lineWidth > 0 { endLine(&output) }
                emit(cluster, style, &output)
            }
            word.removeAll(keepingCapacity: true)
            spaces.removeAll(keepingCapacity: true)
            wordWidth = 0
            paragraphStart = false
        }
    }
}

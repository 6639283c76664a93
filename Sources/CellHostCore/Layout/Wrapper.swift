/// Lays out a cell's content (spans, line breaks, preformatted rows) into
/// lines no wider than the content width: greedy word wrapping at spaces and
/// around wide (CJK, emoji) characters; a word longer than a line is broken
/// between grapheme clusters; rows are cut, never wrapped.
struct Wrapper {
    let width: Int

    func wrap(_ canvas: CellCanvas) {
        var state = State(width: width, firstPiece: canvas.pieces.count)
        canvas.clusters.removeAll(keepingCapacity: true)
        canvas.bytes.withUnsafeBufferPointer { bytes in
            for item in canvas.items {
                switch item {
                case let .text(start, end, style):
                    canvas.clusters.removeAll(keepingCapacity: true)
                    if Wrapper.isASCII(bytes, Int(start)..<Int(end)) {
                        Wrapper.runs(bytes, Int(start)..<Int(end), into: &canvas.clusters)
                    } else {
                        DisplayWidth.clusters(bytes, Int(start)..<Int(end), into: &canvas.clusters)
                    }
                    for cluster in canvas.clusters {
                        if cluster.isSpace {
                            state.flushWord(canvas)
                            state.spaces.append((cluster, style))
                        } else if cluster.isWide {
                            state.flushWord(canvas)
                            state.word.append((cluster, style))
                            state.wordWidth += Int(cluster.width)
                            state.flushWord(canvas)
                        } else {
                            state.word.append((cluster, style))
                            state.wordWidth += Int(cluster.width)
                        }
                    }
                case .lineBreak:
                    state.flushWord(canvas)
                    state.spaces.removeAll(keepingCapacity: true)
                    state.endLine(canvas)
                    state.paragraphStart = true
                case let .row(start, count):
                    state.flushWord(canvas)
                    state.spaces.removeAll(keepingCapacity: true)
                    if state.lineWidth > 0 { state.endLine(canvas) }
                    let cells = min(Int(count), width)
                    for index in Int(start)..<(Int(start) + cells) {
                        state.appendBlockCell(canvas.blockCells[index], canvas)
                    }
                    state.endLine(canvas)
                    state.paragraphStart = true
                }
            }
        }
        state.flushWord(canvas)
        if state.lineWidth > 0 || canvas.contentLines.isEmpty || state.pieceCount(canvas) > 0 {
            state.endLine(canvas)
        }
    }

    /// True when every byte is ASCII (sanitized text: then all printable).
    static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Bool {
        for index in range where bytes[index] >= 0x80 { return false }
        return true
    }

    /// Splits printable ASCII into runs of spaces and runs of other characters:
    /// the same breaks and widths as one cluster per byte, with far fewer units.
    static func runs(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, into output: inout [Cluster]) {
        var index = range.lowerBound
        while index < range.upperBound {
            let isSpace = bytes[index] == 0x20
            let start = index
            while index < range.upperBound, (bytes[index] == 0x20) == isSpace { index += 1 }
            output.append(Cluster(start: Int32(start), end: Int32(index), width: Int32(index - start),
                                  isSpace: isSpace, isWide: false, isRun: true))
        }
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

        func pieceCount(_ canvas: CellCanvas) -> Int { canvas.pieces.count - firstPiece }

        mutating func endLine(_ canvas: CellCanvas) {
            canvas.contentLines.append(Line(firstPiece: Int32(firstPiece), endPiece: Int32(canvas.pieces.count), width: Int32(lineWidth)))
            firstPiece = canvas.pieces.count
            lineWidth = 0
        }

        mutating func emit(_ cluster: Cluster, _ style: Style, _ canvas: CellCanvas) {
            if canvas.pieces.count > firstPiece {
                let last = canvas.pieces.count - 1
                if canvas.pieces[last].style == style, canvas.pieces[last].end == cluster.start, canvas.pieces[last].start >= 0 {
                    canvas.pieces[last].end = cluster.end
                    canvas.pieces[last].width += cluster.width
                    lineWidth += Int(cluster.width)
                    return
                }
            }
            canvas.pieces.append(Piece(start: cluster.start, end: cluster.end, width: cluster.width, style: style))
            lineWidth += Int(cluster.width)
        }

        mutating func appendBlockCell(_ cell: cellhost_block_cell_ref, _ canvas: CellCanvas) {
            var scalar = cell.codepoint
            var glyph: [UInt8] = []
            if scalar < 0x20 || (scalar >= 0x7F && scalar < 0xA0) || Sanitizer.isHiddenFormat(scalar) || scalar > 0x10FFFF
                || (scalar >= 0xD800 && scalar < 0xE000) {
                scalar = 0xFFFD
            }
            UTF8Repair.appendScalar(scalar, to: &glyph)
            let width = DisplayWidth.width(of: String(decoding: glyph, as: UTF8.self))
            if width != 1 { glyph = [0x3F] } // '?' keeps the row aligned
            let start = canvas.bytes.count
            canvas.bytes.append(contentsOf: glyph)
            var style = Style()
            if cell.flags & 1 != 0 { style.insert(.customForeground) }
            if cell.flags & 2 != 0 { style.insert(.customBackground) }
            canvas.pieces.append(Piece(start: Int32(start), end: Int32(canvas.bytes.count), width: 1, style: style,
                                       foreground: cell.fg, background: cell.bg))
            lineWidth += 1
        }

        mutating func flushWord(_ canvas: CellCanvas) {
            guard !word.isEmpty else { return }
            var spaceWidth = 0
            for (space, _) in spaces { spaceWidth += Int(space.width) }
            let keepSpaces = lineWidth > 0 || paragraphStart
            if lineWidth + (keepSpaces ? spaceWidth : 0) + wordWidth <= width {
                if keepSpaces { for (space, style) in spaces { emit(space, style, canvas) } }
            } else if wordWidth <= width {
                if lineWidth > 0 { endLine(canvas) }
            } else {
                // Longer than a line: start on a fresh line and cut between clusters.
                if lineWidth > 0 { endLine(canvas) }
            }
            for (cluster, style) in word {
                if cluster.isRun {
                    // Cut an ASCII run exactly where one cluster per byte would be cut.
                    var rest = cluster
                    while rest.width > 0 {
                        if lineWidth >= width, lineWidth > 0 { endLine(canvas) }
                        let take = min(Int(rest.width), max(1, width - lineWidth))
                        var part = rest
                        part.end = rest.start + Int32(take)
                        part.width = Int32(take)
                        emit(part, style, canvas)
                        rest.start += Int32(take)
                        rest.width -= Int32(take)
                    }
                    continue
                }
                if lineWidth + Int(cluster.width) > width, lineWidth > 0 { endLine(canvas) }
                emit(cluster, style, canvas)
            }
            word.removeAll(keepingCapacity: true)
            spaces.removeAll(keepingCapacity: true)
            wordWidth = 0
            paragraphStart = false
        }
    }
}

import CellHostABI
typealias cellhost_block_cell_ref = cellhost_block_cell

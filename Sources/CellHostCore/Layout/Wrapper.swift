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
        var state = State(width: width, mode: mode, firstPiece: output.pieces.count, word: canvas.wordSegments,
                          spaces: canvas.spaceSegments)
        canvas.bytes.withUnsafeBufferPointer { bytes in
            for item in canvas.items {
                switch item {
                case let .text(start, end, style):
                    state.addText(bytes, Int(start)..<Int(end), style, &output)
                case .lineBreak:
                    state.flushWord(bytes, &output)
                    state.dropSpaces()
                    state.endLine(&output)
                    state.paragraphStart = true
                case let .row(start, count):
                    state.flushWord(bytes, &output)
                    state.dropSpaces()
                    if state.lineWidth > 0 { state.endLine(&output) }
                    state.flushPending(&output)
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
            state.flushWord(bytes, &output)
        }
        state.flushPending(&output)
        if state.lineWidth > 0 || output.lines.isEmpty || output.pieces.count > state.firstPiece {
            state.endLine(&output)
        }
        canvas.pieces = output.pieces
        canvas.contentLines = output.lines
        state.dropSpaces()
        canvas.wordSegments = state.word
        canvas.spaceSegments = state.spaces
    }

    /// The first byte of `bytes[start..<end]` that is not ASCII, or `end`:
    /// eight bytes at a time.
    @inline(__always)
    static func firstNonASCII(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, end: Int) -> Int {
        var index = start
        if let base = bytes.baseAddress {
            while index + 8 <= end {
                let high = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self) & 0x8080_8080_8080_8080
                if high != 0 { return index + high.trailingZeroBitCount >> 3 }
                index += 8
            }
        }
        while index < end, bytes[index] < 0x80 { index += 1 }
        return index
    }

    /// The run of spaces, or of other characters, that starts at `start`
    /// (< `end`) in all-ASCII text, as one cluster: what `ClusterScanner`
    /// gives for such text (a test compares).
    @inline(__always)
    static func asciiRun(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, end: Int) -> Cluster {
        var index = start + 1
        let isSpace = bytes[start] == 0x20
        if isSpace {
            while index < end, bytes[index] == 0x20 { index += 1 }
        } else {
            index = nextSpace(bytes, from: index, end: end)
        }
        return Cluster(start: Int32(start), end: Int32(index), width: Int32(index - start),
                       isSpace: isSpace, isWide: false, isRun: true)
    }

    /// The first space in `bytes[index..<end]`, or `end`: eight bytes at a
    /// time (a word is a few bytes; the byte loop mispredicts at its end).
    @inline(__always)
    static func nextSpace(_ bytes: UnsafeBufferPointer<UInt8>, from index: Int, end: Int) -> Int {
        var index = index
        if let base = bytes.baseAddress {
            while index + 8 <= end {
                // A byte of `spaces` is zero where the chunk has a space; the
                // lowest flagged byte is exact (borrows only move up).
                let spaces = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self) ^ 0x2020_2020_2020_2020
                let flags = (spaces &- 0x0101_0101_0101_0101) & ~spaces & 0x8080_8080_8080_8080
                if flags != 0 { return index + flags.trailingZeroBitCount >> 3 }
                index += 8
            }
        }
        while index < end, bytes[index] != 0x20 { index += 1 }
        return index
    }

    /// The end of the last word of all-ASCII `bytes[start...]` that a
    /// space at or before `reach` follows, or `start` when there is none
    /// (or it is only spaces).
    @inline(__always)
    static func lastWordEnd(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, reach: Int) -> Int {
        var index = reach
        while index > start, bytes[index] != 0x20 { index -= 1 }
        while index > start, bytes[index - 1] == 0x20 { index -= 1 }
        return index
    }

    /// One preformatted cell: a printable, one-column glyph (others become
    /// '?', keeping the row aligned) with its colours.
    static func blockCell(_ cell: cellhost_block_cell, _ canvas: CellCanvas) -> Piece {
        let start = canvas.bytes.count
        blockGlyph(cell.codepoint, into: &canvas.bytes)
        var style = Style()
        if cell.flags & UInt32(CELLHOST_BLOCK_HAS_FG) != 0 { style.insert(.customForeground) }
        if cell.flags & UInt32(CELLHOST_BLOCK_HAS_BG) != 0 { style.insert(.customBackground) }
        return Piece(start: Int32(start), end: Int32(canvas.bytes.count), width: 1, style: style,
                     foreground: cell.fg, background: cell.bg)
    }

    /// The character a block cell shows, as UTF-8: its code point when that
    /// is printable and one column wide, else U+FFFD (or "?" for a
    /// character of another width).
    static func blockGlyph(_ codepoint: UInt32, into bytes: inout [UInt8]) {
        var scalar = codepoint
        if scalar < 0x20 || (scalar >= 0x7F && scalar < 0xA0) || scalar > 0x10FFFF
            || (scalar >= 0xD800 && scalar < 0xE000) || Sanitizer.isHiddenFormat(scalar) {
            scalar = 0xFFFD
        }
        if Self.isNarrowSymbol(scalar) {
            // Box drawing, block elements and braille (what previews and
            // charts are made of) are one column wide: no need to measure them.
            bytes.append(0xE0 | UInt8(scalar >> 12))
            bytes.append(0x80 | UInt8(scalar >> 6 & 0x3F))
            bytes.append(0x80 | UInt8(scalar & 0x3F))
        } else if scalar >= 0x20 && scalar < 0x7F {
            bytes.append(UInt8(scalar))
        } else {
            var glyph: [UInt8] = []
            UTF8Repair.appendScalar(scalar, to: &glyph)
            if DisplayWidth.width(of: String(decoding: glyph, as: UTF8.self)) != 1 { glyph = [0x3F] }
            bytes.append(contentsOf: glyph)
        }
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

    /// Clusters of one style that follow each other in the content bytes,
    /// kept as one range while a word is collected.
    struct Segment {
        var start: Int32
        var end: Int32
        var width: Int32
        var style: Style
    }

    private struct State {
        let width: Int
        let mode: WidthMode
        var firstPiece: Int
        var lineWidth = 0
        /// The word being collected, and the spaces before it.
        var word: SegmentList
        var wordWidth = 0
        var spaces: SegmentList
        var spaceWidth = 0
        var paragraphStart = true
        /// The last piece of the line, still growing: appended to the
        /// output when a piece that does not continue it comes, or the
        /// line ends.
        var pending = Piece(start: -1, end: -1, width: 0, style: [])
        var hasPending = false

        init(width: Int, mode: WidthMode, firstPiece: Int, word: SegmentList, spaces: SegmentList) {
            self.width = width
            self.mode = mode
            self.firstPiece = firstPiece
            self.word = word
            self.spaces = spaces
            self.word.removeAll()
            self.spaces.removeAll()
        }

        /// Adds `cluster` to the last segment of `segments` when it continues
        /// it, else starts a segment.
        @inline(__always)
        static func collect(_ cluster: Cluster, _ style: Style, into segments: inout SegmentList) {
            if let last = segments.last, last.pointee.end == cluster.start, last.pointee.style == style {
                last.pointee.end = cluster.end
                last.pointee.width += cluster.width
            } else {
                segments.append(Segment(start: cluster.start, end: cluster.end, width: cluster.width, style: style))
            }
        }

        @inline(__always)
        mutating func add(_ cluster: Cluster, _ style: Style, _ bytes: UnsafeBufferPointer<UInt8>, _ output: inout Output) {
            if cluster.isSpace {
                flushWord(bytes, &output)
                State.collect(cluster, style, into: &spaces)
                spaceWidth += Int(cluster.width)
            } else if cluster.isWide {
                // A wide cluster is a word of its own.
                flushWord(bytes, &output)
                let segment = Segment(start: cluster.start, end: cluster.end, width: cluster.width, style: style)
                guard spaces.isEmpty else {
                    word.append(segment)
                    wordWidth = Int(cluster.width)
                    flushWord(bytes, &output)
                    return
                }
                // What `flushWord` does with no spaces before it (CJK text:
                // a run of wide clusters), without collecting it first.
                if lineWidth + Int(cluster.width) > width, lineWidth > 0 { endLine(&output) }
                if lineWidth + Int(cluster.width) <= width {
                    emit(segment.start, segment.end, segment.width, style, &output)
                } else {
                    cut(segment, bytes, &output)
                }
                paragraphStart = false
            } else {
                State.collect(cluster, style, into: &word)
                wordWidth += Int(cluster.width)
            }
        }

        /// Adds sanitized text: its ASCII stretches through `addASCII`, the
        /// rest cluster by cluster. The last ASCII byte before a non-ASCII
        /// one goes with the clusters (a mark after it joins it); ASCII
        /// after a non-ASCII cluster starts a cluster of its own (a prepend
        /// mark before it would have made the cluster go on).
        mutating func addText(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, _ style: Style,
                              _ output: inout Output) {
            var index = range.lowerBound
            let end = range.upperBound
            while index < end {
                let nonASCII = Wrapper.firstNonASCII(bytes, from: index, end: end)
                guard nonASCII < end else {
                    addASCII(bytes, index..<end, style, &output)
                    return
                }
                let clustersStart = max(index, nonASCII - 1)
                if clustersStart > index { addASCII(bytes, index..<clustersStart, style, &output) }
                var scanner = ClusterScanner(bytes, clustersStart..<end, mode: mode)
                index = end
                // Runs of one-column clusters come joined: `add` collects
                // them into one segment either way.
                while let cluster = scanner.nextJoiningNarrow() {
                    add(cluster, style, bytes, &output)
                    let next = Int(cluster.end)
                    if !cluster.isRun, next < end, bytes[next] < 0x80 {
                        index = next
                        break
                    }
                }
            }
        }

        /// Adds all-ASCII text: what `add` does with the clusters
        /// `ClusterScanner` finds there, without scanning for clusters.
        ///
        /// A word that ends inside the item (a space follows it there) is
        /// placed at once, as `flushWord` places a word of one segment,
        /// instead of being collected first; a word that reaches the end of
        /// the item may go on in the next one, so it is collected.
        mutating func addASCII(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, _ style: Style,
                               _ output: inout Output) {
            var index = range.lowerBound
            let end = range.upperBound
            while index < end {
                if word.isEmpty, spaces.isEmpty, lineWidth > 0 || bytes[index] != 0x20, lineWidth < width {
                    // As many whole words (and the spaces between them) as
                    // fit on the line, at once: they all fit, and the next
                    // word would not (or is the item's last, maybe unfinished).
                    let lineEnd = Wrapper.lastWordEnd(bytes, from: index, reach: min(index + width - lineWidth, end - 1))
                    if lineEnd > index {
                        emit(Int32(index), Int32(lineEnd), Int32(lineEnd - index), style, &output)
                        paragraphStart = false
                        index = lineEnd
                        continue
                    }
                }
                if word.isEmpty {
                    var wordStart = index
                    while wordStart < end, bytes[wordStart] == 0x20 { wordStart += 1 }
                    if wordStart < end {
                        let wordEnd = Wrapper.nextSpace(bytes, from: wordStart + 1, end: end)
                        if wordEnd < end {
                            if wordStart > index {
                                State.collect(Cluster(start: Int32(index), end: Int32(wordStart), width: Int32(wordStart - index),
                                                      isSpace: true, isWide: false, isRun: true), style, into: &spaces)
                                spaceWidth += wordStart - index
                            }
                            place(Segment(start: Int32(wordStart), end: Int32(wordEnd), width: Int32(wordEnd - wordStart), style: style),
                                  bytes, &output)
                            index = wordEnd
                            continue
                        }
                    }
                }
                let run = Wrapper.asciiRun(bytes, from: index, end: end)
                add(run, style, bytes, &output)
                index = Int(run.end)
            }
        }

        /// What `flushWord` does for a word of the one segment `segment`,
        /// with the spaces collected before it.
        @inline(__always)
        private mutating func place(_ segment: Segment, _ bytes: UnsafeBufferPointer<UInt8>, _ output: inout Output) {
            let wordWidth = Int(segment.width)
            placeSpaces(before: wordWidth, &output)
            if lineWidth + wordWidth <= width {
                emit(segment.start, segment.end, segment.width, segment.style, &output)
            } else {
                cut(segment, bytes, &output)
            }
            if !spaces.isEmpty { dropSpaces() }
            paragraphStart = false
        }

        /// Forgets the spaces collected (they end a line).
        mutating func dropSpaces() {
            spaces.removeAll()
            spaceWidth = 0
        }

        /// Appends the pending piece, if any.
        @inline(__always)
        mutating func flushPending(_ output: inout Output) {
            if hasPending {
                output.pieces.append(pending)
                hasPending = false
            }
        }

        mutating func endLine(_ output: inout Output) {
            flushPending(&output)
            output.lines.append(Line(firstPiece: Int32(firstPiece), endPiece: Int32(output.pieces.count), width: Int32(lineWidth)))
            firstPiece = output.pieces.count
            lineWidth = 0
        }

        /// Appends `start..<end` (of `width` columns) in `style` to the line,
        /// extending the pending piece when it continues it.
        @inline(__always)
        mutating func emit(_ start: Int32, _ end: Int32, _ width: Int32, _ style: Style, _ output: inout Output) {
            lineWidth += Int(width)
            if hasPending, pending.end == start, pending.style == style {
                pending.end = end
                pending.width += width
                return
            }
            flushPending(&output)
            pending = Piece(start: start, end: end, width: width, style: style)
            hasPending = true
        }

        /// Before a word of `wordWidth` columns: the spaces collected go on
        /// the line when the word fits after them (at a paragraph's start
        /// too), else the line ends and they are dropped.
        @inline(__always)
        private mutating func placeSpaces(before wordWidth: Int, _ output: inout Output) {
            let keepSpaces = lineWidth > 0 || paragraphStart
            if lineWidth + (keepSpaces ? spaceWidth : 0) + wordWidth <= width {
                if keepSpaces { for space in spaces.segments { emit(space.start, space.end, space.width, space.style, &output) } }
            } else if lineWidth > 0 {
                // The word goes to a fresh line (cut between clusters if longer than one).
                endLine(&output)
            }
        }

        mutating func flushWord(_ bytes: UnsafeBufferPointer<UInt8>, _ output: inout Output) {
            guard !word.isEmpty else { return }
            placeSpaces(before: wordWidth, &output)
            if lineWidth + wordWidth <= width {
                for segment in word.segments { emit(segment.start, segment.end, segment.width, segment.style, &output) }
            } else {
                for segment in word.segments { cut(segment, bytes, &output) }
            }
            word.removeAll()
            dropSpaces()
            wordWidth = 0
            paragraphStart = false
        }

        /// Emits a segment of a word wider than the line, breaking the line
        /// between its clusters (an ASCII run between any two bytes).
        mutating func cut(_ segment: Segment, _ bytes: UnsafeBufferPointer<UInt8>, _ output: inout Output) {
            // The segment starts at a cluster boundary, so scanning it again
            // finds the clusters it was made of.
            var scanner = ClusterScanner(bytes, Int(segment.start)..<Int(segment.end), mode: mode)
            while let cluster = scanner.next() {
                if cluster.isRun {
                    var rest = cluster
                    while rest.width > 0 {
                        if lineWidth >= width, lineWidth > 0 { endLine(&output) }
                        let take = Int32(min(Int(rest.width), max(1, width - lineWidth)))
                        emit(rest.start, rest.start + take, take, segment.style, &output)
                        rest.start += take
                        rest.width -= take
                    }
                    continue
                }
                if lineWidth + Int(cluster.width) > width, lineWidth > 0 { endLine(&output) }
                emit(cluster.start, cluster.end, cluster.width, segment.style, &output)
            }
        }
    }
}

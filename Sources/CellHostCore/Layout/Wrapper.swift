import CellHostABI

/// Lays out a cell's content (spans, line breaks, preformatted rows) into
/// lines no wider than the content width: greedy word wrapping at spaces and
/// around wide (CJK, emoji) characters; a word longer than a line is broken
/// between grapheme clusters; rows are cut, never wrapped.
///
/// Printable ASCII — most chat text — is taken a word, or a line of words,
/// at a time instead of a cluster at a time; the result is the same (a test
/// compares). The layout replaces the canvas's pieces and content lines,
/// which it writes in place.
struct Wrapper {
    let width: Int
    var mode = WidthMode.grapheme

    func wrap(_ canvas: CellCanvas) {
        // The word and the spaces being collected live on the stack, which
        // stays in this core's cache from one message to the next: kept
        // by each canvas, they were a line last written a ring's length of
        // messages earlier, often by the other thread.
        withUnsafeTemporaryAllocation(of: Segment.self, capacity: 2 &* Wrapper.segmentsOnStack) { stack in
            wrap(canvas, stack: stack)
        }
    }

    /// The segments of the word, and of the spaces, that fit in `wrap`'s
    /// stack buffer (a word changes style at most a few times); more go to
    /// the heap (`SegmentList.grow`). Both together are 1 KiB, the most
    /// `withUnsafeTemporaryAllocation` puts on the stack without a check.
    static let segmentsOnStack = 32

    @inline(__always)
    private func wrap(_ canvas: CellCanvas, stack: UnsafeMutableBufferPointer<Segment>) {
        // The state works on copies of the canvas's lists and moves them
        // back at the end (appends may have moved their memory).
        var state = State(width: width, mode: mode, glyphs: canvas.wrapGlyphs, pieces: canvas.pieces,
                          lines: canvas.contentLines,
                          word: SegmentList(UnsafeMutableBufferPointer(rebasing: stack[..<Wrapper.segmentsOnStack])),
                          spaces: SegmentList(UnsafeMutableBufferPointer(rebasing: stack[Wrapper.segmentsOnStack...])))
        let bytes = canvas.bytes.elements
        let items = canvas.items.elements
        for position in items.indices {
            switch items[position] {
            case let .text(start, end, style):
                state.addText(bytes, Int(start)..<Int(end), style, wordEnds: Wrapper.endsWord(items, after: position, bytes))
            case .lineBreak:
                state.flushWord(bytes)
                state.dropSpaces()
                state.endLine()
                state.paragraphStart = true
            case let .row(start, count):
                state.flushWord(bytes)
                state.dropSpaces()
                if state.lineWidth > 0 { state.endLine() }
                let cells = min(Int(count), width)
                for index in Int(start)..<(Int(start) + cells) {
                    let piece = Wrapper.blockCell(canvas.blockCells[index], at: bytes.count, glyphs: &state.glyphs)
                    state.pieces.append(piece)
                    state.lineWidth += 1
                }
                state.endLine()
                state.paragraphStart = true
            }
        }
        state.flushWord(bytes)
        if state.lineWidth > 0 || state.lines.isEmpty || state.pieces.count > state.firstPiece {
            state.endLine()
        }
        state.dropSpaces()
        if !state.glyphs.isEmpty { canvas.bytes.append(contentsOf: state.glyphs.elements) }
        canvas.pieces = state.pieces
        canvas.contentLines = state.lines
        // The glyphs go back only when the list grew (moved): what it holds
        // is not kept from one wrap to the next (`State.init` empties it),
        // and copying it back whole read its count with a 16-byte load
        // right after the 8-byte store that emptied it, which cannot be
        // forwarded from that store and waited for it.
        if state.glyphs.base != canvas.wrapGlyphs.base { canvas.wrapGlyphs = state.glyphs }
        state.word.deallocate()
        state.spaces.deallocate()
    }

    /// True when a word at the end of text item `position` ends there: no
    /// text item follows, or the one that follows starts with a space. (A
    /// word that goes on in the next item is collected until it ends.)
    @inline(__always)
    static func endsWord(_ items: UnsafeBufferPointer<ContentItem>, after position: Int,
                         _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard position &+ 1 < items.count, case let .text(start, end, _) = items[position &+ 1] else { return true }
        return end > start && bytes[Int(start)] == 0x20
    }

    /// One preformatted cell: a printable, one-column glyph (others become
    /// '?', keeping the row aligned) with its colours. The glyph is appended
    /// to `glyphs`, which go after the `contentCount` bytes of content.
    static func blockCell(_ cell: cellhost_block_cell, at contentCount: Int, glyphs: inout UnsafeList<UInt8>) -> Piece {
        let start = contentCount + glyphs.count
        blockGlyph(cell.codepoint, into: &glyphs)
        var style = Style()
        if cell.flags & UInt32(CELLHOST_BLOCK_HAS_FG) != 0 { style.insert(.customForeground) }
        if cell.flags & UInt32(CELLHOST_BLOCK_HAS_BG) != 0 { style.insert(.customBackground) }
        return Piece(start: Int32(start), end: Int32(contentCount + glyphs.count), width: 1, style: style,
                     foreground: cell.fg, background: cell.bg)
    }

    /// The character a block cell shows, as UTF-8: its code point when that
    /// is printable and one column wide, else U+FFFD (or "?" for a
    /// character of another width).
    static func blockGlyph<Sink: ByteSink>(_ codepoint: UInt32, into bytes: inout Sink) {
        var scalar = codepoint
        if scalar < 0x20 || (scalar >= 0x7F && scalar < 0xA0) || scalar > 0x10FFFF
            || (scalar >= 0xD800 && scalar < 0xE000) || Sanitizer.isHiddenFormat(scalar) {
            scalar = 0xFFFD
        }
        if CodePointProperties.isNarrowSymbol(scalar) {
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
            glyph.withUnsafeBufferPointer { bytes.append(contentsOf: $0) }
        }
    }

    /// The segments of the word or of the spaces being collected: in a
    /// buffer on `wrap`'s stack, moved to the heap if they outgrow it
    /// (freed by `deallocate` at the end of the wrap). Only for one wrap.
    struct SegmentList {
        private(set) var base: UnsafeMutablePointer<Segment>
        private(set) var count = 0
        private var capacity: Int
        /// `base` was allocated by `grow` (not the stack buffer).
        private var onHeap = false

        init(_ buffer: UnsafeMutableBufferPointer<Segment>) {
            base = buffer.baseAddress.unsafelyUnwrapped
            capacity = buffer.count
        }

        var isEmpty: Bool {
            @inline(__always) get { count == 0 }
        }

        /// The last segment, to change in place; nil when empty.
        var last: UnsafeMutablePointer<Segment>? {
            @inline(__always) get { count > 0 ? base + (count &- 1) : nil }
        }

        /// The segments, valid until the next append.
        var elements: UnsafeBufferPointer<Segment> {
            @inline(__always) get { UnsafeBufferPointer(start: base, count: count) }
        }

        @inline(__always)
        mutating func append(_ segment: Segment) {
            if count == capacity { grow() }
            (base + count).initialize(to: segment)
            count &+= 1
        }

        @inline(__always)
        mutating func removeAll() { count = 0 }

        /// Moves the segments to the heap, with room for twice as many.
        @inline(never)
        private mutating func grow() {
            let larger = capacity &* 2
            let memory = UnsafeMutablePointer<Segment>.allocate(capacity: larger)
            memory.moveInitialize(from: base, count: count)
            if onHeap { base.deallocate() }
            base = memory
            capacity = larger
            onHeap = true
        }

        /// Frees the memory `grow` allocated, if any (the end of `wrap`).
        func deallocate() {
            if onHeap { base.deallocate() }
        }
    }

    /// Clusters of one style that follow each other in the content bytes,
    /// kept as one range while a word is collected.
    struct Segment {
        var start: Int32
        var end: Int32
        var width: Int32
        var style: Style
    }

    /// Positions, widths and piece counts fit in 32 bits: content offsets
    /// are 32-bit (`OutputLimits.maximumBytes`), and a line holds fewer
    /// columns and pieces than bytes.
    @inline(__always)
    private static func int32(_ value: Int) -> Int32 { Int32(truncatingIfNeeded: value) }

    private struct State {
        let width: Int
        let mode: WidthMode
        /// The word and the spaces before it being collected (empty at
        /// first), and rows' glyphs (the canvas's list, emptied first).
        var word: SegmentList
        var spaces: SegmentList
        var glyphs: UnsafeList<UInt8>
        /// The pieces and lines made: the canvas's lists, emptied first.
        var pieces: UnsafeList<Piece>
        var lines: UnsafeList<Line>
        /// The first piece of the line being made, in `pieces`.
        var firstPiece = 0
        var lineWidth = 0
        /// The columns of the word being collected, and of the spaces before it.
        var wordWidth = 0
        var spaceWidth = 0
        var paragraphStart = true

        init(width: Int, mode: WidthMode, glyphs: UnsafeList<UInt8>, pieces: UnsafeList<Piece>, lines: UnsafeList<Line>,
             word: SegmentList, spaces: SegmentList) {
            self.width = width
            self.mode = mode
            self.word = word
            self.spaces = spaces
            self.glyphs = glyphs
            self.pieces = pieces
            self.lines = lines
            self.glyphs.removeAll()
            self.pieces.removeAll()
            self.lines.removeAll()
        }

        /// Adds `start..<end` (`width` columns, `style`) to the last segment
        /// of `segments` when it continues it, else starts a segment.
        @inline(__always)
        static func collect(_ start: Int32, _ end: Int32, _ width: Int32, _ style: Style,
                            into segments: inout SegmentList) {
            if let last = segments.last, last.pointee.end == start, last.pointee.style == style {
                last.pointee.end = end
                last.pointee.width &+= width
            } else {
                segments.append(Segment(start: start, end: end, width: width, style: style))
            }
        }

        /// Collects the ASCII spaces `start..<end`.
        @inline(__always)
        mutating func collectSpaces(_ start: Int, _ end: Int, _ style: Style) {
            State.collect(int32(start), int32(end), int32(end &- start), style, into: &spaces)
            spaceWidth &+= end &- start
        }

        /// Collects `start..<end`, one-column clusters (`columns` of them),
        /// into the word.
        @inline(__always)
        mutating func collectWord(_ start: Int, _ end: Int, columns: Int, _ style: Style) {
            State.collect(int32(start), int32(end), int32(columns), style, into: &word)
            wordWidth &+= columns
        }

        @inline(__always)
        mutating func add(_ cluster: Cluster, _ style: Style, _ bytes: UnsafeBufferPointer<UInt8>) {
            if cluster.isSpace {
                flushWord(bytes)
                State.collect(cluster.start, cluster.end, cluster.width, style, into: &spaces)
                spaceWidth &+= Int(cluster.width)
            } else if cluster.isWide {
                // A wide cluster is a word of its own.
                flushWord(bytes)
                let segment = Segment(start: cluster.start, end: cluster.end, width: cluster.width, style: style)
                guard cluster.width == 2 else {
                    placeWideRun(segment, bytes)
                    return
                }
                guard spaces.isEmpty else {
                    word.append(segment)
                    wordWidth = Int(cluster.width)
                    placeWord(bytes)
                    return
                }
                // What `placeWord` does with no spaces before it (CJK text:
                // a run of wide clusters), without collecting it first.
                if lineWidth + Int(cluster.width) > width, lineWidth > 0 { endLine() }
                if lineWidth + Int(cluster.width) <= width {
                    emit(segment.start, segment.end, segment.width, style)
                } else {
                    cut(segment, bytes)
                }
                paragraphStart = false
            } else {
                State.collect(cluster.start, cluster.end, cluster.width, style, into: &word)
                wordWidth &+= Int(cluster.width)
            }
        }

        /// Places a run of wide clusters, each a code point
        /// (`ClusterScanner.nextJoining`), after the spaces collected: at
        /// once when all of it fits on the line after them (placing its
        /// clusters one by one gives the same then: the first after the
        /// spaces, the others after it), else cluster by cluster, scanning
        /// it again. (Not inlined: `add` is inlined into the loop here.)
        @inline(never)
        mutating func placeWideRun(_ run: Segment, _ bytes: UnsafeBufferPointer<UInt8>) {
            let keepSpaces = lineWidth > 0 || paragraphStart
            if lineWidth &+ (keepSpaces ? spaceWidth : 0) &+ Int(run.width) <= width {
                // The word is this one segment (`add` placed the one before).
                word.append(run)
                wordWidth = Int(run.width)
                placeCollectedWord(bytes)
                return
            }
            var scanner = ClusterScanner(bytes, Int(run.start)..<Int(run.end), mode: mode)
            while let cluster = scanner.next() { add(cluster, run.style, bytes) }
        }

        /// Adds sanitized text: its ASCII stretches through `addASCII`, runs
        /// of two-byte letters that are clusters of one column each
        /// (`CodePointProperties.narrowLetterRunEnd`) into the word at
        /// once, the rest cluster by cluster. The last ASCII byte before a non-ASCII
        /// code point goes with the clusters (a mark after it joins it)
        /// unless that code point starts a cluster of its own (most do);
        /// ASCII after a non-ASCII cluster starts a cluster of its own (a
        /// prepend mark before it would have made the cluster go on).
        ///
        /// `wordEnds`: a word at the end of the text ends there
        /// (`Wrapper.endsWord`).
        ///
        /// Inlined into `wrap` (its one caller): left to the optimizer once
        /// `wrap` read the items in place, it was a call of its own (1.3 M
        /// instructions more on 10 k messages).
        @inline(__always)
        mutating func addText(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, _ style: Style, wordEnds: Bool) {
            var index = range.lowerBound
            let end = range.upperBound
            while index < end {
                let nonASCII = ASCIIWords.firstNonASCII(bytes, from: index, end: end)
                guard nonASCII < end else {
                    addASCII(bytes, index, end, style, wordEnds: wordEnds)
                    return
                }
                // Letters of two bytes that are clusters of one column each
                // (most accented Latin, Greek, Cyrillic, Hebrew, Arabic) go
                // on the word at once, as `add` collects their clusters;
                // the ASCII before them ends a cluster there.
                let lettersEnd = CodePointProperties.narrowLetterRunEnd(bytes, from: nonASCII, end: end)
                if lettersEnd > nonASCII {
                    if nonASCII > index { addASCII(bytes, index, nonASCII, style, wordEnds: false) }
                    collectWord(nonASCII, lettersEnd, columns: (lettersEnd &- nonASCII) &>> 1, style)
                    index = lettersEnd
                    continue
                }
                var scanner = ClusterScanner(bytes, nonASCII..<end, mode: mode)
                if nonASCII > index {
                    if scanner.startsWithOwnCluster() {
                        addASCII(bytes, index, nonASCII, style, wordEnds: false)
                    } else {
                        if nonASCII - 1 > index { addASCII(bytes, index, nonASCII - 1, style, wordEnds: false) }
                        scanner = ClusterScanner(bytes, (nonASCII - 1)..<end, mode: mode)
                    }
                }
                index = end
                // Runs of one-column clusters come joined (`add` collects
                // them into one segment either way), and runs of wide ones
                // (placed at once when they fit).
                while let cluster = scanner.nextJoining() {
                    add(cluster, style, bytes)
                    let next = Int(cluster.end)
                    // At the end of the text the scanner has nothing more
                    // (its position is at or past a cluster's end): asking it
                    // anyway cost two calls, some 50 instructions.
                    guard next < end else { break }
                    if !cluster.isRun, bytes[next] < 0x80 {
                        index = next
                        break
                    }
                }
            }
        }

        /// Adds the all-ASCII text `bytes[start..<end]`: what `add` does
        /// with the clusters `ClusterScanner` finds there (runs of spaces,
        /// runs of other bytes), found eight bytes at a time (`ASCIIWords`).
        ///
        /// As many whole words as fit on the line (and the spaces between
        /// them) are placed at once, as one piece; when the text goes on
        /// past the line's end, the line ends there and the next word
        /// starts the next line (no need to measure it first); otherwise
        /// the word that does not fit is placed with the spaces before it,
        /// the line ending before it. A word that reaches the end of the
        /// text may go on in the next item, so it is collected, as are
        /// spaces at the end, unless `wordEnds` says the word ends there.
        ///
        /// Not inlined: inside a function of its own size, the searches'
        /// loads and comparisons are inlined (in `wrap` they were calls).
        @inline(never)
        mutating func addASCII(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int, _ style: Style,
                               wordEnds: Bool) {
            var index = start
            if !word.isEmpty {
                // The word collected so far goes on up to the first space.
                let wordEnd = ASCIIWords.nextSpace(bytes, from: index, end: end)
                if wordEnd > index { collectWord(index, wordEnd, columns: wordEnd &- index, style) }
                guard wordEnd < end || wordEnds else { return }
                placeCollectedWord(bytes)
                index = wordEnd
            }
            while index < end {
                // The words that fit on the line, when nothing is collected
                // and the spaces before them stay (a word is on the line,
                // or none is before them): all of them when they end the
                // text, else up to the last space within reach.
                if spaces.isEmpty, lineWidth < width, lineWidth > 0 || bytes[index] != 0x20 {
                    let room = width &- lineWidth
                    // The text goes on past the line's end.
                    let overflows = index &+ room < end
                    let lineEnd = wordEnds && end &- index <= room
                        ? ASCIIWords.endOfLastWord(bytes, from: index, end: end)
                        : ASCIIWords.lastWordEnd(bytes, from: index, reach: overflows ? index &+ room : end &- 1)
                    if lineEnd > index {
                        emit(int32(index), int32(lineEnd), int32(lineEnd &- index), style)
                        paragraphStart = false
                        index = lineEnd
                        guard index < end else { return }
                        if overflows {
                            // The next word goes past the line's end (no space
                            // within reach follows it), longer still if it goes
                            // on in the next item: it starts the next line, and
                            // the spaces before it are dropped. (Spaces up to
                            // the end are collected below: the line may end
                            // with them.)
                            let next = ASCIIWords.nextNonSpace(bytes, from: index, end: end)
                            if next < end {
                                endLine()
                                index = next
                                continue
                            }
                        }
                    }
                }
                let wordStart = ASCIIWords.nextNonSpace(bytes, from: index, end: end)
                guard wordStart < end else {
                    collectSpaces(index, end, style)
                    return
                }
                let wordEnd = ASCIIWords.nextSpace(bytes, from: wordStart &+ 1, end: end)
                guard wordEnd < end || wordEnds else {
                    if wordStart > index { collectSpaces(index, wordStart, style) }
                    collectWord(wordStart, end, columns: end &- wordStart, style)
                    return
                }
                if spaces.isEmpty {
                    placeASCIIWord(bytes, spacesFrom: index, wordStart, wordEnd, style)
                } else {
                    if wordStart > index { collectSpaces(index, wordStart, style) }
                    // After the spaces an item ended with (before a word in
                    // another style): placed at once with them when it fits.
                    collectWord(wordStart, wordEnd, columns: wordEnd &- wordStart, style)
                    placeCollectedWord(bytes)
                }
                index = wordEnd
            }
        }

        /// What `placeWord` does for the ASCII word `wordStart..<wordEnd`
        /// after the spaces `spacesStart..<wordStart` (none collected
        /// before them): spaces and word as one piece when both fit.
        @inline(__always)
        private mutating func placeASCIIWord(_ bytes: UnsafeBufferPointer<UInt8>, spacesFrom spacesStart: Int,
                                             _ wordStart: Int, _ wordEnd: Int, _ style: Style) {
            let start = lineWidth > 0 || paragraphStart ? spacesStart : wordStart
            paragraphStart = false
            if lineWidth &+ (wordEnd &- start) <= width {
                emit(int32(start), int32(wordEnd), int32(wordEnd &- start), style)
                return
            }
            if lineWidth > 0 { endLine() }
            let segment = Segment(start: int32(wordStart), end: int32(wordEnd), width: int32(wordEnd &- wordStart), style: style)
            if wordEnd &- wordStart <= width {
                emit(segment.start, segment.end, segment.width, style)
            } else {
                cut(segment, bytes)
            }
        }

        /// `placeWord`, done here when the word collected is one segment
        /// after at most one of spaces and fits on the line (a word of
        /// accented letters, or one an item ended in, finished by ASCII):
        /// without a call and the loops over the lists.
        @inline(__always)
        private mutating func placeCollectedWord(_ bytes: UnsafeBufferPointer<UInt8>) {
            let keepSpaces = lineWidth > 0 || paragraphStart
            guard word.count == 1, spaces.count <= 1, lineWidth &+ (keepSpaces ? spaceWidth : 0) &+ wordWidth <= width else {
                placeWord(bytes)
                return
            }
            if keepSpaces, let space = spaces.last {
                emit(space.pointee.start, space.pointee.end, space.pointee.width, space.pointee.style)
            }
            let segment = word.base.pointee
            emit(segment.start, segment.end, segment.width, segment.style)
            word.removeAll()
            wordWidth = 0
            spaces.removeAll()
            spaceWidth = 0
            paragraphStart = false
        }

        /// Forgets the spaces collected (they end a line).
        @inline(__always)
        mutating func dropSpaces() {
            spaces.removeAll()
            spaceWidth = 0
        }

        mutating func endLine() {
            lines.append(Line(firstPiece: int32(firstPiece), endPiece: int32(pieces.count), width: int32(lineWidth)))
            firstPiece = pieces.count
            lineWidth = 0
        }

        /// Appends `start..<end` (of `width` columns) in `style` to the line,
        /// extending the line's last piece in place when it continues it.
        ///
        /// The piece grows in the list itself, not in a copy kept aside
        /// and appended when the next piece or the line's end comes: that
        /// copy's 8- and 16-byte loads right after the 4-byte stores that
        /// extended it could not be forwarded from the stores, and waited
        /// for them to drain.
        @inline(__always)
        mutating func emit(_ start: Int32, _ end: Int32, _ width: Int32, _ style: Style) {
            lineWidth &+= Int(width)
            if pieces.count > firstPiece, let last = pieces.last, last.pointee.end == start, last.pointee.style == style {
                last.pointee.end = end
                last.pointee.width &+= width
                return
            }
            pieces.append(Piece(start: start, end: end, width: width, style: style))
        }

        /// Places the word collected, if any.
        @inline(__always)
        mutating func flushWord(_ bytes: UnsafeBufferPointer<UInt8>) {
            if !word.isEmpty { placeWord(bytes) }
        }

        /// Places the word collected (not empty) after the spaces
        /// collected before it, and forgets both. The spaces go on the line
        /// when the word fits after them (at a paragraph's start too);
        /// else the line ends, they are dropped, and the word starts the
        /// next line (cut between clusters if longer than one).
        mutating func placeWord(_ bytes: UnsafeBufferPointer<UInt8>) {
            let keepSpaces = lineWidth > 0 || paragraphStart
            if lineWidth + (keepSpaces ? spaceWidth : 0) + wordWidth <= width {
                if keepSpaces { for space in spaces.elements { emit(space.start, space.end, space.width, space.style) } }
                for segment in word.elements { emit(segment.start, segment.end, segment.width, segment.style) }
            } else {
                if lineWidth > 0 { endLine() }
                if wordWidth <= width {
                    for segment in word.elements { emit(segment.start, segment.end, segment.width, segment.style) }
                } else {
                    for segment in word.elements { cut(segment, bytes) }
                }
            }
            word.removeAll()
            dropSpaces()
            wordWidth = 0
            paragraphStart = false
        }

        /// Emits a segment of a word wider than the line, breaking the line
        /// between its clusters (an ASCII run between any two bytes).
        mutating func cut(_ segment: Segment, _ bytes: UnsafeBufferPointer<UInt8>) {
            // The segment starts at a cluster boundary, so scanning it again
            // finds the clusters it was made of (but where an item of the
            // same style starts with a mark: measured with the bytes before
            // it here, as if appended together).
            var scanner = ClusterScanner(bytes, Int(segment.start)..<Int(segment.end), mode: mode)
            while let cluster = scanner.next() {
                if cluster.isRun {
                    var rest = cluster
                    while rest.width > 0 {
                        if lineWidth >= width, lineWidth > 0 { endLine() }
                        let take = Int32(min(Int(rest.width), max(1, width - lineWidth)))
                        emit(rest.start, rest.start + take, take, segment.style)
                        rest.start += take
                        rest.width -= take
                    }
                    continue
                }
                if lineWidth + Int(cluster.width) > width, lineWidth > 0 { endLine() }
                emit(cluster.start, cluster.end, cluster.width, segment.style)
            }
        }
    }
}

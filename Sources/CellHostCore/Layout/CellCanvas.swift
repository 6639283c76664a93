import CellHostABI
import Glibc

/// Styles the host draws with: the plugin-facing semantic styles of
/// builder.h in the low bits, the chrome's own roles above them.
public struct Style: OptionSet, Hashable, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public static let strong = Style(rawValue: UInt32(CELLHOST_STYLE_STRONG))
    public static let emphasis = Style(rawValue: UInt32(CELLHOST_STYLE_EMPHASIS))
    public static let code = Style(rawValue: UInt32(CELLHOST_STYLE_CODE))
    public static let link = Style(rawValue: UInt32(CELLHOST_STYLE_LINK))
    public static let muted = Style(rawValue: UInt32(CELLHOST_STYLE_MUTED))
    public static let accent = Style(rawValue: UInt32(CELLHOST_STYLE_ACCENT))
    public static let success = Style(rawValue: UInt32(CELLHOST_STYLE_SUCCESS))
    public static let warning = Style(rawValue: UInt32(CELLHOST_STYLE_WARNING))
    public static let error = Style(rawValue: UInt32(CELLHOST_STYLE_ERROR))
    public static let quote = Style(rawValue: UInt32(CELLHOST_STYLE_QUOTE))
    /// Every style a plugin may ask for.
    static let pluginMask: UInt32 = (1 << 10) - 1

    /// A sender name; the colour is picked per sender (`senderColor`).
    public static let sender = Style(rawValue: 1 << 16)
    /// The bar beside a message's content.
    public static let gutter = Style(rawValue: 1 << 17)
    /// Day separators.
    public static let separator = Style(rawValue: 1 << 18)
    /// A block cell with its own foreground colour.
    public static let customForeground = Style(rawValue: 1 << 19)
    /// A block cell with its own background colour.
    public static let customBackground = Style(rawValue: 1 << 20)
    /// Which of six sender colours (bits 24–26).
    static func senderColor(_ index: Int) -> Style { Style(rawValue: UInt32(index % 6) << 24) }
    var senderColorIndex: Int { Int(rawValue >> 24 & 0x7) }
}

/// A run of text of one style (or padding) on a line.
struct Piece {
    /// Byte range in `CellCanvas.bytes`; empty with `start == -1` for padding.
    var start: Int32
    var end: Int32
    /// Columns.
    var width: Int32
    var style: Style
    /// 0xRRGGBB colours of block cells.
    var foreground: UInt32 = 0
    var background: UInt32 = 0

    static func padding(_ columns: Int) -> Piece {
        Piece(start: -1, end: -1, width: Int32(columns), style: [])
    }
}

/// A line: a range of pieces.
struct Line {
    var firstPiece: Int32
    var endPiece: Int32
    var width: Int32
}

/// What a cell appended, before layout: the serialisable content model.
enum ContentItem {
    case text(start: Int32, end: Int32, style: Style)
    case lineBreak
    case row(start: Int32, count: Int32)
}

/// The working surface of one message: the content a cell builds, its
/// wrapped lines, and the final lines with chrome. Reused for every message.
public final class CellCanvas {
    /// The content's text, then the glyphs of its rows and the chrome's
    /// text: a list of the canvas's own (freed in its deinit), so that
    /// appending a cell's text is a capacity check and a copy of memory.
    var bytes = UnsafeList<UInt8>(capacity: 4096)
    /// What the cells appended, in order (a list of the canvas's own too:
    /// an append is a capacity check and a store).
    var items = UnsafeList<ContentItem>()
    var blockCells: [cellhost_block_cell] = []
    /// The layout: the wrapped content's pieces (`Wrapper.wrap` replaces
    /// whatever was here), then the chrome's. Lists of the canvas's own
    /// (freed in its deinit), so appending and emptying are plain stores.
    var pieces = UnsafeList<Piece>()
    /// The wrapped content's lines (`Wrapper.wrap` replaces them).
    var contentLines = UnsafeList<Line>()
    /// The lines written out: the chrome's, made of `pieces`.
    var outputLines = UnsafeList<Line>()
    var clusters: [Cluster] = []
    /// The wrapper's work list for rows' glyphs, put after the content
    /// once it is wrapped (the text being wrapped is read in place
    /// meanwhile). Kept for its capacity, and stored back by the wrapper
    /// only when it grew, so its count is stale between wraps (each wrap
    /// empties its copy first). The word and spaces the wrapper collects
    /// are on its stack (`Wrapper.SegmentList`).
    var wrapGlyphs = UnsafeList<UInt8>()

    /// The per-message caps (`OutputLimits`), enforced while building.
    var limits = OutputLimits.standard
    /// The strings of the message being rendered, set while its plugins
    /// run: spans that are slices of them are sanitized already
    /// (`StringArena.holdsSanitized`) and are copied as they are.
    var sanitizedSource: StringArena? {
        get { sanitizedSourceReference?.takeUnretainedValue() }
        set { sanitizedSourceReference = newValue.map { Unmanaged.passUnretained($0) } }
    }
    /// `sanitizedSource`, unretained (as `unowned(unsafe)` was): `append`
    /// asks it without a retain and release.
    private var sanitizedSourceReference: Unmanaged<StringArena>?
    /// Where `append` looks up non-ASCII characters, read once here: each
    /// read of `CodePointProperties.table` is a `swift_once` check.
    private let codePoints = CodePointProperties.table
    /// Line ends appended (line breaks and rows), for the row cap.
    private(set) var lineEnds = 0
    /// Set once content was dropped: everything appended later is dropped too.
    private(set) var truncated = false
    /// Lines of dropped content (each line end, and a last line without one).
    private(set) var droppedLines = 0
    /// The dropped content so far ends inside a line.
    private var droppedOpenLine = false

    public init() {}

    deinit {
        bytes.deallocate()
        items.deallocate()
        pieces.deallocate()
        contentLines.deallocate()
        outputLines.deallocate()
        wrapGlyphs.deallocate()
    }

    /// Empties the content and the chrome's lines for the next message.
    /// The pieces and content lines are left to the next `Wrapper.wrap`,
    /// which replaces them; most messages have no block cells, so theirs
    /// are emptied only when there are some (emptying an array costs a
    /// generic `replaceSubrange`, some 85 instructions).
    func reset() {
        bytes.removeAll()
        items.removeAll()
        if !blockCells.isEmpty { blockCells.removeAll(keepingCapacity: true) }
        outputLines.removeAll()
        lineEnds = 0
        truncated = false
        droppedLines = 0
        droppedOpenLine = false
    }

    /// Gives back buffers grown past `threshold` bytes by a large message,
    /// so a reused canvas does not pin the memory of the largest one.
    /// It looks before it writes: this runs after every message, and most
    /// grow nothing that large, so the lists keep their counts then (their
    /// users empty or replace them first: `reset`, `Wrapper.wrap`) and the
    /// canvas's lines, which a render worker reads next, are not written
    /// (emptying every list cost some 70 instructions a message).
    func releaseLargeBuffers(threshold: Int = 1 << 20) {
        func size<Element>(_ list: UnsafeList<Element>) -> Int { list.capacity &* MemoryLayout<Element>.stride }
        let largest = max(size(bytes), size(items), size(pieces), size(contentLines), size(outputLines),
                          size(wrapGlyphs),
                          blockCells.capacity &* MemoryLayout<cellhost_block_cell>.stride,
                          clusters.capacity &* MemoryLayout<Cluster>.stride)
        guard largest > threshold else { return }
        bytes.release(above: threshold)
        items.release(above: threshold)
        if blockCells.capacity * MemoryLayout<cellhost_block_cell>.stride > threshold { blockCells = [] }
        pieces.release(above: threshold)
        contentLines.release(above: threshold)
        outputLines.release(above: threshold)
        if clusters.capacity * MemoryLayout<Cluster>.stride > threshold { clusters = [] }
        wrapGlyphs.release(above: threshold)
    }

    /// A point to roll content back to when a cell declines.
    struct Mark {
        var bytes: Int, items: Int, cells: Int
        var lineEnds: Int, truncated: Bool, droppedLines: Int, droppedOpenLine: Bool
    }

    var mark: Mark {
        Mark(bytes: bytes.count, items: items.count, cells: blockCells.count, lineEnds: lineEnds, truncated: truncated,
             droppedLines: droppedLines, droppedOpenLine: droppedOpenLine)
    }

    func rollBack(to mark: Mark) {
        bytes.truncate(to: mark.bytes)
        items.truncate(to: mark.items)
        blockCells.removeSubrange(mark.cells...)
        lineEnds = mark.lineEnds
        truncated = mark.truncated
        droppedLines = mark.droppedLines
        droppedOpenLine = mark.droppedOpenLine
    }

    /// Content bytes accepted so far (a block cell counts 4).
    private var contentBytes: Int { bytes.count + 4 * blockCells.count }

    /// Counts `lines` lines that a render worker dropped past its caps (the
    /// same caps as here), so the `… N more lines` row counts them too.
    func countDropped(lines: Int) {
        guard lines > 0 else { return }
        truncated = true
        droppedLines += lines
    }

    /// Counts dropped content: `lines` line ends, then (when `open`) text
    /// of a line not ended yet. A line with dropped text counts once; a
    /// dropped line end that closes no such line hides an empty line.
    private func drop(lineEnds lines: Int, open: Bool) {
        truncated = true
        var lines = lines
        if lines > 0 && droppedOpenLine {
            lines -= 1
            droppedOpenLine = false
        }
        droppedLines += lines
        if open && !droppedOpenLine {
            droppedOpenLine = true
            droppedLines += 1
        }
    }

    /// A line end past the row cap: the first only closes the last line shown.
    private func dropLineEnd() {
        if truncated { drop(lineEnds: 1, open: false) } else { truncated = true }
    }

    /// Ends a line, unless the row cap is reached (the rest is dropped).
    private func acceptLineEnd() -> Bool {
        guard !truncated, lineEnds < limits.rows else { return false }
        lineEnds += 1
        return true
    }

    // MARK: Building (what the host table's builder functions do)

    /// Appends text in `style`; '\n' starts a new line. Sanitized on the way
    /// in. Past the byte or row cap (`limits`) the text is only counted.
    ///
    /// Inlined (into the builder's `append` callback, a call per span a
    /// plugin hands back, and `append(_:String)`): the common case is done
    /// there, and the rest (`appendLines`) is a call of its own.
    @inline(__always)
    func append(_ text: UnsafeBufferPointer<UInt8>, style: Style) {
        // One line that needs no sanitizing: a slice of the message's own
        // strings with no control byte (so no '\n' or '\r'; TextCell's
        // spans, a caption), or text a plugin made that sanitizing would
        // copy as it is (no control byte either: a size, a duration, a
        // waveform). One pass over it, not a search for line ends, then
        // the sanitizer's own pass and a copy of each line.
        if !truncated, !text.isEmpty,
           holdsSanitized(text) || Sanitizer.isSafe(text, keepingNewlines: false, table: codePoints) {
            // Most often it fits in the byte cap: what `appendLine` does
            // then, without its checks for a cut.
            let start = bytes.count
            if text.count <= limits.bytes &- contentBytes {
                bytes.append(contentsOf: text)
                items.append(.text(start: Int32(truncatingIfNeeded: start), end: Int32(truncatingIfNeeded: bytes.count),
                                   style: style))
            } else {
                appendLine(text, style: style, sanitized: true)
            }
            return
        }
        appendLines(text, style: style)
    }

    /// `append` for text that is not one line needing no sanitizing (or
    /// that comes after a cap was reached): line by line, each sanitized.
    @inline(never)
    private func appendLines(_ text: UnsafeBufferPointer<UInt8>, style: Style) {
        var lineStart = 0
        var index = 0
        while index <= text.count {
            // The next line end (memchr), or the end of the text.
            if index < text.count, let base = text.baseAddress {
                if let hit = memchr(base + index, 0x0A, text.count - index) {
                    index = UnsafeRawPointer(hit) - UnsafeRawPointer(base)
                } else {
                    index = text.count
                }
            }
            if index == text.count || text[index] == 0x0A {
                var end = index
                if end > lineStart, text[end - 1] == 0x0D { end -= 1 }
                if truncated {
                    // Count what is left without looking at it twice.
                    countDropped(UnsafeBufferPointer(rebasing: text[lineStart...]))
                    return
                }
                if end > lineStart {
                    // The whole text as one line was asked about in `append`.
                    let line = UnsafeBufferPointer(rebasing: text[lineStart..<end])
                    appendLine(line, style: style, sanitized: line.count < text.count && holdsSanitized(line))
                    if truncated {
                        countDropped(UnsafeBufferPointer(rebasing: text[index...]))
                        return
                    }
                }
                if index < text.count {
                    guard acceptLineEnd() else {
                        dropLineEnd()
                        countDropped(UnsafeBufferPointer(rebasing: text[(index + 1)...]))
                        return
                    }
                    items.append(.lineBreak)
                }
                lineStart = index + 1
            }
            index += 1
        }
    }

    /// True when `text` is a span of the message's strings that sanitizing
    /// would copy as it is (`StringArena.holdsSanitized`).
    @inline(__always)
    private func holdsSanitized(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        sanitizedSourceReference?._withUnsafeGuaranteedRef { $0.holdsSanitized(text) } == true
    }

    /// Sanitizes one line of text (no '\n') into the content, within the
    /// byte cap: a line that would pass it is cut at a character boundary.
    /// A `sanitized` line (`holdsSanitized`) is copied as it is.
    private func appendLine(_ line: UnsafeBufferPointer<UInt8>, style: Style, sanitized: Bool) {
        let remaining = limits.bytes - contentBytes
        guard remaining > 0 else { drop(lineEnds: 0, open: true); return }
        let start = bytes.count
        // Sanitizing never shrinks printable text below the input's prefix
        // worth keeping: feed at most `remaining` bytes, then cut the output.
        let fed = min(line.count, remaining)
        if fed == line.count, sanitized {
            bytes.append(contentsOf: line)
        } else {
            Sanitizer.sanitize(UnsafeBufferPointer(rebasing: line[..<fed]), into: &bytes)
        }
        var cut = fed < line.count
        if bytes.count - start > remaining {
            var end = start + remaining
            while end > start, bytes[end] & 0xC0 == 0x80 { end -= 1 } // a character boundary
            bytes.truncate(to: end)
            cut = true
        }
        if bytes.count > start {
            items.append(.text(start: Int32(start), end: Int32(bytes.count), style: style))
        }
        if cut { drop(lineEnds: 0, open: true) }
    }

    /// Counts the lines of text dropped past a cap (from the current position).
    private func countDropped(_ rest: UnsafeBufferPointer<UInt8>) {
        guard !rest.isEmpty, let base = rest.baseAddress else { return }
        var lines = 0
        var position = 0
        var lastEnd = -1
        while position < rest.count,
              let hit = memchr(base + position, 0x0A, rest.count - position) {
            let offset = UnsafeRawPointer(hit) - UnsafeRawPointer(base)
            lines += 1
            lastEnd = offset
            position = offset + 1
        }
        let tailIsEmpty = lastEnd == rest.count - 1 || (lastEnd == rest.count - 2 && rest[rest.count - 1] == 0x0D)
        drop(lineEnds: lines, open: !tailIsEmpty)
    }

    func append(_ text: String, style: Style) {
        var text = text
        text.withUTF8 { append($0, style: style) }
    }

    func lineBreak() {
        if acceptLineEnd() { items.append(.lineBreak) } else { dropLineEnd() }
    }

    /// Appends a row of block cells; only as many as the widest layout shows
    /// are kept (the row is cut to the width anyway).
    func appendRow(_ cells: UnsafeBufferPointer<cellhost_block_cell>) {
        let kept = min(cells.count, OutputSettings.maximumWidth)
        guard !truncated, contentBytes + 4 * kept <= limits.bytes, acceptLineEnd() else {
            // A row is a whole line.
            truncated = true
            droppedOpenLine = false
            droppedLines += 1
            return
        }
        let start = blockCells.count
        blockCells.append(contentsOf: UnsafeBufferPointer(rebasing: cells[..<kept]))
        items.append(.row(start: Int32(start), count: Int32(kept)))
    }
}

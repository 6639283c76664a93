import CellHostABI

/// Styles the host draws with: the plugin-facing semantic styles of
/// builder.h in the low bits, the chrome's own roles above them.
public struct Style: OptionSet, Hashable, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public static let strong = Style(rawValue: CELLHOST_STYLE_STRONG.rawValue)
    public static let emphasis = Style(rawValue: CELLHOST_STYLE_EMPHASIS.rawValue)
    public static let code = Style(rawValue: CELLHOST_STYLE_CODE.rawValue)
    public static let link = Style(rawValue: CELLHOST_STYLE_LINK.rawValue)
    public static let muted = Style(rawValue: CELLHOST_STYLE_MUTED.rawValue)
    public static let accent = Style(rawValue: CELLHOST_STYLE_ACCENT.rawValue)
    public static let success = Style(rawValue: CELLHOST_STYLE_SUCCESS.rawValue)
    public static let warning = Style(rawValue: CELLHOST_STYLE_WARNING.rawValue)
    public static let error = Style(rawValue: CELLHOST_STYLE_ERROR.rawValue)
    public static let quote = Style(rawValue: CELLHOST_STYLE_QUOTE.rawValue)
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
    var bytes: [UInt8] = []
    var items: [ContentItem] = []
    var blockCells: [cellhost_block_cell] = []
    var pieces: [Piece] = []
    var contentLines: [Line] = []
    var outputLines: [Line] = []
    var clusters: [Cluster] = []

    public init() {
        bytes.reserveCapacity(4096)
    }

    func reset() {
        bytes.removeAll(keepingCapacity: true)
        items.removeAll(keepingCapacity: true)
        blockCells.removeAll(keepingCapacity: true)
        pieces.removeAll(keepingCapacity: true)
        contentLines.removeAll(keepingCapacity: true)
        outputLines.removeAll(keepingCapacity: true)
    }

    /// A point to roll content back to when a cell declines.
    struct Mark { var bytes: Int; var items: Int; var cells: Int }

    var mark: Mark { Mark(bytes: bytes.count, items: items.count, cells: blockCells.count) }

    func rollBack(to mark: Mark) {
        bytes.removeSubrange(mark.bytes...)
        items.removeSubrange(mark.items...)
        blockCells.removeSubrange(mark.cells...)
    }

    // MARK: Building (what the host table's builder functions do)

    /// Appends text in `style`; '\n' starts a new line. Sanitized on the way in.
    func append(_ text: UnsafeBufferPointer<UInt8>, style: Style) {
        var lineStart = 0
        var index = 0
        while index <= text.count {
            if index == text.count || text[index] == 0x0A {
                var end = index
                if end > lineStart, text[end - 1] == 0x0D { end -= 1 }
                if end > lineStart {
                    let start = bytes.count
                    Sanitizer.sanitize(UnsafeBufferPointer(rebasing: text[lineStart..<end]), into: &bytes)
                    if bytes.count > start {
                        items.append(.text(start: Int32(start), end: Int32(bytes.count), style: style))
                    }
                }
                if index < text.count { items.append(.lineBreak) }
                lineStart = index + 1
            }
            index += 1
        }
    }

    func append(_ text: String, style: Style) {
        var text = text
        text.withUTF8 { append($0, style: style) }
    }

    func lineBreak() { items.append(.lineBreak) }

    func appendRow(_ cells: UnsafeBufferPointer<cellhost_block_cell>) {
        let start = blockCells.count
        blockCells.append(contentsOf: cells)
        items.append(.row(start: Int32(start), count: Int32(cells.count)))
    }
}

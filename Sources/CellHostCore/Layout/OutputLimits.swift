/// How much one message's content may produce: at most `rows` rows (after
/// wrapping) and `bytes` bytes of content. Past either, the content stops and
/// one muted row `… N more lines` takes the place of the rest, so neither a
/// huge message nor a plugin appending without end can flood the terminal or
/// the host's memory. Applies to every cell, the host's own included.
public struct OutputLimits: Sendable, Equatable {
    /// Rows of content per message, the `… N more lines` row included.
    public var rows: Int
    /// Bytes of content per message (sanitized text; each block cell counts 4).
    public var bytes: Int

    /// 1000 rows (some twenty screens: more is not read in a terminal) and
    /// 1 MiB (1000 rows of the widest layout, 1000 columns, of ASCII).
    public static let standard = OutputLimits(rows: 1000, bytes: 1 << 20)
    /// The largest accepted values: content offsets are 32-bit.
    public static let maximumRows = 1_000_000
    public static let maximumBytes = 1 << 30

    /// Values are clamped to 1…`maximumRows` and 1…`maximumBytes`.
    public init(rows: Int, bytes: Int) {
        self.rows = min(max(rows, 1), OutputLimits.maximumRows)
        self.bytes = min(max(bytes, 1), OutputLimits.maximumBytes)
    }
}

extension CellCanvas {
    /// After wrapping: keeps at most `limits.rows - 1` content rows when the
    /// content has more than `limits.rows` or some was dropped at building
    /// time, and adds the muted `… N more lines` row counting everything not
    /// shown.
    func capRows(width: Int) {
        let tooMany = contentLines.count > limits.rows
        guard tooMany || droppedLines > 0 else { return }
        let keep = min(contentLines.count, limits.rows - 1)
        let hidden = contentLines.count - keep + droppedLines
        contentLines.truncate(to: keep)
        let text = "… \(hidden) more line" + (hidden == 1 ? "" : "s")
        // One column per character ("…" included): cut to the width.
        var shown = String(text.prefix(max(1, width)))
        let start = bytes.count
        shown.withUTF8 { bytes.append(contentsOf: $0) }
        let first = pieces.count
        let columns = shown.count
        pieces.append(Piece(start: Int32(start), end: Int32(bytes.count), width: Int32(columns), style: [.muted, .emphasis]))
        contentLines.append(Line(firstPiece: Int32(first), endPiece: Int32(pieces.count), width: Int32(columns)))
    }
}

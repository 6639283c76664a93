/// A canvas's bytes, pieces and output lines while the chrome lays one
/// message out: swapped out of the canvas at the start and back at the end
/// (`take(from:)`, `giveBack(to:)`), so that each of the chrome's many
/// small appends goes to a value of its own instead of through the
/// canvas's stored property. The chrome keeps one between messages,
/// holding small lists of its own (freed by `deallocate`): swapping costs
/// no reference counting, and nothing is released.
struct ChromeLines {
    var bytes = UnsafeList<UInt8>(capacity: 1)
    var pieces = UnsafeList<Piece>(capacity: 1)
    var lines = UnsafeList<Line>(capacity: 1)

    /// Takes `canvas`'s lists; it holds these (empty) ones until `giveBack(to:)`.
    mutating func take(from canvas: CellCanvas) {
        swap(&canvas.bytes, &bytes)
        swap(&canvas.pieces, &pieces)
        swap(&canvas.outputLines, &lines)
    }

    /// Swaps the lists back into `canvas`.
    mutating func giveBack(to canvas: CellCanvas) {
        swap(&canvas.bytes, &bytes)
        swap(&canvas.pieces, &pieces)
        swap(&canvas.outputLines, &lines)
    }

    /// Frees the lists held between messages (the owning chrome's deinit).
    func deallocate() {
        bytes.deallocate()
        pieces.deallocate()
        lines.deallocate()
    }

    /// Appends a piece of a chrome line; padding of no columns is left out.
    mutating func add(_ piece: Piece) {
        if piece.width > 0 || piece.start >= 0 { pieces.append(piece) }
    }

    /// Ends the line made of the pieces from `first` on.
    mutating func endLine(from first: Int) {
        var total: Int32 = 0
        for index in first..<pieces.count { total &+= pieces[index].width }
        lines.append(Line(firstPiece: Int32(first), endPiece: Int32(pieces.count), width: total))
    }

    /// Ends an empty line.
    mutating func blankLine() {
        let at = Int32(pieces.count)
        lines.append(Line(firstPiece: at, endPiece: at, width: 0))
    }

    /// Appends `text`'s bytes as they are (chrome text known to be safe)
    /// and returns a piece of `width` columns for them.
    mutating func piece(_ text: UnsafeBufferPointer<UInt8>, width: Int, style: Style) -> Piece {
        let start = bytes.count
        bytes.append(contentsOf: text)
        return Piece(start: Int32(start), end: Int32(bytes.count), width: Int32(width), style: style)
    }
}

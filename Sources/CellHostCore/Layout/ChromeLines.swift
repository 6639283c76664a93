/// A canvas's bytes, pieces and output lines while the chrome lays one
/// message out: copied out of the canvas at the start (`init(from:)`) and
/// stored back at the end (`store(into:)`), so that each of the chrome's
/// many small appends goes to a local value instead of through the
/// canvas's stored properties. The canvas is written once, at the end: it
/// was filled on a worker thread, and its object's cache lines are best
/// written as seldom as possible on this one. Nothing else touches the
/// canvas's lists meanwhile (the chrome reads only its content lines), so
/// the copies are the only users of the memory until they are stored back.
struct ChromeLines {
    var bytes: UnsafeList<UInt8>
    var pieces: UnsafeList<Piece>
    var lines: UnsafeList<Line>

    /// The lists of `canvas`, to append to until `store(into:)`.
    init(from canvas: CellCanvas) {
        bytes = canvas.bytes
        pieces = canvas.pieces
        lines = canvas.outputLines
    }

    /// Gives `canvas` the lists back, with what was appended (and any
    /// memory they moved to as they grew).
    func store(into canvas: CellCanvas) {
        canvas.bytes = bytes
        canvas.pieces = pieces
        canvas.outputLines = lines
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

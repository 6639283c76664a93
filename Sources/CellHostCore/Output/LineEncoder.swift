/// Writes a laid-out message in one of the output formats.
struct LineEncoder {
    let settings: OutputSettings
    /// One span of coloured cells at a time for the `rows` of
    /// `--format json`, reused for every message (it reserves 64 KiB).
    private let scratch = OutputBuffer(fd: -1)
    /// `,"class":…,"plugin":…` of each class met, escaped once.
    private let classFields = ClassFields()

    init(settings: OutputSettings) { self.settings = settings }

    /// `outcome` is read for `--format json` only (reading it from a slot
    /// copies it, which retains its class); nil writes nothing then.
    func write(_ canvas: CellCanvas, message: Message, outcome: @autoclosure () -> RenderOutcome?, line: Int,
               to out: OutputBuffer) {
        switch settings.format {
        case .json:
            guard let outcome = outcome() else { break }
            writeJSON(canvas, message: message, outcome: outcome, line: line, to: out)
        case .plain, .ansi, .html:
            let colored = settings.format == .ansi && settings.depth != .none
            guard colored else {
                writePlainLines(canvas, to: out)
                break
            }
            for index in canvas.outputLines.elements.indices {
                writeLine(canvas, index, colored: colored, to: out)
                out.append(0x0A)
            }
        }
        out.flushIfFull()
    }

    /// Every output line without colours, each ended by a newline: what
    /// `writeLine` writes uncoloured. Pieces whose bytes follow each other
    /// in the canvas (the words of a line in different styles) are copied
    /// as one, through the buffer's `Cursor`.
    private func writePlainLines(_ canvas: CellCanvas, to out: OutputBuffer) {
        withLaidOut(canvas) { lines, pieces, bytes in
            out.withCursor { cursor in
                for line in lines {
                    Self.forEachRun(line, pieces, bytes, text: { cursor.append($0) }, spaces: { cursor.appendSpaces($0) })
                    cursor.append(0x0A)
                }
            }
        }
    }

    /// Calls `body` with the output lines, pieces and bytes of `canvas`,
    /// opened once for all lines (not once per piece or line).
    @inline(__always)
    private func withLaidOut(_ canvas: CellCanvas,
                             _ body: (UnsafeBufferPointer<Line>, UnsafeBufferPointer<Piece>, UnsafeBufferPointer<UInt8>) -> Void) {
        body(canvas.outputLines.elements, canvas.pieces.elements, canvas.bytes.elements)
    }

    /// What is written of `line`, in order: `text` with each run of bytes
    /// (pieces whose bytes follow each other in the canvas, such as the
    /// words of a line in different styles, as one) and `spaces` with the
    /// columns of each padding. Trailing padding is never written.
    @inline(__always)
    private static func forEachRun(_ line: Line, _ pieces: UnsafeBufferPointer<Piece>, _ bytes: UnsafeBufferPointer<UInt8>,
                                   text: (UnsafeBufferPointer<UInt8>) -> Void, spaces: (Int) -> Void) {
        var position = Int(line.firstPiece)
        var end = Int(line.endPiece)
        while end > position, pieces[end &- 1].start < 0 { end &-= 1 }
        while position < end {
            let piece = pieces[position]
            position &+= 1
            guard piece.start >= 0 else {
                spaces(Int(piece.width))
                continue
            }
            // The run: this piece and those that start where it ends.
            let runStart = Int(piece.start)
            var runEnd = max(runStart, Int(piece.end))
            while position < end, Int(pieces[position].start) == runEnd {
                runEnd = max(runEnd, Int(pieces[position].end))
                position &+= 1
            }
            if runEnd > runStart { text(UnsafeBufferPointer(rebasing: bytes[runStart..<runEnd])) }
        }
    }

    /// The pieces of output line `index` that are written: trailing
    /// padding never is.
    private func writtenPieces(_ canvas: CellCanvas, _ index: Int) -> Range<Int> {
        let line = canvas.outputLines[index]
        var end = Int(line.endPiece)
        while end > Int(line.firstPiece), canvas.pieces[end - 1].start < 0 { end -= 1 }
        return Int(line.firstPiece)..<end
    }

    private func writeLine(_ canvas: CellCanvas, _ index: Int, colored: Bool, to out: OutputBuffer) {
        let pieces = writtenPieces(canvas, index)
        let bytes = canvas.bytes.elements
        // A run of colour-only cells (a preview row) shares escape
        // sequences: a cell with the colours in effect adds only its
        // character, and the reset is written only where the next cell's
        // colours would not replace every colour set.
        var inEffect: Piece?
        for position in pieces {
            let piece = canvas.pieces[position]
            let text = UnsafeBufferPointer(rebasing: bytes[max(0, Int(piece.start))..<max(0, Int(piece.end))])
            if colored, piece.start >= 0, ANSIStyle.isColourOnly(piece) {
                if let current = inEffect, ANSIStyle.sameColours(current, piece) {
                    out.append(text)
                    continue
                }
                if let current = inEffect, !current.style.isSubset(of: piece.style) { out.append("\u{1B}[0m") }
                _ = ANSIStyle.appendBlockSequence(for: piece, depth: settings.depth, to: out)
                out.append(text)
                inEffect = piece
                continue
            }
            if inEffect != nil {
                out.append("\u{1B}[0m")
                inEffect = nil
            }
            if piece.start < 0 { out.appendSpaces(Int(piece.width)); continue }
            if colored, let sgr = ANSIStyle.sequence(for: piece, depth: settings.depth) {
                out.append(contentsOf: sgr)
                out.append(text)
                out.append("\u{1B}[0m")
            } else {
                out.append(text)
            }
        }
        if inEffect != nil { out.append("\u{1B}[0m") }
    }

    private func writeJSON(_ canvas: CellCanvas, message: Message, outcome: RenderOutcome, line: Int, to out: OutputBuffer) {
        out.append("{\"id\":")
        JSONText.append(message.id.isEmpty ? nil : message.id, to: out)
        out.append(",\"type\":")
        JSONText.append(message.typeIsMissing ? nil : message.type, to: out)
        out.append(",\"line\":")
        out.appendDecimal(line)
        classFields.append(outcome.cls, to: out)
        out.append(",\"rendered_as\":")
        JSONText.append(outcome.messageClass, to: out)
        out.append(",\"fallback\":")
        if let fallback = outcome.fallback {
            out.append("{\"chain\":[")
            for (index, attempt) in fallback.attempts.enumerated() {
                if index > 0 { out.append(0x2C) }
                out.append("{\"message_class\":")
                JSONText.append(attempt.messageClass, to: out)
                out.append(",\"class\":")
                JSONText.append(attempt.className, to: out)
                out.append(",\"plugin\":")
                JSONText.append(attempt.pluginID, to: out)
                out.append(",\"result\":")
                JSONText.append(attempt.result, to: out)
                out.append("}")
            }
            out.append("],\"reason\":")
            JSONText.append(fallback.reason, to: out)
            out.append("}")
        } else {
            out.append("null")
        }
        out.append(",\"lines\":[")
        // Each line as a JSON string: what `writeLine` writes uncoloured,
        // escaped a run at a time (escapes are byte by byte, so no copy of
        // the line is needed first).
        withLaidOut(canvas) { lines, pieces, bytes in
            for (index, line) in lines.enumerated() {
                if index > 0 { out.append(0x2C) }
                out.append(0x22)
                Self.forEachRun(line, pieces, bytes, text: { JSONText.appendEscaped($0, to: out) },
                                spaces: { out.appendSpaces($0) })
                out.append(0x22)
            }
        }
        out.append("],\"rows\":[")
        writeColoredRows(canvas, scratch: scratch, to: out)
        out.append("]}\n")
    }

    /// The lines that hold coloured block cells (image previews, charts), as
    /// `{"line":N,"spans":[{"text":…,"fg":"#rrggbb","bg":"#rrggbb"},…]}`:
    /// `lines` carries their characters, these their colours. Cells of equal
    /// colours are one span; `fg`/`bg` are present only when set.
    private func writeColoredRows(_ canvas: CellCanvas, scratch: OutputBuffer, to out: OutputBuffer) {
        // Only block cells (`.row` items) have colours of their own.
        guard !canvas.blockCells.isEmpty else { return }
        let colored: Style = [.customForeground, .customBackground]
        var first = true
        let bytes = canvas.bytes.elements
        for (index, line) in canvas.outputLines.elements.enumerated() {
            let pieces = Int(line.firstPiece)..<Int(line.endPiece)
            guard pieces.contains(where: { !canvas.pieces[$0].style.isDisjoint(with: colored) }) else { continue }
            out.append(contentsOf: first ? "{\"line\":\(index),\"spans\":[" : ",{\"line\":\(index),\"spans\":[")
            first = false
            var position = pieces.lowerBound
            var firstSpan = true
            while position < pieces.upperBound {
                let piece = canvas.pieces[position]
                scratch.removeAll()
                var next = position
                while next < pieces.upperBound, Self.sameColors(canvas.pieces[next], piece) {
                    let each = canvas.pieces[next]
                    if each.start < 0 {
                        scratch.appendSpaces(Int(each.width))
                    } else {
                        scratch.append(UnsafeBufferPointer(rebasing: bytes[Int(each.start)..<Int(each.end)]))
                    }
                    next += 1
                }
                out.append(firstSpan ? "{\"text\":" : ",{\"text\":")
                firstSpan = false
                scratch.withBytes { JSONText.appendString($0, to: out) }
                if piece.style.contains(.customForeground) { out.append(contentsOf: ",\"fg\":\"\(Self.hex(piece.foreground))\"") }
                if piece.style.contains(.customBackground) { out.append(contentsOf: ",\"bg\":\"\(Self.hex(piece.background))\"") }
                out.append("}")
                position = next
            }
            out.append("]}")
        }
    }

    private static func sameColors(_ a: Piece, _ b: Piece) -> Bool {
        let colored: Style = [.customForeground, .customBackground]
        return a.style.intersection(colored) == b.style.intersection(colored)
            && (!a.style.contains(.customForeground) || a.foreground == b.foreground)
            && (!a.style.contains(.customBackground) || a.background == b.background)
    }

    private static func hex(_ color: UInt32) -> String {
        let digits = String(color & 0xFF_FFFF, radix: 16)
        return "#" + String(repeating: "0", count: 6 - digits.count) + digits
    }
}

/// The `class` and `plugin` members of `--format json` for each class,
/// escaped the first time the class renders a message. Used from the
/// output thread only.
private final class ClassFields {
    /// Keyed by the class's identity; the class is kept, so the identity
    /// is not reused while the entry exists.
    private var known: [ObjectIdentifier: (cls: RuntimeClass, bytes: [UInt8])] = [:]

    /// The entry used last: runs of messages of one class skip the hash.
    private var last: (cls: RuntimeClass, bytes: [UInt8])?

    func append(_ cls: RuntimeClass, to out: OutputBuffer) {
        if let last, last.cls === cls {
            last.bytes.withUnsafeBufferPointer { out.append($0) }
            return
        }
        let key = ObjectIdentifier(cls)
        let entry = known[key] ?? {
            let fields = OutputBuffer(fd: -1)
            fields.append(",\"class\":")
            JSONText.append(cls.name, to: fields)
            fields.append(",\"plugin\":")
            JSONText.append(cls.pluginID, to: fields)
            known[key] = (cls, fields.bytes)
            return (cls, fields.bytes)
        }()
        last = entry
        entry.bytes.withUnsafeBufferPointer { out.append($0) }
    }
}

/// JSON string escaping for output.
enum JSONText {
    static func append(_ value: String?, to out: OutputBuffer) {
        guard var value else { out.append("null"); return }
        value.withUTF8 { appendString($0, to: out) }
    }

    /// Appends a JSON string of valid UTF-8 bytes, escaping quotes,
    /// backslashes and every control character.
    static func appendString(_ bytes: UnsafeBufferPointer<UInt8>, to out: OutputBuffer) {
        out.append(0x22)
        appendEscaped(bytes, to: out)
        out.append(0x22)
    }

    /// Appends the content of a JSON string (no quotes) of valid UTF-8 bytes.
    static func appendEscaped(_ bytes: UnsafeBufferPointer<UInt8>, to out: OutputBuffer) {
        // Bytes that need no escape are copied a run at a time.
        var runStart = 0
        var position = nextEscape(bytes, from: 0)
        while position < bytes.count {
            let byte = bytes[position]
            if position > runStart { out.append(UnsafeBufferPointer(rebasing: bytes[runStart..<position])) }
            runStart = position + 1
            switch byte {
            case 0x22: out.append(0x5C); out.append(0x22)
            case 0x5C: out.append(0x5C); out.append(0x5C)
            case 0x0A: out.append(0x5C); out.append(UInt8(ascii: "n"))
            default:
                let hex: StaticString = "0123456789abcdef"
                out.append("\\u00")
                out.append(hex.utf8Start[Int(byte >> 4)])
                out.append(hex.utf8Start[Int(byte & 0xF)])
            }
            position = nextEscape(bytes, from: position + 1)
        }
        if bytes.count > runStart { out.append(UnsafeBufferPointer(rebasing: bytes[runStart...])) }
    }

    /// The position of the first byte from `start` on that needs an escape
    /// (a control character, `"`, `\` or DEL), or `bytes.count`: eight
    /// bytes at a time, then one at a time.
    @inline(__always)
    static func nextEscape(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        var index = start
        if let base = bytes.baseAddress {
            let ones: UInt64 = 0x0101_0101_0101_0101
            // A byte of `zero(v)` has its high bit set where `v`'s byte is 0;
            // the lowest such byte is exact (borrows only move up).
            @inline(__always) func zero(_ v: UInt64) -> UInt64 { (v &- ones) & ~v }
            while index + 8 <= bytes.count {
                let chunk = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
                let flags = ((chunk &- 0x2020_2020_2020_2020) & ~chunk // below 0x20
                             | zero(chunk ^ 0x2222_2222_2222_2222)
                             | zero(chunk ^ 0x5C5C_5C5C_5C5C_5C5C)
                             | zero(chunk ^ 0x7F7F_7F7F_7F7F_7F7F)) & 0x8080_8080_8080_8080
                if flags != 0 { return index + flags.trailingZeroBitCount >> 3 }
                index += 8
            }
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte < 0x20 || byte == 0x22 || byte == 0x5C || byte == 0x7F { return index }
            index += 1
        }
        return index
    }

    /// A JSON string literal for `value`.
    static func quoted(_ value: String) -> String {
        let buffer = OutputBuffer(fd: -1)
        append(value, to: buffer)
        return String(decoding: buffer.bytes, as: UTF8.self)
    }
}

/// A run of text in one style.
public struct StyledSpan: Equatable, Sendable, CustomStringConvertible {
    /// The text, markers already removed.
    public var text: String
    /// Its style.
    public var style: Style

    /// A span of `text` in `style`.
    public init(_ text: String, _ style: Style = .plain) {
        self.text = text
        self.style = style
    }

    public var description: String { "\(text.debugDescription)[\(style.rawValue)]" }
}

/// Light inline markup as chat apps write it: `*bold*`, `_italic_`,
/// `` `code` ``, bare `http://` / `https://` URLs, and the doubled
/// `**bold**` and `__italic__` of Discord, Matrix and Markdown, with
/// backslash escapes for literal markers.
///
/// The rules, chosen so that ordinary text is never mangled:
///
/// - A marker is a `*`, `_` or `` ` `` standing alone, or exactly two `*` or
///   two `_` (`**`, `__`). It opens only at a word boundary (at the start,
///   or after a character that is not a letter or digit) and before a
///   non-space; it closes only after a non-space and before a word boundary
///   (the end, or a character that is not a letter or digit). So
///   `snake_case_name`, `snake__case`, `2*3*4` and `a * b * c` stay literal.
/// - A marker pairs with the first possible closing marker of the same kind
///   (`*` with `*`, `**` with `**`); a marker with none stays literal. Spans
///   are never empty.
/// - `*x*` and `**x**` are bold (`.strong`); `_x_` and `__x__` are italic
///   (`.emphasis`: there is no underline style, so Discord's underline
///   `__x__` is italic too, and so is `__init__`).
/// - Three or more of the same marker in a row (`***`, `___`), and two or
///   more backticks (```` `` ````), are literal text.
/// - Styles nest: `*bold _and italic_*`. Inside `` `code` `` nothing else is
///   recognised.
/// - A backslash before `*`, `_`, `` ` `` or `\` escapes it: the backslash
///   is dropped and the character is literal. It opens and closes nothing
///   and is no part of a run of markers: `\*not bold\*` is the plain text
///   `*not bold*`, `*a \* b*` is bold `a * b`, `\**x*` is `*` then bold
///   `x`, and `\*\*x\*\*` is `**x**`. Escapes are read left to right, so
///   `\\` is one backslash and `\\*x*` is `\` then bold `x`. A backslash
///   before anything else (`C:\path`, `\n`), or at the end, is kept.
/// - Inside a code span or a URL a backslash is an ordinary character and
///   escapes nothing: `` `a\*b` `` is the code `a\*b`, `` `C:\` `` the code
///   `C:\`, and `https://x.org/a\_b` keeps its backslash.
/// - A URL runs from `http://` or `https://` (at a word boundary) up to
///   whitespace, minus trailing punctuation (`. , ; : ! ? ' "`, markers, and
///   closing brackets that have no opening partner inside the URL). Markers
///   inside a URL are part of it.
///
/// "Character" above means a Swift `Character` (an extended grapheme
/// cluster): a `*` followed by a combining accent is not a marker, and
/// letters, digits and whitespace are told apart by the character's first
/// scalar, exactly as `Character.isLetter`, `isNumber` and `isWhitespace` do.
///
/// Newlines are kept as they are. Work is linear in the length of the text,
/// so hostile input cannot make it slow.
///
/// The parser works on the UTF-8 bytes, never on `Character`s: `parse(_:)`
/// and `plainText(_:)` build `String`s for their results, while
/// `append(_:to:)` and `appendPlainText(_:to:)` hand slices of the text
/// straight to a `CellBuilder`, which is what a renderer should use.
public enum InlineMarkup {
    /// The spans of `text`, adjacent spans of equal style merged.
    public static func parse(_ text: String) -> [StyledSpan] {
        var collector = SpanCollector()
        withUTF8(of: text) { run($0, into: &collector) }
        return collector.spans
    }

    /// `text` with the markup markers and escaping backslashes removed (URLs
    /// and code are kept as they are). The same as joining the texts of
    /// `parse(text)`.
    public static func plainText(_ text: String) -> String {
        withUTF8(of: text) { bytes in
            withPlainText(of: bytes) { String(decoding: $0, as: UTF8.self) }
        }
    }

    /// Appends the spans of `text` (UTF-8) to `cell`, each in its style:
    /// the same appends as
    ///
    /// ```swift
    /// for span in InlineMarkup.parse(String(decoding: text, as: UTF8.self)) {
    ///     cell.append(span.text, style: span.style)
    /// }
    /// ```
    ///
    /// but without building any `String`: the spans are passed to the host
    /// as slices of `text`. Invalid UTF-8 is repaired first, as
    /// `String(decoding:as:)` does.
    public static func append(_ text: UnsafeBufferPointer<UInt8>, to cell: inout CellBuilder) {
        var sink = CellSink(cell: cell)
        run(text, into: &sink)
        cell = sink.cell
    }

    /// `append(_:to:)` for a string the host handed out (`Message.withTextUTF8`,
    /// `withTypeAndTextUTF8`, `utf8`): valid UTF-8 by the ABI's promise, so
    /// its shape is read without validating it (`TextShape(ofHostString:)`).
    /// The same appends as `append(_:to:)` for valid UTF-8.
    ///
    /// A text without any byte that markup needs (`MarkupBytes`, seven
    /// texts in ten) is appended at once, after that one pass over it.
    package static func append(hostString text: UnsafeBufferPointer<UInt8>, to cell: inout CellBuilder) {
        guard MarkupBytes.mayHaveMarkup(text) else { return cell.append(bytes: text, style: .plain) }
        var sink = CellSink(cell: cell)
        run(text, hostString: true, into: &sink)
        cell = sink.cell
    }

    /// `append(_:to:)` for a `String`.
    public static func append(_ text: String, to cell: inout CellBuilder) {
        withUTF8(of: text) { append($0, to: &cell) }
    }

    /// Appends `plainText(text)` to `cell` as one unstyled span (nothing when
    /// it is empty), without building a `String`.
    public static func appendPlainText(_ text: UnsafeBufferPointer<UInt8>, to cell: inout CellBuilder) {
        withPlainText(of: text) { cell.append(bytes: $0, style: .plain) }
    }

    /// `appendPlainText(_:to:)` for a string the host handed out, as
    /// `append(hostString:to:)` is for `append(_:to:)`.
    package static func appendPlainText(hostString text: UnsafeBufferPointer<UInt8>, to cell: inout CellBuilder) {
        guard MarkupBytes.mayHaveMarkup(text) else { return cell.append(bytes: text, style: .plain) }
        withPlainText(of: text, hostString: true) { cell.append(bytes: $0, style: .plain) }
    }

    /// `appendPlainText(_:to:)` for a `String`.
    public static func appendPlainText(_ text: String, to cell: inout CellBuilder) {
        withUTF8(of: text) { appendPlainText($0, to: &cell) }
    }

    // MARK: Driving the parser

    /// Parses `text` and hands its pieces to `sink`, then finishes the sink
    /// (while `text`, or its repaired copy, is still valid). A `hostString`
    /// is one the host handed out (`TextShape(ofHostString:)`).
    static func run<Sink: MarkupSink>(_ text: UnsafeBufferPointer<UInt8>, hostString: Bool = false,
                                      into sink: inout Sink) {
        run(text, hostString ? TextShape(ofHostString: text) : TextShape(of: text), into: &sink)
    }

    /// `run(_:hostString:into:)` for a text whose shape was read already.
    /// A text the shape did not validate (`needsValidation`) is validated
    /// before the parser decodes it: by `MixedUnits.fit`, or before the
    /// grapheme clusters are cut.
    static func run<Sink: MarkupSink>(_ text: UnsafeBufferPointer<UInt8>, _ shape: TextShape, into sink: inout Sink) {
        if !shape.isValidUTF8 {
            runRepaired(text, into: &sink)
        } else if !shape.hasMarkup {
            // No marker and no `://` (so no URL): one plain span, as the parser would find.
            if !text.isEmpty { sink.emit(text, 0, text.count, .plain) }
            sink.finish(text)
        } else if !shape.needsGraphemes {
            MarkupParser.run(ASCIIUnits(text), shape, into: &sink)
            sink.finish(text)
        } else {
            switch MixedUnits.fit(text, shape) {
            case .bytes:
                // Non-ASCII, but every ASCII byte is a cluster: parsed by bytes.
                MarkupParser.run(MixedUnits(text), shape, into: &sink)
                sink.finish(text)
            case .graphemes where !shape.needsValidation || UTF8Scalar.isValid(text):
                GraphemeUnits.with(text) { MarkupParser.run($0, shape, into: &sink) }
                sink.finish(text)
            case .graphemes, .invalidUTF8:
                runRepaired(text, into: &sink)
            }
        }
    }

    /// Repairs `text` as `String(decoding:as:)` does, then parses the
    /// repaired copy.
    private static func runRepaired<Sink: MarkupSink>(_ text: UnsafeBufferPointer<UInt8>, into sink: inout Sink) {
        var repaired = String(decoding: text, as: UTF8.self)
        repaired.withUTF8 { run($0, into: &sink) }
    }

    /// Calls `body` with the plain text of `text`: the text itself when
    /// nothing is removed, else a copy without the markers (on the stack
    /// when it is small). `hostString` as for `run`.
    static func withPlainText<R>(of text: UnsafeBufferPointer<UInt8>, hostString: Bool = false,
                                 _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        let shape = hostString ? TextShape(ofHostString: text) : TextShape(of: text)
        if shape.isValidUTF8, !shape.hasMarkup { return body(text) }
        // The plain text is never longer than the text, or than its repaired
        // copy: U+FFFD (3 bytes) replaces at least one byte, and at most 3.
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 3 * text.count) { buffer in
            var sink = CopySink(buffer: buffer)
            run(text, shape, into: &sink)
            return body(UnsafeBufferPointer(rebasing: buffer[..<sink.count]))
        }
    }

    /// Calls `body` with the UTF-8 bytes of `text`.
    static func withUTF8<R>(of text: String, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if let result = text.utf8.withContiguousStorageIfAvailable(body) { return result }
        var copy = text
        return copy.withUTF8(body)
    }
}

// MARK: - Sinks

/// Receives what the parser finds: pieces of the text, in order, each a
/// non-empty byte range `start..<end` of `text` with its style. Consecutive
/// pieces of equal style belong to one span (they may be non-adjacent in the
/// text, when markers between them were removed); the sink merges them.
protocol MarkupSink {
    mutating func emit(_ text: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int, _ style: Style)
    /// No more pieces. `text` is still valid during this call.
    mutating func finish(_ text: UnsafeBufferPointer<UInt8>)
}

/// Builds `[StyledSpan]`, for `InlineMarkup.parse`.
struct SpanCollector: MarkupSink {
    var spans: [StyledSpan] = []

    mutating func emit(_ text: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int, _ style: Style) {
        let piece = String(decoding: UnsafeBufferPointer(rebasing: text[start..<end]), as: UTF8.self)
        if let last = spans.last, last.style == style {
            spans[spans.count - 1].text += piece
        } else {
            spans.append(StyledSpan(piece, style))
        }
    }

    mutating func finish(_ text: UnsafeBufferPointer<UInt8>) {}
}

/// Appends each span to a `CellBuilder` as a slice of the text. A span made
/// of non-adjacent pieces (one with an escape: `a\*b` gives "a*b"; or, rarely,
/// `*a _b_*_*c*_`, one strong-and-italic span "bc") is joined in a buffer
/// first, which is allocated once per text (when needed) and reused for
/// later spans.
struct CellSink: MarkupSink {
    var cell: CellBuilder
    /// The span being collected: a byte range of the text, unless `isJoined`.
    var hasPending = false
    var pendingStart = 0
    var pendingEnd = 0
    var pendingStyle = Style.plain
    /// The span's bytes in `joined`, once it is made of non-adjacent pieces.
    var isJoined = false
    var joined: [UInt8]?

    init(cell: CellBuilder) { self.cell = cell }

    mutating func emit(_ text: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int, _ style: Style) {
        if hasPending, style == pendingStyle {
            if !isJoined, start == pendingEnd {
                pendingEnd = end
                return
            }
            join(text, start, end)
            return
        }
        flush(text)
        hasPending = true
        pendingStart = start
        pendingEnd = end
        pendingStyle = style
    }

    /// Adds a piece that does not follow on from the pending span (kept out
    /// of `emit`, so that `emit` stays small enough to inline).
    @inline(never)
    private mutating func join(_ text: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) {
        if !isJoined {
            if joined == nil {
                // No span is longer than the text: one allocation.
                joined = []
                joined!.reserveCapacity(text.count)
            }
            joined!.removeAll(keepingCapacity: true)
            joined!.append(contentsOf: UnsafeBufferPointer(rebasing: text[pendingStart..<pendingEnd]))
            isJoined = true
        }
        joined!.append(contentsOf: UnsafeBufferPointer(rebasing: text[start..<end]))
    }

    mutating func finish(_ text: UnsafeBufferPointer<UInt8>) { flush(text) }

    private mutating func flush(_ text: UnsafeBufferPointer<UInt8>) {
        guard hasPending else { return }
        if isJoined, let joined {
            joined.withUnsafeBufferPointer { cell.append(bytes: $0, style: pendingStyle) }
            isJoined = false
        } else {
            cell.append(bytes: UnsafeBufferPointer(rebasing: text[pendingStart..<pendingEnd]), style: pendingStyle)
        }
        hasPending = false
    }
}

/// Copies every piece, whatever its style, into a buffer: the plain text.
struct CopySink: MarkupSink {
    let buffer: UnsafeMutableBufferPointer<UInt8>
    var count = 0

    mutating func emit(_ text: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int, _ style: Style) {
        let length = end - start
        guard let source = text.baseAddress, let target = buffer.baseAddress, count + length <= buffer.count else {
            return
        }
        (target + count).update(from: source + start, count: length)
        count += length
    }

    mutating func finish(_ text: UnsafeBufferPointer<UInt8>) {}
}

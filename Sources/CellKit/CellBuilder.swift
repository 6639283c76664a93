internal import CellHostABI

/// A colour as 0xRRGGBB.
public struct RGB: Hashable, Sendable {
    /// The colour as 0xRRGGBB.
    public var value: UInt32

    /// A colour from 0xRRGGBB (bits above 24 are ignored).
    public init(_ value: UInt32) { self.value = value & 0xFF_FFFF }

    /// A colour from its red, green and blue components.
    public init(red: UInt8, green: UInt8, blue: UInt8) {
        value = UInt32(red) << 16 | UInt32(green) << 8 | UInt32(blue)
    }
}

/// One terminal cell of a preformatted row (image previews, bar charts).
public struct BlockCell: Hashable, Sendable {
    /// The character: printable and one column wide, or the host shows U+FFFD.
    public var scalar: Unicode.Scalar
    /// Foreground colour, or `nil` for the terminal's default.
    public var foreground: RGB?
    /// Background colour, or `nil` for the terminal's default.
    public var background: RGB?

    /// A cell showing `scalar` in the given colours.
    public init(_ scalar: Unicode.Scalar, foreground: RGB? = nil, background: RGB? = nil) {
        self.scalar = scalar
        self.foreground = foreground
        self.background = background
    }
}

/// The content being built for one message.
///
/// A cell never writes bytes to the terminal. It appends styled text, line
/// breaks and preformatted rows; the host sanitizes every string (escape
/// sequences removed, control and bidi characters made visible), wraps text
/// to the content width, draws the chrome and encodes the result. What a cell
/// appended is discarded when it declines or fails.
///
/// Valid only during the renderer call that received it.
public struct CellBuilder {
    let handle: OpaquePointer
    /// The host's `cellhost.builder` functions; `nil` makes every append a no-op.
    let api: UnsafePointer<cellhost_builder_api>?

    /// True once anything was appended (text, a line break or a row).
    public private(set) var isEmpty = true

    init(handle: OpaquePointer, host: Host) {
        self.handle = handle
        api = host.extensions.builder
    }

    /// Appends `text` in `style`. `"\n"` inside the text is a line break; the
    /// host wraps long lines, so append whole paragraphs. Appending `""` does
    /// nothing.
    public mutating func append(_ text: String, style: Style = .plain) {
        guard !text.isEmpty else { return }
        let done = text.utf8.withContiguousStorageIfAvailable { append(bytes: $0, style: style) } != nil
        guard !done else { return }
        var text = text
        text.withUTF8 { append(bytes: $0, style: style) }
    }

    /// Appends UTF-8 `text` in `style`, exactly as `append(_:style:)` does
    /// with a `String` of those bytes, but without making one: use it for
    /// bytes read with `Message.withTextUTF8` or `Message.withUTF8(_:_:)`.
    /// The host copies the bytes before it returns, and sanitizes them
    /// (invalid UTF-8 is replaced). Appending no bytes does nothing.
    public mutating func append(utf8 text: UnsafeBufferPointer<UInt8>, style: Style = .plain) {
        append(bytes: text, style: style)
    }

    /// The fast path every append takes: the bytes go straight to the
    /// host's `append`.
    @inline(__always)
    mutating func append(bytes: UnsafeBufferPointer<UInt8>, style: Style) {
        guard let base = bytes.baseAddress, bytes.count > 0, let api else { return }
        api.pointee.append(handle, UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self), bytes.count, style.rawValue)
        isEmpty = false
    }

    /// Ends the current line. Two in a row give an empty line; a break after
    /// the last line is not needed.
    public mutating func lineBreak() {
        api?.pointee.line_break(handle)
        isEmpty = false
    }

    /// Appends one preformatted row. It is never wrapped: the host cuts it at
    /// the content width (`RenderContext.width`).
    public mutating func appendRow(_ cells: [BlockCell]) {
        guard let api else { return }
        let raw = cells.map { cell -> cellhost_block_cell in
            var flags: UInt32 = 0
            if cell.foreground != nil { flags |= UInt32(CELLHOST_BLOCK_HAS_FG) }
            if cell.background != nil { flags |= UInt32(CELLHOST_BLOCK_HAS_BG) }
            return cellhost_block_cell(codepoint: cell.scalar.value,
                                       fg: cell.foreground?.value ?? 0,
                                       bg: cell.background?.value ?? 0,
                                       flags: flags)
        }
        raw.withUnsafeBufferPointer { api.pointee.append_row(handle, $0.baseAddress, $0.count) }
        isEmpty = false
    }
}

/// Semantic text styles, combinable as a set.
///
/// The host maps each style to colours and attributes for the terminal and
/// drops them for plain output, so a cell says *what* a span is (a link, a
/// title, secondary information), never which colour it has. The raw values
/// are exactly the bits of the C contract's `cellhost_style_bits` (builder.h).
public struct Style: OptionSet, Hashable, Sendable {
    /// The C `cellhost_style_bits` value.
    public let rawValue: UInt32

    /// Creates a style from C `cellhost_style_bits`.
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Ordinary text (no bits set).
    public static let plain: Style = []
    /// Bold (`CELLHOST_STYLE_STRONG`).
    public static let strong = Style(rawValue: 1 << 0)
    /// Italic (`CELLHOST_STYLE_EMPHASIS`).
    public static let emphasis = Style(rawValue: 1 << 1)
    /// Inline code (`CELLHOST_STYLE_CODE`).
    public static let code = Style(rawValue: 1 << 2)
    /// A URL (`CELLHOST_STYLE_LINK`).
    public static let link = Style(rawValue: 1 << 3)
    /// Secondary information such as sizes and dimensions (`CELLHOST_STYLE_MUTED`).
    public static let muted = Style(rawValue: 1 << 4)
    /// Titles, icons and bars (`CELLHOST_STYLE_ACCENT`).
    public static let accent = Style(rawValue: 1 << 5)
    /// A good state (`CELLHOST_STYLE_SUCCESS`).
    public static let success = Style(rawValue: 1 << 6)
    /// A state worth attention (`CELLHOST_STYLE_WARNING`).
    public static let warning = Style(rawValue: 1 << 7)
    /// A bad state (`CELLHOST_STYLE_ERROR`).
    public static let error = Style(rawValue: 1 << 8)
    /// Quoted text (`CELLHOST_STYLE_QUOTE`).
    public static let quote = Style(rawValue: 1 << 9)
}

/// What `render(_:into:context:)` answers.
public enum RenderOutcome: Equatable, Sendable {
    /// The builder holds the cell's content; the host lays it out.
    case rendered
    /// Not this cell's message (say, the payload it needs is absent). The host
    /// discards what was appended and tries the next candidate: another cell
    /// for the same message class, then the parent class's cells, finally
    /// `UnknownMessageCell`.
    case declined
    /// The cell failed (say, a malformed payload). CellKit logs the reason
    /// through the host at error level (it appears on stderr and in
    /// `--format json`); the host then discards what was appended and tries
    /// the next candidate, as for a decline.
    case error(String)
}

/// Who a plugin is: the descriptor fields `cellhost list-plugins` shows.
public struct PluginInfo: Sendable {
    /// Unique id, reverse-DNS (`"org.example.gif"`) or a short name.
    /// Non-empty; only `[A-Za-z0-9._-]`, or the host refuses the plugin.
    public var id: String
    /// The plugin's own version, e.g. `"1.2.0"`. Non-empty.
    public var version: String
    /// One line saying what it renders.
    public var description: String?
    /// Who wrote it.
    public var author: String?
    /// An SPDX license identifier such as `"MIT"`.
    public var license: String?

    /// Describes a plugin.
    public init(id: String, version: String, description: String? = nil,
                author: String? = nil, license: String? = nil) {
        self.id = id
        self.version = version
        self.description = description
        self.author = author
        self.license = license
    }
}

/// A cell class written in Swift: one type that renders one or more message
/// classes, exported from a plugin with `export(_:)`.
///
/// CellKit turns the type into a C `cellhost_class` (its name, superclass,
/// message classes, rank and method list) and registers C functions that
/// forward to it, so no Swift type crosses the plugin contract. The host
/// creates one instance of each class per conversation; CellKit keeps one
/// value of your type per host instance, so stored properties are
/// per-conversation state. A type without stored properties has no state to
/// keep, and CellKit then uses one shared value instead (made with `init()`
/// on first use and again in `conversationWillBegin`). All calls come from
/// one thread at a time.
///
/// Only `plugin`, `className`, `messageClasses`, `init()` and `render` are
/// required; everything else has a default.
public protocol MessageCellRenderer {
    /// The plugin this class belongs to. `export(_:)` takes the plugin's id,
    /// version, description, author and license from the *first* type it
    /// is given; the other types' values are not used.
    static var plugin: PluginInfo { get }

    /// The class name, unique across all plugins (e.g. `"GifMessageCell"`),
    /// shown by `cellhost list-plugins` and named by `--renderer TYPE=CLASS`
    /// and by subclasses. Printable ASCII without spaces.
    static var className: String { get }

    /// The superclass: a host class (`"MessageCell"`, `"UnknownMessageCell"`)
    /// or a class of any plugin. Selectors this class does not implement are
    /// looked up there, and `plainText(for:)` returning `nil` runs the
    /// superclass's version. Default: `"MessageCell"`, whose render shows the
    /// message's `text`.
    static var superclassName: String { get }

    /// The message classes this class registers for, like
    /// `registerClass:forMessageClass:` (e.g. `["gif"]`). May be empty: such a
    /// class can still be a superclass or a `--renderer` override target.
    static var messageClasses: [String] { get }

    /// Rank among the candidates for each of its message classes: the highest
    /// wins; on equal rank the later registration wins (a plugin in the
    /// user's directory beats the shipped one). Default: 0, as shipped
    /// plugins use.
    static var rank: Int32 { get }

    /// Message classes this plugin adds to the host's tree, as (name, parent)
    /// pairs; a `nil` parent makes a root. A message whose class has no cell
    /// falls back to its parent's cells, so `("gif", "image")` shows GIFs with
    /// the image cell when no GIF cell can. Default: none.
    static var declaredMessageClasses: [(name: String, parent: String?)] { get }

    /// Creates the per-conversation state. Called lazily on the first call for
    /// a host instance, and again in `conversationWillBegin`.
    init()

    /// Renders one message into `cell`.
    ///
    /// - Parameters:
    ///   - message: The message; valid only during this call.
    ///   - cell: Where the content goes; append spans, line breaks and rows.
    ///     The host wraps text to `context.width`.
    ///   - context: The width, the message class rendered as, colour and direction.
    /// - Returns: `.rendered`, `.declined` (the next candidate is tried), or
    ///   `.error(reason)` (logged at error level, then the next candidate).
    mutating func render(_ message: Message, into cell: inout CellBuilder,
                         context: RenderContext) -> RenderOutcome

    /// A quick check before rendering; `false` is a decline. Default: `true`
    /// (deciding in `render` is as good, and usually simpler).
    func canRender(_ message: Message, context: RenderContext) -> Bool

    /// A one-line plain-text summary of the message, for previews and reply
    /// quotes, or `nil` for the superclass's summary (the host's
    /// `MessageCell` uses the message's `text`). Default: `nil`.
    func plainText(for message: Message) -> String?

    /// `plainText(for:)`, appended straight to `cell`: this is what
    /// CellKit calls for `plainTextForMessage:into:`. Append the summary as
    /// unstyled text and return `true`, or return `false` without appending
    /// anything for the superclass's summary. Default: appends
    /// `plainText(for:)` unless it is `nil`. Implement it only to avoid
    /// building a `String` (e.g. with `InlineMarkup.appendPlainText`); it
    /// must then agree with `plainText(for:)`.
    func plainText(for message: Message, into cell: inout CellBuilder) -> Bool

    /// A conversation (one `cellhost render` run, or one embedding session)
    /// begins. CellKit has just created a fresh value with `init()`; reset
    /// anything else here. Default: nothing.
    mutating func conversationWillBegin()

    /// The conversation ends; CellKit drops this value afterwards. Default: nothing.
    mutating func conversationDidEnd()
}

extension MessageCellRenderer {
    public static var superclassName: String { "MessageCell" }
    public static var rank: Int32 { 0 }
    public static var declaredMessageClasses: [(name: String, parent: String?)] { [] }
    public func canRender(_ message: Message, context: RenderContext) -> Bool { true }
    public func plainText(for message: Message) -> String? { nil }
    public func plainText(for message: Message, into cell: inout CellBuilder) -> Bool {
        guard let text = plainText(for: message) else { return false }
        cell.append(text)
        return true
    }
    public mutating func conversationWillBegin() {}
    public mutating func conversationDidEnd() {}
}

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
    /// The plugin's classes may be called from several threads at once
    /// (CELLHOST_PLUGIN_THREAD_SAFE): each call on its own message, so the
    /// host renders messages in parallel. Declare it only when whatever your
    /// renderers share (statics, caches, files) is guarded. CellKit sets
    /// the descriptor flag only when every exported type is stateless (has
    /// no stored properties); otherwise it logs a warning at `init` and the
    /// host calls the plugin from one thread.
    public var threadSafe: Bool

    /// Describes a plugin.
    public init(id: String, version: String, description: String? = nil,
                author: String? = nil, license: String? = nil, threadSafe: Bool = false) {
        self.id = id
        self.version = version
        self.description = description
        self.author = author
        self.license = license
        self.threadSafe = threadSafe
    }
}

/// A cell class written in Swift: one type that renders one or more message
/// classes, exported from a plugin with `export(_:)`.
///
/// CellKit turns the type into a C `cellhost_class` (its name, superclass,
/// message classes, rank and method list) and gives the host one C function
/// per method, bound to this type, so no Swift type crosses the plugin
/// contract. The host creates one instance of each class per conversation;
/// CellKit keeps one value of your type per host instance, in the class's
/// own instance variables, so stored properties are per-conversation state.
/// A type without stored properties has no state to keep, and CellKit then
/// uses one shared value instead. All calls come from one thread at a time,
/// unless the plugin declares `PluginInfo.threadSafe` (stateless types only):
/// then calls on different messages may run on several threads at once.
///
/// The class implements only `renderMessage:context:into:`. The optional
/// selectors are registered only for a type that adopts their protocol, so
/// whatever a type does not implement is inherited from its superclass,
/// exactly as in Objective-C:
///
/// | protocol | selector |
/// | --- | --- |
/// | `RenderPrechecking` | `canRenderMessage:context:` |
/// | `PlainTextSummarizing` | `plainTextForMessage:context:into:` |
/// | `ConversationObserving` | `conversationWillBegin:`, `conversationDidEnd:` |
///
/// Implementing `canRender`, `plainText` or the conversation hooks without
/// adopting the protocol compiles, but the host never calls them.
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
    /// or a class of any plugin, C or Swift. Selectors this class does not
    /// implement are looked up there. Default: `"MessageCell"`, whose render
    /// shows the message's `text`.
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

    /// Sample messages, each a JSON object in CellHost's input schema
    /// (`{"type":"gif","text":"…","gif":{…}}`), that `cellhost check-plugin`
    /// renders with the plugin's classes: give the payloads your cell really
    /// reads, including the odd ones. The samples of every exported type are
    /// offered together as the plugin's `cellhost.samples` extension (the
    /// host reads at most 256, each at most 64 KiB). Default: none.
    static var samples: [String] { get }

    /// Creates the per-conversation state. Called lazily on the first call for
    /// a host instance (and in `conversationWillBegin` for a
    /// `ConversationObserving` type).
    init()

    /// Renders one message into `cell`.
    ///
    /// - Parameters:
    ///   - message: The message; valid only during this call.
    ///   - cell: Where the content goes; append spans, line breaks and rows.
    ///     The host wraps text to `context.width`.
    ///   - context: The width, the message class rendered as, colour,
    ///     direction and base directory; `context.renderSuper` draws the
    ///     superclass's content.
    /// - Returns: `.rendered`, `.declined` (the next candidate is tried), or
    ///   `.error(reason)` (logged at error level, then the next candidate).
    mutating func render(_ message: Message, into cell: inout CellBuilder,
                         context: RenderContext) -> RenderOutcome
}

extension MessageCellRenderer {
    public static var superclassName: String { "MessageCell" }
    public static var rank: Int32 { 0 }
    public static var declaredMessageClasses: [(name: String, parent: String?)] { [] }
    public static var samples: [String] { [] }
}

/// A renderer with a quick check before rendering
/// (`canRenderMessage:context:`). Without it the superclass's check, if any,
/// applies (the host's `MessageCell` has none: every message may be tried).
public protocol RenderPrechecking: MessageCellRenderer {
    /// `false` declines the message without rendering it (the next candidate
    /// is tried). `context.canRenderSuper(message)` asks the superclass.
    func canRender(_ message: Message, context: RenderContext) -> Bool
}

/// A renderer with its own one-line plain-text summary, for the quote of a
/// reply (`plainTextForMessage:context:into:`). Without it the superclass's
/// summary applies (the host's `MessageCell` uses the message's `text`).
public protocol PlainTextSummarizing: MessageCellRenderer {
    /// The summary, or `nil` for the superclass's (CellKit then returns
    /// `CELLHOST_DECLINED`, which tells the host to use the superclass's).
    func plainText(for message: Message, context: RenderContext) -> String?

    /// `plainText(for:context:)`, appended straight to `cell`: this is what
    /// CellKit calls. Append the summary as unstyled text and return `true`,
    /// or return `false` without appending anything for the superclass's
    /// summary. Default: appends `plainText(for:context:)` unless it is
    /// `nil`. Implement it only to avoid building a `String` (e.g. with
    /// `InlineMarkup.appendPlainText`); it must agree with
    /// `plainText(for:context:)`.
    func plainText(for message: Message, context: RenderContext, into cell: inout CellBuilder) -> Bool
}

extension PlainTextSummarizing {
    public func plainText(for message: Message, context: RenderContext, into cell: inout CellBuilder) -> Bool {
        guard let text = plainText(for: message, context: context) else { return false }
        cell.append(text)
        return true
    }
}

/// A renderer that wants to know when a conversation (one `cellhost render`
/// run, or one embedding session) begins and ends
/// (`conversationWillBegin:`, `conversationDidEnd:`).
///
/// These are notifications, not overrides: CellKit always passes them on to
/// the superclass as well (with `send_super`; at the beginning the
/// superclass first, at the end yours first), so a Swift class never hides
/// its superclass's hooks, and never needs to call super itself.
public protocol ConversationObserving: MessageCellRenderer {
    /// A conversation begins. CellKit has just created a fresh value with
    /// `init()`; reset anything else here. Default: nothing.
    mutating func conversationWillBegin()

    /// The conversation ends; CellKit drops this value afterwards. Default: nothing.
    mutating func conversationDidEnd()
}

extension ConversationObserving {
    public mutating func conversationWillBegin() {}
    public mutating func conversationDidEnd() {}
}

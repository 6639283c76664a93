// TextCell: the shipped renderer for "text" messages.
//
// Renders the message's text with light inline markup (see InlineMarkup in
// CellKit): *bold* or **bold**, _italic_ or __italic__, `code` and bare
// http(s) URLs as links. Markers count only at word boundaries, so
// snake_case_name and 2*3*4 stay literal; a backslash before * _ ` or \
// makes it literal and is not shown (\*not bold\*), except inside code and
// URLs. Newlines are kept; the host wraps.
import CellKit

/// `TextMessageCell`, registered for `text`.
public struct TextCell: MessageCellRenderer, PlainTextSummarizing {
    public static let plugin = PluginInfo(
        id: "org.cellhost.text", version: "1.0.0",
        description: "Text messages with *bold*, _italic_, `code` and links",
        author: "CellHost", license: "MIT", threadSafe: true) // stateless; CellKit's markup helpers share nothing
    public static let className = "TextMessageCell"
    public static let messageClasses = ["text"]
    public static let samples = [
        #"{"type":"text","id":"s-1","text":"Meet at *10:30* by the _north_ entrance, details: https://example.org/plan?day=2"}"#,
        #"{"type":"text","id":"s-2","text":"Run `swift build -c release`\nthen copy snake_case_name.so; 2*3*4 stays literal"}"#,
        #"{"type":"text","id":"s-3","text":"Ünïcödé ✨ *wörds* and 👩‍💻 emoji _mixed_ in"}"#,
    ]

    public init() {}

    /// The text as styled spans; declined when there is no text.
    ///
    /// The text is read as the host's bytes and its spans are appended as
    /// slices of them: no `String` is made.
    public mutating func render(_ message: Message, into cell: inout CellBuilder,
                                context: RenderContext) -> RenderOutcome {
        message.withTextUTF8 { text in
            guard !text.isEmpty else { return .declined }
            InlineMarkup.append(hostString: text, to: &cell)
            return .rendered
        }
    }

    /// The text without markup markers; the superclass's summary when empty.
    public func plainText(for message: Message, context: RenderContext) -> String? {
        let text = message.text
        return text.isEmpty ? nil : InlineMarkup.plainText(text)
    }

    /// `plainText(for:context:)` without making `String`s (this is what the host's
    /// reply previews call).
    public func plainText(for message: Message, context: RenderContext, into cell: inout CellBuilder) -> Bool {
        message.withTextUTF8 { text in
            guard !text.isEmpty else { return false }
            InlineMarkup.appendPlainText(hostString: text, to: &cell)
            return true
        }
    }
}

@c(cellhost_plugin_entry)
public func cellhostPluginEntry() -> UnsafeRawPointer? { CellKit.export(TextCell.self) }

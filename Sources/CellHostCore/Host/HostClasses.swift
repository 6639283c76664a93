import CellHostABI

/// The host's own cell classes, implemented in the host and dispatched like
/// any plugin's: `MessageCell`, the root every cell class inherits from, and
/// `UnknownMessageCell`, which ends every fallback chain.
enum HostClasses {
    /// The plugin id the host's classes are listed under.
    static let pluginID = "cellhost"
    /// `MessageCell` registers for `text` below every plugin, so text always renders.
    static let messageCellRank: Int32 = -100

    typealias Description = ClassDescription.MethodDescription

    static func address<T>(_ function: T) -> UInt {
        UInt(bitPattern: unsafeBitCast(function, to: UnsafeRawPointer.self))
    }

    // MARK: MessageCell

    /// Renders the message's `text`; declines when there is none.
    static let messageCellRender: Dispatcher.RenderIMP = { _, _, message, _, builder in
        guard let message = Message.from(message), let canvas = BuilderHandle.canvas(builder),
              let text = message.text, !text.isEmpty else { return Int32(CELLHOST_DECLINED) }
        canvas.append(text, style: [])
        return Int32(CELLHOST_RENDERED)
    }

    /// The message's `text`, or its type in brackets.
    static let messageCellPlainText: Dispatcher.PlainTextIMP = { _, _, message, _, builder in
        guard let message = Message.from(message), let canvas = BuilderHandle.canvas(builder) else {
            return Int32(CELLHOST_ERROR)
        }
        if let text = message.text, !text.isEmpty {
            canvas.append(text, style: [])
        } else {
            canvas.append("[\(message.typeIsMissing ? "message" : message.type)]", style: [])
        }
        return Int32(CELLHOST_RENDERED)
    }

    static var messageCellMethods: [Description] {
        [
            Description(selector: WellKnownSelector.render.rawValue, types: CELLHOST_TYPES_RENDER, imp: address(messageCellRender)),
            Description(selector: WellKnownSelector.plainText.rawValue, types: CELLHOST_TYPES_PLAIN_TEXT, imp: address(messageCellPlainText)),
        ]
    }

    // MARK: UnknownMessageCell

    /// Never declines: shows the type, then the text when there is one.
    static let unknownCellRender: Dispatcher.RenderIMP = { _, _, message, _, builder in
        guard let message = Message.from(message), let canvas = BuilderHandle.canvas(builder) else {
            return Int32(CELLHOST_ERROR)
        }
        if message.typeIsMissing {
            canvas.append("Message without a usable type", style: [.muted, .emphasis])
        } else {
            canvas.append("Unsupported message type “", style: [.muted, .emphasis])
            canvas.append(message.type, style: [.muted, .emphasis, .strong])
            canvas.append("”", style: [.muted, .emphasis])
        }
        if let text = message.text, !text.isEmpty {
            canvas.lineBreak()
            canvas.append(text, style: [])
        }
        return Int32(CELLHOST_RENDERED)
    }

    static var unknownCellMethods: [Description] {
        [Description(selector: WellKnownSelector.render.rawValue, types: CELLHOST_TYPES_RENDER, imp: address(unknownCellRender))]
    }
}

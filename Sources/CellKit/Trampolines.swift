internal import CellHostABI

// C functions cannot capture, so a C method cannot know which Swift type it
// belongs to unless that is fixed when it is compiled. CellKit therefore
// keeps a fixed pool of trampolines: slot i's functions pass the literal i
// to Dispatch, which looks up the type registered in slot i. The pool size
// is the limit on classes per plugin.

/// `renderMessage:context:into:`, `CELLHOST_TYPES_RENDER`.
typealias RenderIMP = @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, OpaquePointer?,
                                      UnsafePointer<cellhost_context>?, OpaquePointer?) -> Int32
/// `canRenderMessage:context:`, `CELLHOST_TYPES_CAN_RENDER`.
typealias CanRenderIMP = @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, OpaquePointer?,
                                         UnsafePointer<cellhost_context>?) -> Bool
/// `plainTextForMessage:into:`, `CELLHOST_TYPES_PLAIN_TEXT`.
typealias PlainTextIMP = @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, OpaquePointer?,
                                         OpaquePointer?) -> Int32
/// `conversationWillBegin:` and `conversationDidEnd:`, `CELLHOST_TYPES_CONVERSATION`.
typealias ConversationIMP = @convention(c) (OpaquePointer?, UnsafePointer<CChar>?,
                                            UnsafePointer<cellhost_context>?) -> Void

/// The trampolines, one entry per slot in each table.
enum Trampolines {
    /// How many classes one plugin can export.
    static let capacity = 8

    static let render: [RenderIMP] = [
        { Dispatch.render(0, $0, $2, $3, $4) },
        { Dispatch.render(1, $0, $2, $3, $4) },
        { Dispatch.render(2, $0, $2, $3, $4) },
        { Dispatch.render(3, $0, $2, $3, $4) },
        { Dispatch.render(4, $0, $2, $3, $4) },
        { Dispatch.render(5, $0, $2, $3, $4) },
        { Dispatch.render(6, $0, $2, $3, $4) },
        { Dispatch.render(7, $0, $2, $3, $4) },
    ]
    static let canRender: [CanRenderIMP] = [
        { Dispatch.canRender(0, $0, $2, $3) },
        { Dispatch.canRender(1, $0, $2, $3) },
        { Dispatch.canRender(2, $0, $2, $3) },
        { Dispatch.canRender(3, $0, $2, $3) },
        { Dispatch.canRender(4, $0, $2, $3) },
        { Dispatch.canRender(5, $0, $2, $3) },
        { Dispatch.canRender(6, $0, $2, $3) },
        { Dispatch.canRender(7, $0, $2, $3) },
    ]
    static let plainText: [PlainTextIMP] = [
        { Dispatch.plainText(0, $0, $2, $3) },
        { Dispatch.plainText(1, $0, $2, $3) },
        { Dispatch.plainText(2, $0, $2, $3) },
        { Dispatch.plainText(3, $0, $2, $3) },
        { Dispatch.plainText(4, $0, $2, $3) },
        { Dispatch.plainText(5, $0, $2, $3) },
        { Dispatch.plainText(6, $0, $2, $3) },
        { Dispatch.plainText(7, $0, $2, $3) },
    ]
    static let willBegin: [ConversationIMP] = [
        { o, _, _ in Dispatch.conversationWillBegin(0, o) },
        { o, _, _ in Dispatch.conversationWillBegin(1, o) },
        { o, _, _ in Dispatch.conversationWillBegin(2, o) },
        { o, _, _ in Dispatch.conversationWillBegin(3, o) },
        { o, _, _ in Dispatch.conversationWillBegin(4, o) },
        { o, _, _ in Dispatch.conversationWillBegin(5, o) },
        { o, _, _ in Dispatch.conversationWillBegin(6, o) },
        { o, _, _ in Dispatch.conversationWillBegin(7, o) },
    ]
    static let didEnd: [ConversationIMP] = [
        { o, _, _ in Dispatch.conversationDidEnd(0, o) },
        { o, _, _ in Dispatch.conversationDidEnd(1, o) },
        { o, _, _ in Dispatch.conversationDidEnd(2, o) },
        { o, _, _ in Dispatch.conversationDidEnd(3, o) },
        { o, _, _ in Dispatch.conversationDidEnd(4, o) },
        { o, _, _ in Dispatch.conversationDidEnd(5, o) },
        { o, _, _ in Dispatch.conversationDidEnd(6, o) },
        { o, _, _ in Dispatch.conversationDidEnd(7, o) },
    ]
}

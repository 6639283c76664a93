internal import CellHostABI

/// The bodies of the C methods: the trampolines (Trampolines.swift) call
/// these with their slot index, and they forward to the slot's class
/// (`RendererClass`, Runtime.swift). Nothing here trusts its input: a NULL
/// argument or an unknown slot gives a decline or an error, never a crash.
enum Dispatch {
    static let renderSelector = PermanentCString.make(CELLHOST_SEL_RENDER)
    static let renderTypes = PermanentCString.make(CELLHOST_TYPES_RENDER)
    static let canRenderSelector = PermanentCString.make(CELLHOST_SEL_CAN_RENDER)
    static let canRenderTypes = PermanentCString.make(CELLHOST_TYPES_CAN_RENDER)
    static let plainTextSelector = PermanentCString.make(CELLHOST_SEL_PLAIN_TEXT)
    static let plainTextTypes = PermanentCString.make(CELLHOST_TYPES_PLAIN_TEXT)
    static let willBeginSelector = PermanentCString.make(CELLHOST_SEL_WILL_BEGIN)
    static let didEndSelector = PermanentCString.make(CELLHOST_SEL_DID_END)
    static let conversationTypes = PermanentCString.make(CELLHOST_TYPES_CONVERSATION)

    /// `renderMessage:context:into:`.
    static func render(_ slot: Int, _ object: OpaquePointer?, _ message: OpaquePointer?,
                       _ context: UnsafePointer<cellhost_context>?, _ builder: OpaquePointer?) -> Int32 {
        guard let context, let table = Runtime.host(of: context) else { return ResultCode.error }
        return Runtime.withSlot(slot) { cls in
            guard let message, let builder else {
                Host(table).log(.error, "\(cls.name): renderMessage:context:into: called without a message or builder")
                return ResultCode.error
            }
            return cls.render(object, message, context, builder, table)
        } ?? ResultCode.error
    }

    /// Logs a renderer's `.error(reason)`: `ClassName: message ID: reason`.
    static func logError(_ reason: String, className: String, message: Message, host: Host) {
        // The id comes from the input: show at most 64 characters of it.
        let fullID = message.info.id
        let id = fullID.count > 64 ? String(fullID.prefix(64)) + "…" : fullID
        let subject = id.isEmpty ? className : "\(className): message \(id)"
        host.log(.error, "\(subject): \(reason)")
    }

    /// `canRenderMessage:context:`.
    static func canRender(_ slot: Int, _ object: OpaquePointer?, _ message: OpaquePointer?,
                          _ context: UnsafePointer<cellhost_context>?) -> Bool {
        // Without what it needs, answer yes and let render decide (and report).
        guard let context, let message, let table = Runtime.host(of: context) else { return true }
        return Runtime.withSlot(slot) { $0.canRender(object, message, context, table) } ?? true
    }

    /// `plainTextForMessage:into:`. It gets no context, so it uses the host
    /// table kept by `init`. A renderer without a summary
    /// (`plainText(for:into:)` returns false, by default when
    /// `plainText(for:)` is `nil`) runs the superclass's method through
    /// `send_super`, as `[super plainTextForMessage:…]` would.
    static func plainText(_ slot: Int, _ object: OpaquePointer?, _ message: OpaquePointer?,
                          _ builder: OpaquePointer?) -> Int32 {
        guard let table = Runtime.host, let message, let builder,
              let summarized = Runtime.withSlot(slot, { $0.plainText(object, message, builder, table) }) else {
            return ResultCode.declined
        }
        if summarized { return ResultCode.rendered }
        let className = Runtime.slots[slot].className
        guard let sendSuper = table.pointee.send_super else { return ResultCode.declined }
        var result = ResultCode.declined
        var messageArgument: OpaquePointer? = message
        var builderArgument: OpaquePointer? = builder
        let status = withUnsafeMutablePointer(to: &messageArgument) { messagePointer in
            withUnsafeMutablePointer(to: &builderArgument) { builderPointer in
                withUnsafeMutablePointer(to: &result) { resultPointer in
                    let arguments: [UnsafeMutableRawPointer?] = [UnsafeMutableRawPointer(messagePointer),
                                                                 UnsafeMutableRawPointer(builderPointer)]
                    return arguments.withUnsafeBufferPointer {
                        sendSuper(className, object, plainTextSelector, plainTextTypes,
                                  UnsafeMutableRawPointer(resultPointer), $0.baseAddress)
                    }
                }
            }
        }
        return status == Int32(bitPattern: CELLHOST_OK.rawValue) ? result : ResultCode.declined
    }

    /// `conversationWillBegin:`: a fresh value, then its hook.
    static func conversationWillBegin(_ slot: Int, _ object: OpaquePointer?) {
        Runtime.withSlot(slot) { $0.conversationWillBegin(object) }
    }

    /// `conversationDidEnd:`: the hook, then the value is dropped.
    static func conversationDidEnd(_ slot: Int, _ object: OpaquePointer?) {
        Runtime.withSlot(slot) { $0.conversationDidEnd(object) }
    }
}

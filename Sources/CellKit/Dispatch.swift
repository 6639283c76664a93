internal import CellHostABI

/// The bodies of the C methods: the trampolines (Trampolines.swift) call
/// these with their slot index. Nothing here trusts its input: a NULL
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
        guard slot < Runtime.slots.count, let context, let table = Runtime.host(of: context) else {
            return ResultCode.error
        }
        let host = Host(table)
        let className = Runtime.slots[slot].type.className
        guard let message, let builder else {
            host.log(.error, "\(className): renderMessage:context:into: called without a message or builder")
            return ResultCode.error
        }
        let view = Message(handle: message, table: table)
        var cell = CellBuilder(handle: builder, table: table)
        Runtime.nextRenderToken &+= 1
        let token = Runtime.nextRenderToken
        var renderContext = RenderContext(context, host: host)
        renderContext.superCall = RenderContext.SuperCall(className: Runtime.slots[slot].className,
                                                          object: object, context: context,
                                                          builder: builder, token: token)
        Runtime.activeRenders.insert(token)
        var renderer = Runtime.instance(slot, object)
        let outcome = renderer.render(view, into: &cell, context: renderContext)
        Runtime.activeRenders.remove(token)
        Runtime.store(renderer, slot, object)

        switch outcome {
        case .rendered:
            return ResultCode.rendered
        case .declined:
            return ResultCode.declined
        case .error(let reason):
            // The id comes from the input: show at most 64 characters of it.
            let fullID = view.info.id
            let id = fullID.count > 64 ? String(fullID.prefix(64)) + "…" : fullID
            let subject = id.isEmpty ? className : "\(className): message \(id)"
            host.log(.error, "\(subject): \(reason)")
            return ResultCode.error
        }
    }

    /// `canRenderMessage:context:`.
    static func canRender(_ slot: Int, _ object: OpaquePointer?, _ message: OpaquePointer?,
                          _ context: UnsafePointer<cellhost_context>?) -> Bool {
        // Without what it needs, answer yes and let render decide (and report).
        guard slot < Runtime.slots.count, let context, let message,
              let table = Runtime.host(of: context) else { return true }
        let host = Host(table)
        let renderer = Runtime.instance(slot, object)
        return renderer.canRender(Message(handle: message, table: table),
                                  context: RenderContext(context, host: host))
    }

    /// `plainTextForMessage:into:`. It gets no context, so it uses the host
    /// table kept by `init`. `nil` from the renderer runs the superclass's
    /// method through `send_super`, as `[super plainTextForMessage:…]` would.
    static func plainText(_ slot: Int, _ object: OpaquePointer?, _ message: OpaquePointer?,
                          _ builder: OpaquePointer?) -> Int32 {
        guard slot < Runtime.slots.count, let table = Runtime.host, let message, let builder else {
            return ResultCode.declined
        }
        let renderer = Runtime.instance(slot, object)
        if let text = renderer.plainText(for: Message(handle: message, table: table)) {
            var cell = CellBuilder(handle: builder, table: table)
            cell.append(text)
            return ResultCode.rendered
        }
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
                        sendSuper(Runtime.slots[slot].className, object, plainTextSelector,
                                  plainTextTypes, UnsafeMutableRawPointer(resultPointer), $0.baseAddress)
                    }
                }
            }
        }
        return status == Int32(bitPattern: CELLHOST_OK.rawValue) ? result : ResultCode.declined
    }

    /// `conversationWillBegin:`: a fresh value, then its hook.
    static func conversationWillBegin(_ slot: Int, _ object: OpaquePointer?) {
        guard slot < Runtime.slots.count else { return }
        var renderer = Runtime.slots[slot].type.init()
        Runtime.store(renderer, slot, object)
        renderer.conversationWillBegin()
        Runtime.store(renderer, slot, object)
    }

    /// `conversationDidEnd:`: the hook, then the value is dropped.
    static func conversationDidEnd(_ slot: Int, _ object: OpaquePointer?) {
        guard slot < Runtime.slots.count else { return }
        let key = Runtime.key(slot, object)
        guard var renderer = Runtime.instances[key] else { return }
        renderer.conversationDidEnd()
        Runtime.instances[key] = nil
    }
}

internal import CellHostABI

/// What a cell knows about the place it renders into. A copy: keep it as
/// long as you like.
public struct RenderContext {
    /// Columns available to the cell's content (the host's chrome already
    /// subtracted); at least 1. Text is wrapped by the host, but anything you
    /// size yourself (bars, waveforms, rows) must fit in this.
    public var width: Int
    /// The message class the message is rendered *as*: its own type, or a
    /// parent class when the host fell back (a `voice` message shown by a
    /// `file` cell sees `"file"`).
    public var messageClass: String
    /// True when the output carries colours, so styles alone can separate things.
    public var isColor: Bool
    /// True when the viewer sent the message.
    public var isOutgoing: Bool
    /// True when the output is JSON for programs (render as usual).
    public var isJSON: Bool
    /// The host, e.g. to log.
    public var host: Host

    /// What `renderSuper` needs; set only for the duration of a render call.
    var superCall: SuperCall?

    /// The receiver and arguments of the render call being made, for `send_super`.
    struct SuperCall {
        let className: UnsafePointer<CChar>
        let object: OpaquePointer?
        let context: UnsafePointer<cellhost_context>
        let builder: OpaquePointer
        /// Identifies the render call; see `Runtime.activeRenders`.
        let token: UInt64
    }

    init(width: Int, messageClass: String, isColor: Bool = false,
                isOutgoing: Bool = false, isJSON: Bool = false, host: Host) {
        self.width = max(1, width)
        self.messageClass = messageClass
        self.isColor = isColor
        self.isOutgoing = isOutgoing
        self.isJSON = isJSON
        self.host = host
    }

    /// Runs the superclass's `renderMessage:context:into:` on the same
    /// message and builder, like `[super renderMessage:…]`: the look-up
    /// starts at the superclass of *this* class (`superclassName`), even when
    /// the receiver is an instance of a subclass. Use it to draw the
    /// inherited content and then add to it.
    ///
    /// Only valid inside the `render` call that received this context (it
    /// uses that call's message and builder); elsewhere it answers `.error`.
    ///
    /// - Returns: the superclass's answer; `.error` when the host could not
    ///   make the call (no superclass implements render, or a mismatch).
    public func renderSuper(_ message: Message) -> RenderOutcome {
        guard let call = superCall, Runtime.isRendering(call.token),
              let sendSuper = host.table.pointee.send_super else {
            return .error("renderSuper is only available during render")
        }
        var result = ResultCode.error
        var messageArgument: OpaquePointer? = message.handle
        var contextArgument: UnsafePointer<cellhost_context>? = call.context
        var builderArgument: OpaquePointer? = call.builder
        let status = withUnsafeMutablePointer(to: &messageArgument) { m in
            withUnsafeMutablePointer(to: &contextArgument) { c in
                withUnsafeMutablePointer(to: &builderArgument) { b in
                    withUnsafeMutablePointer(to: &result) { r in
                        let arguments: [UnsafeMutableRawPointer?] = [UnsafeMutableRawPointer(m),
                                                                     UnsafeMutableRawPointer(c),
                                                                     UnsafeMutableRawPointer(b)]
                        return arguments.withUnsafeBufferPointer {
                            sendSuper(call.className, call.object, Dispatch.renderSelector,
                                      Dispatch.renderTypes, UnsafeMutableRawPointer(r), $0.baseAddress)
                        }
                    }
                }
            }
        }
        guard status == Int32(bitPattern: CELLHOST_OK.rawValue) else {
            return .error("the superclass's renderMessage:context:into: could not be called (status \(status))")
        }
        switch result {
        case ResultCode.rendered: return .rendered
        case ResultCode.declined: return .declined
        default: return .error("the superclass's renderMessage:context:into: failed")
        }
    }

    /// Reads a C context. Fields beyond what the host's `struct_size` covers
    /// are treated as absent.
    init(_ raw: UnsafePointer<cellhost_context>, host: Host) {
        let c = raw.pointee
        let size = Int(c.struct_size)
        var messageClass = ""
        if let offset = MemoryLayout<cellhost_context>.offset(of: \.message_class),
           size >= offset + MemoryLayout<UnsafePointer<CChar>?>.size,
           let name = c.message_class {
            messageClass = String(cString: name)
        }
        self.init(width: Int(c.width),
                  messageClass: messageClass,
                  isColor: c.flags & CELLHOST_CONTEXT_COLOR.rawValue != 0,
                  isOutgoing: c.flags & CELLHOST_CONTEXT_OUTGOING.rawValue != 0,
                  isJSON: c.flags & CELLHOST_CONTEXT_JSON.rawValue != 0,
                  host: host)
    }
}

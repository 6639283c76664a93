internal import CellHostABI

/// What a cell knows about the place it renders into. A copy: keep it as
/// long as you like (but `renderSuper` and `canRenderSuper` work only during
/// the call that received it).
public struct RenderContext {
    /// Columns available to the cell's content (the host's chrome already
    /// subtracted); at least 1. Text is wrapped by the host, but anything you
    /// size yourself (bars, waveforms, rows) must fit in this.
    public var width: Int
    /// The message class the message is rendered *as*: its own type, or a
    /// parent class when the host fell back (a `voice` message shown by a
    /// `file` cell sees `"file"`).
    public var messageClass: String
    /// The absolute directory that relative paths in the message (media
    /// files) are relative to: the input file's directory, or the current
    /// directory for standard input. No trailing `/` except for `"/"`
    /// itself; `""` only from a host too old to say.
    public var baseDirectory: String
    /// True when the output carries colours, so styles alone can separate things.
    public var isColor: Bool
    /// True when the viewer sent the message.
    public var isOutgoing: Bool
    /// True when the output is JSON for programs (render as usual).
    public var isJSON: Bool
    /// The host, e.g. to log.
    public var host: Host

    /// What `renderSuper` and `canRenderSuper` need; set only for the
    /// duration of a method call.
    var superCall: SuperCall?

    /// The receiver and arguments of the method call being made, for `send_super`.
    struct SuperCall {
        /// The class whose method is running (`send_super` starts above it).
        let className: UnsafePointer<CChar>
        let object: OpaquePointer?
        let context: UnsafePointer<cellhost_context>
        /// The builder of a render call; `nil` in `canRenderMessage:context:`.
        let builder: OpaquePointer?
        /// Identifies the call; see `Runtime.isActive(_:)`.
        let token: CallToken
    }

    init(width: Int, messageClass: String, baseDirectory: String = "", isColor: Bool = false,
         isOutgoing: Bool = false, isJSON: Bool = false, host: Host) {
        self.width = max(1, width)
        self.messageClass = messageClass
        self.baseDirectory = baseDirectory
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
        guard let call = superCall, Runtime.isActive(call.token), let builder = call.builder else {
            return .error("renderSuper is only available during render")
        }
        var result = ResultCode.error
        var messageArgument: OpaquePointer? = message.handle
        var contextArgument: UnsafePointer<cellhost_context>? = call.context
        var builderArgument: OpaquePointer? = builder
        let status = withUnsafeMutablePointer(to: &messageArgument) { m in
            withUnsafeMutablePointer(to: &contextArgument) { c in
                withUnsafeMutablePointer(to: &builderArgument) { b in
                    SuperSend.send(host, className: call.className, object: call.object,
                                   selector: Selectors.render, result: &result,
                                   arguments: [UnsafeMutableRawPointer(m), UnsafeMutableRawPointer(c),
                                               UnsafeMutableRawPointer(b)])
                }
            }
        }
        guard status == StatusCode.ok else {
            return .error("the superclass's renderMessage:context:into: could not be called (status \(status))")
        }
        switch result {
        case ResultCode.rendered: return .rendered
        case ResultCode.declined: return .declined
        default: return .error("the superclass's renderMessage:context:into: failed")
        }
    }

    /// Asks the superclass's `canRenderMessage:context:`, like
    /// `[super canRenderMessage:…]`, for a `RenderPrechecking` type that
    /// refines its superclass's check. `true` when no superclass implements
    /// it (nothing is then checked before rendering).
    ///
    /// Only valid during the call that received this context (`render` or
    /// `canRender`); elsewhere it answers `true`.
    public func canRenderSuper(_ message: Message) -> Bool {
        guard let call = superCall, Runtime.isActive(call.token) else { return true }
        var result = true
        var messageArgument: OpaquePointer? = message.handle
        var contextArgument: UnsafePointer<cellhost_context>? = call.context
        let status = withUnsafeMutablePointer(to: &messageArgument) { m in
            withUnsafeMutablePointer(to: &contextArgument) { c in
                SuperSend.send(host, className: call.className, object: call.object,
                               selector: Selectors.canRender, result: &result,
                               arguments: [UnsafeMutableRawPointer(m), UnsafeMutableRawPointer(c)])
            }
        }
        return status == StatusCode.ok ? result : true
    }

    /// Reads a C context. Fields beyond what the host's `struct_size` covers
    /// are treated as absent. `cache`: the calling thread's `ThreadCache`,
    /// as for `Host.init`.
    init(_ raw: UnsafePointer<cellhost_context>, host: Host,
         cache: UnsafeMutablePointer<ThreadCache>? = ThreadCache.current) {
        let fields = Fields(raw)
        let strings = Runtime.contextStrings(messageClass: fields.messageClass, baseDirectory: fields.baseDirectory,
                                             cache: cache)
        self.init(width: fields.width, messageClass: strings.messageClass, baseDirectory: strings.baseDirectory,
                  host: host)
        setFlags(fields.flags)
    }

    /// Makes this, the thread's reused context (`ThreadCache.claimReusedContext`),
    /// the context of a call that received `raw`, as `init(_:host:cache:)`
    /// would make it, and sets its `superCall`. Its strings are replaced only
    /// when the texts differ from the last call's (`CStringCache.refresh`).
    @inline(__always)
    mutating func update(from raw: UnsafePointer<cellhost_context>, host: Host, superCall: SuperCall,
                         cache: UnsafeMutablePointer<ThreadCache>) {
        let fields = Fields(raw)
        width = fields.width
        cache.pointee.messageClass.refresh(&messageClass, from: fields.messageClass)
        cache.pointee.baseDirectory.refresh(&baseDirectory, from: fields.baseDirectory)
        setFlags(fields.flags)
        self.host = host
        self.superCall = superCall
    }

    /// Sets `isColor`, `isOutgoing` and `isJSON` from `CELLHOST_CONTEXT_*` bits.
    @inline(__always)
    private mutating func setFlags(_ flags: UInt32) {
        isColor = flags & UInt32(CELLHOST_CONTEXT_COLOR) != 0
        isOutgoing = flags & UInt32(CELLHOST_CONTEXT_OUTGOING) != 0
        isJSON = flags & UInt32(CELLHOST_CONTEXT_JSON) != 0
    }

    /// What a C context holds, as far as its `struct_size` covers: a string
    /// past it is `nil`.
    private struct Fields {
        /// At least 1.
        let width: Int
        let flags: UInt32
        let messageClass: UnsafePointer<CChar>?
        let baseDirectory: UnsafePointer<CChar>?

        @inline(__always)
        init(_ raw: UnsafePointer<cellhost_context>) {
            let c = raw.pointee
            let size = Int(c.struct_size)
            func covers<T>(_ field: KeyPath<cellhost_context, T>) -> Bool {
                guard let offset = MemoryLayout<cellhost_context>.offset(of: field) else { return false }
                return size >= offset + MemoryLayout<T>.size
            }
            width = max(1, Int(c.width))
            flags = c.flags
            messageClass = covers(\.message_class) ? c.message_class : nil
            baseDirectory = covers(\.base_directory) ? c.base_directory : nil
        }
    }
}

internal import CellHostABI

/// One method of one exported class: what its IMP (a plain C function of
/// StaticIMPs.swift, or a libffi closure, Closures.swift) runs. A subclass per selector, generic over the renderer
/// type, so a call reaches the renderer through one class method and the
/// type's witness table: no existential is boxed or opened per call.
///
/// Nothing here trusts its input: a NULL argument gives a decline, an error
/// or nothing, never a crash.
class MethodBinding {
    /// The selector and encoding registered for this method.
    let selector: Selector
    /// The C signature of the IMP.
    let signature: Signature
    /// `ThreadCache.key`, read once: a method reads its thread's cache on
    /// every call, and each read of the global is a `swift_once` call.
    let threadCacheKey = ThreadCache.key

    init(selector: Selector, signature: Signature) {
        self.selector = selector
        self.signature = signature
    }

    /// Runs the method with libffi's `arguments`, writing its return value
    /// (if any) to `result`: unpacks them for `callResult` or
    /// `callBoolean` by the signature (the conversation hooks override it).
    func invoke(_ result: UnsafeMutableRawPointer?, _ arguments: Arguments) {
        switch signature {
        case .resultWithBuilder:
            ReturnValue.store(callResult(arguments.object, arguments.handle(2), arguments.context(3),
                                         arguments.handle(4)), in: result)
        case .boolean:
            ReturnValue.store(callBoolean(arguments.object, arguments.handle(2), arguments.context(3)), in: result)
        case .conversation:
            break
        }
    }

    /// Runs a method of the `resultWithBuilder` signature with the
    /// arguments its plain C IMP received (`StaticIMPs`), or that `invoke`
    /// unpacked from libffi's. Every binding of that signature overrides it.
    func callResult(_ object: OpaquePointer?, _ message: OpaquePointer?, _ context: UnsafePointer<cellhost_context>?,
                    _ builder: OpaquePointer?) -> Int32 { ResultCode.error }

    /// `callResult` for the `boolean` signature.
    func callBoolean(_ object: OpaquePointer?, _ message: OpaquePointer?,
                     _ context: UnsafePointer<cellhost_context>?) -> Bool { false }
}

/// Runs `body` with a `RenderContext` for a call that received `context`,
/// marked as in progress so that `renderSuper` and `canRenderSuper` work
/// during it (and only then). `cache` is the calling thread's
/// `ThreadCache.current(key:)`, read once per call for the host and the context.
///
/// The context is lent `inout` so that it costs no reference counting: it
/// is the thread's reused one (`ThreadCache.claimReusedContext`), updated
/// in place, unless an outer call on the thread has that (a nested call
/// through `send_super`) or the thread has no cache; then a fresh one.
/// `body` must only read it: the renderer gets it as an argument, and a
/// copy it keeps is its own.
///
/// Inlined into each method, so that `body` is too: no closure call per call.
@inline(__always)
private func withRenderContext<T>(_ context: UnsafePointer<cellhost_context>, host: Host,
                                  cache: UnsafeMutablePointer<ThreadCache>?,
                                  className: UnsafePointer<CChar>, object: OpaquePointer?,
                                  builder: OpaquePointer?, _ body: (inout RenderContext) -> T) -> T {
    let token = Runtime.beginCall(cache: cache)
    defer { Runtime.endCall(token) }
    let superCall = RenderContext.SuperCall(className: className, object: object, context: context,
                                            builder: builder, token: token)
    if let cache, let reused = cache.pointee.claimReusedContext(host: host) {
        defer { cache.pointee.returnReusedContext() }
        reused.pointee.update(from: context, host: host, superCall: superCall, cache: cache)
        return body(&reused.pointee)
    }
    var renderContext = RenderContext(context, host: host, cache: cache)
    renderContext.superCall = superCall
    return body(&renderContext)
}

/// `renderMessage:context:into:`, registered for every class.
final class RenderMethod<R: MessageCellRenderer>: MethodBinding {
    let cls: ClassRuntime<R>

    init(_ cls: ClassRuntime<R>) {
        self.cls = cls
        super.init(selector: Selectors.render, signature: .resultWithBuilder)
    }

    override func callResult(_ object: OpaquePointer?, _ message: OpaquePointer?,
                             _ context: UnsafePointer<cellhost_context>?, _ builder: OpaquePointer?) -> Int32 {
        guard let context, let table = Runtime.host(of: context) else { return ResultCode.error }
        let cache = ThreadCache.current(key: threadCacheKey)
        let host = Host(table, cache: cache)
        guard let message, let builder else {
            host.log(.error, "\(cls.name): renderMessage:context:into: called without a message or builder")
            return ResultCode.error
        }
        let view = Message(handle: message, host: host)
        var cell = CellBuilder(handle: builder, host: host)
        let outcome = cls.withBox(for: object, host: host) { box in
            var renderer = box.value
            let outcome = withRenderContext(context, host: host, cache: cache, className: cls.className, object: object,
                                            builder: builder) { renderer.render(view, into: &cell, context: $0) }
            // (`MemoryLayout<R>` rather than `ClassRuntime<R>.isStateless`: naming
            // the generic class looks its metadata up, some 300 instructions a call.)
            if MemoryLayout<R>.size != 0 { box.value = renderer }
            return outcome
        }

        switch outcome {
        case .rendered:
            return ResultCode.rendered
        case .declined:
            return ResultCode.declined
        case .error(let reason):
            Self.logError(reason, className: cls.name, message: view, host: host)
            return ResultCode.error
        }
    }

    /// Logs a renderer's `.error(reason)`: `ClassName: message ID: reason`.
    static func logError(_ reason: String, className: String, message: Message, host: Host) {
        // The id comes from the input: show at most 64 characters of it.
        let fullID = message.info.id
        let id = fullID.count > 64 ? String(fullID.prefix(64)) + "…" : fullID
        let subject = id.isEmpty ? className : "\(className): message \(id)"
        host.log(.error, "\(subject): \(reason)")
    }
}

/// `canRenderMessage:context:`, registered for `RenderPrechecking` types only.
final class CanRenderMethod<R: RenderPrechecking>: MethodBinding {
    let cls: ClassRuntime<R>

    init(_ cls: ClassRuntime<R>) {
        self.cls = cls
        super.init(selector: Selectors.canRender, signature: .boolean)
    }

    override func callBoolean(_ object: OpaquePointer?, _ message: OpaquePointer?,
                              _ context: UnsafePointer<cellhost_context>?) -> Bool {
        // Without what it needs, answer yes and let render decide (and report).
        guard let context, let message, let table = Runtime.host(of: context) else { return true }
        let cache = ThreadCache.current(key: threadCacheKey)
        let host = Host(table, cache: cache)
        let renderer = cls.withBox(for: object, host: host) { $0.value }
        return withRenderContext(context, host: host, cache: cache, className: cls.className, object: object,
                                 builder: nil) {
            renderer.canRender(Message(handle: message, host: host), context: $0)
        }
    }
}

/// `plainTextForMessage:context:into:`, registered for
/// `PlainTextSummarizing` types only. A renderer without a summary for this
/// message (`plainText(for:context:into:)` returns false) declines, which
/// selectors.h defines as "use the superclass's summary": the host then
/// runs the superclass's implementation.
final class PlainTextMethod<R: PlainTextSummarizing>: MethodBinding {
    let cls: ClassRuntime<R>

    init(_ cls: ClassRuntime<R>) {
        self.cls = cls
        super.init(selector: Selectors.plainText, signature: .resultWithBuilder)
    }

    override func callResult(_ object: OpaquePointer?, _ message: OpaquePointer?,
                             _ context: UnsafePointer<cellhost_context>?, _ builder: OpaquePointer?) -> Int32 {
        guard let context, let table = Runtime.host(of: context), let message, let builder else {
            return ResultCode.declined
        }
        let cache = ThreadCache.current(key: threadCacheKey)
        let host = Host(table, cache: cache)
        let renderer = cls.withBox(for: object, host: host) { $0.value }
        var cell = CellBuilder(handle: builder, host: host)
        let summarized = withRenderContext(context, host: host, cache: cache, className: cls.className, object: object,
                                           builder: nil) {
            renderer.plainText(for: Message(handle: message, host: host), context: $0, into: &cell)
        }
        return summarized ? ResultCode.rendered : ResultCode.declined
    }
}

/// `conversationWillBegin:`, registered for `ConversationObserving` types
/// only: the superclass's hook first (`send_super`), then a fresh value and
/// its hook.
final class WillBeginMethod<R: ConversationObserving>: MethodBinding {
    let cls: ClassRuntime<R>

    init(_ cls: ClassRuntime<R>) {
        self.cls = cls
        super.init(selector: Selectors.willBegin, signature: .conversation)
    }

    override func invoke(_ result: UnsafeMutableRawPointer?, _ arguments: Arguments) {
        guard let table = Runtime.host(of: arguments.context(2)) else { return }
        let host = Host(table)
        let object = arguments.object
        _ = SuperSend.send(host, className: cls.className, object: object, selector: Selectors.willBegin,
                           result: nil, arguments: arguments.afterCommand)
        let box = cls.replaceBox(for: object, host: host)
        var renderer = box.value
        renderer.conversationWillBegin()
        box.value = renderer
    }
}

/// `conversationDidEnd:`: the type's hook (for `ConversationObserving`
/// types), then the instance's value is released, then the superclass's
/// hook (`send_super`). Registered for `ConversationObserving` types, and for
/// every type with state, which CellKit has to release here: for those the
/// hook is `nil`, and the call still reaches the superclass, so registering
/// it hides nothing.
final class DidEndMethod<R: MessageCellRenderer>: MethodBinding {
    let cls: ClassRuntime<R>
    let hook: ((inout R) -> Void)?

    init(_ cls: ClassRuntime<R>, hook: ((inout R) -> Void)?) {
        self.cls = cls
        self.hook = hook
        super.init(selector: Selectors.didEnd, signature: .conversation)
    }

    override func invoke(_ result: UnsafeMutableRawPointer?, _ arguments: Arguments) {
        guard let table = Runtime.host(of: arguments.context(2)) else { return }
        let host = Host(table)
        let object = arguments.object
        if let hook, let box = cls.existingBox(for: object, host: host)?.takeUnretainedValue() {
            var renderer = box.value
            hook(&renderer)
            box.value = renderer
        }
        cls.releaseBox(for: object, host: host)
        _ = SuperSend.send(host, className: cls.className, object: object, selector: Selectors.didEnd,
                           result: nil, arguments: arguments.afterCommand)
    }
}

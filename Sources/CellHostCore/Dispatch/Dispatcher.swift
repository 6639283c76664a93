import CellHostABI

/// Calls plugin methods: dynamically by selector through libffi, or, for
/// well-known selectors whose encoding matches exactly, as a direct typed call.
///
/// Both paths pass the same arguments to the same IMP; tests run whole
/// renders both ways and compare the bytes.
public struct Dispatcher {
    /// How well-known selectors are called.
    public enum Mode: String, Sendable {
        /// Direct typed calls where the encoding matches exactly (the default).
        case direct
        /// libffi for every call.
        case ffi
    }

    public var mode: Mode

    public init(mode: Mode) { self.mode = mode }

    /// The mode chosen by `CELLHOST_DISPATCH` (`ffi` or `direct`), else direct.
    public static func fromEnvironment(_ environment: [String: String]) -> Dispatcher {
        Dispatcher(mode: Mode(rawValue: environment["CELLHOST_DISPATCH"] ?? "") ?? .direct)
    }

    typealias RenderIMP = @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, OpaquePointer?,
                                          UnsafePointer<cellhost_context>?, OpaquePointer?) -> Int32
    typealias CanRenderIMP = @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, OpaquePointer?,
                                             UnsafePointer<cellhost_context>?) -> Bool
    typealias ConversationIMP = @convention(c) (OpaquePointer?, UnsafePointer<CChar>?,
                                                UnsafePointer<cellhost_context>?) -> Void
    typealias PlainTextIMP = RenderIMP

    /// Calls a method with `arguments` after self and _cmd, through libffi.
    /// `result` must hold `method.interface.returnStorageSize` bytes, or be nil.
    static func invoke(_ method: Method, receiver: OpaquePointer?, result: UnsafeMutableRawPointer?,
                       arguments: UnsafePointer<UnsafeMutableRawPointer?>, count: Int) {
        withUnsafeTemporaryAllocation(of: UnsafeMutableRawPointer?.self, capacity: count + 2) { values in
            var receiver = receiver
            var selector: UnsafePointer<CChar>? = method.selectorPointer
            withUnsafeMutablePointer(to: &receiver) { receiverPointer in
                withUnsafeMutablePointer(to: &selector) { selectorPointer in
                    values[0] = UnsafeMutableRawPointer(receiverPointer)
                    values[1] = UnsafeMutableRawPointer(selectorPointer)
                    for index in 0..<count { values[index + 2] = arguments[index] }
                    method.interface.call(method.imp, result: result, arguments: values.baseAddress!)
                }
            }
        }
    }

    /// Calls a method whose return type is a 32-bit integer (or narrower).
    private static func invokeReturningInt32(_ method: Method, receiver: OpaquePointer?,
                                             _ arguments: [UnsafeMutableRawPointer?]) -> Int32 {
        var storage: (Int64, Int64) = (0, 0)
        return withUnsafeMutableBytes(of: &storage) { result in
            arguments.withUnsafeBufferPointer { args in
                invoke(method, receiver: receiver, result: result.baseAddress, arguments: args.baseAddress!, count: args.count)
            }
            switch method.interface.encoding.returnType {
            case .bool, .unsignedChar: return Int32(result.load(as: UInt8.self))
            default: return result.load(as: Int32.self)
            }
        }
    }

    func render(_ method: Method, receiver: OpaquePointer?, message: OpaquePointer?,
                context: UnsafePointer<cellhost_context>, builder: OpaquePointer?) -> Int32 {
        if mode == .direct, method.wellKnown == .render {
            return unsafeBitCast(method.imp, to: RenderIMP.self)(receiver, method.selectorPointer, message, context, builder)
        }
        var message = message, context: UnsafePointer<cellhost_context>? = context, builder = builder
        return withUnsafeMutablePointer(to: &message) { m in
            withUnsafeMutablePointer(to: &context) { c in
                withUnsafeMutablePointer(to: &builder) { b in
                    Dispatcher.invokeReturningInt32(method, receiver: receiver, [UnsafeMutableRawPointer(m), UnsafeMutableRawPointer(c), UnsafeMutableRawPointer(b)])
                }
            }
        }
    }

    func canRender(_ method: Method, receiver: OpaquePointer?, message: OpaquePointer?,
                   context: UnsafePointer<cellhost_context>) -> Bool {
        if mode == .direct, method.wellKnown == .canRender {
            return unsafeBitCast(method.imp, to: CanRenderIMP.self)(receiver, method.selectorPointer, message, context)
        }
        var message = message, context: UnsafePointer<cellhost_context>? = context
        return withUnsafeMutablePointer(to: &message) { m in
            withUnsafeMutablePointer(to: &context) { c in
                Dispatcher.invokeReturningInt32(method, receiver: receiver, [UnsafeMutableRawPointer(m), UnsafeMutableRawPointer(c)]) != 0
            }
        }
    }

    func conversation(_ method: Method, receiver: OpaquePointer?, context: UnsafePointer<cellhost_context>) {
        if mode == .direct, method.wellKnown == .conversationWillBegin || method.wellKnown == .conversationDidEnd {
            unsafeBitCast(method.imp, to: ConversationIMP.self)(receiver, method.selectorPointer, context)
            return
        }
        var context: UnsafePointer<cellhost_context>? = context
        withUnsafeMutablePointer(to: &context) { c in
            _ = Dispatcher.invokeReturningInt32(method, receiver: receiver, [UnsafeMutableRawPointer(c)])
        }
    }

    func plainText(_ method: Method, receiver: OpaquePointer?, message: OpaquePointer?,
                   context: UnsafePointer<cellhost_context>, builder: OpaquePointer?) -> Int32 {
        if mode == .direct, method.wellKnown == .plainText {
            return unsafeBitCast(method.imp, to: PlainTextIMP.self)(receiver, method.selectorPointer, message, context, builder)
        }
        var message = message, context: UnsafePointer<cellhost_context>? = context, builder = builder
        return withUnsafeMutablePointer(to: &message) { m in
            withUnsafeMutablePointer(to: &context) { c in
                withUnsafeMutablePointer(to: &builder) { b in
                    Dispatcher.invokeReturningInt32(method, receiver: receiver, [UnsafeMutableRawPointer(m), UnsafeMutableRawPointer(c), UnsafeMutableRawPointer(b)])
                }
            }
        }
    }

    /// The dynamic `send` of the host table: looks `selector` up from `start`
    /// (the receiver's class, or a superclass for `super`), checks `types`
    /// when given, and calls through libffi.
    static func send(from start: RuntimeClass?, receiver: CellObject, selector: String, types: String?,
                     result: UnsafeMutableRawPointer?, arguments: UnsafePointer<UnsafeMutableRawPointer?>?) -> Int32 {
        // A render worker thread reaches thread-safe classes only.
        if let runtime = receiver.cls.runtime, !runtime.mayCall(receiver.cls) { return Int32(CELLHOST_E_WRONG_THREAD) }
        guard let method = start?.lookup(selector) else { return Int32(CELLHOST_E_UNRECOGNIZED_SELECTOR) }
        if let types {
            guard MethodTypeEncoding.canonicalForm(of: types) == method.interface.encoding.canonical else {
                return Int32(CELLHOST_E_SIGNATURE_MISMATCH)
            }
        }
        let count = method.interface.encoding.arguments.count - 2
        if count > 0 && arguments == nil { return Int32(CELLHOST_E_INVALID_ARGUMENT) }
        let interface = method.interface
        withUnsafeTemporaryAllocation(byteCount: interface.returnStorageSize, alignment: 16) { storage in
            let empty = UnsafeMutablePointer<UnsafeMutableRawPointer?>.allocate(capacity: 1)
            defer { empty.deallocate() }
            invoke(method, receiver: receiver.handle, result: storage.baseAddress,
                   arguments: arguments ?? UnsafePointer(empty), count: count)
            if let result, interface.returnSize > 0 {
                result.copyMemory(from: storage.baseAddress!, byteCount: interface.returnSize)
            }
        }
        return Int32(CELLHOST_OK)
    }
}

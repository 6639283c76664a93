internal import CellHostABI
internal import CFFI

// A C method cannot capture, yet each IMP has to know which Swift type it
// runs. CellKit makes every IMP a libffi closure: a small piece of
// executable code, made at run time with `ffi_closure_alloc` and
// `ffi_prep_closure_loc`, that takes the C arguments the host passes and
// calls one Swift function (`closureHandler`) with them and a pointer of
// CellKit's choosing, the method's `MethodBinding`. So there is one C
// function pointer per (class, selector), bound to its renderer type, and no
// limit on the number of classes.

/// The Swift side of every closure: runs the method the closure was made for.
private let closureHandler: @convention(c) (UnsafeMutablePointer<ffi_cif>?, UnsafeMutableRawPointer?,
                                            UnsafeMutablePointer<UnsafeMutableRawPointer?>?,
                                            UnsafeMutableRawPointer?) -> Void = { _, result, arguments, binding in
    guard let binding, let arguments else { return }
    Unmanaged<MethodBinding>.fromOpaque(binding).takeUnretainedValue().invoke(result, Arguments(arguments))
}

/// The C signatures of the well-known selectors' IMPs, as libffi call
/// interfaces. Made once and never freed: a closure uses its interface on
/// every call.
enum Signature {
    /// `i@:r^{cellhost_message}r^{cellhost_context}^{cellhost_builder}`:
    /// render and plain text.
    case resultWithBuilder
    /// `B@:r^{cellhost_message}r^{cellhost_context}`: can render.
    case boolean
    /// `v@:r^{cellhost_context}`: the conversation hooks.
    case conversation

    nonisolated(unsafe) private static let resultWithBuilderInterface = makeInterface(5, cellhost_ffi_sint32())
    nonisolated(unsafe) private static let booleanInterface = makeInterface(4, cellhost_ffi_uint8())
    nonisolated(unsafe) private static let conversationInterface = makeInterface(3, cellhost_ffi_void())

    /// The prepared interface, or `nil` when libffi refused it.
    var interface: UnsafeMutablePointer<ffi_cif>? {
        switch self {
        case .resultWithBuilder: return Self.resultWithBuilderInterface
        case .boolean: return Self.booleanInterface
        case .conversation: return Self.conversationInterface
        }
    }

    /// An interface of `count` pointer arguments returning `returnType`.
    private static func makeInterface(_ count: Int, _ returnType: UnsafeMutablePointer<ffi_type>?)
        -> UnsafeMutablePointer<ffi_cif>? {
        guard let returnType else { return nil }
        let argumentTypes = UnsafeMutablePointer<UnsafeMutablePointer<ffi_type>?>.allocate(capacity: count)
        argumentTypes.initialize(repeating: cellhost_ffi_pointer(), count: count)
        let interface = UnsafeMutablePointer<ffi_cif>.allocate(capacity: 1)
        interface.initialize(to: ffi_cif())
        guard ffi_prep_cif(interface, FFI_DEFAULT_ABI, UInt32(count), returnType, argumentTypes) == FFI_OK else {
            return nil
        }
        return interface
    }
}

/// Making IMPs.
enum Closures {
    /// A C function pointer that runs `binding` (kept alive from now on: it
    /// may be called until the process ends): one of `StaticIMPs`' while
    /// they last, else a new libffi closure; `nil` when libffi cannot make
    /// one (say, a system that forbids executable memory).
    static func makeIMP(for binding: MethodBinding) -> cellhost_imp? {
        // The first few methods of a signature get a plain C function (StaticIMPs.swift).
        if let imp = StaticIMPs.claim(binding) { return imp }
        guard let interface = binding.signature.interface else { return nil }
        var code: UnsafeMutableRawPointer?
        guard let memory = ffi_closure_alloc(MemoryLayout<ffi_closure>.size, &code), let code else { return nil }
        let closure = memory.bindMemory(to: ffi_closure.self, capacity: 1)
        let userData = Unmanaged.passRetained(binding).toOpaque()
        guard ffi_prep_closure_loc(closure, interface, closureHandler, userData, code) == FFI_OK else {
            Unmanaged<MethodBinding>.fromOpaque(userData).release()
            ffi_closure_free(memory)
            return nil
        }
        return unsafeBitCast(code, to: cellhost_imp.self)
    }
}

/// The arguments of an IMP call as libffi hands them over: one pointer per
/// argument, to where its value is (index 0 is `self`, 1 `_cmd`).
struct Arguments {
    let raw: UnsafeMutablePointer<UnsafeMutableRawPointer?>

    init(_ raw: UnsafeMutablePointer<UnsafeMutableRawPointer?>) { self.raw = raw }

    /// `self`, the receiving host instance.
    var object: OpaquePointer? { handle(0) }

    /// The pointer argument at `index` (a message or builder handle).
    func handle(_ index: Int) -> OpaquePointer? {
        raw[index]?.load(as: OpaquePointer?.self)
    }

    /// The context argument at `index`.
    func context(_ index: Int) -> UnsafePointer<cellhost_context>? {
        raw[index]?.load(as: UnsafePointer<cellhost_context>?.self)
    }

    /// The arguments after `self` and `_cmd`, as `send_super` takes them:
    /// how a method passes its own arguments on to the superclass.
    var afterCommand: UnsafePointer<UnsafeMutableRawPointer?> { UnsafePointer(raw + 2) }
}

/// Writing an IMP's return value where libffi wants it: integers narrower
/// than a register are returned widened to `ffi_arg`.
enum ReturnValue {
    static func store(_ value: Int32, in result: UnsafeMutableRawPointer?) {
        result?.storeBytes(of: ffi_sarg(value), as: ffi_sarg.self)
    }

    static func store(_ value: Bool, in result: UnsafeMutableRawPointer?) {
        result?.storeBytes(of: ffi_arg(value ? 1 : 0), as: ffi_arg.self)
    }
}

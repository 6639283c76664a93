import CFFI

/// A prepared libffi call interface (`ffi_cif`) for one method type encoding.
///
/// Built once per method when its class is loaded and kept for the life of
/// the process, so a call at render time does no parsing and no allocation.
public final class CallInterface {
    /// The encoding this interface was prepared from.
    public let encoding: MethodTypeEncoding
    let cif: UnsafeMutablePointer<ffi_cif>
    private let argumentTypes: UnsafeMutablePointer<UnsafeMutablePointer<ffi_type>?>
    /// Struct `ffi_type`s built for by-value structs, owned here.
    private var ownedTypes: [UnsafeMutablePointer<ffi_type>] = []
    private var ownedElementLists: [UnsafeMutablePointer<UnsafeMutablePointer<ffi_type>?>] = []
    /// Bytes the return value needs: at least `sizeof(ffi_arg)`, as libffi widens small integers.
    public let returnStorageSize: Int
    /// Bytes of the return type itself, copied back to a caller's buffer.
    public let returnSize: Int

    /// Prepares the interface, or throws when libffi refuses the signature.
    public init(encoding: MethodTypeEncoding) throws {
        self.encoding = encoding
        cif = .allocate(capacity: 1)
        argumentTypes = .allocate(capacity: max(encoding.arguments.count, 1))
        var owned: [UnsafeMutablePointer<ffi_type>] = []
        var lists: [UnsafeMutablePointer<UnsafeMutablePointer<ffi_type>?>] = []
        for (index, argument) in encoding.arguments.enumerated() {
            argumentTypes[index] = CallInterface.ffiType(for: argument, owned: &owned, lists: &lists)
        }
        let returnType = CallInterface.ffiType(for: encoding.returnType, owned: &owned, lists: &lists)
        let status = ffi_prep_cif(cif, FFI_DEFAULT_ABI, UInt32(encoding.arguments.count), returnType, argumentTypes)
        ownedTypes = owned
        ownedElementLists = lists
        guard status == FFI_OK else {
            throw TypeEncodingError(encoding: encoding.canonical, offset: 0,
                                    reason: "libffi cannot prepare a call for this signature (status \(status.rawValue))")
        }
        // libffi gives void a size of 1; nothing is returned.
        returnSize = encoding.returnType == .void ? 0 : Int(returnType.pointee.size)
        returnStorageSize = max(returnSize, MemoryLayout<ffi_arg>.size, 16)
    }

    deinit {
        for type in ownedTypes { type.deallocate() }
        for list in ownedElementLists { list.deallocate() }
        argumentTypes.deallocate()
        cif.deallocate()
    }

    /// Calls `imp` with `arguments` (libffi's avalue: one pointer per argument,
    /// including self and _cmd), writing the result to `result`, which must hold
    /// `returnStorageSize` bytes.
    @inline(__always)
    public func call(_ imp: UnsafeRawPointer, result: UnsafeMutableRawPointer?,
                     arguments: UnsafeMutablePointer<UnsafeMutableRawPointer?>) {
        let function = unsafeBitCast(imp, to: (@convention(c) () -> Void).self)
        ffi_call(cif, function, result, arguments)
    }

    private static func ffiType(for type: EncodedType,
                                owned: inout [UnsafeMutablePointer<ffi_type>],
                                lists: inout [UnsafeMutablePointer<UnsafeMutablePointer<ffi_type>?>]) -> UnsafeMutablePointer<ffi_type> {
        switch type {
        case .void: return Builtin.void
        case .bool, .unsignedChar: return Builtin.uint8
        case .char: return Builtin.sint8
        case .short: return Builtin.sint16
        case .unsignedShort: return Builtin.uint16
        case .int: return Builtin.sint32
        case .unsignedInt: return Builtin.uint32
        case .long, .longLong: return Builtin.sint64
        case .unsignedLong, .unsignedLongLong: return Builtin.uint64
        case .float: return Builtin.float
        case .double: return Builtin.double
        case .cString, .object, .selector, .pointer, .opaqueStruct: return Builtin.pointer
        case .structure(_, let fields):
            let elements = UnsafeMutablePointer<UnsafeMutablePointer<ffi_type>?>.allocate(capacity: fields.count + 1)
            for (index, field) in fields.enumerated() {
                elements[index] = ffiType(for: field, owned: &owned, lists: &lists)
            }
            elements[fields.count] = nil
            let structType = UnsafeMutablePointer<ffi_type>.allocate(capacity: 1)
            structType.initialize(to: ffi_type())
            structType.pointee.type = UInt16(FFI_TYPE_STRUCT)
            structType.pointee.elements = elements
            owned.append(structType)
            lists.append(elements)
            return structType
        }
    }

    /// libffi's built-in types, their addresses taken once. `&ffi_type_…` is
    /// a modifying access to a C global: taken per call, two threads
    /// preparing interfaces at once (two `CellHost`s loading plugins) race,
    /// as ThreadSanitizer reports (Scripts/sanitize.sh thread).
    private enum Builtin {
        static let void = withUnsafeMutablePointer(to: &ffi_type_void) { $0 }
        static let uint8 = withUnsafeMutablePointer(to: &ffi_type_uint8) { $0 }
        static let sint8 = withUnsafeMutablePointer(to: &ffi_type_sint8) { $0 }
        static let uint16 = withUnsafeMutablePointer(to: &ffi_type_uint16) { $0 }
        static let sint16 = withUnsafeMutablePointer(to: &ffi_type_sint16) { $0 }
        static let uint32 = withUnsafeMutablePointer(to: &ffi_type_uint32) { $0 }
        static let sint32 = withUnsafeMutablePointer(to: &ffi_type_sint32) { $0 }
        static let uint64 = withUnsafeMutablePointer(to: &ffi_type_uint64) { $0 }
        static let sint64 = withUnsafeMutablePointer(to: &ffi_type_sint64) { $0 }
        static let float = withUnsafeMutablePointer(to: &ffi_type_float) { $0 }
        static let double = withUnsafeMutablePointer(to: &ffi_type_double) { $0 }
        static let pointer = withUnsafeMutablePointer(to: &ffi_type_pointer) { $0 }
    }
}

internal import CellHostABI

// The IMPs of a plugin's first few render, plain-text and can-render
// methods are plain C functions compiled into CellKit, not libffi closures:
// a call reaches its `MethodBinding` directly instead of through libffi's
// closure entry (which classifies the arguments again on every call: about
// 700 instructions a render). Each function has a fixed slot, so it knows
// its binding without capturing anything; a plugin with more methods of a
// signature than there are slots gets closures for the rest
// (`Closures.makeIMP`). Each plugin `.so` links its own CellKit, so the
// slots are per plugin.

/// Plain C function IMPs for the first `slotCount` methods of a signature.
enum StaticIMPs {
    /// Slots per signature. The shipped plugins export one class each.
    static let slotCount = MemoryLayout<Slots>.size / MemoryLayout<UnsafeRawPointer?>.stride

    /// `i@:r^{cellhost_message}r^{cellhost_context}^{cellhost_builder}`.
    typealias ResultIMP = @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, OpaquePointer?,
                                          UnsafePointer<cellhost_context>?, OpaquePointer?) -> Int32
    /// `B@:r^{cellhost_message}r^{cellhost_context}`.
    typealias BooleanIMP = @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, OpaquePointer?,
                                           UnsafePointer<cellhost_context>?) -> Bool

    /// The bindings of a signature's slots (`slotCount` of them).
    typealias Slots = (UnsafeRawPointer?, UnsafeRawPointer?, UnsafeRawPointer?, UnsafeRawPointer?,
                       UnsafeRawPointer?, UnsafeRawPointer?, UnsafeRawPointer?, UnsafeRawPointer?)

    /// The binding of each slot, retained for the life of the process
    /// (written while the descriptor is built, before any call; read-only
    /// after). Constant-initialized storage, not a lazily made global, so
    /// that an IMP reads its binding without a `swift_once` per call.
    nonisolated(unsafe) private static var resultBindings: Slots = (nil, nil, nil, nil, nil, nil, nil, nil)
    nonisolated(unsafe) private static var booleanBindings: Slots = (nil, nil, nil, nil, nil, nil, nil, nil)
    nonisolated(unsafe) private static var resultsClaimed = 0
    nonisolated(unsafe) private static var booleansClaimed = 0

    /// The binding in `slot` of `bindings`.
    @inline(__always)
    private static func binding(_ slot: Int, of bindings: inout Slots) -> UnsafeRawPointer? {
        withUnsafeBytes(of: &bindings) {
            $0.load(fromByteOffset: slot * MemoryLayout<UnsafeRawPointer?>.stride, as: UnsafeRawPointer?.self)
        }
    }

    /// A plain C function IMP running `binding`, or `nil` when its
    /// signature has none or every slot is taken.
    static func claim(_ binding: MethodBinding) -> cellhost_imp? {
        Runtime.lock.locked {
            switch binding.signature {
            case .resultWithBuilder:
                return take(&resultsClaimed, &resultBindings, binding).map { unsafeBitCast(resultIMPs[$0], to: cellhost_imp.self) }
            case .boolean:
                return take(&booleansClaimed, &booleanBindings, binding).map { unsafeBitCast(booleanIMPs[$0], to: cellhost_imp.self) }
            case .conversation:
                return nil // twice a conversation: a closure costs nothing there
            }
        }
    }

    /// The next free slot of a signature, now holding `binding` (retained);
    /// nil when all are taken. Under `Runtime.lock`.
    private static func take(_ claimed: inout Int, _ bindings: inout Slots, _ binding: MethodBinding) -> Int? {
        guard claimed < slotCount else { return nil }
        let slot = claimed
        claimed += 1
        withUnsafeMutableBytes(of: &bindings) {
            $0.storeBytes(of: UnsafeRawPointer(Unmanaged.passRetained(binding).toOpaque()),
                          toByteOffset: slot * MemoryLayout<UnsafeRawPointer?>.stride, as: UnsafeRawPointer?.self)
        }
        return slot
    }

    /// True when `imp` is one of the plain C function IMPs.
    static func isStatic(_ imp: cellhost_imp) -> Bool {
        let address = unsafeBitCast(imp, to: UnsafeRawPointer.self)
        return resultIMPs.contains { unsafeBitCast($0, to: UnsafeRawPointer.self) == address }
            || booleanIMPs.contains { unsafeBitCast($0, to: UnsafeRawPointer.self) == address }
    }

    /// Runs the binding of result slot `slot` with the IMP's arguments as
    /// they came (`MethodBinding.callResult`).
    static func callResult(_ slot: Int, _ object: OpaquePointer?, _ message: OpaquePointer?,
                           _ context: UnsafePointer<cellhost_context>?, _ builder: OpaquePointer?) -> Int32 {
        guard let raw = binding(slot, of: &resultBindings) else { return ResultCode.error }
        // The slot keeps the binding alive for the process: call it
        // without a retain and release of its own.
        return Unmanaged<MethodBinding>.fromOpaque(raw)._withUnsafeGuaranteedRef {
            $0.callResult(object, message, context, builder)
        }
    }

    /// Runs the binding of boolean slot `slot` (`MethodBinding.callBoolean`).
    static func callBoolean(_ slot: Int, _ object: OpaquePointer?, _ message: OpaquePointer?,
                            _ context: UnsafePointer<cellhost_context>?) -> Bool {
        guard let raw = binding(slot, of: &booleanBindings) else { return false }
        return Unmanaged<MethodBinding>.fromOpaque(raw)._withUnsafeGuaranteedRef {
            $0.callBoolean(object, message, context)
        }
    }

    // One function per slot: a C function cannot capture its slot number.
    private static let resultIMPs: [ResultIMP] = [
        { callResult(0, $0, $2, $3, $4) }, { callResult(1, $0, $2, $3, $4) },
        { callResult(2, $0, $2, $3, $4) }, { callResult(3, $0, $2, $3, $4) },
        { callResult(4, $0, $2, $3, $4) }, { callResult(5, $0, $2, $3, $4) },
        { callResult(6, $0, $2, $3, $4) }, { callResult(7, $0, $2, $3, $4) },
    ]
    private static let booleanIMPs: [BooleanIMP] = [
        { callBoolean(0, $0, $2, $3) }, { callBoolean(1, $0, $2, $3) },
        { callBoolean(2, $0, $2, $3) }, { callBoolean(3, $0, $2, $3) },
        { callBoolean(4, $0, $2, $3) }, { callBoolean(5, $0, $2, $3) },
        { callBoolean(6, $0, $2, $3) }, { callBoolean(7, $0, $2, $3) },
    ]
}

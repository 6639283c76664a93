internal import CellHostABI

/// The plugin-wide state of CellKit. Each plugin `.so` links its own copy of
/// CellKit, so this is per plugin. ABI 1.x calls plugins from one thread at a
/// time, so plain statics need no locks.
enum Runtime {
    /// The host table `init` received; valid until `deinit` returns.
    nonisolated(unsafe) static var host: UnsafePointer<cellhost_host>?
    /// The exported descriptor, built once and never freed.
    nonisolated(unsafe) static var descriptor: UnsafeMutablePointer<cellhost_plugin_descriptor>?
    /// The renderer type of each trampoline slot, in registration order.
    nonisolated(unsafe) static var slots: [Slot] = []
    /// The plugin's `setUp`, run from `init`.
    nonisolated(unsafe) static var setUp: ((Host) throws -> Void)?
    /// Problems found while exporting, logged once the host is known (`init`).
    nonisolated(unsafe) static var pendingWarnings: [String] = []
    /// The reason handed to the host when `setUp` fails; freed on the next failure.
    nonisolated(unsafe) static var failureReason: UnsafeMutablePointer<CChar>?
    /// The render calls in progress (several when renders nest through
    /// `send_super`), so a context kept past its call cannot reach its
    /// dangling message and builder.
    nonisolated(unsafe) static var activeRenders: Set<UInt64> = []
    nonisolated(unsafe) static var nextRenderToken: UInt64 = 0
    /// One renderer value per (slot, host instance).
    nonisolated(unsafe) static var instances: [InstanceKey: any MessageCellRenderer] = [:]

    /// One exported class.
    struct Slot {
        let type: any MessageCellRenderer.Type
        /// The class name as given to the host; used for `send_super`.
        let className: UnsafePointer<CChar>
    }

    /// Identifies a renderer value: the class whose IMP runs (a subclass's
    /// instance may run this class's inherited methods) and the host object.
    struct InstanceKey: Hashable {
        let slot: Int
        let object: UInt
    }

    // MARK: Instances

    static func key(_ slot: Int, _ object: OpaquePointer?) -> InstanceKey {
        InstanceKey(slot: slot, object: UInt(bitPattern: object))
    }

    /// The renderer value for `object`, created on first use. Returned as a
    /// copy: a renderer may re-enter CellKit (through `send_super`) while it
    /// runs, so the dictionary is never borrowed across a call into it.
    static func instance(_ slot: Int, _ object: OpaquePointer?) -> any MessageCellRenderer {
        if let existing = instances[key(slot, object)] { return existing }
        let created = slots[slot].type.init()
        instances[key(slot, object)] = created
        return created
    }

    static func store(_ renderer: any MessageCellRenderer, _ slot: Int, _ object: OpaquePointer?) {
        instances[key(slot, object)] = renderer
    }

    // MARK: Hosts

    /// The host table in `context`, else the one `init` kept.
    static func host(of context: UnsafePointer<cellhost_context>) -> UnsafePointer<cellhost_host>? {
        let size = Int(context.pointee.struct_size)
        if let offset = MemoryLayout<cellhost_context>.offset(of: \.host),
           size >= offset + MemoryLayout<UnsafeRawPointer?>.size,
           let table = context.pointee.host {
            return table
        }
        return host
    }
}

/// `cellhost_render_result` values as IMPs return them.
enum ResultCode {
    static let rendered = Int32(bitPattern: CELLHOST_RENDERED.rawValue)
    static let declined = Int32(bitPattern: CELLHOST_DECLINED.rawValue)
    static let error = Int32(bitPattern: CELLHOST_ERROR.rawValue)
}

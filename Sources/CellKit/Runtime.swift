internal import CellHostABI

/// The plugin-wide state of CellKit. Each plugin `.so` links its own copy of
/// CellKit, so this is per plugin. ABI 1.x calls plugins from one thread at a
/// time, so plain statics need no locks.
enum Runtime {
    /// The host table `init` received; valid until `deinit` returns.
    nonisolated(unsafe) static var host: UnsafePointer<cellhost_host>?
    /// The exported descriptor, built once and never freed.
    nonisolated(unsafe) static var descriptor: UnsafeMutablePointer<cellhost_plugin_descriptor>?
    /// The class of each trampoline slot, in registration order. Set once
    /// by `export` and never changed, so the classes live as long as the
    /// plugin.
    nonisolated(unsafe) static var slots: [SlotClass] = [] {
        didSet { unretainedSlots = slots.map { Unmanaged.passUnretained($0) } }
    }
    /// `slots`, unretained, for the trampolines: `slots` keeps them alive, so
    /// a call needs no retain and release of its class.
    nonisolated(unsafe) private static var unretainedSlots: [Unmanaged<SlotClass>] = []
    /// The plugin's `setUp`, run from `init`.
    nonisolated(unsafe) static var setUp: ((Host) throws -> Void)?
    /// Problems found while exporting, logged once the host is known (`init`).
    nonisolated(unsafe) static var pendingWarnings: [String] = []
    /// The reason handed to the host when `setUp` fails; freed on the next failure.
    nonisolated(unsafe) static var failureReason: UnsafeMutablePointer<CChar>?
    /// The render calls in progress, innermost last (several when renders
    /// nest through `send_super`), so a context kept past its call cannot
    /// reach its dangling message and builder.
    nonisolated(unsafe) static var activeRenders: [UInt64] = []
    nonisolated(unsafe) static var nextRenderToken: UInt64 = 0

    /// Calls `body` with the class in trampoline slot `slot`; `nil` when no
    /// class was exported there.
    @inline(__always)
    static func withSlot<T>(_ slot: Int, _ body: (SlotClass) -> T) -> T? {
        guard slot < unretainedSlots.count else { return nil }
        return unretainedSlots[slot]._withUnsafeGuaranteedRef(body)
    }

    // MARK: Render calls in progress

    /// Marks a new render call as in progress and returns its token.
    static func beginRender() -> UInt64 {
        nextRenderToken &+= 1
        activeRenders.append(nextRenderToken)
        return nextRenderToken
    }

    /// The render call `token` has returned.
    static func endRender(_ token: UInt64) {
        // Calls nest, so it is the innermost one.
        if activeRenders.last == token {
            activeRenders.removeLast()
        } else if let index = activeRenders.lastIndex(of: token) {
            activeRenders.remove(at: index)
        }
    }

    static func isRendering(_ token: UInt64) -> Bool {
        activeRenders.contains(token)
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

/// One exported class, as the trampolines of its slot see it: the method
/// bodies, without knowing the renderer type. `RendererClass<R>` implements
/// them for a renderer type `R`, so a call reaches the renderer through one
/// class method and `R`'s witness table; no existential is boxed or opened.
class SlotClass {
    /// The class name as given to the host; used for `send_super`.
    let className: UnsafePointer<CChar>
    /// The renderer type's `className`, for log lines.
    let name: String

    init(className: UnsafePointer<CChar>, name: String) {
        self.className = className
        self.name = name
    }

    func render(_ object: OpaquePointer?, _ message: OpaquePointer, _ context: UnsafePointer<cellhost_context>,
                _ builder: OpaquePointer, _ table: UnsafePointer<cellhost_host>) -> Int32 {
        ResultCode.error
    }

    func canRender(_ object: OpaquePointer?, _ message: OpaquePointer, _ context: UnsafePointer<cellhost_context>,
                   _ table: UnsafePointer<cellhost_host>) -> Bool {
        true
    }

    /// True when the renderer appended its summary; false for the superclass's.
    func plainText(_ object: OpaquePointer?, _ message: OpaquePointer, _ builder: OpaquePointer,
                   _ table: UnsafePointer<cellhost_host>) -> Bool {
        false
    }

    func conversationWillBegin(_ object: OpaquePointer?) {}
    func conversationDidEnd(_ object: OpaquePointer?) {}
    /// Drops every renderer value (the plugin is unloaded).
    func removeAll() {}
}

/// The methods of one renderer type `R`, and its values.
///
/// CellKit keeps one value of `R` per host object that runs this class's
/// methods (the host makes one instance per class per conversation, and a
/// subclass's instances run inherited methods with their own values). There
/// are only ever a few objects, usually one, so the values sit in a small
/// table searched from the last hit.
///
/// A type without stored properties (`MemoryLayout<R>.size == 0`) has no
/// state, so its values are all alike: one shared value serves every object
/// and nothing is looked up or stored back.
///
/// The table is manually managed memory rather than `[R]` or `R?`: this
/// code is generic over a type from another module, and every use of
/// `Array<R>` or `Optional<R>` would look up their metadata at run time,
/// which cost more than the rest of a call.
final class RendererClass<R: MessageCellRenderer>: SlotClass {
    private static var isStateless: Bool { MemoryLayout<R>.size == 0 }

    /// `count` host objects (as integers) and their values; for a stateless
    /// type, at most one value, shared, whatever its object.
    private var objects: UnsafeMutablePointer<UInt>
    private var values: UnsafeMutablePointer<R>
    private var capacity = 1
    private var count = 0
    /// Where the last look-up found its object.
    private var lastHit = 0

    override init(className: UnsafePointer<CChar>, name: String) {
        objects = .allocate(capacity: 1)
        values = .allocate(capacity: 1)
        super.init(className: className, name: name)
    }

    deinit {
        values.deinitialize(count: count)
        values.deallocate()
        objects.deallocate()
    }

    // MARK: The table

    /// Where the value for `object` is, if it has one.
    private func index(of object: OpaquePointer?) -> Int? {
        if Self.isStateless { return count > 0 ? 0 : nil }
        let key = UInt(bitPattern: object)
        if lastHit < count, objects[lastHit] == key { return lastHit }
        for index in 0..<count where objects[index] == key {
            lastHit = index
            return index
        }
        return nil
    }

    /// The value for `object`, created on first use. Returned as a copy: a
    /// renderer may re-enter CellKit (through `send_super`) while it runs,
    /// so the table is never borrowed across a call into it.
    private func value(for object: OpaquePointer?) -> R {
        if let index = index(of: object) { return values[index] }
        let created = R()
        store(created, for: object)
        return created
    }

    private func store(_ value: R, for object: OpaquePointer?) {
        if let index = index(of: object) {
            values[index] = value
            return
        }
        if count == capacity {
            let newObjects = UnsafeMutablePointer<UInt>.allocate(capacity: 2 * capacity)
            let newValues = UnsafeMutablePointer<R>.allocate(capacity: 2 * capacity)
            newObjects.moveInitialize(from: objects, count: count)
            newValues.moveInitialize(from: values, count: count)
            objects.deallocate()
            values.deallocate()
            objects = newObjects
            values = newValues
            capacity *= 2
        }
        (objects + count).initialize(to: UInt(bitPattern: object))
        (values + count).initialize(to: value)
        lastHit = count
        count += 1
    }

    private func remove(at index: Int) {
        count -= 1
        if index == count {
            (values + index).deinitialize(count: 1)
        } else {
            // The last entry takes its place.
            values[index] = (values + count).move()
            objects[index] = objects[count]
        }
        lastHit = 0
    }

    // MARK: Methods

    override func render(_ object: OpaquePointer?, _ message: OpaquePointer, _ context: UnsafePointer<cellhost_context>,
                         _ builder: OpaquePointer, _ table: UnsafePointer<cellhost_host>) -> Int32 {
        let view = Message(handle: message, table: table)
        var cell = CellBuilder(handle: builder, table: table)
        let token = Runtime.beginRender()
        var renderContext = RenderContext(context, host: Host(table))
        renderContext.superCall = RenderContext.SuperCall(className: className, object: object, context: context,
                                                          builder: builder, token: token)
        var renderer = value(for: object)
        let outcome = renderer.render(view, into: &cell, context: renderContext)
        Runtime.endRender(token)
        if !Self.isStateless { store(renderer, for: object) }

        switch outcome {
        case .rendered:
            return ResultCode.rendered
        case .declined:
            return ResultCode.declined
        case .error(let reason):
            Dispatch.logError(reason, className: name, message: view, host: Host(table))
            return ResultCode.error
        }
    }

    override func canRender(_ object: OpaquePointer?, _ message: OpaquePointer,
                            _ context: UnsafePointer<cellhost_context>, _ table: UnsafePointer<cellhost_host>) -> Bool {
        value(for: object).canRender(Message(handle: message, table: table),
                                     context: RenderContext(context, host: Host(table)))
    }

    override func plainText(_ object: OpaquePointer?, _ message: OpaquePointer, _ builder: OpaquePointer,
                            _ table: UnsafePointer<cellhost_host>) -> Bool {
        var cell = CellBuilder(handle: builder, table: table)
        return value(for: object).plainText(for: Message(handle: message, table: table), into: &cell)
    }

    override func conversationWillBegin(_ object: OpaquePointer?) {
        var renderer = R()
        store(renderer, for: object)
        renderer.conversationWillBegin()
        store(renderer, for: object)
    }

    override func conversationDidEnd(_ object: OpaquePointer?) {
        guard let index = index(of: object) else { return }
        var renderer = values[index]
        renderer.conversationDidEnd()
        // A stateless type's one value stays for the other objects. The hook
        // may have re-entered CellKit: find the object again.
        if !Self.isStateless, let index = self.index(of: object) { remove(at: index) }
    }

    override func removeAll() {
        values.deinitialize(count: count)
        count = 0
        lastHit = 0
    }
}

/// `cellhost_render_result` values as IMPs return them.
enum ResultCode {
    static var rendered: Int32 { Int32(bitPattern: CELLHOST_RENDERED.rawValue) }
    static var declined: Int32 { Int32(bitPattern: CELLHOST_DECLINED.rawValue) }
    static var error: Int32 { Int32(bitPattern: CELLHOST_ERROR.rawValue) }
}

internal import CellHostABI
import Glibc
import Synchronization

/// The plugin-wide state of CellKit. Each plugin `.so` links its own copy of
/// CellKit, so this is per plugin. What `init` and the descriptor set is
/// written before any method runs; what methods read and write while they
/// run (calls in progress, extension tables, context strings) is guarded by
/// atomics, in each thread's `ThreadCache` or under `lock`, as a plugin that
/// declares `PluginInfo.threadSafe` is called from several threads at once.
enum Runtime {
    /// The host table `init` received; valid until `deinit` returns.
    nonisolated(unsafe) static var host: UnsafePointer<cellhost_host>?
    /// The exported descriptor, built once and never freed.
    nonisolated(unsafe) static var descriptor: UnsafeMutablePointer<cellhost_plugin_descriptor>?
    /// The `cellhost.samples` extension of the exported descriptor, or `nil`
    /// when no exported type has samples.
    nonisolated(unsafe) static var samples: UnsafeMutablePointer<cellhost_samples>?
    /// Every exported class, to drop their values at `deinit`.
    nonisolated(unsafe) static var classes: [AnyClassRuntime] = []
    /// The plugin's `setUp`, run from `init`.
    nonisolated(unsafe) static var setUp: ((Host) throws -> Void)?
    /// Problems found while exporting, logged once the host is known (`init`).
    nonisolated(unsafe) static var pendingWarnings: [String] = []
    /// The reason handed to the host when `setUp` fails; freed on the next failure.
    nonisolated(unsafe) static var failureReason: UnsafeMutablePointer<CChar>?
    /// The method calls in progress that hand out a `RenderContext` and
    /// did not find a free slot in `callSlots` (more than `callSlotCount`
    /// at once), innermost last. Normally empty.
    nonisolated(unsafe) static var activeCalls: [UInt64] = []
    /// The last call token handed out, or reserved by a thread's
    /// `ThreadCache` in a block; tokens are unique for the life of the
    /// plugin (64 bits do not wrap) and never 0, which marks a free slot.
    static let lastCallToken = Atomic<UInt64>(0)
    /// Counts the threads that made a `ThreadCache`, to spread their first
    /// call slots (`ThreadCache.homeSlot`).
    static let threadsSeen = Atomic<Int>(0)
    /// The calls in progress: `callSlotCount` slots, each holding the token
    /// of the call that claimed it, or 0. Allocated once, never freed, each
    /// slot on a cache line of its own, and reached by pointer, so a call
    /// pays no reference counting.
    static let callSlots: UnsafeMutablePointer<CallSlot> = {
        let raw = UnsafeMutableRawPointer.allocate(byteCount: callSlotCount * MemoryLayout<CallSlot>.stride,
                                                   alignment: 64)
        let slots = raw.bindMemory(to: CallSlot.self, capacity: callSlotCount)
        for index in 0..<callSlotCount { (slots + index).initialize(to: CallSlot()) }
        return slots
    }()
    /// A power of two, so a start index is a mask away.
    static let callSlotCount = 64
    /// The extensions of each host table seen, fetched once per table,
    /// each in memory of its own that is never freed (a `Host` points to
    /// it for as long as it lives). A process normally has one host and so
    /// one table per plugin; an embedding process with several hosts has
    /// a few.
    nonisolated(unsafe) private static var extensionCache: [(table: UnsafePointer<cellhost_host>,
                                                             extensions: UnsafePointer<HostExtensions>)] = []
    /// The last strings read from contexts by a thread without a
    /// `ThreadCache` (each thread normally keeps its own): the host hands
    /// the same strings to every call, so most calls make no new `String`.
    nonisolated(unsafe) static var messageClassCache = CStringCache()
    nonisolated(unsafe) static var baseDirectoryCache = CStringCache()
    /// Guards `activeCalls`, `extensionCache`, the string caches (used
    /// when a thread has no `ThreadCache`) and the setting of stateless
    /// types' shared values.
    static let lock = Lock()

    // MARK: Calls in progress

    // A context kept past its call must not reach that call's dangling
    // message and builder, from whichever thread it is used; calls nest
    // (`send_super`), and a thread-safe plugin runs calls on several
    // threads at once. So every call in progress is recorded where any
    // thread can see it: in a slot of `callSlots`, claimed by
    // compare-exchange and cleared by its call with a store (see `endCall`),
    // so calls on different threads share no lock (and,
    // starting at different slots, mostly no cache line either). Only when
    // every slot is taken does a call go to the locked `activeCalls`, so a
    // call always works. A thread with a `ThreadCache` takes its tokens
    // from a block it reserved and starts at a slot of its own, so a call
    // writes no cache line that calls on other threads write.

    /// Marks a new call as in progress and returns its token. `cache` is
    /// the calling thread's (a caller that read it already passes it).
    /// Inlined: a thread's outermost call nearly always finds its home slot
    /// free, which is one load and one compare-exchange; the rest is
    /// `claimSlot`.
    @inline(__always)
    static func beginCall(cache: UnsafeMutablePointer<ThreadCache>? = ThreadCache.current) -> CallToken {
        guard let cache else {
            let token = lastCallToken.wrappingAdd(1, ordering: .relaxed).newValue
            // Consecutive calls start at consecutive slots, so nested calls
            // and other threads' calls rarely meet a taken one.
            return claimSlot(token, from: Int(truncatingIfNeeded: token), in: callSlots)
        }
        let token = cache.pointee.takeCallToken()
        // Nested calls (`send_super`) take the slots after it.
        let start = cache.pointee.homeSlot
        let home = cache.pointee.callSlots + (start & (callSlotCount - 1))
        if home.pointee.token.load(ordering: .relaxed) == 0,
           home.pointee.token.compareExchange(expected: 0, desired: token, ordering: .acquiringAndReleasing).exchanged {
            return CallToken(value: token, slot: home)
        }
        return claimSlot(token, from: start, in: cache.pointee.callSlots)
    }

    /// Records `token` in the first free slot of `slots` from `start` on
    /// (wrapping around), or in the locked `activeCalls` when every slot
    /// is taken.
    @inline(never)
    private static func claimSlot(_ token: UInt64, from start: Int, in slots: UnsafeMutablePointer<CallSlot>) -> CallToken {
        let mask = callSlotCount - 1
        for step in 0...mask {
            let index = (start &+ step) & mask
            if slots[index].token.load(ordering: .relaxed) == 0,
               slots[index].token.compareExchange(expected: 0, desired: token,
                                                  ordering: .acquiringAndReleasing).exchanged {
                return CallToken(value: token, slot: slots + index)
            }
        }
        lock.locked { activeCalls.append(token) }
        return CallToken(value: token, slot: nil)
    }

    /// The call `call` has returned.
    @inline(__always)
    static func endCall(_ call: CallToken) {
        if let slot = call.slotAddress {
            // Only this call's token is cleared: a second `endCall` finds
            // another call's token (or 0) and leaves it. A load and a store,
            // not a compare-exchange: a slot holding this call's token is
            // changed by nothing else (other calls claim only a slot holding
            // 0), so it cannot change between the two.
            if slot.pointee.token.load(ordering: .relaxed) == call.value {
                slot.pointee.token.store(0, ordering: .releasing)
            }
            return
        }
        endUnslottedCall(call)
    }

    /// `endCall` for a call recorded in `activeCalls`.
    @inline(never)
    private static func endUnslottedCall(_ call: CallToken) {
        lock.locked {
            // Calls nest, so on one thread it is the innermost one.
            if activeCalls.last == call.value {
                activeCalls.removeLast()
            } else if let index = activeCalls.lastIndex(of: call.value) {
                activeCalls.remove(at: index)
            }
        }
    }

    /// True from `beginCall` until the matching `endCall`, asked from any
    /// thread. A slot reused by a later call holds that call's token, never
    /// this one's.
    static func isActive(_ call: CallToken) -> Bool {
        guard let slot = call.slotAddress else { return lock.locked { activeCalls.contains(call.value) } }
        return slot.pointee.token.load(ordering: .acquiring) == call.value
    }

    // MARK: Context strings

    /// The message class and base directory of one context as `String`s
    /// (`""` for a `nil` pointer), made again only when they change: what a
    /// freshly made `RenderContext` reads (a nested call's, or one made
    /// outside a call; the outermost call on a thread updates the thread's
    /// reused context instead, `RenderContext.update`). From `cache` (the calling
    /// thread's `ThreadCache.current`, which the caller read once for the
    /// whole call) without a lock; under the lock from the shared caches
    /// when the thread has none.
    @inline(__always)
    static func contextStrings(messageClass: UnsafePointer<CChar>?, baseDirectory: UnsafePointer<CChar>?,
                               cache: UnsafeMutablePointer<ThreadCache>?) -> (messageClass: String, baseDirectory: String) {
        if let cache {
            return (messageClass.map { cache.pointee.messageClass.string($0) } ?? "",
                    baseDirectory.map { cache.pointee.baseDirectory.string($0) } ?? "")
        }
        return lock.locked {
            (messageClass.map { messageClassCache.string($0) } ?? "",
             baseDirectory.map { baseDirectoryCache.string($0) } ?? "")
        }
    }

    // MARK: Hosts

    /// The host table in `context`, else the one `init` kept.
    static func host(of context: UnsafePointer<cellhost_context>?) -> UnsafePointer<cellhost_host>? {
        guard let context else { return host }
        let size = Int(context.pointee.struct_size)
        if let offset = MemoryLayout<cellhost_context>.offset(of: \.host),
           size >= offset + MemoryLayout<UnsafeRawPointer?>.size,
           let table = context.pointee.host {
            return table
        }
        return host
    }

    /// Where the extensions of `table` are kept: asked for on its first use,
    /// and kept in memory that is never freed (extension tables are
    /// host-owned and valid for the life of the process).
    /// The calling thread remembers the last table it asked about, so a
    /// call normally takes no lock; `extensionsGeneration` tells it when
    /// `forgetExtensions` emptied the shared cache. `cache` is the calling
    /// thread's (a caller that read it already passes it). Inlined into
    /// every method call: the thread's remembered table is the answer but
    /// for its first call (`rememberExtensions`).
    @inline(__always)
    static func extensions(of table: UnsafePointer<cellhost_host>,
                           cache: UnsafeMutablePointer<ThreadCache>? = ThreadCache.current) -> UnsafePointer<HostExtensions> {
        guard let cache else { return lock.locked { cachedExtensions(of: table) } }
        let generation = extensionsGeneration.load(ordering: .acquiring)
        if cache.pointee.extensionsTable == table, cache.pointee.extensionsGeneration == generation,
           let extensions = cache.pointee.extensions {
            return extensions
        }
        return rememberExtensions(of: table, generation: generation, cache: cache)
    }

    /// The extensions of `table`, from the shared cache, remembered as the
    /// thread's (as of `generation`).
    @inline(never)
    private static func rememberExtensions(of table: UnsafePointer<cellhost_host>, generation: UInt64,
                                           cache: UnsafeMutablePointer<ThreadCache>) -> UnsafePointer<HostExtensions> {
        let extensions = lock.locked { cachedExtensions(of: table) }
        cache.pointee.extensionsTable = table
        cache.pointee.extensionsGeneration = generation
        cache.pointee.extensions = extensions
        return extensions
    }

    /// Counts `forgetExtensions` calls, so that threads drop the extensions
    /// they remember.
    static let extensionsGeneration = Atomic<UInt64>(0)

    private static func cachedExtensions(of table: UnsafePointer<cellhost_host>) -> UnsafePointer<HostExtensions> {
        if let last = extensionCache.last, last.table == table { return last.extensions }
        if let index = extensionCache.firstIndex(where: { $0.table == table }) {
            let entry = extensionCache.remove(at: index)
            extensionCache.append(entry)
            return entry.extensions
        }
        let extensions = UnsafeMutablePointer<HostExtensions>.allocate(capacity: 1)
        extensions.initialize(to: HostExtensions(fetchingFrom: table))
        extensionCache.append((table, UnsafePointer(extensions)))
        return UnsafePointer(extensions)
    }

    /// Forgets the extensions of every table (for tests that change a fake
    /// host's). What was fetched stays in memory, for the hosts still
    /// pointing to it.
    static func forgetExtensions() {
        lock.locked {
            extensionCache = []
            extensionsGeneration.add(1, ordering: .releasing)
        }
    }
}

/// A call in progress, as `Runtime.beginCall` hands it out.
struct CallToken: Equatable {
    /// Unique for the life of the plugin; never 0.
    let value: UInt64
    /// The slot of `Runtime.callSlots` holding `value`, or `nil` when
    /// every slot was taken and the call is in `Runtime.activeCalls`. Its
    /// address, so ending the call reads no lazily made global.
    let slotAddress: UnsafeMutablePointer<CallSlot>?

    /// Only `beginCall` makes tokens, so `slotAddress` is always in `callSlots`.
    fileprivate init(value: UInt64, slot: UnsafeMutablePointer<CallSlot>?) {
        self.value = value
        self.slotAddress = slot
    }

    /// The index in `Runtime.callSlots` of the slot holding `value`, or `nil`.
    var slot: Int? {
        slotAddress.map { (Int(bitPattern: $0) - Int(bitPattern: Runtime.callSlots)) / MemoryLayout<CallSlot>.stride }
    }

    static func == (a: CallToken, b: CallToken) -> Bool { a.value == b.value && a.slotAddress == b.slotAddress }
}

/// One slot of `Runtime.callSlots`: the token of the call holding it, or 0.
/// Padded to 64 bytes (and the table aligned to 64), so that two slots, used
/// by calls on two threads, never share a cache line.
struct CallSlot: ~Copyable {
    let token = Atomic<UInt64>(0)
    private let padding: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0)
}

/// What `deinit` needs of a class, whatever its renderer type.
class AnyClassRuntime {
    /// Drops the values CellKit keeps without a host instance (a stateless
    /// type's shared value).
    func removeAll() {}
}

/// A renderer value on the heap, so that a host instance's instance
/// variables can hold it (as one retained pointer).
final class Box<R> {
    var value: R
    init(_ value: R) { self.value = value }
}

/// One exported class for a renderer type `R`: its C names, its
/// `cellhost_class`, and its values.
///
/// CellKit keeps one value of `R` per host instance that runs this class's
/// methods (the host makes one instance per class per conversation, and a
/// subclass's instances run inherited methods with their own values). The
/// value lives in the instance variables this class owns in the instance:
/// `instance_size` is one pointer, to a retained `Box<R>`, reached with
/// `object_ivars(self, &thisClass)`, so each class of a chain, from whichever
/// plugin, has its own, and no table is searched. The box is created on first
/// use (a new instance's variables are zeroed) and released at
/// `conversationDidEnd:`.
///
/// A type without stored properties (`MemoryLayout<R>.size == 0`) has no
/// state, so its values are all alike: such a class has no instance
/// variables, and one shared value serves every instance.
final class ClassRuntime<R: MessageCellRenderer>: AnyClassRuntime {
    static var isStateless: Bool { MemoryLayout<R>.size == 0 }
    /// Bytes of instance variables the class asks the host for.
    static var instanceSize: UInt32 { isStateless ? 0 : UInt32(MemoryLayout<UnsafeMutableRawPointer?>.size) }

    /// The class name as given to the host; used for `send_super`.
    let className: UnsafePointer<CChar>
    /// The renderer type's `className`, for log lines.
    let name: String
    /// The class as described to the host (in the descriptor's `classes`),
    /// for `object_ivars`. Set once the descriptor's class array exists.
    var classStruct: UnsafePointer<cellhost_class>?
    /// A stateless type's one value, set under `Runtime.lock` by the first
    /// call that needs it and then read without a lock once `hasShared`
    /// says so (its releasing store comes after the write, so a reader that
    /// sees it sees the box). All values of a type without stored properties
    /// are alike, so the box is never replaced while methods run;
    /// `removeAll` (at `deinit`, when none does) drops it.
    nonisolated(unsafe) private var shared: Box<R>?
    private let hasShared = Atomic<Bool>(false)

    init(className: UnsafePointer<CChar>, name: String) {
        self.className = className
        self.name = name
    }

    /// The slot in `object`'s instance variables that holds its box, or
    /// `nil` when the host gives no storage (then state is not kept).
    private func slot(_ object: OpaquePointer?, _ host: Host) -> UnsafeMutableRawPointer? {
        guard let object, let classStruct, host.extensions.tableIsUsable,
              let ivars = host.table.pointee.object_ivars else { return nil }
        return ivars(object, classStruct)
    }

    /// The box `object` holds now, if any, not retained: the instance's
    /// variables (for a stateless type, `shared`) keep it.
    func existingBox(for object: OpaquePointer?, host: Host) -> Unmanaged<Box<R>>? {
        if Self.isStateless {
            guard hasShared.load(ordering: .acquiring), let shared else { return nil }
            return Unmanaged.passUnretained(shared)
        }
        guard let raw = slot(object, host)?.load(as: UnsafeMutableRawPointer?.self) else { return nil }
        return Unmanaged<Box<R>>.fromOpaque(raw)
    }

    /// Runs `body` with the box of `object`, created on first use. A box
    /// that exists is lent without a retain and release: only
    /// `conversationDidEnd:` (`releaseBox`), `conversationWillBegin:`
    /// (`replaceBox`) and `deinit` (`removeAll`) drop one, never while a
    /// method of the same instance runs, so a call costs no reference
    /// counting on a box that render threads share (a stateless type's).
    /// A renderer reads a copy of the box's value and stores it back after
    /// the call: it may re-enter CellKit (through `send_super`) while it
    /// runs, so the value is never borrowed across a call into it.
    @inline(__always)
    func withBox<T>(for object: OpaquePointer?, host: Host, _ body: (Box<R>) -> T) -> T {
        if let box = existingBox(for: object, host: host) { return box._withUnsafeGuaranteedRef(body) }
        return body(replaceBox(for: object, host: host))
    }

    /// A fresh box for `object`, made with `init()`, replacing (and
    /// releasing) the one it had.
    @discardableResult
    func replaceBox(for object: OpaquePointer?, host: Host) -> Box<R> {
        let box = Box(R())
        if Self.isStateless {
            // `R()` ran, as for any type; the box is shared only if none is yet.
            Runtime.lock.locked {
                if shared == nil {
                    shared = box
                    hasShared.store(true, ordering: .releasing)
                }
            }
            return box
        }
        // Without storage the value lasts for this call only.
        guard let slot = slot(object, host) else { return box }
        let old = slot.load(as: UnsafeMutableRawPointer?.self)
        slot.storeBytes(of: Unmanaged.passRetained(box).toOpaque(), as: UnsafeMutableRawPointer?.self)
        if let old { Unmanaged<Box<R>>.fromOpaque(old).release() }
        return box
    }

    /// Releases the box of `object` and clears its slot (the conversation
    /// ended). A stateless type's shared value stays for the other instances.
    func releaseBox(for object: OpaquePointer?, host: Host) {
        guard !Self.isStateless, let slot = slot(object, host),
              let raw = slot.load(as: UnsafeMutableRawPointer?.self) else { return }
        slot.storeBytes(of: nil, as: UnsafeMutableRawPointer?.self)
        Unmanaged<Box<R>>.fromOpaque(raw).release()
    }

    override func removeAll() {
        Runtime.lock.locked {
            hasShared.store(false, ordering: .releasing)
            shared = nil
        }
    }
}

/// `cellhost_render_result` values as IMPs return them.
enum ResultCode {
    static let rendered = cellhost_render_result(CELLHOST_RENDERED)
    static let declined = cellhost_render_result(CELLHOST_DECLINED)
    static let error = cellhost_render_result(CELLHOST_ERROR)
}

/// `cellhost_status_code` values.
enum StatusCode {
    static let ok = cellhost_status_code(CELLHOST_OK)
}

/// A well-known selector and its encoding, as permanent C strings.
struct Selector {
    let name: UnsafePointer<CChar>
    let types: UnsafePointer<CChar>

    init(_ name: String, _ types: String) {
        self.name = PermanentCString.make(name)
        self.types = PermanentCString.make(types)
    }
}

/// The well-known selectors CellKit implements (selectors.h).
enum Selectors {
    static let render = Selector(CELLHOST_SEL_RENDER, CELLHOST_TYPES_RENDER)
    static let canRender = Selector(CELLHOST_SEL_CAN_RENDER, CELLHOST_TYPES_CAN_RENDER)
    static let plainText = Selector(CELLHOST_SEL_PLAIN_TEXT, CELLHOST_TYPES_PLAIN_TEXT)
    static let willBegin = Selector(CELLHOST_SEL_WILL_BEGIN, CELLHOST_TYPES_CONVERSATION)
    static let didEnd = Selector(CELLHOST_SEL_DID_END, CELLHOST_TYPES_CONVERSATION)
}

/// `[super …]`: the host's `send_super`.
enum SuperSend {
    /// Calls `selector` on `object`, starting the look-up above `className`,
    /// with `arguments` (one pointer per argument after self and _cmd) and
    /// the return value written to `result` (`nil` for none). Returns the
    /// host's status; `CELLHOST_E_INVALID_ARGUMENT` without a usable table.
    static func send(_ host: Host, className: UnsafePointer<CChar>, object: OpaquePointer?,
                     selector: Selector, result: UnsafeMutableRawPointer?,
                     arguments: UnsafePointer<UnsafeMutableRawPointer?>?) -> cellhost_status_code {
        guard host.extensions.tableIsUsable, let sendSuper = host.table.pointee.send_super else {
            return cellhost_status_code(CELLHOST_E_INVALID_ARGUMENT)
        }
        return sendSuper(className, object, selector.name, selector.types, result, arguments)
    }

    /// `send` with the return value in `result` and an array of argument pointers.
    static func send<T>(_ host: Host, className: UnsafePointer<CChar>, object: OpaquePointer?,
                        selector: Selector, result: inout T,
                        arguments: [UnsafeMutableRawPointer?]) -> cellhost_status_code {
        withUnsafeMutablePointer(to: &result) { resultPointer in
            arguments.withUnsafeBufferPointer {
                send(host, className: className, object: object, selector: selector,
                     result: UnsafeMutableRawPointer(resultPointer), arguments: $0.baseAddress)
            }
        }
    }
}

import CellHostABI
import Glibc
import Synchronization

/// One method of a loaded class: selector, encoding, implementation, and the
/// libffi interface prepared for it.
public final class Method {
    /// The selector name.
    public let selector: String
    /// The interned selector passed as `_cmd`.
    let selectorPointer: UnsafePointer<CChar>
    /// The encoding as the plugin wrote it.
    public let types: String
    let interface: CallInterface
    /// The implementation; `Method.unbound` until the class's library is
    /// opened (`RuntimeClass.ensureBound`), which happens before any look-up.
    var imp: UnsafeRawPointer
    /// The class that implements it (for `super` sends). Not counted (a
    /// class lives as long as its runtime, as every method does), so reading
    /// it on each call costs no reference counting.
    public unowned(unsafe) let owner: RuntimeClass
    /// Set when the method implements a well-known selector: its encoding then
    /// equals the required one, so the direct-call fast path is exact.
    let wellKnown: WellKnownSelector?

    /// The placeholder IMP of a class whose library is not open yet. Never
    /// called: look-ups open the library first.
    nonisolated(unsafe) static let unbound = UnsafeRawPointer(bitPattern: 1)!

    init(selector: String, selectorPointer: UnsafePointer<CChar>, types: String, interface: CallInterface,
         imp: UnsafeRawPointer, owner: RuntimeClass, wellKnown: WellKnownSelector?) {
        self.selector = selector
        self.selectorPointer = selectorPointer
        self.types = types
        self.interface = interface
        self.imp = imp
        self.owner = owner
        self.wellKnown = wellKnown
    }
}

/// A cell class known to the runtime: a host class or a plugin's.
public final class RuntimeClass {
    /// Class name, unique in the runtime.
    public let name: String
    /// The id of the plugin that contributed it ("cellhost" for host classes).
    public let pluginID: String
    /// The search-path directory its plugin's file was found in (as the
    /// file's path names it); nil for the host's classes and classes
    /// described in this process (`Runtime.link`).
    public internal(set) var directory: String?
    /// The superclass; nil only for the root, `MessageCell`. Setting it
    /// lays out the instance storage after the superclass's.
    public internal(set) var superclass: RuntimeClass? {
        didSet {
            let base = superclass?.storageSize ?? 0
            ivarOffset = instanceSize > 0 ? (base + 15) & ~15 : base
            storageSize = ivarOffset + instanceSize
        }
    }
    /// Message classes it registers for, in the order given.
    public let messageClasses: [String]
    /// Its rank among candidates.
    public let rank: Int32
    /// Bytes of this class's own per-instance storage.
    let instanceSize: Int
    /// Where this class's block starts in an instance's storage: after its
    /// superclasses' blocks, 16-byte aligned (set when the superclass is).
    private(set) var ivarOffset = 0
    /// Bytes of storage an instance of this class needs, its chain's blocks included.
    private(set) var storageSize = 0
    /// The address of the plugin's class struct in this process (what
    /// `object_ivars` is given); nil until the class's library is open.
    var structAddress: UnsafeRawPointer?
    /// The class name as a C string, for `object_class_name`.
    let cName: UnsafePointer<CChar>
    /// Methods the class itself implements, by selector.
    public internal(set) var methods: [String: Method] = [:]
    /// Methods in declaration order (for listing).
    public internal(set) var methodList: [Method] = []
    /// The host table of the plugin that contributed the class, passed in
    /// the context of calls to its methods.
    var hostTable: UnsafePointer<cellhost_host>?
    /// The runtime the class belongs to.
    unowned(unsafe) var runtime: Runtime?
    /// The plugin whose library implements the class, until it is opened.
    var lazyPlugin: LazyPlugin?
    /// Why the class cannot be used: its library, or a superclass's, failed
    /// to open when it was first needed. Such a class has no methods.
    public internal(set) var unavailable: String?
    private var chainBound = false
    /// Look-ups along the superclass chain, cached per class; guarded by
    /// `cacheLock` (plugins called concurrently look selectors up with `send`).
    private var cache: [String: Method?] = [:]
    private let cacheLock = RecursiveLock()
    /// Its plugin sets CELLHOST_PLUGIN_THREAD_SAFE (true for the host's
    /// `MessageCell` and `UnknownMessageCell`; false for cells registered
    /// in-process by an embedding program).
    public internal(set) var threadSafe = false
    private let concurrent = Atomic<Bool>(false)
    /// Well-known selectors resolved once along the chain. Not counted:
    /// `cache` holds each method (as its class's `methods` does), so the
    /// render path reads them without reference counting.
    private var wellKnownCache: [Unmanaged<Method>?]?

    init(name: String, pluginID: String, messageClasses: [String], rank: Int32, instanceSize: Int,
         selectors: SelectorTable) {
        self.name = name
        self.pluginID = pluginID
        self.messageClasses = messageClasses
        self.rank = rank
        self.instanceSize = instanceSize
        self.storageSize = instanceSize
        // Class names are unique in a runtime: a copy of its own, not an
        // entry in the selector table (which linking 2000 classes grew and
        // hashed into for nothing). Kept for the life of the process, like
        // the interned selectors.
        self.cName = UnsafePointer(strdup(name)!)
    }

    func add(_ method: Method) {
        if methods[method.selector] == nil { methodList.append(method) }
        methods[method.selector] = method
    }

    /// Opens the libraries of this class and its superclasses if they are
    /// not open yet; returns why the class cannot be used, if it cannot.
    @discardableResult
    func ensureBound() -> String? {
        if !chainBound {
            chainBound = true
            runtime?.bindChain(of: self)
        }
        return unavailable
    }

    /// True when render worker threads may call the class: it and all its
    /// superclasses are thread-safe, and it was readied for it
    /// (`prepareForConcurrentCalls`).
    public var isConcurrent: Bool { concurrent.load(ordering: .acquiring) }

    /// True when the class and every superclass are thread-safe.
    var chainIsThreadSafe: Bool {
        var current: RuntimeClass? = self
        while let cls = current {
            if !cls.threadSafe { return false }
            current = cls.superclass
        }
        return true
    }

    /// On the thread that owns the runtime: when the class's chain is
    /// thread-safe and its libraries are open (a library is opened when
    /// first used, never here), resolves its well-known selectors, so that
    /// nothing about it changes while workers call it, then lets them
    /// (`isConcurrent`).
    func prepareForConcurrentCalls() {
        guard !isConcurrent, chainIsThreadSafe else { return }
        if !chainBound {
            var current: RuntimeClass? = self
            while let cls = current {
                if cls.lazyPlugin != nil { return }
                current = cls.superclass
            }
        }
        guard ensureBound() == nil else { return }
        _ = lookup(.render)
        concurrent.store(true, ordering: .releasing)
    }

    /// The method for `selector`, found on this class or the nearest superclass.
    public func lookup(_ selector: String) -> Method? {
        cacheLock.lock()
        defer { cacheLock.unlock() }
        if let cached = cache[selector] { return cached }
        if ensureBound() != nil {
            cache[selector] = .some(nil)
            return nil
        }
        var current: RuntimeClass? = self
        var found: Method?
        while let cls = current {
            if let method = cls.methods[selector] { found = method; break }
            current = cls.superclass
        }
        cache[selector] = .some(found)
        return found
    }

    /// The method for a well-known selector, resolved once.
    @inline(__always)
    func lookup(_ selector: WellKnownSelector) -> Method? {
        unretainedLookup(selector)?.takeUnretainedValue()
    }

    /// `lookup(_:)` without a reference counted: for the render path, which
    /// calls the method (`Unmanaged._withUnsafeGuaranteedRef`) with no
    /// retain and release around the plugin call. A method lives as long as
    /// its class (`cache` keeps it), and a class as long as its runtime.
    @inline(__always)
    func unretainedLookup(_ selector: WellKnownSelector) -> Unmanaged<Method>? {
        if let resolved = wellKnownCache { return resolved[selector.index] }
        let resolved = WellKnownSelector.allCases.map { lookup($0.rawValue).map { Unmanaged.passUnretained($0) } }
        wellKnownCache = resolved
        return resolved[selector.index]
    }

    /// True when the class is `other` or inherits from it.
    public func isSubclass(of other: RuntimeClass) -> Bool {
        var current: RuntimeClass? = self
        while let cls = current {
            if cls === other { return true }
            current = cls.superclass
        }
        return false
    }
}

extension WellKnownSelector {
    var index: Int {
        switch self {
        case .render: return 0
        case .canRender: return 1
        case .conversationWillBegin: return 2
        case .conversationDidEnd: return 3
        case .plainText: return 4
        }
    }
}

/// An instance of a cell class: what plugins see as `cellhost_object *`.
/// Its storage holds one zeroed block per class of its chain that has
/// instance variables, at that class's `ivarOffset`.
final class CellObject {
    unowned let cls: RuntimeClass
    private let storage: UnsafeMutableRawPointer?

    init(cls: RuntimeClass) {
        self.cls = cls
        if cls.storageSize > 0 {
            let storage = UnsafeMutableRawPointer.allocate(byteCount: cls.storageSize, alignment: 16)
            storage.initializeMemory(as: UInt8.self, repeating: 0, count: cls.storageSize)
            self.storage = storage
        } else {
            storage = nil
        }
    }

    deinit { storage?.deallocate() }

    /// The block of the class whose struct is at `address`, if that class
    /// is on this object's chain and has instance variables.
    func ivars(of address: UnsafeRawPointer) -> UnsafeMutableRawPointer? {
        var current: RuntimeClass? = cls
        while let each = current {
            if each.structAddress == address {
                guard each.instanceSize > 0, let storage else { return nil }
                return storage + each.ivarOffset
            }
            current = each.superclass
        }
        return nil
    }

    var handle: OpaquePointer { OpaquePointer(Unmanaged.passUnretained(self).toOpaque()) }

    static func from(_ handle: OpaquePointer?) -> CellObject? {
        guard let handle else { return nil }
        return Unmanaged<CellObject>.fromOpaque(UnsafeRawPointer(handle)).takeUnretainedValue()
    }
}

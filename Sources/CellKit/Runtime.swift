internal import CellHostABI
import Glibc

/// The plugin-wide state of CellKit. Each plugin `.so` links its own copy of
/// CellKit, so this is per plugin. What `init` and the descriptor set is
/// written before any method runs; what methods read and write while they
/// run (calls in progress, extension tables, context strings) is guarded by
/// `lock`, as a plugin that declares `PluginInfo.threadSafe` is called from
/// several threads at once.
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
    /// The method calls in progress that hand out a `RenderContext`,
    /// innermost last (several when calls nest through `send_super`), so a
    /// context kept past its call cannot reach its dangling message and
    /// builder.
    nonisolated(unsafe) static var activeCalls: [UInt64] = []
    nonisolated(unsafe) static var nextCallToken: UInt64 = 0
    /// The extensions of each host table seen, fetched once per table. A
    /// process normally has one host and so one table per plugin; an
    /// embedding process with several hosts has a few.
    nonisolated(unsafe) private static var extensionCache: [(table: UnsafePointer<cellhost_host>,
                                                             extensions: HostExtensions)] = []
    /// The last strings read from contexts: the host hands the same
    /// strings to every call, so most calls make no new `String`.
    nonisolated(unsafe) static var messageClassCache = CStringCache()
    nonisolated(unsafe) static var baseDirectoryCache = CStringCache()
    /// Guards `activeCalls`, `nextCallToken`, `extensionCache`, the string
    /// caches and stateless types' shared values.
    static let lock = Lock()

    // MARK: Calls in progress

    /// Marks a new call as in progress and returns its token.
    static func beginCall() -> UInt64 {
        lock.locked {
            nextCallToken &+= 1
            activeCalls.append(nextCallToken)
            return nextCallToken
        }
    }

    /// The call `token` has returned.
    static func endCall(_ token: UInt64) {
        lock.locked {
            // Calls nest, so on one thread it is the innermost one.
            if activeCalls.last == token {
                activeCalls.removeLast()
            } else if let index = activeCalls.lastIndex(of: token) {
                activeCalls.remove(at: index)
            }
        }
    }

    static func isActive(_ token: UInt64) -> Bool {
        lock.locked { activeCalls.contains(token) }
    }

    /// The `String` of a context's message class, made again only when it changes.
    static func messageClass(_ text: UnsafePointer<CChar>) -> String {
        lock.locked { messageClassCache.string(text) }
    }

    /// The `String` of a context's base directory, made again only when it changes.
    static func baseDirectory(_ text: UnsafePointer<CChar>) -> String {
        lock.locked { baseDirectoryCache.string(text) }
    }

    /// `messageClass(_:)` and `baseDirectory(_:)` of one context under one
    /// lock (`""` for a `nil` pointer): what every call's `RenderContext` reads.
    static func contextStrings(messageClass: UnsafePointer<CChar>?,
                               baseDirectory: UnsafePointer<CChar>?) -> (messageClass: String, baseDirectory: String) {
        lock.locked {
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

    /// The extensions of `table`, asked for on its first use and kept
    /// (extension tables are host-owned and valid for the life of the process).
    static func extensions(of table: UnsafePointer<cellhost_host>) -> HostExtensions {
        lock.locked { cachedExtensions(of: table) }
    }

    private static func cachedExtensions(of table: UnsafePointer<cellhost_host>) -> HostExtensions {
        if let last = extensionCache.last, last.table == table { return last.extensions }
        if let index = extensionCache.firstIndex(where: { $0.table == table }) {
            let entry = extensionCache.remove(at: index)
            extensionCache.append(entry)
            return entry.extensions
        }
        let extensions = HostExtensions(fetchingFrom: table)
        extensionCache.append((table, extensions))
        return extensions
    }

    /// Forgets the extensions of every table (for tests that change a fake host's).
    static func forgetExtensions() {
        lock.locked { extensionCache = [] }
    }
}

/// The `String` of the last C string seen, made again only when the text
/// changes.
struct CStringCache {
    private var pointer: UnsafePointer<CChar>?
    private var value = ""

    mutating func string(_ text: UnsafePointer<CChar>) -> String {
        if text == pointer, Self.equal(value, text) { return value }
        pointer = text
        value = String(cString: text)
        return value
    }

    /// True when `text` (NUL-terminated) has exactly the bytes of `string`.
    private static func equal(_ string: String, _ text: UnsafePointer<CChar>) -> Bool {
        var string = string
        return string.withUTF8 { bytes in
            // strncmp stops at the NUL of a shorter `text`.
            guard let base = bytes.baseAddress else { return text[0] == 0 }
            return base.withMemoryRebound(to: CChar.self, capacity: bytes.count) { strncmp(text, $0, bytes.count) } == 0
                && text[bytes.count] == 0
        }
    }
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
    /// A stateless type's one value.
    private var shared: Box<R>?

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

    /// The box `object` holds now, if any.
    func existingBox(for object: OpaquePointer?, host: Host) -> Box<R>? {
        if Self.isStateless { return Runtime.lock.locked { shared } }
        guard let raw = slot(object, host)?.load(as: UnsafeMutableRawPointer?.self) else { return nil }
        return Unmanaged<Box<R>>.fromOpaque(raw).takeUnretainedValue()
    }

    /// The box of `object`, created on first use. A renderer reads a copy of
    /// its value and stores it back after the call: it may re-enter CellKit
    /// (through `send_super`) while it runs, so the box is never borrowed
    /// across a call into it.
    func box(for object: OpaquePointer?, host: Host) -> Box<R> {
        if let box = existingBox(for: object, host: host) { return box }
        return replaceBox(for: object, host: host)
    }

    /// A fresh box for `object`, made with `init()`, replacing (and
    /// releasing) the one it had.
    @discardableResult
    func replaceBox(for object: OpaquePointer?, host: Host) -> Box<R> {
        let box = Box(R())
        if Self.isStateless {
            Runtime.lock.locked { shared = box }
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
        Runtime.lock.locked { shared = nil }
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

import CellHostABI
import Glibc
import Synchronization

/// Counts plugin calls, twice each (odd while one runs), so that a watchdog
/// on another thread can tell a call that does not return.
public final class CallProgress: Sendable {
    private let count = Atomic<UInt64>(0)

    init() {}

    /// Only the counting thread writes: a load and a store, with no locked
    /// read-modify-write (two a plugin call).
    func step() { count.store(count.load(ordering: .relaxed) &+ 1, ordering: .releasing) }

    /// The count now: odd while a call runs.
    public var value: UInt64 { count.load(ordering: .acquiring) }
}

/// Receives log lines and diagnostics; the CLI prints them on stderr.
public protocol DiagnosticSink: AnyObject {
    func pluginLog(plugin: String, level: cellhost_log_level, message: String)
}

/// The object runtime: classes with their methods, the registry, the
/// current conversation's instances, and the dispatcher that calls them.
public final class Runtime {
    let selectors = SelectorTable()
    /// Guards linking (`RuntimeLinking.swift`): `linked`, `classSets`,
    /// `interfaces`, `pluginContexts`, the selector table, and the state of
    /// libraries not opened yet. Render worker threads link the classes of
    /// the chains they look up; the registry's lock is taken before this
    /// one, never after.
    let linking = RecursiveLock()
    /// Every linked class by name (guarded by `linking`).
    var linked: [String: RuntimeClass] = [:]
    /// Classes of loaded plugins, linked on first use (guarded by `linking`).
    var classSets: [PluginClasses] = []
    public let registry: Registry
    /// The host's root class.
    public let messageCell: RuntimeClass
    public let unknownMessageCell: RuntimeClass
    public internal(set) var dispatcher: Dispatcher
    var conversation = Conversation()
    weak var diagnostics: DiagnosticSink?
    /// The host table for the host's own classes.
    let hostContext: PluginHostContext
    /// Host contexts of plugins by id (kept alive here; guarded by `linking`).
    var pluginContexts: [String: PluginHostContext] = [:]
    /// Call interfaces by type encoding: methods with one encoding (every
    /// `renderMessage:context:into:`) share one, parsed and prepared once
    /// (guarded by `linking`).
    var interfaces: [String: CallInterface] = [:]
    static let maximumCachedInterfaces = 4096

    public init(dispatcher: Dispatcher = Dispatcher(mode: .direct)) {
        self.dispatcher = dispatcher
        mainState = CallState(baseDirectory: .current, isWorker: false)
        states = CallStates(main: mainState)
        hostContext = PluginHostContext(pluginID: HostClasses.pluginID)
        let root = RuntimeClass(name: "MessageCell", pluginID: HostClasses.pluginID, messageClasses: ["text"],
                                rank: HostClasses.messageCellRank, instanceSize: 0, selectors: selectors)
        let unknown = RuntimeClass(name: "UnknownMessageCell", pluginID: HostClasses.pluginID, messageClasses: [],
                                   rank: 0, instanceSize: 0, selectors: selectors)
        unknown.superclass = root
        messageCell = root
        unknownMessageCell = unknown
        registry = Registry(unknownCell: unknown)
        hostContext.runtime = self
        for (cls, methods) in [(root, HostClasses.messageCellMethods), (unknown, HostClasses.unknownCellMethods)] {
            for method in methods {
                // Host methods use the required encodings, which always parse.
                if case .prepared(let signature) = checkSignature(selector: method.selector, types: method.types) {
                    cls.add(Method(signature, imp: UnsafeRawPointer(bitPattern: method.imp) ?? Method.unbound, owner: cls))
                }
            }
            cls.runtime = self
            cls.hostTable = UnsafePointer(hostContext.table)
            cls.threadSafe = true
            linked[cls.name] = cls
        }
        registry.register(root, forMessageClass: "text")
    }

    /// The call state of the thread that owns the runtime (`CallState`);
    /// render worker threads have their own (`workerStates`).
    let mainState: CallState
    let states: CallStates
    /// `CallState.key`, read once: each read of a lazily made global is a
    /// `swift_once` call, and a message reads the key about three times
    /// (`unretainedState`).
    let callStateKey = CallState.key

    /// What the "cellhost.output" extension tells plugins.
    public var output = PluginOutput.standard

    /// Plugin log lines go to the record the thread is rendering
    /// (`logCapture`), when there is one: a render session keeps them with
    /// the message, so they are printed in their place in the output.
    func log(plugin: String, level: cellhost_log_level, message: String) {
        let state = self.state
        if level >= Int32(CELLHOST_LOG_ERROR) { state.lastError[plugin] = Sanitizer.sanitize(message) }
        if let logCapture = state.logCapture {
            logCapture.logs.append((plugin, level, Sanitizer.sanitize(message)))
            return
        }
        diagnostics?.pluginLog(plugin: plugin, level: level, message: message)
    }

    // MARK: Plain text

    /// The one-line summary of `message` by `cls` into `canvas`
    /// (`plainTextForMessage:context:into:`): a class that declines passes
    /// the question to its superclass's implementation, up to `MessageCell`'s,
    /// which always answers. False when a class failed (CELLHOST_ERROR);
    /// `canvas` is then empty.
    ///
    /// Nothing here is counted, as on the render path (`MessageRenderer`):
    /// the thread's state is lent (`unretainedState`), the instance comes
    /// from its cache (`CallState.instanceHandle`), which keeps it, and the
    /// methods are borrowed (a method lives as long as its class, a class
    /// as long as its runtime). Reply quotes ask this on the owning thread
    /// while render threads call the same classes: a retain there wrote
    /// cache lines that the render threads read.
    func plainText(of cls: RuntimeClass, _ message: Message, into canvas: CellCanvas, width: Int,
                   messageClass: String) -> Bool {
        unretainedState._withUnsafeGuaranteedRef { state in
            let receiver = state.instanceHandle(of: cls, runtime: self)
            let directory = state.baseDirectory.pointer
            var method = cls.unretainedLookup(.plainText)
            while let current = method {
                let result = current._withUnsafeGuaranteedRef { method in
                    messageClassCString(messageClass) { name in
                        var context = self.context(for: method, width: width, messageClass: name, flags: 0,
                                                   directory: directory)
                        return dispatcher.plainText(method, receiver: receiver, message: message.handle,
                                                    context: &context, builder: BuilderHandle.handle(canvas))
                    }
                }
                if result == Int32(CELLHOST_RENDERED) { return true }
                canvas.reset()
                guard result == Int32(CELLHOST_DECLINED) else { return false }
                method = current._withUnsafeGuaranteedRef { $0.owner.superclass?.unretainedLookup(.plainText) }
            }
            return false
        }
    }

    // MARK: Libraries in use

    /// Libraries opened in this process to be used, in the order they were
    /// opened; each owes its plugin one `deinit`.
    private var openedLibraries: [PluginLibrary] = []

    func opened(_ library: PluginLibrary) { openedLibraries.append(library) }

    /// Ends the conversation (`conversationDidEnd:` to every instance), then
    /// calls `deinit` of every plugin opened to be used, in the reverse order
    /// of opening, once. The runtime can still be used afterwards: a plugin
    /// needed again is not reopened, so call this when done.
    public func shutdown() {
        endConversation()
        let libraries = openedLibraries
        openedLibraries.removeAll()
        for library in libraries.reversed() { library.finish() }
    }

    // MARK: Conversations

    /// Ends the current conversation (sending `conversationDidEnd:` to every
    /// instance) and starts a new one.
    public func endConversation() {
        conversation.end(runtime: self)
        conversation = Conversation()
    }
}

/// The instances of one conversation, one per class, created on first use.
///
/// Render worker threads ask for instances concurrently: the look-up and
/// the creation hold a lock (recursive: `conversationWillBegin:` may ask for
/// another instance through `instance_of`).
final class Conversation {
    /// Different for every conversation of the process, so a thread's
    /// cache of instances (`CallState.instance`) knows which are current.
    let generation = Conversation.generations.add(1, ordering: .relaxed).newValue
    private static let generations = Atomic<Int>(0)
    private var objects: [ObjectIdentifier: CellObject] = [:]
    private var order: [CellObject] = []
    private let lock = RecursiveLock()

    /// The instance of `cls`, created (and sent `conversationWillBegin:`) on first use.
    func instance(of cls: RuntimeClass, runtime: Runtime) -> CellObject {
        lock.lock()
        defer { lock.unlock() }
        if let object = objects[ObjectIdentifier(cls)] { return object }
        let object = CellObject(cls: cls)
        objects[ObjectIdentifier(cls)] = object
        order.append(object)
        if let method = cls.lookup(.conversationWillBegin) {
            runtime.withContext(for: method.owner, width: 0, messageClass: "", flags: 0) { context in
                runtime.dispatcher.conversation(method, receiver: object.handle, context: context)
            }
        }
        return object
    }

    func end(runtime: Runtime) {
        lock.lock()
        defer { lock.unlock() }
        for object in order {
            guard let method = object.cls.lookup(.conversationDidEnd) else { continue }
            runtime.withContext(for: method.owner, width: 0, messageClass: "", flags: 0) { context in
                runtime.dispatcher.conversation(method, receiver: object.handle, context: context)
            }
        }
        objects.removeAll()
        order.removeAll()
    }
}

extension Runtime {
    /// Runs `body` with a context whose host table is that of the plugin
    /// owning `cls`. `state` is the calling thread's (`state`; a caller that
    /// has it passes it, saving a thread-local read per call).
    func withContext<T>(for cls: RuntimeClass, width: Int, messageClass: String, flags: UInt32,
                        state: CallState? = nil, _ body: (UnsafePointer<cellhost_context>) -> T) -> T {
        let directory = (state ?? self.state).baseDirectory.pointer
        return messageClassCString(messageClass) { name in
            var context = self.context(for: cls, width: width, messageClass: name, flags: flags, directory: directory)
            return withUnsafePointer(to: &context) { body($0) }
        }
    }

    /// The context of a call to a method of `cls`: its plugin's host
    /// table, and strings the caller keeps valid for the call.
    @inline(__always)
    func context(for cls: RuntimeClass, width: Int, messageClass: UnsafePointer<CChar>, flags: UInt32,
                 directory: UnsafePointer<CChar>) -> cellhost_context {
        cellhost_context(struct_size: UInt32(MemoryLayout<cellhost_context>.size),
                         width: UInt32(clamping: max(width, 0)),
                         flags: flags, reserved: 0, message_class: messageClass,
                         host: cls.hostTable ?? hostTable(for: cls.pluginID), base_directory: directory)
    }

    /// `context(for:…)` of the class implementing `method`. Its owner is
    /// read without a retain: a class lives as long as its runtime.
    @inline(__always)
    func context(for method: Method, width: Int, messageClass: UnsafePointer<CChar>, flags: UInt32,
                 directory: UnsafePointer<CChar>) -> cellhost_context {
        Unmanaged.passUnretained(method.owner)._withUnsafeGuaranteedRef {
            context(for: $0, width: width, messageClass: messageClass, flags: flags, directory: directory)
        }
    }

    /// The C string lives for the call only, so message classes taken from
    /// input (unbounded in number) are never interned.
    @inline(__always)
    func messageClassCString<T>(_ name: String, _ body: (UnsafePointer<CChar>) -> T) -> T {
        name.withCString(body)
    }
}

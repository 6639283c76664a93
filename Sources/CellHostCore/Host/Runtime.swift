import CellHostABI
import Glibc
import Synchronization

/// A class as a plugin describes it, before it is linked into the runtime:
/// plain data, separable from the library that implements it. Descriptions
/// read in the scanner process or from the plugin cache carry no IMPs
/// (`imp == 0`); the library is opened when the class is first used.
public struct ClassDescription: Sendable, Codable {
    public struct MethodDescription: Sendable, Codable {
        public var selector: String
        public var types: String
        /// The IMP's address in this process; 0 when only described.
        public var imp: UInt
        /// Whether the plugin gave an implementation (a non-NULL IMP), also
        /// when the description came from another process.
        public var implemented: Bool

        public init(selector: String, types: String, imp: UInt) {
            self.selector = selector
            self.types = types
            self.imp = imp
            implemented = imp != 0
        }

        private enum CodingKeys: String, CodingKey { case selector, types, implemented }

        public init(from decoder: Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            selector = try container.decode(String.self, forKey: .selector)
            types = try container.decode(String.self, forKey: .types)
            implemented = try container.decode(Bool.self, forKey: .implemented)
            imp = 0
        }
    }
    public var name: String
    public var superclass: String
    public var messageClasses: [String]
    public var rank: Int32
    public var instanceSize: Int
    public var methods: [MethodDescription]
    /// Where the plugin keeps the class struct in this process (what it
    /// passes to `object_ivars`); 0 when only described.
    public var address: UInt = 0

    private enum CodingKeys: String, CodingKey { case name, superclass, messageClasses, rank, instanceSize, methods }
}

/// Why a class was not accepted.
public struct ClassRejection: Error, CustomStringConvertible, Sendable {
    public var className: String
    public var reason: String
    public var description: String { "class '\(className)' rejected: \(reason)" }
}

/// Counts plugin calls, twice each (odd while one runs), so that a watchdog
/// on another thread can tell a call that does not return.
public final class CallProgress: Sendable {
    private let count = Atomic<UInt64>(0)

    init() {}

    func step() { count.add(1, ordering: .releasing) }

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
    /// Every linked class by name.
    public private(set) var classes: [String: RuntimeClass] = [:]
    public let registry: Registry
    /// The host's root class.
    public let messageCell: RuntimeClass
    public let unknownMessageCell: RuntimeClass
    public internal(set) var dispatcher: Dispatcher
    var conversation = Conversation()
    weak var diagnostics: DiagnosticSink?
    /// The host table for the host's own classes.
    let hostContext: PluginHostContext
    /// Host contexts of loaded plugins by id (kept alive here).
    var pluginContexts: [String: PluginHostContext] = [:]
    /// Plugins whose descriptor sets CELLHOST_PLUGIN_THREAD_SAFE; their
    /// classes are linked as `threadSafe`.
    var threadSafePlugins: Set<String> = []

    /// Readies every class whose chain is thread-safe and whose libraries
    /// are open for render worker threads
    /// (`RuntimeClass.prepareForConcurrentCalls`); returns how many are. A
    /// library is still opened when first used: on this thread, which then
    /// readies its classes (`MessageRenderer.advance`). Call on the
    /// runtime's own thread.
    @discardableResult
    func prepareForConcurrentCalls() -> Int {
        var count = 0
        for cls in classes.values.sorted(by: { $0.name < $1.name }) {
            cls.prepareForConcurrentCalls()
            if cls.isConcurrent { count += 1 }
        }
        return count
    }

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
                if let linked = try? makeMethod(method, owner: cls) { cls.add(linked) }
            }
            cls.runtime = self
            cls.hostTable = UnsafePointer(hostContext.table)
            cls.threadSafe = true
            classes[cls.name] = cls
        }
        registry.register(root, forMessageClass: "text")
    }

    /// The call state of the thread that owns the runtime (`CallState`);
    /// render worker threads have their own (`workerStates`).
    let mainState: CallState
    let states: CallStates

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

    /// Call interfaces by type encoding: methods with one encoding (every
    /// `renderMessage:context:into:`) share one, parsed and prepared once.
    private var interfaces: [String: CallInterface] = [:]
    static let maximumCachedInterfaces = 4096

    /// The last method signature `makeMethod` accepted: linking many
    /// plugins makes the same `renderMessage:context:into:` over and over,
    /// and two string comparisons are cheaper than the look-ups.
    private var lastSignature: (selector: String, types: String, selectorPointer: UnsafePointer<CChar>,
                                interface: CallInterface, wellKnown: WellKnownSelector?)?

    /// Builds a method, parsing and checking its encoding.
    func makeMethod(_ description: ClassDescription.MethodDescription, owner: RuntimeClass) throws -> Method {
        let imp = UnsafeRawPointer(bitPattern: description.imp) ?? Method.unbound
        if let last = lastSignature, last.selector == description.selector, last.types == description.types {
            // The same signature passed `check` before; only the IMP can differ.
            guard description.implemented else {
                throw ClassRejection(className: owner.name, reason: "selector '\(description.selector)' has a NULL implementation")
            }
            return Method(selector: description.selector, selectorPointer: last.selectorPointer, types: description.types,
                          interface: last.interface, imp: imp, owner: owner, wellKnown: last.wellKnown)
        }
        let cached = interfaces[description.types]
        let encoding = try Self.check(description, className: owner.name, parsed: cached?.encoding)
        let wellKnown = WellKnownSelector(rawValue: description.selector)
        let interface: CallInterface
        if let cached {
            interface = cached
        } else {
            interface = try CallInterface(encoding: encoding)
            if interfaces.count < Self.maximumCachedInterfaces { interfaces[description.types] = interface }
        }
        let selectorPointer = selectors.intern(description.selector)
        lastSignature = (description.selector, description.types, selectorPointer, interface, wellKnown)
        return Method(selector: description.selector, selectorPointer: selectorPointer,
                      types: description.types, interface: interface, imp: imp, owner: owner, wellKnown: wellKnown)
    }

    /// Checks a method as linking does: its encoding parses, a well-known
    /// selector has the required encoding, and it has an implementation.
    /// Returns the parsed encoding (`parsed`, when the caller has it already).
    @discardableResult
    static func check(_ description: ClassDescription.MethodDescription, className: String,
                      parsed: MethodTypeEncoding? = nil) throws -> MethodTypeEncoding {
        let encoding: MethodTypeEncoding
        if let parsed {
            encoding = parsed
        } else {
            do {
                encoding = try MethodTypeEncoding.parsed(description.types)
            } catch let error as TypeEncodingError {
                throw ClassRejection(className: className, reason: "selector '\(description.selector)': \(error)")
            }
        }
        if let wellKnown = WellKnownSelector(rawValue: description.selector), encoding.canonical != wellKnown.requiredEncoding {
            throw ClassRejection(className: className,
                                 reason: "selector '\(description.selector)' has encoding '\(description.types)' but the host expects '\(wellKnown.requiredEncoding)'")
        }
        guard description.implemented else {
            throw ClassRejection(className: className, reason: "selector '\(description.selector)' has a NULL implementation")
        }
        return encoding
    }

    /// Links described classes into the runtime: resolves superclasses (which
    /// may come from any plugin, in any order), checks every method, and
    /// registers the accepted classes in the order given. Returns the rejections.
    ///
    /// Classes of a plugin in `lazy` are linked without their IMPs: its
    /// library is opened when one of them is first used (`bindChain`).
    func link(_ batch: [(description: ClassDescription, pluginID: String)],
              lazy: [String: LazyPlugin] = [:]) -> [(pluginID: String, rejection: ClassRejection)] {
        var rejections: [(String, ClassRejection)] = []
        // Per batch index (arrays, not dictionaries: linking 2000 classes
        // did several string-keyed look-ups per class).
        var isPending = [Bool](repeating: false, count: batch.count)
        var owners: [String: Int] = Dictionary(minimumCapacity: batch.count)
        for (index, item) in batch.enumerated() {
            let name = item.description.name
            if let existing = classes[name] {
                rejections.append((item.pluginID, ClassRejection(className: name, reason: "a class of that name is already defined by \(existing.pluginID)")))
            } else if let owner = owners[name] {
                rejections.append((item.pluginID, ClassRejection(className: name, reason: "a class of that name is already defined by \(batch[owner].pluginID)")))
            } else {
                owners[name] = index
                isPending[index] = true
            }
        }
        classes.reserveCapacity(classes.count + batch.count)
        var linked = [RuntimeClass?](repeating: nil, count: batch.count)
        var failed = [String?](repeating: nil, count: batch.count)
        var visiting = [Bool](repeating: false, count: batch.count)
        var hostTables: [String: UnsafePointer<cellhost_host>] = [:]
        // Resolve each pending class, following superclass links within the batch.
        func resolve(_ index: Int) -> RuntimeClass? {
            if let done = linked[index] { return done }
            if failed[index] != nil || !isPending[index] { return nil }
            let description = batch[index].description
            guard !visiting[index] else {
                failed[index] = "superclass chain of '\(description.name)' is a cycle"
                return nil
            }
            visiting[index] = true
            defer { visiting[index] = false }
            let superclass: RuntimeClass
            if let existing = classes[description.superclass] {
                superclass = existing
            } else if let other = owners[description.superclass] {
                guard let resolved = resolve(other) else {
                    failed[index] = failed[index] ?? "superclass '\(description.superclass)' was rejected"
                    return nil
                }
                superclass = resolved
            } else {
                failed[index] = "superclass '\(description.superclass)' not found"
                return nil
            }
            let pluginID = batch[index].pluginID
            let cls = RuntimeClass(name: description.name, pluginID: pluginID,
                                   messageClasses: description.messageClasses, rank: description.rank,
                                   instanceSize: description.instanceSize, selectors: selectors)
            cls.superclass = superclass
            cls.structAddress = UnsafeRawPointer(bitPattern: description.address)
            cls.threadSafe = threadSafePlugins.contains(cls.pluginID)
            cls.runtime = self
            if let table = hostTables[pluginID] {
                cls.hostTable = table
            } else {
                let table = hostTable(for: pluginID)
                hostTables[pluginID] = table
                cls.hostTable = table
            }
            if let plugin = lazy[pluginID] {
                cls.lazyPlugin = plugin
                plugin.linkedClasses.append(cls)
            }
            do {
                for method in description.methods { cls.add(try makeMethod(method, owner: cls)) }
            } catch let rejection as ClassRejection {
                failed[index] = rejection.reason
                return nil
            } catch {
                failed[index] = "\(error)"
                return nil
            }
            linked[index] = cls
            return cls
        }
        for index in batch.indices where isPending[index] { _ = resolve(index) }
        for index in batch.indices where isPending[index] {
            if let cls = linked[index] {
                classes[cls.name] = cls
                for messageClass in cls.messageClasses { registry.register(cls, forMessageClass: messageClass) }
            } else if let reason = failed[index] {
                rejections.append((batch[index].pluginID, ClassRejection(className: batch[index].description.name, reason: reason)))
            }
        }
        return rejections
    }

    // MARK: Opening libraries on first use

    /// Opens the libraries of `cls` and its superclasses that are not open
    /// yet, and gives their classes their IMPs. A library that fails to open
    /// makes its classes, and their subclasses, unavailable (logged once).
    func bindChain(of cls: RuntimeClass) {
        var current: RuntimeClass? = cls
        while let each = current {
            if let plugin = each.lazyPlugin { bind(plugin) }
            current = each.superclass
        }
        current = cls.superclass
        while let each = current, cls.unavailable == nil {
            if each.ensureBound() != nil { cls.unavailable = each.unavailable }
            current = each.superclass
        }
    }

    private func bind(_ plugin: LazyPlugin) {
        let library = plugin.open(runtime: self)
        for cls in plugin.linkedClasses {
            cls.lazyPlugin = nil
            guard let library else {
                cls.unavailable = "\(plugin.file): \(plugin.failure ?? "could not be opened")"
                continue
            }
            let described = library.classes.first { $0.name == cls.name }
            cls.structAddress = UnsafeRawPointer(bitPattern: described?.address ?? 0)
            for method in cls.methodList {
                let imp = described?.methods.first { $0.selector == method.selector && $0.types == method.types }?.imp ?? 0
                guard let pointer = UnsafeRawPointer(bitPattern: imp) else {
                    cls.unavailable = "\(plugin.file): class '\(cls.name)' no longer implements '\(method.selector)'; "
                        + "run `cellhost list-plugins --rescan`"
                    break
                }
                method.imp = pointer
            }
        }
        plugin.linkedClasses.removeAll()
        if let failure = plugin.failure {
            log(plugin: plugin.pluginID, level: Int32(CELLHOST_LOG_ERROR), message: "\(plugin.file): could not be opened when first needed: \(failure)")
        }
    }

    // MARK: Plain text

    /// The one-line summary of `message` by `cls` into `canvas`
    /// (`plainTextForMessage:context:into:`): a class that declines passes
    /// the question to its superclass's implementation, up to `MessageCell`'s,
    /// which always answers. False when a class failed (CELLHOST_ERROR);
    /// `canvas` is then empty.
    func plainText(of cls: RuntimeClass, _ message: Message, into canvas: CellCanvas, width: Int,
                   messageClass: String) -> Bool {
        let object = conversation.instance(of: cls, runtime: self)
        var method = cls.lookup(.plainText)
        while let current = method {
            let result = withContext(for: current.owner, width: width, messageClass: messageClass, flags: 0) {
                dispatcher.plainText(current, receiver: object.handle, message: message.handle, context: $0,
                                     builder: BuilderHandle.handle(canvas))
            }
            if result == Int32(CELLHOST_RENDERED) { return true }
            canvas.reset()
            guard result == Int32(CELLHOST_DECLINED) else { return false }
            method = current.owner.superclass?.lookup(.plainText)
        }
        return false
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
    /// Runs `body` with a context whose host table is that of the plugin owning `cls`.
    func withContext<T>(for cls: RuntimeClass, width: Int, messageClass: String, flags: UInt32,
                        _ body: (UnsafePointer<cellhost_context>) -> T) -> T {
        let host = cls.hostTable ?? hostTable(for: cls.pluginID)
        return messageClassCString(messageClass) { name in
            var context = cellhost_context(struct_size: UInt32(MemoryLayout<cellhost_context>.size),
                                           width: UInt32(clamping: max(width, 0)),
                                           flags: flags, reserved: 0, message_class: name, host: host,
                                           base_directory: baseDirectory.pointer)
            return withUnsafePointer(to: &context) { body($0) }
        }
    }

    func hostTable(for pluginID: String) -> UnsafePointer<cellhost_host> {
        UnsafePointer((pluginContexts[pluginID] ?? hostContext).table)
    }

    /// The C string lives for the call only, so message classes taken from
    /// input (unbounded in number) are never interned.
    private func messageClassCString<T>(_ name: String, _ body: (UnsafePointer<CChar>) -> T) -> T {
        name.withCString(body)
    }
}

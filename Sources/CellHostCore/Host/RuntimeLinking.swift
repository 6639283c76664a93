import CellHostABI
import Glibc

/// A method signature as linking checks it: once per selector and encoding.
enum SignatureCheck {
    /// It parses, a well-known selector has its required encoding, and
    /// libffi prepared a call interface for it.
    case prepared(Signature)
    /// The encoding does not parse, or a well-known selector has another one.
    case refused(String)
    /// libffi cannot call it.
    case unprepared(String)
}

extension SignatureCheck {
    /// What linking says of every method with this signature, whatever its implementation.
    var verdict: SignatureVerdict {
        switch self {
        case .prepared: return SignatureVerdict()
        case .refused(let reason): return SignatureVerdict(refused: reason)
        case .unprepared(let reason): return SignatureVerdict(unprepared: reason)
        }
    }
}

/// Why linking refuses methods with one signature, if it does.
struct SignatureVerdict {
    var refused: String?
    var unprepared: String?

    /// Why linking refuses such a method, in the order linking looks: the
    /// encoding, a NULL implementation, libffi.
    func problem(selector: @autoclosure () -> String, implemented: Bool) -> String? {
        if let refused { return refused }
        guard implemented else { return "selector '\(selector())' has a NULL implementation" }
        return unprepared
    }
}

/// A checked selector and encoding, with what calling it needs.
struct Signature {
    let selector: String
    /// The interned selector passed as `_cmd`.
    let selectorPointer: UnsafePointer<CChar>
    let types: String
    let interface: CallInterface
    let wellKnown: WellKnownSelector?
}

extension Method {
    convenience init(_ signature: Signature, imp: UnsafeRawPointer, owner: RuntimeClass) {
        self.init(selector: signature.selector, selectorPointer: signature.selectorPointer, types: signature.types,
                  interface: signature.interface, imp: imp, owner: owner, wellKnown: signature.wellKnown)
    }
}

extension Runtime {
    /// Every class of a runtime by name: the linked ones, and the classes of
    /// loaded plugins, which are linked when first looked up.
    public struct Classes {
        unowned let runtime: Runtime

        /// The class named `name`, linked now if it was not yet.
        public subscript(name: String) -> RuntimeClass? {
            runtime.linking.lock()
            defer { runtime.linking.unlock() }
            if let cls = runtime.linked[name] { return cls }
            for set in runtime.classSets {
                if let cls = set.link(named: name) { return cls }
            }
            return nil
        }

        /// The names of every class, linked or not, sorted.
        public var names: [String] {
            runtime.linking.lock()
            defer { runtime.linking.unlock() }
            var names = Set(runtime.linked.keys)
            for set in runtime.classSets { names.formUnion(set.acceptedNames) }
            return names.sorted()
        }

        /// The names of the classes linked so far, sorted.
        var linkedNames: [String] {
            runtime.linking.lock()
            defer { runtime.linking.unlock() }
            return runtime.linked.keys.sorted()
        }
    }

    /// Every class by name (a look-up links a class of a loaded plugin).
    public var classes: Classes { Classes(runtime: self) }

    /// Links described classes into the runtime now: resolves superclasses
    /// (which may come from any plugin, in any order, or be classes of
    /// loaded plugins), checks every method, and registers the accepted
    /// classes in the order given. Returns the rejections.
    func link(_ batch: [(description: ClassDescription, pluginID: String)]) -> [(pluginID: String, rejection: ClassRejection)] {
        let catalog = PluginCatalog()
        var members: [PluginClasses.Member] = []
        var start = batch.startIndex
        while start < batch.endIndex {
            var end = start + 1
            while end < batch.endIndex && batch[end].pluginID == batch[start].pluginID { end += 1 }
            var record = PluginRecord(file: "", state: .loaded)
            record.id = batch[start].pluginID
            record.classes = batch[start..<end].map(\.description)
            members.append(PluginClasses.Member(plugin: catalog.add(record), library: .given))
            start = end
        }
        let classes = PluginClasses(catalog: catalog, members: members, runtime: self)
        let rejections = classes.resolve()
        classes.linkAll()
        registry.registerNow(classes)
        return rejections.map { (classes.pluginID(of: $0.member), $0.rejection) }
    }

    /// Adds the classes of loaded plugins, to be linked on first use.
    func adopt(_ classes: PluginClasses) {
        linking.lock()
        classSets.append(classes)
        linking.unlock()
        registry.addDeferred(classes)
    }

    // MARK: Methods

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

    /// Checks `selector` with `types` and prepares its call interface
    /// (shared by every method with that encoding).
    func checkSignature(selector: String, types: String) -> SignatureCheck {
        linking.lock()
        defer { linking.unlock() }
        let cached = interfaces[types]
        let encoding: MethodTypeEncoding
        do {
            encoding = try Self.check(.init(selector: selector, types: types, imp: 1), className: "", parsed: cached?.encoding)
        } catch let rejection as ClassRejection {
            return .refused(rejection.reason)
        } catch {
            return .refused("\(error)")
        }
        let interface: CallInterface
        if let cached {
            interface = cached
        } else {
            do {
                interface = try CallInterface(encoding: encoding)
            } catch {
                return .unprepared("\(error)")
            }
            if interfaces.count < Self.maximumCachedInterfaces { interfaces[types] = interface }
        }
        return .prepared(Signature(selector: selector, selectorPointer: selectors.intern(selector), types: types,
                                   interface: interface, wellKnown: WellKnownSelector(rawValue: selector)))
    }

    func hostTable(for pluginID: String) -> UnsafePointer<cellhost_host> {
        linking.lock()
        defer { linking.unlock() }
        return UnsafePointer((pluginContexts[pluginID] ?? hostContext).table)
    }

    // MARK: Opening libraries on first use

    /// Readies every linked class whose chain is thread-safe and whose
    /// libraries are open for render worker threads
    /// (`RuntimeClass.prepareForConcurrentCalls`); returns how many are. A
    /// library is still opened when first used: on this thread, which then
    /// readies its classes (`MessageRenderer.advance`). Call on the
    /// runtime's own thread.
    @discardableResult
    func prepareForConcurrentCalls() -> Int {
        linking.lock()
        let classes = linked.values.sorted { $0.name < $1.name }
        linking.unlock()
        var count = 0
        for cls in classes {
            cls.prepareForConcurrentCalls()
            if cls.isConcurrent { count += 1 }
        }
        return count
    }

    /// Gives a class just linked its plugin's IMPs, now or when the library
    /// is opened. Call with `linking` held.
    func attach(_ cls: RuntimeClass, to plugin: LazyPlugin) {
        switch plugin.state {
        case .pending:
            cls.lazyPlugin = plugin
            plugin.linkedClasses.append(cls)
        case .opened(let library):
            bind(cls, to: library, file: plugin.file)
        case .failed(let reason):
            cls.lazyPlugin = nil
            cls.unavailable = "\(plugin.file): \(reason)"
        }
    }

    /// Opens the libraries of `cls` and its superclasses that are not open
    /// yet, and gives their classes their IMPs. A library that fails to open
    /// makes its classes, and their subclasses, unavailable (logged once).
    /// Libraries are opened on the runtime's own thread only: a class is
    /// called on a render worker thread once it is bound.
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

    /// Opens `plugin`'s library (without holding `linking`: its `init`
    /// runs, and may call the host) and binds the classes linked so far.
    private func bind(_ plugin: LazyPlugin) {
        linking.lock()
        guard case .pending = plugin.state else {
            linking.unlock()
            return
        }
        linking.unlock()
        let state = plugin.openLibrary(runtime: self)
        linking.lock()
        plugin.state = state
        for cls in plugin.linkedClasses { attach(cls, to: plugin) }
        plugin.linkedClasses.removeAll()
        linking.unlock()
        if case .failed(let failure) = state {
            log(plugin: plugin.pluginID, level: Int32(CELLHOST_LOG_ERROR), message: "\(plugin.file): could not be opened when first needed: \(failure)")
        }
    }

    /// Gives `cls` the IMPs `library` describes for it.
    private func bind(_ cls: RuntimeClass, to library: PluginLibrary, file: String) {
        cls.lazyPlugin = nil
        let described = library.classes.first { $0.name == cls.name }
        cls.structAddress = UnsafeRawPointer(bitPattern: described?.address ?? 0)
        for method in cls.methodList {
            let imp = described?.methods.first { $0.selector == method.selector && $0.types == method.types }?.imp ?? 0
            guard let pointer = UnsafeRawPointer(bitPattern: imp) else {
                cls.unavailable = "\(file): class '\(cls.name)' no longer implements '\(method.selector)'; "
                    + "run `cellhost list-plugins --rescan`"
                break
            }
            method.imp = pointer
        }
    }
}

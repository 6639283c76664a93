/// The classes of plugins loaded together into one runtime.
///
/// When loaded, they are checked against each other and against the
/// runtime's classes exactly as linking checks them (`resolve`: names
/// unique, superclasses found, no cycle, every method valid), so every
/// rejection, and so every diagnostic, is known at once; the accepted ones
/// are registered with the registry by message class without being linked.
/// A class is linked (its `RuntimeClass` made, its methods prepared) when
/// first needed: by a fallback chain (`takeCandidates`), by name
/// (`Runtime.classes`), or as the superclass of a class being linked. With
/// a thousand plugins installed, a run links the few classes its messages
/// use; the checks work on catalog names, which are integers.
///
/// Linking takes the runtime's `linking` lock: render worker threads link
/// the classes of the chains they look up.
final class PluginClasses: DeferredCandidates {
    /// A plugin whose classes these are.
    struct Member {
        /// The plugin's index in the catalog.
        let plugin: Int
        let library: Library
        /// The search-path directory its file was found in (`RuntimeClass.directory`).
        var directory: String? = nil
    }

    /// Where a member's IMPs come from.
    enum Library {
        /// The catalog's (classes described in this process: in-process
        /// cells, `Runtime.link`).
        case given
        /// A library opened while loading (`PluginLoader.Description.inProcess`):
        /// the catalog has its IMPs.
        case opened(LazyPlugin)
        /// The library, opened when one of its classes is first used; the
        /// file as it was described.
        case onFirstUse(FileIdentity?)
    }

    /// A class outside this set that one of its classes subclasses, or
    /// whose name one of them takes.
    enum ExistingClass {
        case linked(RuntimeClass)
        /// An accepted class of another set (by catalog index), linked with
        /// its first subclass.
        case deferred(PluginClasses, Int)
    }

    /// One member's class refused.
    struct Rejection {
        let member: Int
        let rejection: ClassRejection
    }

    let catalog: PluginCatalog
    let members: [Member]
    private unowned let runtime: Runtime

    // Per member:
    private var pluginIDs: [String?]
    /// The libraries made so far (`library(of:identity:)`).
    private var libraries: [LazyPlugin?]
    // Per catalog class:
    private var memberOfClass: [Int32]
    private var accepted: [Bool]
    /// The superclass of an accepted class: a class of this set (catalog
    /// index, >= 0), or `existing[-2 - value]`.
    private var superclasses: [Int32]
    /// The runtime's classes and other sets' that classes of this one
    /// subclass.
    private var existing: [ExistingClass] = []
    private var linked: [RuntimeClass?]
    // Per catalog name:
    /// The accepted class of that name (catalog index), or -1.
    private var classByName: [Int32]
    /// The candidates registered for the message class of that name are
    /// `candidateClasses[candidateStart[name] ..< candidateStart[name + 1]]`.
    private var candidateStart: [Int32] = []
    private var candidateClasses: [Int32] = []
    private var candidateOrders: [Int] = []
    private var taken: [Bool]
    private var untaken = 0
    /// The last signatures checked, by selector and encoding names (a few
    /// signatures serve a thousand plugins' classes), and the verdict of
    /// the last one apart, which most methods share.
    private var signatureKeys: [UInt64] = []
    private var signatureChecks: [SignatureCheck] = []
    private var nextSignature = 0
    static let rememberedSignatures = 64
    private var lastSignature: (key: UInt64, verdict: SignatureVerdict) = (.max, SignatureVerdict())
    private let methods: [PluginCatalog.Method]
    private let plugins: [PluginCatalog.Plugin]
    /// Each member's plugin (catalog index).
    private let memberPlugins: [Int]

    init(catalog: PluginCatalog, members: [Member], runtime: Runtime) {
        self.catalog = catalog
        self.members = members
        self.runtime = runtime
        methods = catalog.methods
        plugins = catalog.plugins
        memberPlugins = members.map(\.plugin)
        libraries = members.map {
            if case .opened(let plugin) = $0.library { return plugin }
            return nil
        }
        pluginIDs = Array(repeating: nil, count: members.count)
        memberOfClass = Array(repeating: -1, count: catalog.classes.count)
        accepted = Array(repeating: false, count: catalog.classes.count)
        superclasses = Array(repeating: -1, count: catalog.classes.count)
        linked = Array(repeating: nil, count: catalog.classes.count)
        classByName = Array(repeating: -1, count: catalog.names.count)
        taken = Array(repeating: false, count: catalog.names.count)
    }

    // MARK: Checking

    /// Checks every member's classes, in member order, as linking does
    /// (`ClassResolution`), and numbers the registrations of the accepted
    /// ones. Returns the rejections: duplicate names first, then the rest,
    /// each in order.
    func resolve() -> [Rejection] {
        let nameCount = catalog.names.count
        let (existing, existingIndex) = existingClasses()
        let classes = catalog.classes, classMessageClasses = catalog.classMessageClasses
        var batch: [Int] = []
        for (index, plugin) in memberPlugins.enumerated() {
            for cls in plugins[plugin].classes {
                batch.append(cls)
                memberOfClass[cls] = Int32(index)
            }
        }
        var resolution = ClassResolution(catalog: catalog, batch: batch, existing: existingIndex)
        resolution.run { problem(ofMethod: $0) }
        self.existing = existing
        func owner(_ place: ClassResolution.Place) -> String {
            switch place {
            case .existing(let index): return Self.pluginID(of: existing[index])
            case .position(let position): return self.pluginID(ofClass: batch[position])
            }
        }
        var rejections: [Rejection] = []
        var counts = [Int32](repeating: 0, count: nameCount + 1)
        var registrations = 0
        for (position, outcome) in resolution.outcomes.enumerated() {
            if case .duplicate(let place) = outcome {
                rejections.append(reject(batch[position], "a class of that name is already defined by \(owner(place))"))
            } else if case .accepted = outcome {
                for messageClass in classMessageClasses[classes[batch[position]].messageClasses] {
                    counts[messageClass.index + 1] += 1
                    registrations += 1
                }
            }
        }
        for index in 0..<nameCount { counts[index + 1] += counts[index] }
        candidateStart = counts
        candidateClasses = Array(repeating: 0, count: registrations)
        candidateOrders = Array(repeating: 0, count: registrations)
        untaken = registrations
        var next = counts
        var order = runtime.registry.reserveRegistrations(registrations)
        for (position, outcome) in resolution.outcomes.enumerated() {
            let cls = batch[position]
            switch outcome {
            case .accepted(let place):
                let described = classes[cls]
                accepted[cls] = true
                switch place {
                case .existing(let index): superclasses[cls] = Int32(-2 - index)
                case .position(let position): superclasses[cls] = Int32(batch[position])
                }
                classByName[described.name.index] = Int32(cls)
                for messageClass in classMessageClasses[described.messageClasses] {
                    let slot = Int(next[messageClass.index])
                    next[messageClass.index] += 1
                    candidateClasses[slot] = Int32(cls)
                    candidateOrders[slot] = order
                    order += 1
                }
            case .failed(let reason):
                rejections.append(reject(cls, resolution.reasons[reason]))
            case .duplicate, nil:
                break
            }
        }
        return rejections
    }

    /// The runtime's classes, and the accepted classes of its other sets,
    /// that have names in this catalog; and, by name, which one (-1: none).
    private func existingClasses() -> ([ExistingClass], [Int32]) {
        let names = catalog.names
        var existing: [ExistingClass] = []
        var index = [Int32](repeating: -1, count: names.count)
        runtime.linking.lock()
        defer { runtime.linking.unlock() }
        for (name, cls) in runtime.linked {
            if let found = names.find(name), found.index < index.count {
                index[found.index] = Int32(existing.count)
                existing.append(.linked(cls))
            }
        }
        for set in runtime.classSets {
            for (cls, isAccepted) in set.accepted.enumerated() where isAccepted {
                let found = set.catalog.names.withBytes(set.catalog.classes[cls].name) { names.find($0) }
                if let found, found.index < index.count, index[found.index] < 0 {
                    index[found.index] = Int32(existing.count)
                    existing.append(.deferred(set, cls))
                }
            }
        }
        return (existing, index)
    }

    /// Why linking refuses method `index` of the catalog, if it does; its
    /// signature is checked once per selector and encoding.
    private func problem(ofMethod index: Int) -> String? {
        let method = methods[index]
        let key = Self.key(method)
        // A thousand plugins' classes share one render signature: the last
        // signature's verdict is kept apart, so most methods cost no look-up.
        if key != lastSignature.key { lastSignature = (key, signature(method).verdict) }
        return lastSignature.verdict.problem(selector: catalog.string(method.selector), implemented: method.implemented)
    }

    private func signature(_ method: PluginCatalog.Method) -> SignatureCheck {
        let key = Self.key(method)
        if let index = signatureKeys.firstIndex(of: key) { return signatureChecks[index] }
        let check = runtime.checkSignature(selector: catalog.string(method.selector), types: catalog.string(method.types))
        if signatureKeys.count < Self.rememberedSignatures {
            signatureKeys.append(key)
            signatureChecks.append(check)
        } else {
            signatureKeys[nextSignature] = key
            signatureChecks[nextSignature] = check
            nextSignature = (nextSignature + 1) % Self.rememberedSignatures
        }
        return check
    }

    private static func key(_ method: PluginCatalog.Method) -> UInt64 {
        UInt64(method.selector.rawValue) << 32 | UInt64(method.types.rawValue)
    }

    private func reject(_ cls: Int, _ reason: String) -> Rejection {
        Rejection(member: Int(memberOfClass[cls]),
                  rejection: ClassRejection(className: catalog.string(catalog.classes[cls].name), reason: reason))
    }

    // MARK: Names

    /// The plugin id of a member.
    func pluginID(of member: Int) -> String {
        runtime.linking.lock()
        defer { runtime.linking.unlock() }
        if let known = pluginIDs[member] { return known }
        let id = catalog.string(plugins[memberPlugins[member]].id) ?? ""
        pluginIDs[member] = id
        return id
    }

    private func pluginID(ofClass cls: Int) -> String { pluginID(of: Int(memberOfClass[cls])) }

    private static func pluginID(of existing: ExistingClass) -> String {
        switch existing {
        case .linked(let cls): return cls.pluginID
        case let .deferred(set, cls): return set.pluginID(ofClass: cls)
        }
    }

    /// Whether class `index` of the catalog was accepted.
    func isAccepted(_ index: Int) -> Bool { accepted[index] }

    /// The names of the accepted classes.
    var acceptedNames: [String] {
        accepted.indices.filter { accepted[$0] }.map { catalog.string(catalog.classes[$0].name) }
    }

    // MARK: Linking

    /// Links every accepted class now.
    func linkAll() {
        runtime.linking.lock()
        defer { runtime.linking.unlock() }
        for cls in accepted.indices where accepted[cls] { _ = link(cls) }
    }

    /// The accepted class named `name`, linked; nil when there is none.
    func link(named name: String) -> RuntimeClass? {
        runtime.linking.lock()
        defer { runtime.linking.unlock() }
        guard let found = catalog.names.find(name), found.index < classByName.count, classByName[found.index] >= 0 else {
            return nil
        }
        return link(Int(classByName[found.index]))
    }

    /// Accepted class `index` of the catalog, linked (with its superclasses)
    /// if it was not yet; nil when it was not accepted.
    func link(_ index: Int) -> RuntimeClass? {
        runtime.linking.lock()
        defer { runtime.linking.unlock() }
        if let cls = linked[index] { return cls }
        guard accepted[index] else { return nil }
        let reference = Int(superclasses[index])
        let superclass: RuntimeClass?
        if reference >= 0 {
            superclass = link(reference)
        } else {
            switch existing[-2 - reference] {
            case .linked(let cls): superclass = cls
            case let .deferred(set, other): superclass = set.link(other)
            }
        }
        guard let superclass else { return nil }
        let member = Int(memberOfClass[index])
        let described = catalog.classes[index]
        let cls = RuntimeClass(name: catalog.string(described.name), pluginID: pluginID(of: member),
                               messageClasses: catalog.classMessageClasses[described.messageClasses].map(catalog.string),
                               rank: described.rank, instanceSize: described.instanceSize, selectors: runtime.selectors)
        cls.superclass = superclass
        cls.structAddress = UnsafeRawPointer(bitPattern: described.address)
        cls.threadSafe = plugins[memberPlugins[member]].threadSafe
        cls.directory = members[member].directory
        cls.runtime = runtime
        for method in catalog.methods[described.methods] {
            // `resolve` accepted the class: every signature is prepared.
            guard case .prepared(let prepared) = signature(method) else { continue }
            cls.add(Method(prepared, imp: UnsafeRawPointer(bitPattern: method.imp) ?? Method.unbound, owner: cls))
        }
        switch members[member].library {
        case .given:
            cls.hostTable = runtime.hostTable(for: cls.pluginID)
        case .opened(let plugin):
            cls.hostTable = UnsafePointer(plugin.context.table)
        case .onFirstUse(let identity):
            let plugin = library(of: member, identity: identity)
            cls.hostTable = UnsafePointer(plugin.context.table)
            runtime.attach(cls, to: plugin)
        }
        runtime.linked[cls.name] = cls
        linked[index] = cls
        return cls
    }

    /// The plugin of a member whose library is opened on first use, made
    /// when the first of its classes is linked.
    private func library(of member: Int, identity: FileIdentity?) -> LazyPlugin {
        if let made = libraries[member] { return made }
        let id = pluginID(of: member)
        let context = PluginHostContext(pluginID: id)
        context.runtime = runtime
        runtime.pluginContexts[id] = context
        let plugin = LazyPlugin(file: catalog.string(plugins[memberPlugins[member]].file), pluginID: id,
                                identity: identity, context: context)
        libraries[member] = plugin
        return plugin
    }

    // MARK: DeferredCandidates

    func takeCandidates(for messageClass: String) -> [Registry.Candidate] {
        runtime.linking.lock()
        defer { runtime.linking.unlock() }
        guard untaken > 0, let name = catalog.names.find(messageClass), name.index < taken.count, !taken[name.index] else {
            return []
        }
        taken[name.index] = true
        let slots = Int(candidateStart[name.index])..<Int(candidateStart[name.index + 1])
        untaken -= slots.count
        return slots.compactMap { slot in
            link(Int(candidateClasses[slot])).map { Registry.Candidate(cls: $0, rank: $0.rank, order: candidateOrders[slot]) }
        }
    }

    func hasCandidates(for messageClass: String) -> Bool {
        guard let name = catalog.names.find(messageClass), name.index + 1 < candidateStart.count else { return false }
        return candidateStart[name.index + 1] > candidateStart[name.index]
    }

    var messageClassesWithCandidates: [String] {
        runtime.linking.lock()
        defer { runtime.linking.unlock() }
        guard untaken > 0 else { return [] }
        return taken.indices.filter { !taken[$0] && candidateStart[$0 + 1] > candidateStart[$0] }.map { catalog.string(Name($0)) }
    }
}

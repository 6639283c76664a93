import Synchronization

/// Maps message classes to cell classes with the semantics of
/// `registerClass:forMessageClass:` (docs/plugin-abi.md, "Cell classes and the registry"):
///
/// - among the candidates for one message class the highest rank wins, and on
///   equal rank the later registration;
/// - a user override (`--renderer TYPE=CLASS`, the config file) beats all;
/// - shadowed candidates stay listed and are tried in order when the winner
///   declines or fails, then the parent message class's candidates, then
///   `UnknownMessageCell`.
public final class Registry {
    /// One registration of a class for a message class.
    public struct Candidate {
        public let cls: RuntimeClass
        public let rank: Int32
        /// Registration order, to break ties: later wins.
        let order: Int
    }

    /// One step of a fallback chain: try `cls`, rendering the message as `messageClass`.
    public struct Step {
        public let cls: RuntimeClass
        public let messageClass: String
        public let isOverride: Bool
    }

    /// The resolved chain for one message class.
    public struct Chain {
        public let steps: [Step]
        /// True when neither the class nor an override has a renderer of its own.
        public let isUnregistered: Bool
    }

    /// The message-class tree. Changed only by `declare`; read it on the
    /// thread that owns the runtime.
    public private(set) var tree = MessageClassTree.builtIn
    private var candidates: [String: [Candidate]] = [:]
    private var overrides: [String: RuntimeClass] = [:]
    private var order = 0
    /// Classes registered but not linked yet (`PluginClasses`): a message
    /// class's candidates are taken from them when something first asks for
    /// that message class.
    private var deferred: [DeferredCandidates] = []
    private var chains: [String: Chain] = [:]
    /// Guards everything above: render worker threads ask for chains
    /// concurrently, and asking may link and register deferred classes.
    private let lock = RecursiveLock()
    /// Changes whenever a chain may have changed (a registration, a
    /// declaration, an override): threads that keep chains of their own
    /// (`CallState.chain`) check it on every look-up. Taking deferred
    /// candidates changes no chain: every chain is made after its message
    /// classes' candidates are taken.
    var generation: Int { changes.load(ordering: .acquiring) }
    private let changes = Atomic<Int>(0)
    static let maximumCachedChains = 1024
    let unknownCell: RuntimeClass

    init(unknownCell: RuntimeClass) {
        self.unknownCell = unknownCell
    }

    /// Registers `cls` for `messageClass` at its rank.
    public func register(_ cls: RuntimeClass, forMessageClass messageClass: String) {
        lock.lock()
        defer { lock.unlock() }
        order += 1
        add(Candidate(cls: cls, rank: cls.rank, order: order), for: messageClass)
        changed()
    }

    /// Reserves `count` registration numbers for registrations made later
    /// (`DeferredCandidates`); returns the first. A registration numbered
    /// earlier loses a tie of rank to one numbered later.
    func reserveRegistrations(_ count: Int) -> Int {
        lock.lock()
        defer { lock.unlock() }
        let first = order + 1
        order += count
        return first
    }

    /// Adds classes registered but not linked yet.
    func addDeferred(_ source: DeferredCandidates) {
        lock.lock()
        defer { lock.unlock() }
        deferred.append(source)
        changed()
    }

    /// Registers every candidate `source` holds, now.
    func registerNow(_ source: DeferredCandidates) {
        lock.lock()
        defer { lock.unlock() }
        takeAll(from: source)
        changed()
    }

    /// Declares a message class in the tree; returns why it was refused, if it was.
    public func declare(_ name: String, parent: String?, by plugin: String) -> String? {
        declare([MessageClassTree.Declaration(name: name, parent: parent, declaredBy: plugin)])[0]
    }

    /// Declares message classes in order, as `declare` does each; returns
    /// why each was refused (nil: it was not).
    func declare(_ declarations: [MessageClassTree.Declaration]) -> [String?] {
        lock.lock()
        defer { lock.unlock() }
        changed()
        return declarations.map { tree.declare($0.name, parent: $0.parent, by: $0.declaredBy) }
    }

    /// Makes `cls` render `messageClass` before every candidate.
    public func override(_ messageClass: String, with cls: RuntimeClass) {
        lock.lock()
        defer { lock.unlock() }
        overrides[messageClass] = cls
        changed()
    }

    /// Candidates for a message class, best first.
    public func candidates(for messageClass: String) -> [Candidate] {
        lock.lock()
        defer { lock.unlock() }
        return takenCandidates(for: messageClass)
    }

    /// True when `messageClass` is declared in the message-class tree or some
    /// class is registered for it: an override for any other name has no effect.
    public func isKnown(_ messageClass: String) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        return tree.isDeclared(messageClass) || !(candidates[messageClass] ?? []).isEmpty
            || deferred.contains { $0.hasCandidates(for: messageClass) }
    }

    /// The override for a message class, if any.
    public func overrideClass(for messageClass: String) -> RuntimeClass? {
        lock.lock()
        defer { lock.unlock() }
        return overrides[messageClass]
    }

    /// Every message class that is declared, registered for, or overridden,
    /// in a stable order. Takes (and so links) every deferred candidate.
    public var knownMessageClasses: [String] {
        lock.lock()
        defer { lock.unlock() }
        for source in deferred { takeAll(from: source) }
        var names = tree.declarations.map(\.name)
        var seen = Set(names)
        for name in (Array(candidates.keys) + Array(overrides.keys)).sorted() where seen.insert(name).inserted {
            names.append(name)
        }
        return names
    }

    /// Takes every candidate `source` holds (it links them). Call with the lock held.
    private func takeAll(from source: DeferredCandidates) {
        for messageClass in source.messageClassesWithCandidates {
            for candidate in source.takeCandidates(for: messageClass) { add(candidate, for: messageClass) }
        }
    }

    private func add(_ candidate: Candidate, for messageClass: String) {
        // The list stays sorted (rank descending, then later first):
        // inserted in place, so many classes for one message class cost no
        // re-sort per registration.
        candidates[messageClass, default: []].insertSorted(candidate)
    }

    /// The candidates of `messageClass`, deferred ones taken first. Call with the lock held.
    private func takenCandidates(for messageClass: String) -> [Candidate] {
        for source in deferred {
            for candidate in source.takeCandidates(for: messageClass) { add(candidate, for: messageClass) }
        }
        return candidates[messageClass] ?? []
    }

    private func changed() {
        if !chains.isEmpty { chains.removeAll() }
        changes.add(1, ordering: .releasing)
    }

    /// The chain of classes to try for a message of class `type` (cached).
    public func chain(for type: String) -> Chain {
        lock.lock()
        defer { lock.unlock() }
        if let cached = chains[type] { return cached }
        var steps: [Step] = []
        var seen = Set<ObjectIdentifier>()
        func add(_ cls: RuntimeClass, as messageClass: String, override: Bool) {
            // A class tried once for a message is not tried again further up the tree.
            guard seen.insert(ObjectIdentifier(cls)).inserted else { return }
            steps.append(Step(cls: cls, messageClass: messageClass, isOverride: override))
        }
        let hasOwn = overrides[type] != nil || !takenCandidates(for: type).isEmpty
        for messageClass in (type.isEmpty ? [] : [type]) + tree.ancestors(of: type) {
            if let forced = overrides[messageClass] { add(forced, as: messageClass, override: true) }
            for candidate in takenCandidates(for: messageClass) { add(candidate.cls, as: messageClass, override: false) }
        }
        add(unknownCell, as: type, override: false)
        let chain = Chain(steps: steps, isUnregistered: !hasOwn)
        // Types come from input; cache a bounded number so memory stays flat.
        if chains.count < Registry.maximumCachedChains { chains[type] = chain }
        return chain
    }
}

/// Registrations not made yet: classes of loaded plugins that are linked,
/// and registered, when the registry first needs their message class.
protocol DeferredCandidates: AnyObject {
    /// Links the classes registered for `messageClass` and returns them as
    /// candidates, numbered as when they were registered; later calls for
    /// the same message class return none.
    func takeCandidates(for messageClass: String) -> [Registry.Candidate]
    /// Whether some class is registered for `messageClass` (taken or not).
    func hasCandidates(for messageClass: String) -> Bool
    /// The message classes with candidates not taken yet.
    var messageClassesWithCandidates: [String] { get }
}

extension Array where Element == Registry.Candidate {
    /// Inserts `candidate` before the first candidate it beats: a higher
    /// rank, or the same rank and a later registration (binary search).
    mutating func insertSorted(_ candidate: Registry.Candidate) {
        var low = 0, high = count
        while low < high {
            let middle = (low + high) / 2
            let other = self[middle]
            if other.rank > candidate.rank || (other.rank == candidate.rank && other.order > candidate.order) {
                low = middle + 1
            } else {
                high = middle
            }
        }
        insert(candidate, at: low)
    }
}

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

    public private(set) var tree = MessageClassTree.builtIn
    private var candidates: [String: [Candidate]] = [:]
    private(set) var overrides: [String: RuntimeClass] = [:]
    private var order = 0
    /// Guarded by `chainsLock`: render worker threads ask for chains concurrently.
    private var chains: [String: Chain] = [:]
    private let chainsLock = RecursiveLock()
    /// Changes whenever a chain may have changed (a registration, a
    /// declaration, an override): threads that keep chains of their own
    /// (`CallState.chain`) check it on every look-up.
    var generation: Int { changes.load(ordering: .acquiring) }
    private let changes = Atomic<Int>(0)
    static let maximumCachedChains = 1024
    let unknownCell: RuntimeClass

    init(unknownCell: RuntimeClass) {
        self.unknownCell = unknownCell
    }

    /// Registers `cls` for `messageClass` at its rank.
    public func register(_ cls: RuntimeClass, forMessageClass messageClass: String) {
        order += 1
        let candidate = Candidate(cls: cls, rank: cls.rank, order: order)
        // The list stays sorted (rank descending, then later first): the
        // newest registration goes before every candidate of its rank or
        // lower. Inserted in place, so many classes for one message class
        // cost no re-sort per registration.
        candidates[messageClass, default: []].insertSorted(candidate)
        if !chains.isEmpty { chains.removeAll() }
        changes.add(1, ordering: .releasing)
    }

    /// Declares a message class in the tree; returns why it was refused, if it was.
    public func declare(_ name: String, parent: String?, by plugin: String) -> String? {
        chains.removeAll()
        changes.add(1, ordering: .releasing)
        return tree.declare(name, parent: parent, by: plugin)
    }

    /// Makes `cls` render `messageClass` before every candidate.
    public func override(_ messageClass: String, with cls: RuntimeClass) {
        overrides[messageClass] = cls
        chains.removeAll()
        changes.add(1, ordering: .releasing)
    }

    /// Candidates for a message class, best first.
    public func candidates(for messageClass: String) -> [Candidate] { candidates[messageClass] ?? [] }

    /// True when `messageClass` is declared in the message-class tree or some
    /// class is registered for it: an override for any other name has no effect.
    public func isKnown(_ messageClass: String) -> Bool {
        tree.isDeclared(messageClass) || !(candidates[messageClass] ?? []).isEmpty
    }

    /// The override for a message class, if any.
    public func overrideClass(for messageClass: String) -> RuntimeClass? { overrides[messageClass] }

    /// Every message class that is declared, registered for, or overridden, in a stable order.
    public var knownMessageClasses: [String] {
        var names = tree.declarations.map(\.name)
        var seen = Set(names)
        for name in (Array(candidates.keys) + Array(overrides.keys)).sorted() where seen.insert(name).inserted {
            names.append(name)
        }
        return names
    }

    /// The chain of classes to try for a message of class `type` (cached).
    public func chain(for type: String) -> Chain {
        chainsLock.lock()
        defer { chainsLock.unlock() }
        if let cached = chains[type] { return cached }
        var steps: [Step] = []
        var seen = Set<ObjectIdentifier>()
        func add(_ cls: RuntimeClass, as messageClass: String, override: Bool) {
            // A class tried once for a message is not tried again further up the tree.
            guard seen.insert(ObjectIdentifier(cls)).inserted else { return }
            steps.append(Step(cls: cls, messageClass: messageClass, isOverride: override))
        }
        let hasOwn = overrides[type] != nil || !(candidates[type] ?? []).isEmpty
        for messageClass in (type.isEmpty ? [] : [type]) + tree.ancestors(of: type) {
            if let forced = overrides[messageClass] { add(forced, as: messageClass, override: true) }
            for candidate in candidates[messageClass] ?? [] { add(candidate.cls, as: messageClass, override: false) }
        }
        add(unknownCell, as: type, override: false)
        let chain = Chain(steps: steps, isUnregistered: !hasOwn)
        // Types come from input; cache a bounded number so memory stays flat.
        if chains.count < Registry.maximumCachedChains { chains[type] = chain }
        return chain
    }
}

extension Array where Element == Registry.Candidate {
    /// Inserts `candidate`, the latest registration, before the first
    /// candidate whose rank is not higher (binary search).
    mutating func insertSorted(_ candidate: Registry.Candidate) {
        var low = 0, high = count
        while low < high {
            let middle = (low + high) / 2
            if self[middle].rank > candidate.rank { low = middle + 1 } else { high = middle }
        }
        insert(candidate, at: low)
    }
}

/// Checks a batch of catalog classes as linking does: each name unique
/// among the runtime's classes and the batch (the first wins), each
/// superclass found among them, no superclass cycle, every method valid.
/// It works on catalog names, which are integers, and makes nothing; the
/// caller words the rejections (`PluginClasses.resolve`).
struct ClassResolution {
    /// Where a superclass, or the owner of a name, is.
    enum Place {
        /// An existing class, by the caller's index.
        case existing(Int)
        /// A class of the batch, by position.
        case position(Int)
    }

    enum Outcome {
        case accepted(superclass: Place)
        /// A class of that name exists already.
        case duplicate(of: Place)
        /// Why, by index in `reasons`.
        case failed(Int)
    }

    private let catalog: PluginCatalog
    private let classes: [PluginCatalog.Class]
    /// The catalog classes to check, in order.
    let batch: [Int]
    /// The caller's index of the existing class of each name, or -1.
    private let existing: [Int32]
    /// The position of the first class of each name in the batch, or -1.
    private var owners: [Int32]
    private var visiting: [Bool]
    /// Per position; nil until checked.
    private(set) var outcomes: [Outcome?]
    /// Why classes failed (`Outcome.failed`).
    private(set) var reasons: [String] = []

    init(catalog: PluginCatalog, batch: [Int], existing: [Int32]) {
        self.catalog = catalog
        classes = catalog.classes
        self.batch = batch
        self.existing = existing
        owners = Array(repeating: -1, count: existing.count)
        visiting = Array(repeating: false, count: batch.count)
        outcomes = Array(repeating: nil, count: batch.count)
    }

    /// Checks every class; `problem` says why a method (by catalog index)
    /// is refused, if it is.
    mutating func run(problem: (Int) -> String?) {
        var checked: [Int] = []
        for (position, cls) in batch.enumerated() {
            let name = classes[cls].name.index
            if existing[name] >= 0 {
                outcomes[position] = .duplicate(of: .existing(Int(existing[name])))
            } else if owners[name] >= 0 {
                outcomes[position] = .duplicate(of: .position(Int(owners[name])))
            } else {
                owners[name] = Int32(position)
                checked.append(position)
            }
        }
        for position in checked { _ = check(position, problem: problem) }
    }

    /// Checks the class at `position` (its superclass first); true when accepted.
    private mutating func check(_ position: Int, problem: (Int) -> String?) -> Bool {
        switch outcomes[position] {
        case .accepted: return true
        case .failed, .duplicate: return false
        case nil: break
        }
        let described = classes[batch[position]]
        guard !visiting[position] else {
            fail(position, "superclass chain of '\(catalog.string(described.name))' is a cycle")
            return false
        }
        visiting[position] = true
        defer { visiting[position] = false }
        let superclass = described.superclass.index
        let place: Place
        if existing[superclass] >= 0 {
            place = .existing(Int(existing[superclass]))
        } else if owners[superclass] >= 0 {
            let owner = Int(owners[superclass])
            guard check(owner, problem: problem) else {
                // A cycle through this class has failed it already.
                if outcomes[position] == nil {
                    fail(position, "superclass '\(catalog.string(described.superclass))' was rejected")
                }
                return false
            }
            place = .position(owner)
        } else {
            fail(position, "superclass '\(catalog.string(described.superclass))' not found")
            return false
        }
        for method in described.methods {
            if let reason = problem(method) {
                fail(position, reason)
                return false
            }
        }
        outcomes[position] = .accepted(superclass: place)
        return true
    }

    private mutating func fail(_ position: Int, _ reason: String) {
        outcomes[position] = .failed(reasons.count)
        reasons.append(reason)
    }
}

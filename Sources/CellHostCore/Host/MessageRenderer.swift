import CellHostABI

/// One candidate that did not render a message, for the fallback report.
public struct FallbackAttempt: Sendable, Equatable {
    /// The message class the candidate was tried as.
    public var messageClass: String
    /// The class tried; nil when the message class had no renderer at all.
    public var className: String?
    public var pluginID: String?
    /// "unregistered", "declined", "error", "missing type", "crashed" (the
    /// class crashed, hung or ran out of memory in its worker on this
    /// message) or "disabled" (it did so on an earlier message).
    public var result: String
    /// For errors: what the plugin logged, when it did.
    public var detail: String? = nil
}

/// The path a message took to the cell that rendered it.
public struct Fallback: Sendable, Equatable {
    public var attempts: [FallbackAttempt]

    /// Why the first choice did not render, in words. Made when asked (only
    /// `--format json` shows it), not for every message that fell back.
    public var reason: String {
        guard let first = attempts.first else { return "" }
        switch first.result {
        case "missing type": return "the message has no usable type"
        case "unregistered": return "no renderer is registered for message class '\(first.messageClass)'"
        case "declined": return "\(first.className ?? "?") declined the message"
        case "disabled": return "\(first.className ?? "?") is disabled: \(first.detail ?? "")"
        case "crashed": return "\(first.className ?? "?") " + (first.detail ?? "crashed")
        default:
            return "\(first.className ?? "?") returned an error" + (first.detail.map { ": \($0)" } ?? "")
        }
    }
}

/// Who rendered a message, and how it got there.
public struct RenderOutcome {
    /// The class that rendered the message. Not counted (a class lives as
    /// long as its runtime, and an outcome is read while the runtime that
    /// made it renders): a walk makes an outcome for every message, and
    /// counting the class wrote its reference count, a cache line that
    /// every render thread and the owning thread's reply quotes touch,
    /// once when the outcome was made and once when the next replaced it.
    public unowned(unsafe) var cls: RuntimeClass
    /// The message class it was rendered as.
    public var messageClass: String
    /// nil when the first candidate for the message's own class rendered it.
    public var fallback: Fallback?
}

/// Where a message is on its fallback chain: the steps, the next one to
/// try, and the candidates that did not render it so far. A walk pauses at a
/// step whose class runs in a worker process (`Supervisor`) and resumes with
/// the worker's answer.
final class ChainWalk {
    private(set) var steps: [Registry.Step]
    /// The message's place in the stream (for plugins disabled from a
    /// message on).
    var order: UInt64 = 0
    var next = 0
    /// The candidates that did not render the message so far (`record`).
    private(set) var attempts: [FallbackAttempt] = []
    /// True when `attempts` has elements: a walk reads this instead of the
    /// array's count, which is in the array's buffer, a cache line of its
    /// own (cold when the walk was last used many messages earlier).
    private(set) var hasAttempts = false
    /// Set when a candidate rendered the message (or the last resort did).
    var outcome: RenderOutcome?
    /// Steps whose class crashed (or hung) on this message in a worker: the
    /// walk records them as "crashed" when it passes them.
    var crashes: [Int: FallbackAttempt] = [:]

    /// The message class whose chain `steps` is (nil: not known), the
    /// registry generation it was looked up at, and whether the class is
    /// unregistered: a walk whose next message has the same class keeps its
    /// steps without a look-up (`MessageRenderer.restart`). Together with
    /// `unregisteredAttempts` they make the walk's current chain; the ones
    /// before are kept in `kept`.
    private(set) var chainType: String?
    private(set) var chainGeneration = 0
    private(set) var chainIsUnregistered = false
    /// For an unregistered class: its messages' first attempt
    /// ("unregistered"), made for the first message and then shared by
    /// each message's `attempts` (`recordUnregistered`), so that a message
    /// of the class allocates no array of its own. Empty otherwise.
    private var unregisteredAttempts: [FallbackAttempt] = []
    /// The handle of the instance of the chain's first class, which renders
    /// nearly every message, and the conversation generation it is of (0:
    /// none; generations start at 1). While the conversation is that one,
    /// the conversation keeps the instance, so the walk keeps the handle
    /// with its chain (`MessageRenderer.receiver`) instead of looking it up
    /// in the thread's cache of instances on every message (78
    /// instructions a look-up, 10 000 for 10 000 `real` messages).
    private(set) var firstReceiver: OpaquePointer?
    private(set) var firstReceiverGeneration = 0

    /// A chain the walk had before its current one: the fields of the
    /// current chain, moved out of the walk.
    private struct KeptChain {
        var steps: [Registry.Step] = []
        var type: String?
        var generation = 0
        var isUnregistered = false
        var unregisteredAttempts: [FallbackAttempt] = []
        var firstReceiver: OpaquePointer?
        var firstReceiverGeneration = 0
    }

    /// The chains the walk had before its current one, the latest first, at
    /// most `keptChains` (the oldest is dropped): a stream's messages have a
    /// few classes (the `real` mix six, in an order of its own), so the
    /// chain a message needs is nearly always one of these. Taking one back
    /// costs no look-up and no reference counting (`takeKeptChain`); a
    /// look-up in the thread's cache copies the chain out of it, which
    /// retains its steps, an array that every thread's walks share.
    private var kept: [KeptChain] = []
    /// As many as a thread's cache of chains (`GenerationCache`) holds, with the current one.
    private static let keptChains = 7

    init(steps: [Registry.Step]) { self.steps = steps }

    /// Makes this walk a new one over `steps` (a render session reuses one
    /// walk per thread instead of allocating one a message), the chain of
    /// `type` at registry `generation`; the chain it had is kept (`kept`).
    /// Nearly every message of a stream has the chain of the one before, so
    /// `steps` is kept when it is that same array: assigning it would retain
    /// and release an array that every render thread's walks hold.
    @inline(__always)
    func restart(steps: [Registry.Step], type: String, generation: Int, isUnregistered: Bool) {
        if !Self.isSameArray(self.steps, steps) {
            if chainType != nil { keepChain() }
            self.steps = steps
            forgetUnregisteredAttempts()
            forgetFirstReceiver()
        }
        if chainType != type {
            chainType = type
            forgetUnregisteredAttempts()
        }
        chainGeneration = generation
        chainIsUnregistered = isUnregistered
        restart()
    }

    /// When a kept chain is that of `type` at registry `generation`: makes
    /// it the walk's chain (the current one is kept in its place),
    /// restarts the walk over it and returns true. Otherwise changes nothing.
    /// The current chain takes the place of the one taken rather than the
    /// front (moving the chains before it down a place cost some 40
    /// instructions a message of another class than the last): the kept
    /// chains are then not in the order of their use, so when all are in
    /// use, the one `keepChain` drops may not be the least recently used;
    /// a stream of no more classes than are kept drops none.
    func takeKeptChain(type: String, generation: Int) -> Bool {
        guard let index = kept.firstIndex(where: { $0.generation == generation && $0.type == type }) else {
            return false
        }
        kept.withUnsafeMutableBufferPointer { chains in swapChain(with: &chains[index]) }
        restart()
        return true
    }

    /// Exchanges everything with `other`: the walk in progress (a paused
    /// one moves from a thread's walk into its slot's, `RenderSession.walk`)
    /// and the chains kept. Moves only: no reference counting.
    func exchange(with other: ChainWalk) {
        swap(&steps, &other.steps)
        swap(&order, &other.order)
        swap(&next, &other.next)
        swap(&attempts, &other.attempts)
        swap(&hasAttempts, &other.hasAttempts)
        swap(&outcome, &other.outcome)
        swap(&crashes, &other.crashes)
        swap(&chainType, &other.chainType)
        swap(&chainGeneration, &other.chainGeneration)
        swap(&chainIsUnregistered, &other.chainIsUnregistered)
        swap(&unregisteredAttempts, &other.unregisteredAttempts)
        swap(&firstReceiver, &other.firstReceiver)
        swap(&firstReceiverGeneration, &other.firstReceiverGeneration)
        swap(&kept, &other.kept)
    }

    /// Keeps `handle` as the instance of the chain's first class in
    /// conversation `generation` (`firstReceiver`).
    @inline(__always)
    func rememberFirstReceiver(_ handle: OpaquePointer, generation: Int) {
        firstReceiver = handle
        firstReceiverGeneration = generation
    }

    /// Forgets the first class's instance (the chain changed).
    @inline(__always)
    private func forgetFirstReceiver() {
        firstReceiver = nil
        firstReceiverGeneration = 0
    }

    /// Drops the shared attempts of an unregistered class (an empty array,
    /// the common case, is left alone: assigning it would release it).
    @inline(__always)
    private func forgetUnregisteredAttempts() {
        if !unregisteredAttempts.isEmpty { unregisteredAttempts = [] }
    }

    /// Exchanges the current chain and `chain` (moves: no reference counting).
    @inline(__always)
    private func swapChain(with chain: inout KeptChain) {
        swap(&steps, &chain.steps)
        swap(&chainType, &chain.type)
        swap(&chainGeneration, &chain.generation)
        swap(&chainIsUnregistered, &chain.isUnregistered)
        swap(&unregisteredAttempts, &chain.unregisteredAttempts)
        swap(&firstReceiver, &chain.firstReceiver)
        swap(&firstReceiverGeneration, &chain.firstReceiverGeneration)
    }

    /// Moves the current chain to the front of `kept` (dropping the oldest
    /// when it is full), leaving the walk with none.
    private func keepChain() {
        var chain = KeptChain()
        swapChain(with: &chain)
        if kept.count >= Self.keptChains { kept.removeLast() }
        kept.insert(chain, at: 0)
    }

    /// Makes this walk a new one over the steps it has. Attempts are let
    /// go rather than removed in place: the outcome they went into
    /// (`Fallback`) shares their buffer, which removing would copy. The
    /// outcome is nearly always taken already (`takeOutcome`): assigning
    /// nil to it then would still call its outlined destroy.
    func restart() {
        order = 0
        next = 0
        if hasAttempts {
            attempts = []
            hasAttempts = false
        }
        if case .some = outcome { outcome = nil }
        if !crashes.isEmpty { crashes.removeAll() }
    }

    /// Adds a candidate that did not render the message.
    func record(_ attempt: FallbackAttempt) {
        attempts.append(attempt)
        hasAttempts = true
    }

    /// Records that `type`, the class whose chain the walk has, is
    /// unregistered: the first attempt of a restarted walk. Its attempts
    /// share one array kept with the chain (a later `record` copies it),
    /// since the outcome of the message before still shares the array
    /// this walk's attempts had, and a new one would be allocated for
    /// every message of the class.
    func recordUnregistered(_ type: String) {
        if unregisteredAttempts.isEmpty {
            unregisteredAttempts = [FallbackAttempt(messageClass: type, className: nil, pluginID: nil, result: "unregistered")]
        }
        attempts = unregisteredAttempts
        hasAttempts = true
    }

    /// Whether `a` and `b` are one array (the same storage): then they have
    /// the same elements. (Storage that `a` holds cannot have been freed and
    /// reused for `b`.)
    private static func isSameArray(_ a: [Registry.Step], _ b: [Registry.Step]) -> Bool {
        a.withUnsafeBufferPointer { a in b.withUnsafeBufferPointer { b in a.baseAddress == b.baseAddress && a.count == b.count } }
    }

    /// Moves the outcome out of a walk that is over (it is not paused, and
    /// nothing reads it again before `restart`), instead of copying it: a
    /// copy retains the rendering class, which other threads' walks retain
    /// too. The walk's steps are marked done, so it does not look paused.
    func takeOutcome() -> RenderOutcome? {
        var taken: RenderOutcome? = nil
        swap(&taken, &outcome)
        next = steps.count
        return taken
    }

    /// True when the walk stopped before its end without an outcome: at a
    /// step for a worker process, or (on a render worker thread) at a class
    /// that only the runtime's own thread may call.
    var isPaused: Bool { outcome == nil && next < steps.count }
}

/// Walks the registry's chain for a message: asks each candidate in turn
/// (`canRenderMessage:context:`, then `renderMessage:context:into:`) until one
/// renders, rolling back what a declining or failing candidate appended.
struct MessageRenderer {
    let runtime: Runtime
    /// Decides where each class runs; nil: every class runs in this process.
    var supervisor: Supervisor? = nil
    /// Called before each candidate is asked, with its step index (a worker
    /// records it where its supervisor can read it after a crash).
    var beforeStep: ((Int) -> Void)? = nil

    init(runtime: Runtime, supervisor: Supervisor? = nil) {
        self.runtime = runtime
        self.supervisor = supervisor
    }

    /// Renders `message` through its whole chain in this process.
    func render(_ message: Message, into canvas: CellCanvas, width: Int, flags: UInt32) -> RenderOutcome {
        let walk = ChainWalk(steps: [])
        let state = runtime.state
        restart(walk, for: message, state: state)
        advance(walk, message, into: canvas, width: width, flags: flags, state: state)
        return walk.outcome ?? finishWithLastResort(walk, message, into: canvas)
    }

    /// Makes `walk` a walk over the registry's chain for `message` (a render
    /// session reuses one walk per thread instead of allocating one a
    /// message; no walk of an earlier message may still be in use). `state` is the
    /// calling thread's (`runtime.state`).
    ///
    /// A walk keeps the chain of its last message and of the few classes
    /// before (`ChainWalk.takeKeptChain`): when the next message has one of
    /// those classes (about half the messages of the `real` mix have the
    /// class of the last, all but a handful one of the seven before) and
    /// the registry has not changed, the chain is not looked up (a copy out of the thread's
    /// cache retained and released its steps, an array every thread's
    /// walks share).
    func restart(_ walk: ChainWalk, for message: Message, state: CallState) {
        let registry = runtime.registry
        let generation = registry.generation
        let type = message.type
        if walk.chainGeneration == generation, walk.chainType == type {
            walk.restart()
        } else if walk.takeKeptChain(type: type, generation: generation) {
            // A chain the walk had before.
        } else {
            let chain = state.chain(for: type, in: registry, generation: generation)
            walk.restart(steps: chain.steps, type: type, generation: generation, isUnregistered: chain.isUnregistered)
        }
        if message.typeIsMissing {
            walk.record(FallbackAttempt(messageClass: "", className: nil, pluginID: nil, result: "missing type"))
        } else if walk.chainIsUnregistered {
            walk.recordUnregistered(message.type)
        }
    }

    /// Tries the steps from `walk.next` in this process until one renders,
    /// the steps run out, or (with a supervisor) a step's class runs in a
    /// worker: returns that worker then, with `walk.next` at that step.
    /// On a render worker thread it also stops at a step whose class may not
    /// be called concurrently (`RuntimeClass.isConcurrent`), `walk.next` at
    /// that step: the thread that owns the runtime goes on from there
    /// (`ChainWalk.isPaused`). `state` is the calling thread's, as for `restart`.
    /// Never inlined, so that profiles show the walk as one function
    /// (`Benchmarks/dispatch-share.py` counts dispatch from it).
    @discardableResult @inline(never)
    func advance(_ walk: ChainWalk, _ message: Message, into canvas: CellCanvas, width: Int, flags: UInt32,
                 state: CallState? = nil) -> PluginWorker? {
        // Not counted: a thread's state lives as long as its work (a
        // worker's until it retires, the runtime's own with the runtime).
        // (Not `state ?? runtime.state`, which copies the caller's.)
        let lent: Unmanaged<CallState>
        if let state { lent = Unmanaged.passUnretained(state) } else { lent = Unmanaged.passUnretained(runtime.state) }
        let call = StepCall(message: message.handle, builder: BuilderHandle.handle(canvas), width: width, flags: flags)
        canvas.sanitizedSource = message.arena
        defer { canvas.sanitizedSource = nil }
        while walk.outcome == nil && walk.next < walk.steps.count {
            // Not counted: the walk keeps its steps, and a class lives as
            // long as its runtime, so a step costs no retain and release.
            let cls = Unmanaged.passUnretained(walk.steps[walk.next].cls)
            if case .stop(let worker) = lent._withUnsafeGuaranteedRef({ state in
                cls._withUnsafeGuaranteedRef { tryStep(walk, $0, call, into: canvas, state: state) }
            }) {
                return worker
            }
        }
        return nil
    }

    /// What every step of a message's walk passes to its calls.
    struct StepCall {
        let message: OpaquePointer
        let builder: OpaquePointer
        let width: Int
        let flags: UInt32
    }

    /// How `tryStep` left the walk.
    enum StepResult {
        /// The step was tried (or skipped): the walk goes on, unless it has an outcome.
        case tried
        /// The walk pauses at this step (`advance`'s result).
        case stop(PluginWorker?)
    }

    /// Tries the step at `walk.next`, whose class is `cls`. Every class and
    /// method here is borrowed (a method lives as long as its class, which
    /// keeps it), so the calls into the plugin cost no reference counting.
    private func tryStep(_ walk: ChainWalk, _ cls: RuntimeClass, _ call: StepCall, into canvas: CellCanvas,
                         state: CallState) -> StepResult {
        let index = walk.next
        if state.isWorker && !cls.isConcurrent { return .stop(nil) }
        if let supervisor {
            if let reason = supervisor.disabledReason(cls, order: walk.order) {
                if let crashed = walk.crashes[index] {
                    walk.record(crashed)
                } else {
                    var skipped = Self.attempt(walk.steps[index], "disabled")
                    skipped.detail = reason
                    walk.record(skipped)
                }
                walk.next += 1
                return .tried
            }
            if let worker = supervisor.worker(for: cls) { return .stop(worker) }
        }
        walk.next += 1
        beforeStep?(index)
        state.activeClass = cls
        state.progress.step()
        defer {
            state.progress.step()
            state.activeClass = nil
        }
        if let reason = cls.ensureBound() {
            var failed = Self.attempt(walk.steps[index], "error")
            failed.detail = reason
            walk.record(failed)
            return .tried
        }
        // Its library is open now: render workers may call it from here on.
        if !state.isWorker && !cls.isConcurrent { cls.prepareForConcurrentCalls() }
        let receiver = self.receiver(walk, index, cls, state: state)
        let mark = canvas.mark
        let directory = state.baseDirectory.pointer
        let messageClass = walk.steps[index].messageClass
        if let check = cls.unretainedLookup(.canRender) {
            let accepted = runtime.messageClassCString(messageClass) { name in
                check._withUnsafeGuaranteedRef { method in
                    var context = runtime.context(for: method, width: call.width, messageClass: name, flags: call.flags,
                                                  directory: directory)
                    return runtime.dispatcher.canRender(method, receiver: receiver, message: call.message,
                                                        context: &context)
                }
            }
            if !accepted {
                walk.record(Self.attempt(walk.steps[index], "declined"))
                return .tried
            }
        }
        guard let render = cls.unretainedLookup(.render) else { return .tried }
        let result = runtime.messageClassCString(messageClass) { name in
            render._withUnsafeGuaranteedRef { method in
                if !state.lastError.isEmpty { state.lastError[method.owner.pluginID] = nil }
                var context = runtime.context(for: method, width: call.width, messageClass: name, flags: call.flags,
                                              directory: directory)
                return runtime.dispatcher.render(method, receiver: receiver, message: call.message,
                                                 context: &context, builder: call.builder)
            }
        }
        if result == Int32(CELLHOST_RENDERED) {
            // The walk's copy of the step's message class moves into the
            // outcome: no second retain, and no release here.
            walk.outcome = outcome(walk, cls, messageClass)
            return .tried
        }
        canvas.rollBack(to: mark)
        if result == Int32(CELLHOST_DECLINED) {
            walk.record(Self.attempt(walk.steps[index], "declined"))
        } else {
            var failed = Self.attempt(walk.steps[index], "error")
            failed.detail = render._withUnsafeGuaranteedRef { state.lastError[$0.owner.pluginID] }
            walk.record(failed)
        }
        return .tried
    }

    /// The handle of the current conversation's instance of `cls`, the
    /// class of step `index` of `walk`: for the first step, the one the
    /// walk keeps with its chain when it is of this conversation
    /// (`ChainWalk.firstReceiver`), else the thread's cache's
    /// (`CallState.instanceHandle`).
    @inline(__always)
    func receiver(_ walk: ChainWalk, _ index: Int, _ cls: RuntimeClass, state: CallState) -> OpaquePointer {
        guard index == 0 else { return state.instanceHandle(of: cls, runtime: runtime) }
        let generation = runtime.conversation.generation
        if walk.firstReceiverGeneration == generation, let handle = walk.firstReceiver { return handle }
        let handle = state.instanceHandle(of: cls, runtime: runtime)
        walk.rememberFirstReceiver(handle, generation: generation)
        return handle
    }

    /// The outcome when the candidate at `step` rendered the message.
    func outcome(_ walk: ChainWalk, _ step: Registry.Step) -> RenderOutcome {
        outcome(walk, step.cls, step.messageClass)
    }

    /// The outcome when `cls`, tried as `messageClass`, rendered the message.
    func outcome(_ walk: ChainWalk, _ cls: RuntimeClass, _ messageClass: __owned String) -> RenderOutcome {
        let fallback = walk.hasAttempts ? Fallback(attempts: walk.attempts) : nil
        return RenderOutcome(cls: cls, messageClass: messageClass, fallback: fallback)
    }

    /// When no candidate rendered: the message's text (UnknownMessageCell
    /// never declines; this is the last resort if it was overridden away).
    func finishWithLastResort(_ walk: ChainWalk, _ message: Message, into canvas: CellCanvas) -> RenderOutcome {
        canvas.append(message.text ?? "[\(message.type)]", style: [])
        let outcome = RenderOutcome(cls: runtime.unknownMessageCell, messageClass: message.type,
                                    fallback: Fallback(attempts: walk.attempts))
        walk.outcome = outcome
        return outcome
    }

    static func attempt(_ step: Registry.Step, _ result: String) -> FallbackAttempt {
        FallbackAttempt(messageClass: step.messageClass, className: step.cls.name, pluginID: step.cls.pluginID, result: result)
    }
}

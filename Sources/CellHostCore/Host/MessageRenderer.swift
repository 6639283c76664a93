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
    public var cls: RuntimeClass
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
    var attempts: [FallbackAttempt] = []
    /// Set when a candidate rendered the message (or the last resort did).
    var outcome: RenderOutcome?
    /// Steps whose class crashed (or hung) on this message in a worker: the
    /// walk records them as "crashed" when it passes them.
    var crashes: [Int: FallbackAttempt] = [:]

    init(steps: [Registry.Step]) { self.steps = steps }

    /// Makes this walk a new one over `steps` (a render session reuses one
    /// walk per slot instead of allocating one a message).
    func restart(steps: [Registry.Step]) {
        self.steps = steps
        order = 0
        next = 0
        if !attempts.isEmpty { attempts.removeAll(keepingCapacity: true) }
        outcome = nil
        if !crashes.isEmpty { crashes.removeAll() }
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
        let walk = start(message)
        advance(walk, message, into: canvas, width: width, flags: flags)
        return walk.outcome ?? finishWithLastResort(walk, message, into: canvas)
    }

    /// A walk over the registry's chain for `message`: `reusing` restarted,
    /// when given (no walk of an earlier message may still be in use).
    /// `state` is the calling thread's (`runtime.state`; a caller that has
    /// it passes it, saving a thread-local read).
    func start(_ message: Message, reusing spare: ChainWalk? = nil, state: CallState? = nil) -> ChainWalk {
        let chain = (state ?? runtime.state).chain(for: message.type, in: runtime.registry)
        let walk: ChainWalk
        if let spare {
            spare.restart(steps: chain.steps)
            walk = spare
        } else {
            walk = ChainWalk(steps: chain.steps)
        }
        if message.typeIsMissing {
            walk.attempts.append(FallbackAttempt(messageClass: "", className: nil, pluginID: nil, result: "missing type"))
        } else if chain.isUnregistered {
            walk.attempts.append(FallbackAttempt(messageClass: message.type, className: nil, pluginID: nil, result: "unregistered"))
        }
        return walk
    }

    /// Tries the steps from `walk.next` in this process until one renders,
    /// the steps run out, or (with a supervisor) a step's class runs in a
    /// worker: returns that worker then, with `walk.next` at that step.
    /// On a render worker thread it also stops at a step whose class may not
    /// be called concurrently (`RuntimeClass.isConcurrent`), `walk.next` at
    /// that step: the thread that owns the runtime goes on from there
    /// (`ChainWalk.isPaused`). `state` is the calling thread's, as for `start`.
    @discardableResult
    func advance(_ walk: ChainWalk, _ message: Message, into canvas: CellCanvas, width: Int, flags: UInt32,
                 state: CallState? = nil) -> PluginWorker? {
        let builder = BuilderHandle.handle(canvas)
        let state = state ?? runtime.state
        canvas.sanitizedSource = message.arena
        defer { canvas.sanitizedSource = nil }
        while walk.outcome == nil && walk.next < walk.steps.count {
            let index = walk.next
            let step = walk.steps[index]
            if state.isWorker && !step.cls.isConcurrent { return nil }
            if let supervisor {
                if let reason = supervisor.disabledReason(step.cls, order: walk.order) {
                    if let crashed = walk.crashes[index] {
                        walk.attempts.append(crashed)
                    } else {
                        var skipped = Self.attempt(step, "disabled")
                        skipped.detail = reason
                        walk.attempts.append(skipped)
                    }
                    walk.next += 1
                    continue
                }
                if let worker = supervisor.worker(for: step.cls) { return worker }
            }
            walk.next += 1
            beforeStep?(index)
            state.activeClass = step.cls
            state.progress.step()
            defer {
                state.progress.step()
                state.activeClass = nil
            }
            if let reason = step.cls.ensureBound() {
                var failed = Self.attempt(step, "error")
                failed.detail = reason
                walk.attempts.append(failed)
                continue
            }
            // Its library is open now: render workers may call it from here on.
            if !state.isWorker && !step.cls.isConcurrent { step.cls.prepareForConcurrentCalls() }
            let object = state.instance(of: step.cls, runtime: runtime)
            let mark = canvas.mark
            if let check = step.cls.lookup(.canRender) {
                let accepted = runtime.withContext(for: check.owner, width: width, messageClass: step.messageClass, flags: flags,
                                                    state: state) {
                    runtime.dispatcher.canRender(check, receiver: object.handle, message: message.handle, context: $0)
                }
                if !accepted {
                    walk.attempts.append(Self.attempt(step, "declined"))
                    continue
                }
            }
            guard let method = step.cls.lookup(.render) else { continue }
            if !state.lastError.isEmpty { state.lastError[method.owner.pluginID] = nil }
            let result = runtime.withContext(for: method.owner, width: width, messageClass: step.messageClass, flags: flags,
                                              state: state) {
                runtime.dispatcher.render(method, receiver: object.handle, message: message.handle, context: $0, builder: builder)
            }
            if result == Int32(CELLHOST_RENDERED) {
                walk.outcome = outcome(walk, step)
                return nil
            }
            canvas.rollBack(to: mark)
            if result == Int32(CELLHOST_DECLINED) {
                walk.attempts.append(Self.attempt(step, "declined"))
            } else {
                var failed = Self.attempt(step, "error")
                failed.detail = state.lastError[method.owner.pluginID]
                walk.attempts.append(failed)
            }
        }
        return nil
    }

    /// The outcome when the candidate at `step` rendered the message.
    func outcome(_ walk: ChainWalk, _ step: Registry.Step) -> RenderOutcome {
        let fallback = walk.attempts.isEmpty ? nil : Fallback(attempts: walk.attempts)
        return RenderOutcome(cls: step.cls, messageClass: step.messageClass, fallback: fallback)
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

import CellHostABI
import Foundation
import Glibc

/// Runs plugin classes in worker processes as the isolation mode says, and
/// keeps every message when a plugin crashes, hangs or runs out of memory:
/// the message goes on down its fallback chain, the plugin is disabled for
/// the rest of the run, and the worker is restarted.
///
/// Messages are sent to a worker in batches (one round trip for many
/// messages); the per-message time limit counts from the previous reply.
public final class Supervisor {
    public struct Settings: Sendable {
        public var mode: IsolationMode
        /// The executable to run as a worker: the host itself.
        public var executable: String
        /// Per-message time limit of a plugin call in a worker, in seconds.
        public var timeout: Double
        /// Per-call time limit of a plugin call in the host process, in
        /// seconds: past it the run ends (`--isolation none`), so the
        /// default is lenient; `--plugin-timeout` sets both.
        public var hostTimeout: Double = defaultHostTimeout
        /// A worker's address-space limit in bytes (0: none).
        public var memoryLimit: Int

        public static let defaultTimeout = 0.5
        public static let defaultHostTimeout = 10.0
        public static let defaultMemoryLimit = 1 << 30

        public init(mode: IsolationMode, executable: String, timeout: Double = defaultTimeout,
                    memoryLimit: Int = defaultMemoryLimit) {
            self.mode = mode
            self.executable = executable
            self.timeout = timeout
            self.memoryLimit = memoryLimit
        }
    }

    let settings: Settings
    /// What every worker is started with; made and encoded when the first
    /// worker starts, so a run that needs no worker (a text-only input, say)
    /// never pays for encoding every plugin's record.
    private let makeSetup: () -> WorkerSetup
    private lazy var setup: [UInt8] = {
        var writer = WireWriter()
        makeSetup().encode(into: &writer)
        return writer.bytes
    }()
    private let me: String?
    /// The worker every isolated plugin shares (`auto`, `shared`).
    private var shared: PluginWorker?
    /// `auto`: the directories whose plugins run in `shared`.
    private var isolatedDirectories: Set<String> = []
    /// `each`: the worker of each plugin, by plugin id.
    private var ownWorkers: [String: PluginWorker] = [:]
    /// Why each disabled plugin was disabled, by plugin id, and the first
    /// message (`ChainWalk.order`) it is disabled for: messages before the
    /// one it failed on, whose replies the dead worker took with it, are
    /// rendered again with the plugin.
    private var disabled: [String: (reason: String, from: UInt64)] = [:]
    private var workers: [PluginWorker] = []
    private var sequence: UInt64 = 0

    /// `plugins`: what the host loaded (`CellHost.loads`); `trusted` says,
    /// by the directory a plugin was found in (`RuntimeClass.directory`),
    /// which run in the host process in `auto` mode.
    public init(settings: Settings, plugins: [LoadedPlugins], me: String?, dispatch: Dispatcher.Mode,
                limits: OutputLimits = .standard, output: PluginOutput = .standard, trusted: (String) -> Bool) {
        self.settings = settings
        self.me = me
        let memoryLimit = settings.memoryLimit
        makeSetup = {
            WorkerSetup(plugins: LoadedPlugins.catalogOfLoaded(plugins), me: me, dispatch: dispatch.rawValue,
                        memoryLimit: memoryLimit, maximumRows: limits.rows, maximumBytes: limits.bytes, output: output)
        }
        // Decided by directory, not plugin by plugin: with a thousand plugins
        // installed, a render looks at the few whose classes it calls.
        let directories = plugins.flatMap(\.loadedDirectories)
        switch settings.mode {
        case .none:
            break
        case .auto:
            isolatedDirectories = Set(directories.filter { !trusted($0) })
            if !isolatedDirectories.isEmpty { shared = PluginWorker(name: "third-party") }
        case .shared:
            if !directories.isEmpty { shared = PluginWorker(name: "shared") }
        case .each:
            for load in plugins {
                for id in load.loaded.compactMap(load.id) {
                    let worker = PluginWorker(name: id)
                    workers.append(worker)
                    ownWorkers[id] = worker
                }
            }
        }
        if let shared { workers.append(shared) }
    }

    /// True when some plugin runs in a worker.
    public var isolatesAnything: Bool { !workers.isEmpty }

    /// The worker that runs `cls`, or nil when it runs in this process (the
    /// host's classes, and in `auto` mode the trusted plugins').
    func worker(for cls: RuntimeClass) -> PluginWorker? {
        guard !workers.isEmpty, let directory = cls.directory else { return nil }
        switch settings.mode {
        case .none: return nil
        case .auto: return isolatedDirectories.contains(directory) ? shared : nil
        case .shared: return shared
        case .each: return ownWorkers[cls.pluginID]
        }
    }

    /// Why the plugin of `cls` is disabled for the message at `order`, if it is.
    func disabledReason(_ cls: RuntimeClass, order: UInt64 = .max) -> String? {
        guard !disabled.isEmpty, let entry = disabled[cls.pluginID], order >= entry.from else { return nil }
        return entry.reason
    }

    /// Batches sent to workers whose replies are not taken yet.
    struct Flight {
        let worker: PluginWorker
        let slots: [RenderSlot]
        let spans: [Range<Int>]
        /// Set when the worker could not be started.
        var startFailure: String?
        /// Set when sending failed.
        var failure: PluginWorker.Failure?
    }

    /// Takes the slots whose walks wait for a worker through their chains:
    /// each worker gets one batch per round; a reply either renders the
    /// message or passes it on to the next step, which may run in this
    /// process or in another worker. `capturing` is called before each
    /// slot's in-process steps run, to route what plugins log to that slot.
    func resolve(_ slots: [RenderSlot], renderer: MessageRenderer, capturing: (RenderSlot) -> Void) {
        collect(dispatch(slots, renderer: renderer, capturing: capturing), slots, renderer: renderer, capturing: capturing)
    }

    /// The first round of `resolve` without its replies: walks each slot as
    /// far as this process goes and sends each worker its batch. `collect`
    /// finishes; the host prepares the next records meanwhile.
    func dispatch(_ slots: [RenderSlot], renderer: MessageRenderer, capturing: (RenderSlot) -> Void) -> [Flight] {
        var batches: [(worker: PluginWorker, slots: [RenderSlot])] = []
        for slot in slots {
            guard let walk = slot.walk, walk.outcome == nil else { continue }
            capturing(slot)
            guard let worker = renderer.advance(walk, slot.message, into: slot.canvas, width: slot.width, flags: slot.flags) else {
                continue
            }
            if let index = batches.firstIndex(where: { $0.worker === worker }) {
                batches[index].slots.append(slot)
            } else {
                batches.append((worker, [slot]))
            }
        }
        return batches.map { send($0.worker, $0.slots) }
    }

    /// Takes the replies of `flights`, then runs further rounds until every
    /// walk of `slots` has ended.
    func collect(_ flights: [Flight], _ slots: [RenderSlot], renderer: MessageRenderer, capturing: (RenderSlot) -> Void) {
        var flights = flights
        while !flights.isEmpty {
            for flight in flights { land(flight, renderer: renderer) }
            flights = dispatch(slots, renderer: renderer, capturing: capturing)
        }
    }

    private func send(_ worker: PluginWorker, _ slots: [RenderSlot]) -> Flight {
        var requests: [RenderRequest] = []
        var spans: [Range<Int>] = []
        for slot in slots {
            guard let walk = slot.walk else { continue }
            var end = walk.next
            while end < walk.steps.count, self.worker(for: walk.steps[end].cls) === worker,
                  disabledReason(walk.steps[end].cls, order: walk.order) == nil {
                end += 1
            }
            sequence += 1
            slot.sequence = sequence
            spans.append(walk.next..<end)
            requests.append(RenderRequest(sequence: sequence, width: UInt32(clamping: slot.width), flags: slot.flags,
                                          steps: walk.steps[walk.next..<end].map { ($0.cls.name, $0.messageClass) },
                                          record: slot.message.document.bytes, baseDirectory: slot.baseDirectory.path))
        }
        if !worker.isRunning, let problem = worker.start(executable: settings.executable, setup: setup) {
            return Flight(worker: worker, slots: slots, spans: spans, startFailure: problem)
        }
        return Flight(worker: worker, slots: slots, spans: spans, failure: worker.submit(requests, timeout: settings.timeout))
    }

    /// Applies a flight's replies. When the worker failed, the progress page
    /// says which message and step were running: that step is blamed (else
    /// the first unanswered message's first). Every other unanswered message
    /// (replies come a batch at a time, so some may have been rendered and
    /// lost) waits for the next round, in a new worker.
    private func land(_ flight: Flight, renderer: MessageRenderer) {
        let slots = flight.slots, spans = flight.spans
        if let problem = flight.startFailure {
            // Without a worker, its plugins cannot run: each waiting message
            // goes on down its chain.
            for (slot, span) in zip(slots, spans) { fail(slot, step: span.lowerBound, reason: problem) }
            return
        }
        var answered = 0
        var failure = flight.failure
        if failure == nil {
            failure = flight.worker.collect { reply in
                apply(reply, to: slots[answered], span: spans[answered], renderer: renderer)
                answered += 1
            }
        }
        guard let failure, answered < slots.count else { return }
        var blamed = answered
        if let sequence = failure.sequence, let index = slots[answered...].firstIndex(where: { $0.sequence == sequence }) {
            blamed = index
        }
        let slot = slots[blamed], span = spans[blamed]
        var step = span.lowerBound
        if failure.sequence == slot.sequence, let local = failure.step, span.lowerBound + local < span.upperBound {
            step = span.lowerBound + local
        }
        fail(slot, step: step, reason: failure.reason)
    }

    /// Records that the class at `step` failed on `slot`'s message with
    /// `reason`, disables its plugin, and moves the walk past it. The steps
    /// before it, run in the dead worker, are asked again in the next one.
    private func fail(_ slot: RenderSlot, step: Int, reason: String) {
        guard let walk = slot.walk else { return }
        let cls = walk.steps[step].cls
        var crashed = MessageRenderer.attempt(walk.steps[step], "crashed")
        crashed.detail = reason
        walk.crashes[step] = crashed
        if disabled[cls.pluginID] == nil {
            disabled[cls.pluginID] = ("\(cls.name) \(reason) on message \(slot.message.id.isEmpty ? "?" : slot.message.id)",
                                      walk.order)
            let id = slot.message.id.isEmpty ? "(no id)" : slot.message.id
            slot.notes.append("\(cls.pluginID): \(cls.name) \(reason) on message \(id) (\(slot.source):\(slot.line)); disabled")
        }
    }

    private func apply(_ reply: RenderReply, to slot: RenderSlot, span: Range<Int>, renderer: MessageRenderer) {
        guard let walk = slot.walk else { return }
        for log in reply.logs {
            slot.logs.append((log.plugin, Int32(bitPattern: log.level), log.message))
        }
        for attempt in reply.attempts where span.lowerBound + attempt.step < span.upperBound {
            let step = walk.steps[span.lowerBound + attempt.step]
            var recorded = MessageRenderer.attempt(step, attempt.result == "declined" ? "declined" : "error")
            recorded.detail = attempt.detail
            walk.record(recorded)
        }
        if let rendered = reply.renderedStep, span.lowerBound + rendered < span.upperBound {
            slot.canvas.appendContent(of: reply)
            walk.outcome = renderer.outcome(walk, walk.steps[span.lowerBound + rendered])
        } else {
            walk.next = span.upperBound
        }
    }

    /// The `plainTextForMessage:context:into:` of `cls`, which runs in `worker`, for
    /// the message in `record`, into `canvas`; false when the class did not
    /// give one (or its worker failed: the plugin is then disabled).
    ///
    /// When no plugin class on `cls`'s superclass chain implements the
    /// selector, the answer is the host's own `MessageCell` summary, which
    /// is computed here: no plugin code would run in the worker, and a
    /// synchronous round trip per quote (waiting behind the batch in
    /// flight) was most of what `shared` cost on chats with replies.
    func plainText(_ cls: RuntimeClass, worker: PluginWorker, record: [UInt8], width: Int, messageClass: String,
                   baseDirectory: String, into canvas: CellCanvas, notes: inout [String]) -> Bool {
        if !Self.pluginImplementsPlainText(cls) {
            guard (try? record.withUnsafeBufferPointer({ try quoteMessage.load($0, me: me) })) != nil else {
                return false
            }
            return HostClasses.messageCellPlainText(nil, nil, quoteMessage.handle, nil, BuilderHandle.handle(canvas))
                == Int32(CELLHOST_RENDERED)
        }
        if !worker.isRunning, worker.start(executable: settings.executable, setup: setup) != nil { return false }
        sequence += 1
        let request = RenderRequest(plainText: true, sequence: sequence, width: UInt32(clamping: width), flags: 0,
                                    steps: [(cls.name, messageClass)], record: record, baseDirectory: baseDirectory)
        var text = false
        let failure = worker.exchange([request], timeout: settings.timeout) { reply in
            if reply.renderedStep == 0 {
                canvas.appendContent(of: reply)
                text = true
            }
        }
        if let failure, disabled[cls.pluginID] == nil {
            disabled[cls.pluginID] = ("\(cls.name) \(failure.reason) while quoting a message", 0)
            notes.append("\(cls.pluginID): \(cls.name) \(failure.reason) while quoting a message; disabled")
        }
        return text
    }

    /// The message a quote is summarized from on the host (reused).
    private let quoteMessage = Message()

    /// Whether a plugin class on the chain from `cls` up to the host's
    /// classes declares `plainTextForMessage:context:into:` (known from the
    /// linked descriptions; no library is opened to tell).
    static func pluginImplementsPlainText(_ cls: RuntimeClass) -> Bool {
        var current: RuntimeClass? = cls
        while let each = current, each.pluginID != HostClasses.pluginID {
            if each.methods[WellKnownSelector.plainText.rawValue] != nil { return true }
            current = each.superclass
        }
        return false
    }

    /// Ends the conversation in every running worker and stops them.
    public func finish() {
        for worker in workers { worker.finish(timeout: max(1, settings.timeout)) }
    }
}

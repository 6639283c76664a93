import Foundation
import Synchronization

/// Runs a `RenderSession` on two threads: the caller's thread parses records
/// and calls the plugins (stage one), a second thread wraps, lays out and
/// writes them (stage two), in input order. Diagnostics travel through the
/// same queue, so stderr lines keep their place among the messages.
///
/// With `threads` of 1 or more (and no plugin in a worker process), stage
/// one runs on that many worker threads instead, and the caller's thread
/// does the rest in input order (`RenderWorkers`). This is what
/// `cellhost render` uses: on two cores, one worker beside the caller's
/// thread splits the work about evenly (233 M instructions on the caller's
/// thread and 226 M on the worker for 10 000 messages), where this
/// two-thread split does not (298 M on the reading thread, 153 M on the
/// output thread).
///
/// Slots are handed over in batches (one lock round-trip per batch, not per
/// message); a diagnostic, `inputIdle` or `finish` hands over at once, so a
/// live stream (`tail -f | cellhost render -`) shows each message as it
/// arrives. The output is flushed when the input would wait, when 64 KiB are
/// pending, and at the end.
///
/// Memory in flight is bounded twice: by the number of slots and by the
/// bytes they hold (`byteBudget`, 32 MiB by default): the reading thread
/// waits while more than that is queued, unless the queue is empty (one
/// larger message still goes through). A slot that held a large message
/// gives its buffers back after output.
///
/// Thread safety: the producer-side state is used only by the thread that
/// calls `submit`, `report`, `inputIdle` and `finish`; the shared counters
/// only under `condition`; the output thread touches a slot only between
/// its publication and its consumption. Hence `@unchecked Sendable`.
public final class RenderPipeline: @unchecked Sendable {
    private let session: RenderSession
    private let slots: [RenderSlot]
    private let batch: Int
    private let byteBudget: Int
    private let diagnostics: (String) -> Void
    private let condition = NSCondition()
    // Shared, guarded by `condition`:
    private var published = 0
    private var consumed = 0
    private var consumedBytes = 0
    private var finished = false
    // Producer only:
    /// Slots taken (`acquired`) and handed over in order (`produced`); the
    /// ones between wait for a worker process (`unresolved`).
    private var acquired = 0
    private var produced = 0
    private var unresolved: [RenderSlot] = []
    /// A batch sent to the workers, collected before the next one is sent.
    private var inFlight: (slots: [RenderSlot], flights: [Supervisor.Flight])?
    private var resolving = false
    private var producedBytes = 0
    private var consumedSeen = 0
    private var consumedBytesSeen = 0
    private var started = false
    /// Stage one on worker threads, when asked for (nil: the two-thread split).
    /// Its `emit` calls `writeInOrder` on this pipeline unretained (an
    /// `unowned` reference costs a retain and release per call): it is
    /// called only from this pipeline's own methods, while it is alive.
    private var workers: RenderWorkers?
    /// Records a worker thread could not parse (reported in their place).
    public private(set) var deferredProblems = 0

    /// `diagnostics` prints one line on stderr; it is called on the output
    /// thread (with render worker `threads`: on the caller's).
    /// `byteBudget` bounds the bytes of the records and content queued.
    /// `threads` of 1 or more renders on that many worker threads
    /// (`RenderWorkers`), unless the session runs plugins in worker
    /// processes (`--isolation`), which are driven from one thread.
    public init(session: RenderSession, capacity: Int = 256, batch: Int = 32, byteBudget: Int = 32 << 20,
                threads: Int = 0, diagnostics: @escaping (String) -> Void) {
        self.session = session
        let parallel = threads >= 1 && session.supervisor == nil
        slots = (0..<(parallel ? 1 : max(2, capacity))).map { _ in RenderSlot() }
        self.batch = max(1, min(batch, max(1, slots.count / 2)))
        self.byteBudget = max(1, byteBudget)
        self.diagnostics = diagnostics
        if parallel {
            let pipeline = Unmanaged.passUnretained(self)
            workers = RenderWorkers(session: session, threads: threads, capacity: capacity, batch: batch,
                                    byteBudget: byteBudget, source: source, baseDirectory: baseDirectory
            ) { slot in pipeline._withUnsafeGuaranteedRef { $0.writeInOrder(slot) } }
        }
    }

    /// The number of render worker threads for `cellhost render`:
    /// `CELLHOST_THREADS` when it is a number from 0 up (0: none, the
    /// two-thread split, which calls every plugin from the reading thread),
    /// else `defaultThreads(cores:)` of the cores this process may run on
    /// (`sched_getaffinity`, as `taskset` sets them), at most `maximumThreads`.
    public static func threadCount(environment: [String: String]) -> Int {
        if let given = environment["CELLHOST_THREADS"], let count = Int(given), count >= 0 {
            return min(count, maximumThreads)
        }
        // Glibc's module hides sched_getaffinity (a _GNU_SOURCE function).
        typealias Affinity = @convention(c) (pid_t, Int, UnsafeMutableRawPointer?) -> Int32
        if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "sched_getaffinity") {
            var set = [UInt64](repeating: 0, count: 16) // 1024 CPUs, as cpu_set_t
            let result = set.withUnsafeMutableBytes {
                unsafeBitCast(symbol, to: Affinity.self)(0, $0.count, $0.baseAddress)
            }
            let count = set.reduce(0) { $0 + $1.nonzeroBitCount }
            if result == 0 && count > 0 { return defaultThreads(cores: count) }
        }
        return defaultThreads(cores: sysconf(Int32(_SC_NPROCESSORS_ONLN)))
    }

    /// One render worker less than the cores, at most `maximumThreads`:
    /// the reading thread, which keeps input order and writes, needs a core
    /// of its own. On one core, one worker too: the two sides take turns in
    /// runs of slots, and that now costs less than the two-thread split
    /// (10⁶ `real` messages pinned to one core, 7 interleaved rounds: 1.50 s
    /// against 1.71 s; `Benchmarks/threads.sh`: 1.63 s against 1.72 s).
    public static func defaultThreads(cores: Int) -> Int {
        min(max(1, cores - 1), maximumThreads)
    }

    /// The most render threads `threadCount` picks.
    public static let maximumThreads = 16

    /// The number of render worker threads in use (0: the two-thread split).
    public var threads: Int { workers?.threadCount ?? 0 }

    /// Starts the output thread (with render worker threads: the workers).
    public func start() {
        guard !started else { return }
        started = true
        if let workers {
            workers.start()
            return
        }
        let thread = Thread { [self] in runOutput() }
        thread.name = "cellhost-output"
        thread.stackSize = 8 << 20
        thread.start()
    }

    /// The input that records come from, named in diagnostics.
    public var source = "<stdin>" { didSet { inputChanged() } }
    /// The directory relative media paths in those records resolve against.
    public var baseDirectory = BaseDirectory.current { didSet { inputChanged() } }
    /// Changes with `source` and `baseDirectory`: a slot copies them only
    /// when it holds those of another `input` (`RenderSlot.input`), since
    /// the copies cost reference counting and they change once per input.
    private var input = 0

    private func inputChanged() {
        input &+= 1
        workers?.setInput(input, source: source, baseDirectory: baseDirectory)
    }
    /// Records submitted whose `time` could not be read, and the first of
    /// them (its `source`, line and text); the caller resets them per input
    /// to report them.
    /// With render worker threads, reading or resetting them waits for every
    /// record submitted (so each input's records count for that input).
    public var unreadableTimes: Int {
        get { workers?.drain(); return unreadable }
        set { workers?.drain(); unreadable = newValue }
    }
    public var firstUnreadableTime: (source: String, line: Int, text: String)? {
        get { workers?.drain(); return firstUnreadable }
        set { workers?.drain(); firstUnreadable = newValue }
    }
    private var unreadable = 0
    private var firstUnreadable: (source: String, line: Int, text: String)?

    private func countTime(_ slot: RenderSlot) {
        if let text = slot.message.unreadableTime {
            unreadable += 1
            if firstUnreadable == nil { firstUnreadable = (slot.source, slot.line, text) }
        }
    }

    /// Stage one for a record, then queues it. Throws `JSONSyntaxError` when
    /// the record is not a JSON object (nothing is queued then). A record
    /// whose renderer runs in a worker process waits with the ones after it
    /// until a batch is full (or the input would wait), then the batch goes
    /// to the workers in one round trip.
    ///
    /// With render worker threads the record is parsed on a worker: one that is
    /// no JSON object is reported in its place instead (as the caller
    /// would report the error), and counted in `deferredProblems`.
    public func submit(_ bytes: UnsafeBufferPointer<UInt8>, line: Int) throws {
        // `workers` is set once, in `init`: no reference counting.
        if let workers = workers.map({ Unmanaged.passUnretained($0) }) {
            workers._withUnsafeGuaranteedRef { $0.submit(bytes, line: line) }
            return
        }
        let slot = acquire()
        if slot.input != input {
            slot.source = source
            slot.baseDirectory = baseDirectory
            slot.input = input
        }
        slot.line = line
        // Reached through the session each time (all `let`s): a local
        // would be retained and released around the calls.
        session.host.runtime.mainState.record = slot
        defer { session.host.runtime.mainState.record = nil }
        let done: Bool
        do {
            done = try session.begin(slot, bytes, line: line)
        } catch {
            acquired -= 1
            throw error
        }
        countTime(slot)
        if done && unresolved.isEmpty && inFlight == nil {
            session.complete(slot)
            hand(slot)
        } else {
            unresolved.append(slot)
            // A full batch goes to the workers; the previous one is
            // collected first, so one batch is rendered in the workers
            // while the next is read and parsed here.
            if unresolved.count >= batch { resolvePending(wait: false) }
        }
    }

    /// Hands a finished record over; a heavy one at once, so the output
    /// side can start on it.
    private func hand(_ slot: RenderSlot) {
        slot.weight = slot.message.document.bytes.count + slot.canvas.bytes.count
            + MemoryLayout<ContentItem>.stride * slot.canvas.items.count
        producedBytes += slot.weight
        commit(urgent: producedBytes - consumedBytesSeen > byteBudget)
    }

    /// Finishes the batch in flight and the records waiting for workers,
    /// and hands them over, in order. With `wait: false` the waiting ones
    /// are only sent to the workers, and become the batch in flight.
    private func resolvePending(wait: Bool = true) {
        guard !resolving else { return }
        resolving = true
        defer { resolving = false }
        if let flight = inFlight {
            inFlight = nil
            session.collect(flight.flights, flight.slots)
            for slot in flight.slots {
                session.complete(slot)
                hand(slot)
            }
        }
        guard !unresolved.isEmpty else { return }
        let waiting = unresolved
        unresolved.removeAll(keepingCapacity: true)
        if wait {
            session.resolve(waiting)
            for slot in waiting {
                session.complete(slot)
                hand(slot)
            }
        } else {
            inFlight = (waiting, session.dispatch(waiting))
        }
    }

    /// Queues a diagnostic line, printed after the messages before it.
    public func report(_ line: String) {
        if let workers {
            workers.drain()
            session.output.flush()
            diagnostics(line)
            return
        }
        acquire().kind = .diagnostic(line)
        commit(urgent: true)
    }

    /// The input would wait: have everything so far written out.
    public func inputIdle() {
        if let workers {
            workers.drain()
            session.output.flush()
            return
        }
        acquire().kind = .flush
        commit(urgent: true)
    }

    /// Writes everything queued, stops the output thread, and ends the conversation.
    public func finish() {
        if let workers {
            workers.stop()
            session.output.flush()
            session.finish()
            return
        }
        acquire().kind = .end
        commit(urgent: true)
        condition.lock()
        while !finished { condition.wait() }
        condition.unlock()
        session.finish()
    }

    /// The next free slot, waiting while all are in flight or while more
    /// than `byteBudget` bytes are (unless nothing is).
    private func acquire() -> RenderSlot {
        if acquired - consumedSeen >= slots.count || producedBytes - consumedBytesSeen > byteBudget {
            resolvePending()
            condition.lock()
            if published < produced { published = produced; condition.broadcast() }
            while acquired - consumed >= slots.count || (producedBytes - consumedBytes > byteBudget && consumed < produced) {
                condition.wait()
            }
            consumedSeen = consumed
            consumedBytesSeen = consumedBytes
            condition.unlock()
        }
        defer { acquired += 1 }
        return slots[acquired % slots.count]
    }

    /// Bytes queued and not yet written, as the reading thread last saw them (for tests).
    var bytesInFlightSeen: Int { workers?.bytesInFlightSeen ?? (producedBytes - consumedBytesSeen) }

    /// With render worker threads, on the caller's: the rest of a slot a worker
    /// prepared, in input order, and its output.
    private func writeInOrder(_ slot: RenderSlot) {
        if let failure = slot.failure {
            deferredProblems += 1
            session.output.flush()
            diagnostics("\(slot.source):\(slot.line): \(failure)")
            return
        }
        // Reached through the session each time (all `let`s): a local
        // would be retained and released around the calls.
        session.host.runtime.mainState.record = slot
        defer { session.host.runtime.mainState.record = nil }
        if slot.walk != nil { session.resume(slot) }
        countTime(slot)
        session.complete(slot)
        if !slot.notes.isEmpty || !slot.logs.isEmpty {
            session.output.flush()
            for note in slot.notes { diagnostics(note) }
            for log in slot.logs { session.host.logHandler?(log.plugin, log.level, log.message) }
        }
        if !session.output.failed { session.emit(slot) }
    }

    private func commit(urgent: Bool) {
        if urgent { resolvePending() }
        produced += 1
        handedOver.store(produced, ordering: .releasing)
        guard urgent || produced - published >= batch else { return }
        condition.lock()
        published = produced
        consumedSeen = consumed
        consumedBytesSeen = consumedBytes
        condition.broadcast()
        condition.unlock()
    }

    // MARK: After a crash

    private var drainRequested = false
    private var drained = false
    /// Guarded by `condition`.
    private var outputThread: pthread_t?
    /// `produced`, for a crash handler on another thread (the watchdog).
    private let handedOver = Atomic<Int>(0)

    /// What was being rendered when the producer thread crashed.
    public struct CrashSite {
        public var source: String
        public var line: Int
        public var messageID: String
        /// The class being called, and its plugin, when it was plugin code.
        public var className: String?
        public var pluginID: String?
    }

    /// The record the thread of `state` (nil: the calling thread's) was
    /// preparing, and the class it was calling, if any.
    public func crashSite(in state: CallState? = nil) -> CrashSite? {
        let state = state ?? session.host.runtime.state
        guard let slot = state.record else { return nil }
        let cls = state.activeClass
        return CrashSite(source: slot.source, line: slot.line, messageID: slot.message.id, className: cls?.name,
                         pluginID: cls?.pluginID)
    }

    /// For a crash handler (a plugin crashed, or hangs, while called in this
    /// process, on the thread of `state`; nil: the calling thread): has
    /// every complete record before it written, waiting at most `timeout`
    /// seconds. Returns false when it could not (the crash is on the output
    /// thread, or in host code on the thread that writes).
    public func drainAfterCrash(in state: CallState? = nil, timeout: Double = 5) -> Bool {
        let state = state ?? session.host.runtime.state
        if let workers {
            if state.isWorker { return workers.drainAfterCrash(of: state, timeout: timeout) }
            // The caller's thread writes in order: what came before is in
            // the output buffer, which a plugin call does not touch.
            guard state.activeClass != nil else { return false }
            session.output.flush()
            return true
        }
        condition.lock()
        defer { condition.unlock() }
        if let outputThread, pthread_equal(outputThread, pthread_self()) != 0 { return false }
        // `produced` belongs to the reading thread, which is stuck or
        // crashed: its published copy says how many slots are complete.
        published = handedOver.load(ordering: .acquiring)
        drainRequested = true
        condition.broadcast()
        let deadline = Date(timeIntervalSinceNow: timeout)
        while !drained {
            if !condition.wait(until: deadline) { return false }
        }
        return true
    }

    private func runOutput() {
        condition.lock()
        outputThread = pthread_self()
        condition.unlock()
        var next = 0
        var bytesDone = 0
        while true {
            condition.lock()
            consumed = next
            consumedBytes = bytesDone
            condition.broadcast()
            if drainRequested && published == next {
                condition.unlock()
                session.output.flush()
                condition.lock()
                drained = true
                condition.broadcast()
                condition.unlock()
                return
            }
            while published == next && !drainRequested { condition.wait() }
            let available = published
            condition.unlock()
            while next < available {
                let slot = slots[next % slots.count]
                next += 1
                switch slot.kind {
                case .message:
                    if !slot.notes.isEmpty || !slot.logs.isEmpty {
                        session.output.flush()
                        for note in slot.notes { diagnostics(note) }
                        for log in slot.logs { session.host.logHandler?(log.plugin, log.level, log.message) }
                    }
                    // Once the output failed, laying out is wasted work.
                    if !session.output.failed { session.emit(slot) }
                    bytesDone += slot.weight
                    slot.releaseLargeBuffers()
                case .diagnostic(let line):
                    session.output.flush()
                    diagnostics(line)
                case .flush:
                    session.output.flush()
                case .end:
                    session.output.flush()
                    condition.lock()
                    consumed = next
                    consumedBytes = bytesDone
                    finished = true
                    condition.broadcast()
                    condition.unlock()
                    return
                }
                slot.kind = .message
            }
        }
    }
}

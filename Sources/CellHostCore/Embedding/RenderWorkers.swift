import Foundation
import Synchronization

/// Stage one on worker threads: `RenderPipeline` with `threads` ≥ 1.
///
/// The thread that owns the runtime (the caller's: it submits the records)
/// copies each record into a slot of a ring and publishes it; N worker
/// threads take published slots in turn, parse them, walk their chain as far
/// as thread-safe classes go (CELLHOST_PLUGIN_THREAD_SAFE), and wrap the
/// content while the owning thread is the slower side (`workersWrap`);
/// otherwise the owning thread wraps. Wrapping depends on the message
/// alone, so either way the bytes are the same; moving it evens out the
/// work (for 10 000 `real` messages in plain, with the owning thread
/// wrapping, the owning thread runs 233 M instructions and one worker 226 M,
/// where the two-thread split of `RenderPipeline` runs 298 M and 153 M;
/// `--format json` gives the owning thread more to do). The owning
/// thread then takes the slots back in input order and
/// does everything that depends on the order or on classes that are not
/// thread-safe: it finishes a walk a worker paused, works out reply quotes
/// and remembers the record (`RenderSession.complete`), lays out the chrome
/// (which depends on the message before), encodes and writes, with
/// diagnostics in their place. So the output is the same bytes as with one
/// thread, and a plugin without the flag is called from one thread only.
///
/// The owning thread takes back the oldest finished slot whenever it
/// submits one (one out, one in: the workers' queue stays level), and all
/// of them (waiting for the workers) when the input would wait (`drain`),
/// so a live stream still shows each message as it arrives.
///
/// Memory in flight is bounded as in the two-thread pipeline: by the ring's
/// slots, and by `byteBudget` bytes of records and content (the owning
/// thread takes back the oldest slot, waiting for it, while more are in
/// flight; one record more, and what the workers are rendering, may pass).
///
/// A side that runs out of work sleeps until a run of slots is ready for
/// it, not one (a wake-up costs both threads a system call and a context
/// switch), unless the other side would wait for it (the input would wait,
/// a diagnostic, the end, a full ring): then at once. A worker sleeps for
/// `wakeAfter` slots, the owning thread for `ownerWakeAfter` (half the
/// ring; see there).
///
/// Thread safety: a slot belongs to the owning thread until it is
/// published, then to the worker that claims it until its `done` flag is
/// set, then to the owning thread again. `published`, `claimed`,
/// `sleeping` and `stopping` are guarded by `work` (a worker counts itself
/// in `sleeping` and checks for work under the lock that `publish` takes,
/// so a wake-up is never lost); the owner sets `ownerWaiting`, then reads
/// the `done` flags it waits for, sequentially consistent; a worker sets
/// the flags of the slots it took (release stores), then, after one
/// sequentially consistent fence, reads `ownerWaiting` and the flag it
/// names: one of them sees the other, so a wake-up is never lost (an
/// exchange for each flag took 29 % of the worker loop's own samples). Counters that change with every record are written by one
/// thread only (`ownedBytes`, each worker's `rendered`).
final class RenderWorkers: @unchecked Sendable {
    private final class Flag: Sendable { let value = Atomic<Bool>(false) }
    private final class Counter: Sendable { let value = Atomic<Int>(0) }

    private let session: RenderSession
    /// The ring: `mask + 1` slots (a power of two), retained until
    /// `deinit`. They are used unretained: each lives as long as the ring,
    /// and retaining one would write its reference count, an atomic that
    /// the other thread's core then has to fetch back.
    private let slots: [Unmanaged<RenderSlot>]
    private let mask: Int
    private let done: [Flag]
    private let threads: Int
    /// Whether workers wrap the content they render (else the owning
    /// thread does, in `emit`): set when a worker runs out of work (the
    /// owning thread is behind), cleared when the owning thread waits for a
    /// worker. It flips at most about once per batch, so over a run each
    /// side wraps about the share that evens out the two.
    private let workersWrap = Atomic<Bool>(false)
    private let batch: Int
    private let byteBudget: Int
    private let emit: (RenderSlot) -> Void
    /// The input records come from, what relative media paths in them
    /// resolve against, and a number that changes with them
    /// (`setInput`). A slot copies them only when the number changed since
    /// it last did: the copies cost reference counting, on objects the
    /// workers read too, and they change once per input.
    private var source: String
    private var baseDirectory: BaseDirectory
    private var input = 0
    private let work = NSCondition()
    private let finished = NSCondition()
    /// A side that sleeps is woken once this many slots are ready for it,
    /// or at once when the other side would wait, drain or stop: each
    /// wake-up costs both threads a system call and a context switch,
    /// and the side that is ahead has that much work left meanwhile.
    /// One batch: half the ring (128 slots) saved wake-ups but left one
    /// side idle for long stretches (10⁶ `real` messages: 2.7–3.0 s wall
    /// against 2.0–2.2 s with runs of 4 to 32, for the same CPU time).
    private let wakeAfter: Int
    /// The owning thread, waiting for the oldest slot, sleeps until this
    /// many are done: half the ring. It waits when the ring is full (the
    /// workers are the slower side), so the workers still have the other
    /// half queued while it sleeps, and `submit` keeps it level after; a
    /// worker wakes it once per half ring instead of once per `wakeAfter`
    /// slots.
    /// Waking is the costly side in a VM (the waker's `futex` wake sends
    /// an interrupt to the idle core: 4.4 % of all CPU samples of a 10⁶
    /// `real` render on the 2-vCPU VM when it woke the owning thread every
    /// 32 slots). With fewer slots in flight (a live stream, the end) it
    /// waits for the newest.
    private let ownerWakeAfter: Int
    /// While the owning thread sleeps: the position + 1 of the slot that,
    /// done after the oldest, wakes it (`waitForWorkers`); 0: awake.
    private let ownerWaiting = Atomic<Int>(0)
    /// Bytes of content the workers rendered, counted by each in an
    /// allocation of its own: with the owning thread's `ownedBytes`, the
    /// bytes in flight, without a counter that both sides write.
    private let rendered: [Counter]
    // Guarded by `work`:
    private var published = 0
    private var claimed = 0
    private var stopping = false
    private var running = 0
    /// Workers waiting for slots.
    private var sleeping = 0
    // The owning thread's:
    private var acquired = 0
    private var returned = 0
    /// Bytes of records submitted less those of slots written (their
    /// records and the content that `rendered` counted).
    private var ownedBytes = 0
    private var states: [CallState] = []

    /// `emit` writes a finished slot, in input order, on the owning thread.
    init(session: RenderSession, threads: Int, capacity: Int, batch: Int, byteBudget: Int,
         source: String, baseDirectory: BaseDirectory, emit: @escaping (RenderSlot) -> Void) {
        self.session = session
        self.source = source
        self.baseDirectory = baseDirectory
        self.threads = max(1, threads)
        var count = 2
        while count < max(2 * self.threads, capacity) { count <<= 1 }
        slots = (0..<count).map { _ in Unmanaged.passRetained(RenderSlot()) }
        mask = count - 1
        done = (0..<count).map { _ in Flag() }
        rendered = (0..<self.threads).map { _ in Counter() }
        self.batch = max(1, min(batch, count / 2))
        wakeAfter = self.batch
        ownerWakeAfter = max(self.batch, count / 2)
        self.byteBudget = max(1, byteBudget)
        self.emit = emit
    }

    deinit {
        for slot in slots { slot.release() }
    }

    /// Readies the thread-safe classes and starts the workers.
    func start() {
        let runtime = session.host.runtime
        runtime.prepareForConcurrentCalls()
        for index in 0..<threads {
            let state = runtime.makeWorkerState(baseDirectory: runtime.baseDirectory)
            states.append(state)
            let counter = rendered[index]
            let thread = Thread { [self] in run(state, counting: counter) }
            thread.name = "cellhost-render-\(index + 1)"
            thread.stackSize = 8 << 20
            work.lock()
            running += 1
            work.unlock()
            thread.start()
        }
    }

    /// The number of worker threads.
    var threadCount: Int { threads }

    /// Bytes in flight as last counted (for tests).
    var bytesInFlightSeen: Int { bytesInFlight }

    private var bytesInFlight: Int {
        var bytes = ownedBytes
        for index in rendered.indices { bytes &+= rendered[index].value.load(ordering: .relaxed) }
        return bytes
    }

    /// The input the records submitted from now on come from; `input`
    /// changes with it (`RenderPipeline` numbers them).
    func setInput(_ input: Int, source: String, baseDirectory: BaseDirectory) {
        self.input = input
        self.source = source
        self.baseDirectory = baseDirectory
    }

    /// Queues a copy of a record for the workers. The oldest slot is
    /// written first when the workers have finished it; when the ring or
    /// the byte budget is full, it is waited for.
    ///
    /// One slot back per slot submitted, not every finished one: after the
    /// owning thread slept for `ownerWakeAfter` slots, writing them all
    /// before queueing more let the workers' queue run down by as many
    /// while it did (10⁶ `real` messages, 8 interleaved rounds: median wall
    /// 2.00 s taking back all, 1.75 s one at a time; CPU 3.33 s and 3.17 s).
    func submit(_ bytes: UnsafeBufferPointer<UInt8>, line: Int) {
        if returned < published && done[returned & mask].value.load(ordering: .acquiring) { finishInOrder(returned) }
        while acquired - returned >= slots.count
                || (acquired > returned && bytesInFlight > byteBudget) {
            returnOldest()
        }
        let index = acquired & mask
        slots[index]._withUnsafeGuaranteedRef { slot in
            // The buffer the slot's message held before it took the last
            // record (`Message.load(taking:)`): no other reference to it.
            if slot.record.capacity < bytes.count {
                // Grown to a power of two, a buffer fits most records that
                // come after it, so a steady stream stops reallocating
                // (emptied first, so the old bytes are not copied over).
                slot.record = []
                slot.record.reserveCapacity(max(256, 1 << (Int.bitWidth - (bytes.count - 1).leadingZeroBitCount)))
            }
            // One `replaceSubrange` of the whole buffer: a uniqueness check
            // and a memcpy (some 155 instructions), where emptying it
            // (a generic `replaceSubrange`) and then appending cost 300.
            slot.record.replaceSubrange(0..<slot.record.count, with: bytes)
            slot.recordStart = slot.record.withUnsafeMutableBufferPointer { UnsafePointer($0.baseAddress) }
            slot.recordBytes = bytes.count
            slot.line = line
            if slot.input != input {
                slot.source = source
                slot.baseDirectory = baseDirectory
                slot.input = input
            }
            slot.sequence = UInt64(acquired + 1)
            slot.weight = bytes.count
        }
        ownedBytes += bytes.count
        done[index].value.store(false, ordering: .relaxed)
        acquired += 1
        if acquired - published >= batch { publish(waking: false) }
    }

    /// Writes every slot submitted, waiting for the workers.
    func drain() {
        while returned < acquired { returnOldest() }
    }

    /// Drains, then stops the workers.
    func stop() {
        drain()
        work.lock()
        stopping = true
        work.broadcast()
        work.unlock()
        finished.lock()
        while running > 0 { finished.wait() }
        finished.unlock()
        let runtime = session.host.runtime
        for state in states { runtime.retire(state) }
        states.removeAll()
    }

    /// Hands the slots submitted so far to the workers, and wakes the ones
    /// that sleep when `wakeAfter` slots wait for them or, `waking`, when
    /// any do (the owning thread is about to wait for them).
    private func publish(waking: Bool) {
        work.lock()
        published = acquired
        let wake = sleeping > 0 && claimed < published && (waking || published - claimed >= wakeAfter)
        work.unlock()
        // After unlocking, so a woken worker does not find the lock held and
        // sleep on it again (a second wake-up system call on both sides). No
        // wake-up is lost: a worker counted in `sleeping` under the lock is
        // already waiting; one that waits later is woken for nothing and
        // looks again.
        if wake { work.broadcast() }
    }

    /// Writes the oldest slot in flight, waiting for its worker.
    private func returnOldest() {
        if !done[returned & mask].value.load(ordering: .acquiring) { waitForWorkers() }
        finishInOrder(returned)
    }

    /// Sleeps until the oldest slot in flight is done, and the one
    /// `ownerWakeAfter` - 1 after it (or the newest, so a live stream still
    /// sees each message at once): then a run of slots is ready, not one.
    /// After a crash, the oldest slot alone is waited for.
    private func waitForWorkers() {
        publish(waking: true)
        let oldest = done[returned & mask]
        var last = min(returned + ownerWakeAfter, acquired) - 1
        finished.lock()
        workersWrap.store(false, ordering: .relaxed)
        ownerWaiting.store(last + 1, ordering: .sequentiallyConsistent)
        while !oldest.value.load(ordering: .sequentiallyConsistent)
                || !done[last & mask].value.load(ordering: .sequentiallyConsistent) {
            let crash = crashed.load(ordering: .acquiring)
            if crash == returned + 1 {
                finished.unlock()
                stopAtCrash()
            }
            if crash != 0 && last != returned {
                // The slots after the crashed one may never be done.
                last = returned
                ownerWaiting.store(last + 1, ordering: .sequentiallyConsistent)
                continue
            }
            finished.wait()
        }
        ownerWaiting.store(0, ordering: .relaxed)
        finished.unlock()
    }

    /// The owning thread's part of one slot, in input order.
    private func finishInOrder(_ position: Int) {
        if crashed.load(ordering: .acquiring) == position + 1 { stopAtCrash() }
        returned = position + 1
        slots[position & mask]._withUnsafeGuaranteedRef { slot in
            let counted = slot.weight
            emit(slot)
            // Emptied here, where its lines were just read, rather than
            // by the worker that loads the slot's next record.
            slot.clear()
            ownedBytes -= counted
            // A record and content of under `smallSlot` bytes made none of
            // the message's buffers grow past what `releaseLargeBuffers`
            // gives back (its record buffer would hold more than 512 KiB,
            // its tape more than 64 Ki nodes): only the canvas, which this
            // thread grew while laying it out, is looked at. The message's
            // buffers and string arena are the worker's, which resets the
            // arena when it loads the next record; reading and resetting
            // them here fetched three cache lines the worker wrote.
            if counted >= RenderWorkers.smallSlot {
                slot.releaseLargeBuffers()
            } else {
                slot.canvas.releaseLargeBuffers()
            }
        }
    }

    /// See `finishInOrder`.
    static let smallSlot = 64 << 10

    // MARK: After a crash

    /// The position + 1 of the slot a worker crashed (or hung) on; 0: none.
    private let crashed = Atomic<Int>(0)
    private var drained = false

    /// For a crash handler: the worker whose call state is `state` crashed
    /// or hangs. The owning thread writes every slot before its record,
    /// then stops; waits for that, at most `timeout` seconds. Returns false
    /// when it could not (the slot is unknown, or the owning thread does
    /// not come).
    func drainAfterCrash(of state: CallState, timeout: Double) -> Bool {
        guard let slot = state.record, slot.sequence > 0 else { return false }
        finished.lock()
        defer { finished.unlock() }
        crashed.store(Int(slot.sequence), ordering: .releasing)
        finished.broadcast()
        let deadline = Date(timeIntervalSinceNow: timeout)
        while !drained {
            if !finished.wait(until: deadline) { return false }
        }
        return true
    }

    /// On the owning thread, at the slot a worker crashed on: everything
    /// before it is written; flush, say so, and wait for the crash handler
    /// to end the process.
    private func stopAtCrash() -> Never {
        session.output.flush()
        finished.lock()
        drained = true
        finished.broadcast()
        while true { finished.wait() }
    }

    /// A worker: takes published slots, a few at a time, until stopped.
    private func run(_ state: CallState, counting rendered: Counter) {
        state.install()
        // A crash handler set with SA_ONSTACK runs on this thread's own
        // alternate stack (a stack overflow in a plugin included).
        let alternateSize = 256 << 10
        if let memory = malloc(alternateSize) {
            var stack = stack_t(ss_sp: memory, ss_flags: 0, ss_size: alternateSize)
            sigaltstack(&stack, nil)
        }
        defer {
            CallState.uninstall()
            finished.lock()
            running -= 1
            finished.broadcast()
            finished.unlock()
        }
        while true {
            work.lock()
            while claimed == published && !stopping {
                workersWrap.store(true, ordering: .relaxed)
                sleeping += 1
                work.wait()
                sleeping -= 1
            }
            if claimed == published {
                work.unlock()
                return
            }
            // Share what is there among the threads, a few slots each.
            let count = min(8, max(1, (published - claimed) / threads))
            let first = claimed
            claimed += count
            work.unlock()
            for position in first..<(first + count) {
                let index = position & mask
                slots[index]._withUnsafeGuaranteedRef { prepare($0, state, counting: rendered) }
                done[index].value.store(true, ordering: .releasing)
            }
            atomicMemoryFence(ordering: .sequentiallyConsistent)
            let waiting = ownerWaiting.load(ordering: .sequentiallyConsistent)
            if waiting != 0 && done[(waiting - 1) & mask].value.load(ordering: .sequentiallyConsistent) {
                // The owning thread set `ownerWaiting` under the lock and holds
                // it until it waits: taking the lock once is enough to know it
                // waits, and waking it after unlocking keeps it from finding
                // the lock held and sleeping on that too (for 10⁶ messages it
                // did 20 k times: 40 k wake-up system calls on this thread
                // instead of 20 k).
                finished.lock()
                finished.unlock()
                finished.broadcast()
            }
        }
    }

    /// Stage one of a slot on a worker: parse, walk, and wrap (`workersWrap`).
    /// `rendered` is this worker's own counter: only this thread writes it.
    private func prepare(_ slot: RenderSlot, _ state: CallState, counting rendered: Counter) {
        state.record = slot
        defer { state.record = nil }
        // Checked first: assigning releases the old value even when nil.
        if slot.failure != nil { slot.failure = nil }
        do {
            // Every slot the workers take is new or was cleared by `finishInOrder`.
            try session.load(slot, line: slot.line, cleared: true)
        } catch {
            slot.failure = "\(error)"
            return
        }
        if session.walk(slot, order: slot.sequence) && workersWrap.load(ordering: .relaxed) { session.wrap(slot) }
        let content = slot.canvas.bytes.count + MemoryLayout<ContentItem>.stride * slot.canvas.items.count
        slot.weight += content
        rendered.value.store(rendered.value.load(ordering: .relaxed) &+ content, ordering: .relaxed)
    }
}

import Foundation

/// Runs a `RenderSession` on two threads: the caller's thread parses records
/// and calls the plugins (stage one), a second thread wraps, lays out and
/// writes them (stage two), in input order. Diagnostics travel through the
/// same queue, so stderr lines keep their place among the messages.
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
public final class RenderPipeline {
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
    private var produced = 0
    private var producedBytes = 0
    private var consumedSeen = 0
    private var consumedBytesSeen = 0
    private var started = false

    /// `diagnostics` prints one line on stderr; it is called on the output thread.
    /// `byteBudget` bounds the bytes of the records and content queued.
    public init(session: RenderSession, capacity: Int = 256, batch: Int = 32, byteBudget: Int = 32 << 20,
                diagnostics: @escaping (String) -> Void) {
        self.session = session
        slots = (0..<max(2, capacity)).map { _ in RenderSlot() }
        self.batch = max(1, min(batch, slots.count / 2))
        self.byteBudget = max(1, byteBudget)
        self.diagnostics = diagnostics
    }

    /// Starts the output thread.
    public func start() {
        guard !started else { return }
        started = true
        let thread = Thread { [self] in runOutput() }
        thread.name = "cellhost-output"
        thread.stackSize = 8 << 20
        thread.start()
    }

    /// Stage one for a record, then queues it. Throws `JSONSyntaxError` when
    /// the record is not a JSON object (nothing is queued then).
    public func submit(_ bytes: UnsafeBufferPointer<UInt8>, line: Int) throws {
        let slot = acquire()
        try session.prepare(slot, bytes, line: line)
        producedBytes += slot.weight
        // A heavy slot is handed over at once, so the output side can start on it.
        commit(urgent: producedBytes - consumedBytesSeen > byteBudget)
    }

    /// Queues a diagnostic line, printed after the messages before it.
    public func report(_ line: String) {
        acquire().kind = .diagnostic(line)
        commit(urgent: true)
    }

    /// The input would wait: have everything so far written out.
    public func inputIdle() {
        acquire().kind = .flush
        commit(urgent: true)
    }

    /// Writes everything queued, stops the output thread, and ends the conversation.
    public func finish() {
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
        if produced - consumedSeen >= slots.count || producedBytes - consumedBytesSeen > byteBudget {
            condition.lock()
            if published < produced { published = produced; condition.broadcast() }
            while produced - consumed >= slots.count || (producedBytes - consumedBytes > byteBudget && consumed < produced) {
                condition.wait()
            }
            consumedSeen = consumed
            consumedBytesSeen = consumedBytes
            condition.unlock()
        }
        return slots[produced % slots.count]
    }

    /// Bytes queued and not yet written, as the reading thread last saw them (for tests).
    var bytesInFlightSeen: Int { producedBytes - consumedBytesSeen }

    private func commit(urgent: Bool) {
        produced += 1
        guard urgent || produced - published >= batch else { return }
        condition.lock()
        published = produced
        consumedSeen = consumed
        consumedBytesSeen = consumedBytes
        condition.broadcast()
        condition.unlock()
    }

    private func runOutput() {
        var next = 0
        var bytesDone = 0
        while true {
            condition.lock()
            consumed = next
            consumedBytes = bytesDone
            condition.broadcast()
            while published == next { condition.wait() }
            let available = published
            condition.unlock()
            while next < available {
                let slot = slots[next % slots.count]
                next += 1
                switch slot.kind {
                case .message:
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

import Dispatch
import Foundation

/// Runs a `RenderSession` on two threads: the caller's thread parses records
/// and calls the plugins (stage one), a second thread wraps, lays out and
/// writes them (stage two), in input order. Diagnostics travel through the
/// same queue, so stderr lines keep their place among the messages.
///
/// The output is flushed when the input side says it would wait (`inputIdle`),
/// when 64 KiB are pending, and at the end, so a live stream
/// (`tail -f | cellhost render -`) shows each message as it arrives.
public final class RenderPipeline {
    private let session: RenderSession
    private let slots: [RenderSlot]
    private var producer = 0
    private var consumer = 0
    /// Slots ready for stage two.
    private let ready = DispatchSemaphore(value: 0)
    /// Slots free for stage one.
    private let free: DispatchSemaphore
    private let done = DispatchSemaphore(value: 0)
    private let diagnostics: (String) -> Void
    private var started = false

    /// `diagnostics` prints one line on stderr; it is called on the output thread.
    public init(session: RenderSession, capacity: Int = 256, diagnostics: @escaping (String) -> Void) {
        self.session = session
        slots = (0..<max(2, capacity)).map { _ in RenderSlot() }
        free = DispatchSemaphore(value: slots.count)
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

    /// Stage one for a record, then hands it on. Throws `JSONSyntaxError`
    /// when the record is not a JSON object (nothing is queued then).
    public func submit(_ bytes: UnsafeBufferPointer<UInt8>, line: Int) throws {
        let slot = acquire()
        do {
            try session.prepare(slot, bytes, line: line)
        } catch {
            release(unused: slot)
            throw error
        }
        publish()
    }

    /// Queues a diagnostic line, printed after the messages before it.
    public func report(_ line: String) {
        let slot = acquire()
        slot.kind = .diagnostic(line)
        publish()
    }

    /// The input would wait: have everything so far written out.
    public func inputIdle() {
        let slot = acquire()
        slot.kind = .flush
        publish()
    }

    /// Writes everything queued, stops the output thread, and ends the conversation.
    public func finish() {
        let slot = acquire()
        slot.kind = .end
        publish()
        done.wait()
        session.finish()
    }

    private func acquire() -> RenderSlot {
        free.wait()
        return slots[producer]
    }

    private func release(unused slot: RenderSlot) {
        free.signal()
    }

    private func publish() {
        producer = (producer + 1) % slots.count
        ready.signal()
    }

    private func runOutput() {
        while true {
            ready.wait()
            let slot = slots[consumer]
            consumer = (consumer + 1) % slots.count
            switch slot.kind {
            case .message:
                session.emit(slot)
            case .diagnostic(let line):
                session.output.flush()
                diagnostics(line)
            case .flush:
                session.output.flush()
            case .end:
                session.output.flush()
                free.signal()
                done.signal()
                return
            }
            slot.kind = .message
            free.signal()
        }
    }
}

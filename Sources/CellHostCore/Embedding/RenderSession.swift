import CellHostABI

/// One message on its way through a session: parsed and rendered by its cell
/// (stage one), then laid out with the chrome and encoded (stage two). Slots
/// are reused; the pipeline keeps several in flight.
final class RenderSlot {
    enum Kind { case message, diagnostic(String), flush, end }
    // The properties are grouped by the thread that writes them (Swift lays
    // a class's stored properties out in this order): with render worker
    // threads, the owning thread writes the first group as it submits a
    // record and a worker reads it, the worker writes the second and the
    // owning thread reads it, and the third is the owning thread's. Mixed,
    // the fields one thread wrote for a message were spread over more of
    // the slot's cache lines for the other thread's core to fetch.
    var line = 0
    var sequence: UInt64 = 0
    /// Bytes this slot holds while queued (record and content), for the
    /// pipeline's bound on bytes in flight.
    var weight = 0
    /// Its content was wrapped and capped already (by a render worker
    /// thread). Beside `weight`, which the worker that wraps writes too.
    var wrapped = false
    /// With several render threads: the record as read. The worker that
    /// parses it exchanges the buffer for the one its message held
    /// (`Message.load(taking:)`), which the owning thread fills with the
    /// slot's next record.
    var record: [UInt8] = []
    /// Where the record's bytes are and how many, when they are those of
    /// `message` (set by the render workers' owning thread; nil: they are
    /// not), so `complete` copies them into the reply-quote ring without
    /// reaching the buffer through the message's document: that retains
    /// it, writing its header. The document keeps the buffer until the
    /// slot's next record is loaded, which comes after `complete`.
    var recordStart: UnsafePointer<UInt8>?
    var recordBytes = 0
    /// The number of the input whose `source` and `baseDirectory` it holds
    /// (`RenderPipeline.input`; -1: none yet).
    var input = -1
    /// The input it came from, for diagnostics.
    var source = "<stdin>"
    /// What relative media paths in it resolve against.
    var baseDirectory = BaseDirectory.current
    let message = Message()
    let canvas = CellCanvas()

    /// With several render threads: why the record could not be parsed.
    var failure: String?
    var kind = Kind.message
    var outcome: RenderOutcome?

    /// The reply quote, when the message has `reply_to` (`complete` sets it).
    var quote = ReplyQuote()
    /// While its chain waits for a worker process: the walk, and what the
    /// worker needs to render it.
    var walk: ChainWalk?
    /// The walk object a paused walk of this slot's moves into (`walk` is
    /// it while paused); a walk that does not pause uses its thread's
    /// (`CallState.walk`).
    let spareWalk = ChainWalk(steps: [])
    var width = 0
    var flags: UInt32 = 0
    /// What plugins logged while rendering it, printed before it.
    var logs: [(plugin: String, level: cellhost_log_level, message: String)] = []
    /// The host's own diagnostics about it (a plugin disabled), printed before it.
    var notes: [String] = []

    /// Whether `outcome` is set, read without copying it (a copy retains
    /// its class, an object that the render workers retain too).
    var isRendered: Bool {
        if case .some = outcome { return true }
        return false
    }

    /// Empties what the message before left (its content, logs, notes,
    /// paused walk and `wrapped`) for the next. `RenderSession.load` does it, unless the
    /// render workers' owning thread did it when it wrote the slot out
    /// (`RenderWorkers.finishInOrder`): the canvas's lines are in that
    /// thread's cache then, and a worker emptying them (`CellCanvas.reset`'s
    /// uniqueness checks and two `replaceSubrange` calls, some 210
    /// instructions) fetched them from it.
    /// The outcome is left to the next walk (`RenderSession.walk` sets it,
    /// nil when the walk pauses): releasing it here released its class on
    /// this thread, just after a render worker retained it for the walk
    /// that made it, so the class's reference count moved between the two
    /// cores twice a message; the worker that replaces it holds that count
    /// in its cache already.
    func clear() {
        canvas.reset()
        // Checked first: removeAll costs a uniqueness check even when empty.
        if !logs.isEmpty { logs.removeAll() }
        if !notes.isEmpty { notes.removeAll() }
        // Checked first: assigning releases the old value even when nil.
        if walk != nil { walk = nil }
        wrapped = false
    }

    /// After output: gives back what a large message made the slot grow.
    func releaseLargeBuffers() {
        message.releaseLargeBuffers()
        canvas.releaseLargeBuffers()
        if record.capacity > 1 << 20 { record = [] }
        weight = 0
    }
}

/// Renders a stream of messages, one conversation: each record is parsed,
/// rendered by the chain of cells for its class, laid out with the chrome,
/// and encoded to the output as soon as it arrives.
///
/// The work is split in two stages: `prepare` (parsing, the plugins, reply
/// quotes: everything that touches the runtime) and `emit` (wrapping, chrome,
/// encoding: host code only), so that `RenderPipeline` can run them on two
/// threads. `render` runs both in turn. With render worker threads
/// (`RenderWorkers`), `load`, `walk` and `wrap` run on the workers and the
/// rest (`resume`, `complete`, `emit`) on the thread that owns the runtime,
/// in input order.
public final class RenderSession {
    let host: CellHost
    let settings: OutputSettings
    let me: String?
    let output: OutputBuffer
    /// Rows and bytes one message's content may produce.
    public let limits: OutputLimits
    private let slot = RenderSlot()
    private let chrome: Chrome
    private let encoder: LineEncoder
    /// The page writer of `--format html` (nil for the other formats).
    private let html: HTMLEncoder?
    private let previewCanvas = CellCanvas()
    /// `previewCanvas` with nothing in it.
    private lazy var emptyPreview = previewCanvas.mark
    private let quoted = Message()
    private var recent = RecentRecords(capacity: RecentRecords.defaultCapacity)
    private let contentWidth: Int

    /// Decides which plugins run in worker processes; nil: all in this one.
    let supervisor: Supervisor?
    /// Diagnostics from working out a quote (a worker that failed).
    private var quoteNotes: [String] = []
    /// What relative media paths in records given to `render(_:line:)`
    /// resolve against (`cellhost_context.base_directory`).
    public var baseDirectory = BaseDirectory.current
    /// Counts the records begun.
    private var order: UInt64 = 0

    /// `limits` caps each message's content (`OutputLimits.standard`: 1000
    /// rows, 1 MiB); the rest is replaced by one `… N more lines` row.
    /// `supervisor` runs plugins in worker processes (`--isolation`).
    public init(host: CellHost, settings: OutputSettings, me: String?, output: OutputBuffer,
                limits: OutputLimits = .standard, supervisor: Supervisor? = nil) {
        self.host = host
        self.limits = limits
        self.settings = settings
        self.me = me
        self.output = output
        let supervisor = supervisor?.isolatesAnything == true ? supervisor : nil
        self.supervisor = supervisor
        chrome = Chrome(width: settings.width, maximumBubbleWidth: settings.bubbleWidth, mode: settings.widthMode)
        contentWidth = chrome.contentWidth
        encoder = LineEncoder(settings: settings)
        html = settings.format == .html ? HTMLEncoder(settings: settings, chrome: chrome, contentWidth: contentWidth) : nil
        renderer = MessageRenderer(runtime: host.runtime, supervisor: supervisor)
    }

    /// Renders one record. Throws `JSONSyntaxError` when it is not a JSON
    /// object; nothing is written then. What plugins logged goes to the
    /// host's `logHandler`.
    public func render(_ bytes: UnsafeBufferPointer<UInt8>, line: Int) throws {
        slot.baseDirectory = baseDirectory
        try prepare(slot, bytes, line: line)
        for log in slot.logs { host.logHandler?(log.plugin, log.level, log.message) }
        for note in slot.notes { host.logHandler?(HostClasses.pluginID, Int32(CELLHOST_LOG_ERROR), note) }
        emit(slot)
        slot.releaseLargeBuffers()
    }

    /// Stage one for one record, waiting for workers if it must.
    func prepare(_ slot: RenderSlot, _ bytes: UnsafeBufferPointer<UInt8>, line: Int) throws {
        if try !begin(slot, bytes, line: line) { resolve([slot]) }
        complete(slot)
    }

    /// Made once: a walk borrows it, instead of making one per message
    /// (which retained and released the runtime, an object every render
    /// thread touches).
    private let renderer: MessageRenderer

    /// Stage one, first part: parse, and walk the chain as far as this
    /// process can. Returns false when the walk waits for a worker process
    /// (`resolve` then finishes it). Runs on the thread that owns the runtime.
    func begin(_ slot: RenderSlot, _ bytes: UnsafeBufferPointer<UInt8>, line: Int) throws -> Bool {
        try load(slot, bytes, line: line)
        order += 1
        return walk(slot, order: order)
    }

    /// Parses a record into `slot` and readies it for its walk. Any thread.
    /// Without `bytes`, the record is the slot's own `record` (a render
    /// worker's), which the message then takes instead of copying.
    /// `cleared`: the slot was emptied (`RenderSlot.clear`) since it was
    /// last written out, so it is not emptied again here.
    func load(_ slot: RenderSlot, _ bytes: UnsafeBufferPointer<UInt8>? = nil, line: Int, cleared: Bool = false) throws {
        let message = slot.message
        message.arena.stringLimit = limits.bytes
        // This thread's call state, for its date and string caches: lent,
        // as in `walk` (neither it nor the runtime, which the other thread
        // uses too, is retained and released).
        let lent = Unmanaged.passUnretained(host.runtime)._withUnsafeGuaranteedRef { $0.unretainedState }
        try lent._withUnsafeGuaranteedRef { state in
            if let bytes {
                try message.load(bytes, me: me, days: &state.days, recent: &state.recent)
            } else {
                try message.load(taking: &slot.record, me: me, days: &state.days, recent: &state.recent)
            }
        }
        // Checked first: assigning releases the old value (a `diagnostic`'s
        // string) even when it is `.message`, an outlined call each record.
        if case .message = slot.kind {} else { slot.kind = .message }
        // A render worker passes the slot's own line, and its canvas has
        // these limits already: stores of the same values would still take
        // the cache lines from the owning thread's core, which writes them.
        if slot.line != line { slot.line = line }
        if !cleared { slot.clear() }
        if slot.canvas.limits != limits { slot.canvas.limits = limits }
    }

    /// Walks the chain of a loaded record as far as this thread can: on the
    /// runtime's own thread, to the end or to a class that runs in a worker
    /// process; on a render worker thread, to the end or to a class that is
    /// not thread-safe. Sets `slot.outcome` (the one of the slot's message
    /// before is replaced here, `RenderSlot.clear`); returns false, with
    /// no outcome, when the walk paused (`slot.walk`): `resolve` or
    /// `resume` finishes it.
    func walk(_ slot: RenderSlot, order: UInt64) -> Bool {
        let message = slot.message
        var flags: UInt32 = 0
        if settings.depth != .none { flags |= UInt32(CELLHOST_CONTEXT_COLOR) }
        if message.isOutgoing { flags |= UInt32(CELLHOST_CONTEXT_OUTGOING) }
        if settings.format == .json { flags |= UInt32(CELLHOST_CONTEXT_JSON) }
        // This thread's call state, looked up once (a thread-local read),
        // and lent for the walk (`Runtime.unretainedState`); the runtime is
        // lent too, to read it (the host keeps it, and this session the host).
        let lent = Unmanaged.passUnretained(host.runtime)._withUnsafeGuaranteedRef { $0.unretainedState }
        return lent._withUnsafeGuaranteedRef { state in
            // The thread's walk, not counted either: the state keeps it.
            Unmanaged.passUnretained(state.walk)._withUnsafeGuaranteedRef { walk in
                renderer.restart(walk, for: message, state: state)
                walk.order = order
                state.logCapture = slot
                // Nearly always the same directory: no retain and release of an
                // object every slot shares.
                if state.baseDirectory !== slot.baseDirectory { state.baseDirectory = slot.baseDirectory }
                defer { state.logCapture = nil }
                if renderer.advance(walk, message, into: slot.canvas, width: contentWidth, flags: flags, state: state) != nil
                    || walk.isPaused {
                    // Checked first: assigning releases the old value even when nil.
                    if slot.isRendered { slot.outcome = nil }
                    // The slot keeps the paused walk; the thread's walk goes on with the slot's spare.
                    walk.exchange(with: slot.spareWalk)
                    slot.walk = slot.spareWalk
                    slot.width = contentWidth
                    slot.flags = flags
                    return false
                }
                // The walk is over: its outcome moves to the slot.
                slot.outcome = walk.takeOutcome() ?? renderer.finishWithLastResort(walk, message, into: slot.canvas)
                return true
            }
        }
    }

    /// On the runtime's own thread: finishes a walk a render worker thread
    /// paused at a class that is not thread-safe.
    func resume(_ slot: RenderSlot) {
        guard slot.outcome == nil, let walk = slot.walk else { return }
        let state = host.runtime.state
        state.logCapture = slot
        state.baseDirectory = slot.baseDirectory
        defer { state.logCapture = nil }
        renderer.advance(walk, slot.message, into: slot.canvas, width: slot.width, flags: slot.flags, state: state)
        slot.outcome = walk.outcome ?? renderer.finishWithLastResort(walk, slot.message, into: slot.canvas)
    }

    /// Finishes the walks of `slots` that wait for workers (one batch per
    /// worker and round).
    func resolve(_ slots: [RenderSlot]) {
        collect(dispatch(slots), slots)
    }

    /// Sends the walks of `slots` that wait for workers, without waiting
    /// for the replies: `collect` takes them.
    func dispatch(_ slots: [RenderSlot]) -> [Supervisor.Flight] {
        guard let supervisor else { return [] }
        defer { host.runtime.logCapture = nil }
        return supervisor.dispatch(slots, renderer: renderer) { [host] slot in
            host.runtime.logCapture = slot
            host.runtime.baseDirectory = slot.baseDirectory
        }
    }

    /// Takes the replies of `flights` and ends every walk of `slots`.
    func collect(_ flights: [Supervisor.Flight], _ slots: [RenderSlot]) {
        guard let supervisor else { return }
        supervisor.collect(flights, slots, renderer: renderer) { [host] slot in
            host.runtime.logCapture = slot
            host.runtime.baseDirectory = slot.baseDirectory
        }
        host.runtime.logCapture = nil
        for slot in slots where slot.outcome == nil {
            guard let walk = slot.walk else { continue }
            slot.outcome = walk.outcome ?? renderer.finishWithLastResort(walk, slot.message, into: slot.canvas)
        }
    }

    /// Stage one, last part, in input order: the reply quote, and
    /// remembering the record for later quotes. It leaves `weight` alone:
    /// the render workers counted it as they went, and reading the counts
    /// back here would fetch cache lines the worker's core wrote
    /// (`RenderPipeline` counts it when it hands a slot over).
    func complete(_ slot: RenderSlot) {
        // Only the class is needed, and unretained (the slot holds it; a
        // retain would write its reference count, which the render workers
        // write too): copying the whole outcome costs reference counting.
        guard let cls = (slot.outcome?.cls).map(Unmanaged.passUnretained) else { return }
        if slot.walk != nil { slot.walk = nil }
        let message = slot.message
        if let replyTo = message.replyTo {
            // This thread's call state and the runtime, lent as in `walk`:
            // no reference counting of objects the render workers touch too.
            let lent = Unmanaged.passUnretained(host.runtime)._withUnsafeGuaranteedRef { $0.unretainedState }
            lent._withUnsafeGuaranteedRef { state in
                state.logCapture = slot
                if state.baseDirectory !== slot.baseDirectory { state.baseDirectory = slot.baseDirectory }
                quote(replyTo, into: &slot.quote, days: &state.days, recent: &state.recent)
                state.logCapture = nil
            }
        } else {
            slot.quote.clear()
        }
        if !quoteNotes.isEmpty {
            slot.notes += quoteNotes
            quoteNotes.removeAll()
        }
        if let start = slot.recordStart {
            remember(message, record: UnsafeBufferPointer(start: start, count: slot.recordBytes), renderedBy: cls)
        } else {
            message.document.bytes.withUnsafeBufferPointer { remember(message, record: $0, renderedBy: cls) }
        }
        slot.recordStart = nil
    }

    /// Keeps `record` in `recent` for replies to `message`: by the id's
    /// bytes in the record when they are plain ASCII (the `String`'s bytes
    /// cost a retain, a release and some 80 instructions), else by the id.
    @inline(__always)
    private func remember(_ message: Message, record: UnsafeBufferPointer<UInt8>, renderedBy cls: Unmanaged<RuntimeClass>) {
        if let range = message.rawID, recent.remember(idAt: range, record: record, renderedBy: cls) { return }
        if !message.id.isEmpty { recent.remember(id: message.id, record: record, renderedBy: cls) }
    }

    /// Stage two: wrap the content, lay out the chrome, encode. Host code
    /// only; must see the slots in input order.
    func emit(_ slot: RenderSlot) {
        guard slot.isRendered else { return }
        if let html {
            guard let outcome = slot.outcome else { return }
            // The browser wraps: the cell's content goes out as it was appended.
            html.write(slot.canvas, message: slot.message, outcome: outcome, quote: slot.quote.strings,
                       baseDirectory: slot.baseDirectory, to: output)
            return
        }
        if !slot.wrapped { wrap(slot) }
        chrome.layout(slot.message, slot.canvas, quote: slot.message.replyTo == nil ? nil : slot.quote)
        encoder.write(slot.canvas, message: slot.message, outcome: slot.outcome, line: slot.line, to: output)
    }

    /// Wraps the content of a rendered slot to the content width and caps
    /// its rows: the part of stage two that depends on this message alone,
    /// so a render worker thread may do it (`--format html` leaves the
    /// wrapping to the browser).
    func wrap(_ slot: RenderSlot) {
        guard html == nil, slot.isRendered else { return }
        Wrapper(width: contentWidth, mode: settings.widthMode).wrap(slot.canvas)
        slot.canvas.capRows(width: contentWidth)
        slot.wrapped = true
    }

    /// Sets `quote` to the sender and one-line summary of a remembered
    /// message: what `plainTextForMessage:context:into:` of the class that
    /// rendered it gives (the inherited `MessageCell` version is the
    /// message's text), cut to `ReplyQuote.previewLength` characters.
    /// Computed only when a reply asks, from a copy in `quoted` of the
    /// record kept in `recent`; cleared when the message is not remembered.
    /// `days` and `recentFields` are this thread's (`CallState.days`,
    /// `CallState.recent`).
    private func quote(_ id: String, into quote: inout ReplyQuote, days: inout RFC3339.DayCache,
                       recent recentFields: inout Message.RecentFields) {
        guard let (record, remembered) = recent.lookup(id),
              (try? quoted.load(record, me: me, days: &days, recent: &recentFields)) != nil else {
            quote.clear()
            return
        }
        // Borrowed: the runtime keeps its classes, and this session the runtime.
        remembered._withUnsafeGuaranteedRef { cls in
            Unmanaged.passUnretained(host.runtime)._withUnsafeGuaranteedRef { plainText(of: cls, runtime: $0) }
        }
        quote.start(sender: quoted.senderName)
        if previewCanvas.items.isEmpty {
            if let text = quoted.text { quote.appendPreview(text) }
        } else {
            let bytes = previewCanvas.bytes.elements
            for item in previewCanvas.items.elements {
                if case let .text(start, end, _) = item { quote.appendPreview(UnsafeBufferPointer(rebasing: bytes[Int(start)..<Int(end)])) }
                if case .lineBreak = item { quote.appendPreview(0x20) }
            }
        }
        quote.endPreview()
    }

    /// Fills `previewCanvas` with what `plainTextForMessage:context:into:`
    /// of `cls` gives for `quoted` (in its worker process, when it runs in one).
    private func plainText(of cls: RuntimeClass, runtime: Runtime) {
        // Only text is appended to it (no wrapping or chrome): emptying what
        // a cell appends is enough.
        previewCanvas.rollBack(to: emptyPreview)
        previewCanvas.limits = OutputLimits(rows: 8, bytes: 4096) // a one-line preview
        if let supervisor, let worker = supervisor.worker(for: cls) {
            if supervisor.disabledReason(cls) == nil {
                _ = supervisor.plainText(cls, worker: worker, record: quoted.document.bytes, width: contentWidth, messageClass: quoted.type,
                                         baseDirectory: runtime.baseDirectory.path, into: previewCanvas, notes: &quoteNotes)
            }
        } else if supervisor?.disabledReason(cls) == nil {
            _ = runtime.plainText(of: cls, quoted, into: previewCanvas, width: contentWidth, messageClass: quoted.type)
        }
    }

    /// Ends the conversation (in this process and in the workers) and
    /// flushes the output.
    public func finish() {
        host.runtime.endConversation()
        supervisor?.finish()
        html?.finish(to: output)
        output.flush()
    }
}

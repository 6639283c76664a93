import CellHostABI

/// One message on its way through a session: parsed and rendered by its cell
/// (stage one), then laid out with the chrome and encoded (stage two). Slots
/// are reused; the pipeline keeps several in flight.
final class RenderSlot {
    enum Kind { case message, diagnostic(String), flush, end }
    var kind = Kind.message
    let message = Message()
    let canvas = CellCanvas()
    var outcome: RenderOutcome?
    var line = 0
    var quote: (sender: String, preview: String)?
    /// Bytes this slot holds while queued (record and content), for the
    /// pipeline's bound on bytes in flight.
    var weight = 0

    /// After output: gives back what a large message made the slot grow.
    func releaseLargeBuffers() {
        message.releaseLargeBuffers()
        canvas.releaseLargeBuffers()
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
/// threads. `render` runs both in turn.
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
    private let previewCanvas = CellCanvas()
    private let quoted = Message()
    private var recent = RecentRecords(capacity: RecentRecords.defaultCapacity)
    private let contentWidth: Int

    /// `limits` caps each message's content (`OutputLimits.standard`: 1000
    /// rows, 1 MiB); the rest is replaced by one `… N more lines` row.
    public init(host: CellHost, settings: OutputSettings, me: String?, output: OutputBuffer,
                limits: OutputLimits = .standard) {
        self.host = host
        self.limits = limits
        self.settings = settings
        self.me = me
        self.output = output
        chrome = Chrome(width: settings.width)
        contentWidth = chrome.contentWidth
        encoder = LineEncoder(settings: settings)
    }

    /// Renders one record. Throws `JSONSyntaxError` when it is not a JSON
    /// object; nothing is written then.
    public func render(_ bytes: UnsafeBufferPointer<UInt8>, line: Int) throws {
        try prepare(slot, bytes, line: line)
        emit(slot)
        slot.releaseLargeBuffers()
    }

    /// Stage one: parse, render the content through the registry's chain,
    /// resolve the reply quote, remember the record. Runs on the thread that
    /// owns the runtime.
    func prepare(_ slot: RenderSlot, _ bytes: UnsafeBufferPointer<UInt8>, line: Int) throws {
        let message = slot.message
        message.arena.stringLimit = limits.bytes
        try message.load(bytes, me: me)
        slot.kind = .message
        slot.line = line
        slot.canvas.reset()
        slot.canvas.limits = limits
        var flags: UInt32 = 0
        if settings.depth != .none { flags |= CELLHOST_CONTEXT_COLOR.rawValue }
        if message.isOutgoing { flags |= CELLHOST_CONTEXT_OUTGOING.rawValue }
        if settings.format == .json { flags |= CELLHOST_CONTEXT_JSON.rawValue }
        let outcome = MessageRenderer(runtime: host.runtime).render(message, into: slot.canvas, width: contentWidth, flags: flags)
        slot.outcome = outcome
        slot.quote = message.replyTo.flatMap(quote)
        if !message.id.isEmpty { recent.remember(id: message.id, record: bytes, renderedBy: outcome.cls) }
        slot.weight = bytes.count + slot.canvas.bytes.count + MemoryLayout<ContentItem>.stride * slot.canvas.items.count
    }

    /// Stage two: wrap the content, lay out the chrome, encode. Host code
    /// only; must see the slots in input order.
    func emit(_ slot: RenderSlot) {
        guard let outcome = slot.outcome else { return }
        Wrapper(width: contentWidth).wrap(slot.canvas)
        slot.canvas.capRows(width: contentWidth)
        chrome.layout(slot.message, slot.canvas, quote: slot.quote)
        encoder.write(slot.canvas, message: slot.message, outcome: outcome, line: slot.line, to: output)
    }

    /// The sender and one-line summary of a remembered message, for a reply
    /// quote: what `plainTextForMessage:into:` of the class that rendered it
    /// gives (the inherited `MessageCell` version is the message's text).
    /// Computed only when a reply asks, from the record kept in `recent`.
    private func quote(_ id: String) -> (sender: String, preview: String)? {
        guard let (record, cls) = recent.lookup(id) else { return nil }
        guard (try? record.withUnsafeBufferPointer({ try quoted.load($0, me: me) })) != nil else { return nil }
        let runtime = host.runtime
        previewCanvas.reset()
        previewCanvas.limits = OutputLimits(rows: 8, bytes: 4096) // a one-line preview
        if let method = cls.lookup(.plainText) {
            let object = runtime.conversation.instance(of: cls, runtime: runtime)
            let result = runtime.dispatcher.plainText(method, receiver: object.handle, message: quoted.handle,
                                                      builder: BuilderHandle.handle(previewCanvas))
            if result != Int32(CELLHOST_RENDERED.rawValue) { previewCanvas.reset() }
        }
        if previewCanvas.items.isEmpty { return (quoted.senderName, String((quoted.text ?? "").prefix(120))) }
        var text: [UInt8] = []
        for item in previewCanvas.items {
            if case let .text(start, end, _) = item { text += previewCanvas.bytes[Int(start)..<Int(end)] }
            if case .lineBreak = item { text.append(0x20) }
        }
        return (quoted.senderName, String(String(decoding: text, as: UTF8.self).prefix(120)))
    }

    /// Ends the conversation and flushes the output.
    public func finish() {
        host.runtime.endConversation()
        output.flush()
    }
}

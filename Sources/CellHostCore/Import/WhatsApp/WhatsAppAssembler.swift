/// Gathers the lines of a WhatsApp export into messages and hands each to
/// the sink when the next one starts: a header line starts a message, any
/// other line continues it (with its newline kept).
///
/// Holds one message, its text capped at `messageLimit` bytes.
final class WhatsAppAssembler {
    /// The most bytes of one message's text kept (1 MiB).
    static let messageLimit = 1 << 20

    private let sink: ImportSink
    /// The order dates are read in.
    var order: WhatsAppDateOrder
    /// True when `order` is the usual one for the style, not told by a date:
    /// a date that tells the order (on a stream, after the decision) then
    /// changes it for the messages that follow, with a warning.
    var orderIsGuess: Bool

    /// The message being gathered.
    private var header: WhatsAppHeader?
    private var line = 0
    private var body: [UInt8] = []
    private var cut = false
    /// Lines before the first message that are not blank (first, last, how many).
    private var stray: (first: Int, last: Int, count: Int)?

    init(sink: ImportSink, order: WhatsAppDateOrder, orderIsGuess: Bool) {
        self.sink = sink
        self.order = order
        self.orderIsGuess = orderIsGuess
    }

    /// Takes the next line of the export.
    func feed(_ input: WhatsAppLineReader.Line) {
        if input.leftOut > 0 {
            sink.problem(line: input.number, "line longer than \(WhatsAppLineReader.lineLimit >> 20) MiB; "
                         + "its last \(input.leftOut) bytes are left out")
        }
        if let header = WhatsAppHeader.parse(input.bytes) {
            finish()
            reportStray()
            if orderIsGuess, let shown = WhatsAppDateOrder.shown(by: header), shown != order {
                sink.warning("line \(input.number): \"\(header.written)\" shows the dates are written \(shown.title); "
                             + "the messages before it were read \(order.title) (a stream is read once; "
                             + "read a file to have the order decided from all its dates)")
                order = shown
                orderIsGuess = false
            }
            self.header = header
            line = input.number
            body = []
            cut = false
            append(input.bytes[header.bodyStart...], line: input.number)
            return
        }
        guard self.header != nil else {
            if input.bytes.contains(where: { $0 != 0x20 && $0 != 0x09 }) {
                if let run = stray { stray = (run.first, input.number, run.count + 1) } else { stray = (input.number, input.number, 1) }
            }
            return
        }
        body.append(0x0A)
        append(input.bytes[...], line: input.number)
    }

    private func append(_ bytes: ArraySlice<UInt8>, line number: Int) {
        guard !cut else { return }
        let room = Self.messageLimit - body.count
        if bytes.count > room {
            body.append(contentsOf: bytes.prefix(max(0, room)))
            cut = true
            sink.problem(line: number, "message longer than \(Self.messageLimit >> 20) MiB; the rest of it is left out")
        } else {
            body.append(contentsOf: bytes)
        }
    }

    /// Hands over the message being gathered, if any (at the end of the input too).
    func finish() {
        defer { reportStray() }
        guard let header else { return }
        self.header = nil
        while let last = body.last, last == 0x0A || last == 0x20 || last == 0x0D { body.removeLast() }
        var text = String(validating: body, as: UTF8.self)
        if text == nil {
            sink.problem(line: line, "not valid UTF-8; the bad bytes are shown as U+FFFD")
            text = String(decoding: body, as: UTF8.self)
        }
        body = []
        let message = WhatsAppMessage.make(header: header, rest: text ?? "", line: line, order: order)
        sink.emit(message, line: line)
    }

    /// Reports the lines before the first message that belong to none.
    private func reportStray() {
        guard let run = stray else { return }
        stray = nil
        sink.problem(line: run.first, run.count == 1
                     ? "this line comes before the first message (no date and time starts it); left out"
                     : "\(run.count) lines up to line \(run.last) come before the first message (no date and time starts them); left out")
    }
}

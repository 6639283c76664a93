/// Reads WhatsApp's "Export chat" text (`_chat.txt`, `WhatsApp Chat with
/// Alice.txt`), from Android or iOS, in any locale's date style.
///
/// Day and month order is decided before the first message is shown. A
/// file is read twice: first its dates only (the order the dates tell),
/// then its messages. A stream is read once: its lines are held until a date
/// tells the order, or up to `streamDecisionMessages` messages (and
/// `streamDecisionBytes` bytes), then the usual order for the style is taken;
/// a date that tells otherwise later switches it, with a warning.
public enum WhatsAppImporter: ChatImporter {
    public static let format = ImportFormat.whatsapp

    /// The most messages a stream's lines are held for before deciding.
    static let streamDecisionMessages = 1000
    /// The most bytes a stream's lines are held for before deciding (8 MiB).
    static let streamDecisionBytes = 8 << 20

    public static func run(_ input: ImportInput, options: ImportOptions, sink: ImportSink) throws {
        let source = try input.requireSource(.whatsapp)
        if source.isSeekable {
            var survey = WhatsAppDateSurvey()
            let dates = WhatsAppLineReader(source: source)
            while let line = try dates.next() {
                if let header = WhatsAppHeader.parse(line.bytes) { survey.add(header, line: line.number) }
            }
            try source.rewind()
            let decision = survey.decision()
            if let note = decision.note { sink.note(note) }
            let assembler = WhatsAppAssembler(sink: sink, order: decision.order, orderIsGuess: false)
            let reader = WhatsAppLineReader(source: source)
            while let line = try reader.next() { assembler.feed(line) }
            assembler.finish()
        } else {
            try readStream(source, sink: sink)
        }
    }

    /// Reads a stream once, holding its first lines until the order is known.
    private static func readStream(_ source: ByteSource, sink: ImportSink) throws {
        var survey = WhatsAppDateSurvey()
        var held: [WhatsAppLineReader.Line] = []
        var heldBytes = 0
        var messages = 0
        var assembler: WhatsAppAssembler?
        func decide() -> WhatsAppAssembler {
            let decision = survey.decision()
            if var note = decision.note {
                if !decision.told { note += " (of the first \(messages) message\(messages == 1 ? "" : "s") of a stream)" }
                sink.note(note)
            }
            let made = WhatsAppAssembler(sink: sink, order: decision.order, orderIsGuess: !decision.told)
            for line in held { made.feed(line) }
            held = []
            return made
        }
        let reader = WhatsAppLineReader(source: source)
        while let line = try reader.next() {
            if let assembler {
                assembler.feed(line)
                continue
            }
            if let header = WhatsAppHeader.parse(line.bytes) {
                survey.add(header, line: line.number)
                messages += 1
            }
            held.append(line)
            heldBytes += line.bytes.count
            if survey.isTold || messages >= streamDecisionMessages || heldBytes >= streamDecisionBytes { assembler = decide() }
        }
        (assembler ?? decide()).finish()
    }
}

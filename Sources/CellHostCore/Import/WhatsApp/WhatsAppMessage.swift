/// One WhatsApp message as a CellHost message: its id from its line, its
/// time from its header, its sender and content from the rest.
enum WhatsAppMessage {
    /// The message whose header is `header` on line `line`, `rest` being the
    /// text after the header with its continuation lines.
    ///
    /// The export has no message ids: the id is the header's line (`L12`),
    /// unique in the file and the same on every run. The time is local time
    /// with no zone, read in the run's `TZ`; an impossible date or time is
    /// kept as written, so the host reports it.
    static func make(header: WhatsAppHeader, rest: String, line: Int, order: WhatsAppDateOrder) -> ImportedMessage {
        var message = ImportedMessage()
        message.id = "L\(line)"
        if let time = order.time(of: header) { message.time = time } else { message.unreadableTime = header.written }
        switch WhatsAppSender.split(rest, bracketed: header.bracketed) {
        case .system(let event, let text):
            message.type = "system"
            message.systemEvent = event
            message.text = ImportText.escaped(text)
        case .call(let name, let text):
            message.type = "system"
            message.systemEvent = "call"
            message.senderID = name
            message.senderName = name
            message.text = ImportText.escaped("\(text) (\(name))")
        case .message(let name, let body):
            message.senderID = name
            message.senderName = name
            WhatsAppBody.fill(&message, body: body)
        }
        return message
    }
}

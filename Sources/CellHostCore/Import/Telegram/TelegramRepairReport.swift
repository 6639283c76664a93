/// Reports the messages whose `\xNN` escapes were repaired (see
/// `TelegramEscapes`): a warning for each of the first few, then one line
/// with the total, so a large export full of them does not bury the output.
/// They are warnings, not problems: the text is what Telegram meant, and
/// the run does not fail because of them.
struct TelegramRepairReport {
    /// Warnings given one by one before the rest are only counted.
    static let individualLimit = 5
    private(set) var messages = 0
    private(set) var escapes = 0

    mutating func record(line: Int, count: Int, sink: ImportSink) {
        messages += 1
        escapes += count
        if messages <= Self.individualLimit {
            sink.warning("line \(line): \(count) invalid escape\(count == 1 ? "" : "s") (\\xNN) read as the control character\(count == 1 ? "" : "s") Telegram meant")
        }
    }

    func finish(_ sink: ImportSink) {
        guard messages > 0 else { return }
        if messages > Self.individualLimit {
            sink.warning("\(messages) values in all had invalid \\xNN escapes (\(escapes) escapes), read as control characters")
        }
        sink.note("\(escapes) invalid \\xNN escape\(escapes == 1 ? "" : "s") repaired")
    }
}

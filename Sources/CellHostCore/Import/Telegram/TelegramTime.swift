/// A Telegram message's time and edit mark.
///
/// `date_unixtime` (decimal seconds as a string, in newer exports) is exact
/// and preferred; `date` (`2024-03-01T09:15:00`, local time without a zone,
/// in every export) is read in the run's `TZ`. A message with neither has
/// no time; one whose time cannot be read keeps the text, so the host
/// reports it.
enum TelegramTime {
    static func set(_ node: TelegramNode, in message: inout ImportedMessage) {
        var unreadable: String?
        let fields: [(key: StaticString, isEpoch: Bool)] = [("date_unixtime", true), ("date", false)]
        for (key, isEpoch) in fields {
            guard let value = node[key] else { continue }
            switch value.kind {
            case .number:
                if let seconds = value.number.flatMap(MessageTime.validated) { message.time = seconds; return }
                unreadable = unreadable ?? value.scalarText
            case .string:
                let text = value.string ?? ""
                let seconds = isEpoch ? ImportTime.seconds(text) : ImportTime.parse(text)
                if let seconds { message.time = seconds; return }
                unreadable = unreadable ?? String(text.prefix(64))
            default:
                unreadable = unreadable ?? "(\(describe(value.kind)))"
            }
        }
        message.unreadableTime = unreadable
    }

    /// True when the message says it was edited: an `edited_unixtime` that
    /// is not 0, or an `edited` date. Old exports wrote `edited` on every
    /// message, as the epoch in local time (`1970-01-01T01:00:00`) for one
    /// never edited: a 1970 date is not an edit.
    static func isEdited(_ node: TelegramNode) -> Bool {
        if let value = node["edited_unixtime"] {
            if let seconds = value.number { return seconds > 0 }
            return value.bool ?? true
        }
        guard let value = node["edited"] else { return false }
        if let text = value.string { return !text.isEmpty && !text.hasPrefix("1970-01-01") }
        if let seconds = value.number { return seconds > 0 }
        return value.bool ?? true
    }

    private static func describe(_ kind: JSONDocument.Kind) -> String {
        switch kind {
        case .object: return "an object"
        case .array: return "an array"
        case .boolTrue, .boolFalse: return "a boolean"
        default: return "null"
        }
    }
}

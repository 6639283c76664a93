/// Telegram's `reactions` as CellHost reactions.
///
/// Each entry is `{"type":"emoji","count":3,"emoji":"👍"}` (older exports
/// leave out `type`). A custom emoji (`{"type":"custom_emoji",
/// "document_id":…}`) is a sticker-like image the export does not name: it
/// is counted as "★". A paid reaction is "⭐". `recent` (who reacted last)
/// is not used; an entry without a count counts its `recent` list, or 1.
enum TelegramReactions {
    static let customEmoji = "★"
    static let paid = "⭐"

    static func add(_ value: TelegramNode?, to message: inout ImportedMessage) {
        guard let value, value.isArray else { return }
        for entry in value.elements where entry.isObject {
            let emoji: String?
            switch entry["type"]?.string {
            case "custom_emoji": emoji = customEmoji
            case "paid": emoji = paid
            default: emoji = entry["emoji"]?.nonEmptyString.map { String($0.prefix(32)) }
            }
            guard let emoji else { continue }
            let recent = entry["recent"].flatMap { $0.isArray ? Int64($0.document.count($0.index)) : nil }
            let count = entry["count"]?.count ?? recent ?? 1
            message.addReaction(emoji, count: Int(clamping: count))
        }
    }
}

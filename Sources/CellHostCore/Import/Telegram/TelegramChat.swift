/// The chat whose messages are being read: what its object said before
/// `messages` (name, type, id), and what follows from it for each message
/// (the id prefix, whose side a personal chat is from, who posts in a channel).
struct TelegramChat {
    var name: String?
    /// Telegram's chat type: `personal_chat`, `private_group`, `public_channel`, …
    var type: String?
    /// The chat's id as written (a bare number: the peer's id without `user`/`channel`).
    var id: String?
    /// 1 for the first chat of the file, 2 for the next, …
    var ordinal = 1
    /// True for a chat of a full-account export's list: its message ids get
    /// the chat's prefix, so that two chats' messages never share an id.
    var isListed = false
    /// True for a chat of `left_chats` (groups and channels the user left).
    var isLeft = false

    /// The chat's key in ids: its id, or `chat<ordinal>` when it has none.
    var key: String {
        if let id, !id.isEmpty { return id }
        return "chat\(ordinal)"
    }

    /// The id a message of this chat gets: `<chat id>/<message id>` in a
    /// full-account export, the message id itself in a single-chat export.
    func messageID(_ id: String) -> String {
        isListed ? "\(key)/\(id)" : id
    }

    /// The id of the message a reply points to. `peer` is the export's
    /// `reply_to_peer_id` (`channel123`), set when the original is in
    /// another chat: then it gets that chat's prefix.
    func replyID(_ id: String, peer: String?) -> String {
        if let peer, let bare = TelegramPeer.bareID(peer), bare != self.id { return "\(bare)/\(id)" }
        return messageID(id)
    }

    var isChannel: Bool { type?.hasSuffix("_channel") == true }

    /// In a personal or bot chat the chat's id is the other person's: their
    /// sender id, whose messages are the incoming ones.
    var peerSender: String? {
        guard let id, type == "personal_chat" || type == "bot_chat" else { return nil }
        return TelegramPeer.sender(fromNumber: id)
    }

    /// The system message that opens the chat: "Alice · personal chat".
    func header() -> ImportedMessage {
        var message = ImportedMessage()
        message.id = "chat-\(key)"
        message.type = "system"
        message.systemEvent = "conversation"
        var title = name ?? ""
        if title.isEmpty {
            switch type {
            case "saved_messages": title = "Saved Messages"
            case "replies": title = "Replies"
            default: title = "Unnamed chat"
            }
        }
        var kind = Self.describe(type: type)
        if isLeft { kind += kind.isEmpty ? "left" : " (left)" }
        message.text = ImportText.escaped(kind.isEmpty || kind.lowercased() == title.lowercased() ? title : "\(title) · \(kind)")
        return message
    }

    /// A chat type as words: `private_supergroup` → "private supergroup".
    static func describe(type: String?) -> String {
        guard let type, !type.isEmpty else { return "" }
        switch type {
        case "saved_messages": return "Saved Messages"
        case "replies": return "Replies"
        default: return String(type.prefix(40).map { $0 == "_" ? " " : $0 })
        }
    }
}

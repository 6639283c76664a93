/// Maps one message object of a Telegram export to a CellHost message.
///
/// `"type":"message"` (or no type) is an ordinary message: its text, media,
/// poll, location or contact, with its sender, time, edit mark, reply and
/// reactions. `"type":"service"` is a system line (`TelegramService`).
/// `"type":"unsupported"` — what Telegram writes for a message it could not
/// export — and any other type become CellHost type `unsupported` with the
/// text "Unsupported Telegram message", which the fallbacks show.
struct TelegramMessageMapper {
    var options: ImportOptions
    /// The sender id of the person who made the export (`personal_information`), when known.
    var exporter: String?

    static let unsupportedText = "Unsupported Telegram message"

    func map(_ node: TelegramNode, chat: TelegramChat) -> ImportedMessage {
        var message = ImportedMessage()
        if let id = node["id"]?.scalarText, !id.isEmpty { message.id = chat.messageID(id) }
        TelegramTime.set(node, in: &message)
        message.edited = TelegramTime.isEdited(node)
        let type = node["type"] == nil ? "message" : node["type"]?.string ?? ""
        switch type {
        case "message":
            setSender(id: TelegramPeer.sender(node["from_id"]), name: node["from"]?.nonEmptyString, chat: chat, in: &message)
            setContent(node, chat: chat, in: &message)
        case "service":
            setSender(id: TelegramPeer.sender(node["actor_id"]), name: node["actor"]?.nonEmptyString, chat: chat, in: &message)
            message.type = "system"
            let action = node["action"]?.nonEmptyString
            message.systemEvent = action.map { String($0.prefix(64)) } ?? "service"
            let actor = message.senderName ?? message.senderID ?? "Someone"
            message.text = ImportText.escaped(TelegramService.sentence(node, actor: actor))
            if action == "pin_message", let pinned = node["message_id"]?.scalarText {
                message.replyTo = chat.replyID(pinned, peer: nil)
            }
        default:
            setSender(id: TelegramPeer.sender(node["from_id"]), name: node["from"]?.nonEmptyString, chat: chat, in: &message)
            message.type = "unsupported"
            message.text = Self.unsupportedText
        }
        message.direction = direction(of: message.senderID, chat: chat)
        return message
    }

    /// Sender id and name. Without a name (`from` is null for a deleted
    /// account, and missing in old channel exports) the host shows the id;
    /// a channel's own post without a name (from the channel's id, or from
    /// no one in a channel) is signed with the channel's name.
    private func setSender(id: String?, name: String?, chat: TelegramChat, in message: inout ImportedMessage) {
        message.senderID = id
        message.senderName = name
        guard name == nil else { return }
        let channel = chat.id.map { "channel\($0)" }
        if id == nil, chat.isChannel {
            message.senderID = channel
            message.senderName = chat.name
        } else if let id, id == channel {
            message.senderName = chat.name
        }
    }

    /// `outgoing` for the exporter's messages and `incoming` for the rest,
    /// when no `--me` was given and the export says whose it is: the
    /// account's `personal_information`, or, for one personal or bot chat,
    /// the chat's id (the other person's).
    private func direction(of sender: String?, chat: TelegramChat) -> String? {
        if let exporter { return options.direction(sender: sender, exporter: exporter) }
        guard options.me == nil, let peer = chat.peerSender, let sender else { return nil }
        return sender == peer ? "incoming" : "outgoing"
    }

    private func setContent(_ node: TelegramNode, chat: TelegramChat, in message: inout ImportedMessage) {
        var lines: [String] = []
        if let forwarded = node["forwarded_from"] {
            lines.append(ImportText.styled("Forwarded from \(forwarded.nonEmptyString ?? "a hidden sender")", marker: "_"))
        } else if node.has("forwarded_from") {
            lines.append(ImportText.styled("Forwarded from a hidden sender", marker: "_"))
        }
        if let saved = node["saved_from"]?.nonEmptyString {
            lines.append(ImportText.styled("Saved from \(saved)", marker: "_"))
        }
        if let bot = node["via_bot"]?.nonEmptyString {
            lines.append(ImportText.styled("via \(bot)", marker: "_"))
        }
        if let reply = node["reply_to_message_id"]?.scalarText, !reply.isEmpty {
            message.replyTo = chat.replyID(reply, peer: node["reply_to_peer_id"]?.scalarText)
        }
        TelegramReactions.add(node["reactions"], to: &message)

        if let poll = node["poll"], poll.isObject {
            message.type = "poll"
            message.poll = TelegramPoll.poll(poll)
        } else if let location = TelegramPlace.location(node) {
            message.type = "location"
            message.location = location
            if let period = node["live_location_period_seconds"]?.count, period > 0 {
                lines.append(ImportText.escaped("Live location for \(TelegramService.describe(seconds: period))"))
            }
        } else if let media = TelegramMedia.payload(of: node) {
            message.type = media.type
            message.media = media.media
        } else if let contact = TelegramPlace.contact(node) {
            lines.append(ImportText.escaped(contact))
        } else if let game = node["game_title"]?.nonEmptyString {
            lines.append(ImportText.escaped("Game: \(game)"))
        }
        if let text = TelegramText.markup(of: node) {
            lines.append(text)
        } else if message.type == "sticker", let emoji = node["sticker_emoji"]?.nonEmptyString {
            lines.append(ImportText.escaped(emoji))
        }
        message.text = lines.isEmpty ? (message.type == "text" ? "" : nil) : lines.joined(separator: "\n")
    }
}

extension TelegramNode {
    /// True when the object has `key`, even with a `null` value.
    func has(_ key: StaticString) -> Bool { document.member(index, key) != nil }
}

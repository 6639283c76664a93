/// Discord's message types as DiscordChatExporter names them (`Default`,
/// `Reply`, `GuildMemberJoin`, …; a type it has no name for is written as
/// its number), and the system line each event becomes.
enum DiscordMessageKind {
    /// The types whose content is an ordinary message.
    static let ordinary: Set<String> = ["Default", "Reply", "ChatInputCommand", "ContextMenuCommand", "ThreadStarterMessage"]

    /// Discord's numbers for the types, for exports that write the number.
    static let names: [Int64: String] = [
        0: "Default", 1: "RecipientAdd", 2: "RecipientRemove", 3: "Call", 4: "ChannelNameChange",
        5: "ChannelIconChange", 6: "ChannelPinnedMessage", 7: "GuildMemberJoin", 8: "GuildBoost",
        9: "GuildBoostTier1", 10: "GuildBoostTier2", 11: "GuildBoostTier3", 12: "ChannelFollowAdd",
        18: "ThreadCreated", 19: "Reply", 20: "ChatInputCommand", 21: "ThreadStarterMessage", 23: "ContextMenuCommand",
    ]

    /// The type's name: the export's text, or the name of its number.
    static func name(_ value: JSONView?) -> String {
        guard let value else { return "Default" }
        if let number = value.integer { return names[number] ?? (value.string ?? String(number)) }
        return value.text ?? "Default"
    }

    /// What a system event says and its `systemEvent`.
    struct Event {
        var text: String
        var event: String
    }

    /// The system line of an event of type `kind` by `actor` (a display name).
    /// `content` is what the export wrote for it, `mentioned` the first user
    /// the message names, `minutes` a call's length.
    static func event(_ kind: String, actor: String, content: String, mentioned: (id: String, name: String)?,
                      actorID: String?, minutes: Int64?) -> Event {
        switch kind {
        case "RecipientAdd":
            if let mentioned { return Event(text: "\(actor) added \(mentioned.name) to the group", event: "join") }
            return Event(text: "\(actor) added someone to the group", event: "join")
        case "RecipientRemove":
            if let mentioned, mentioned.id != actorID { return Event(text: "\(actor) removed \(mentioned.name) from the group", event: "leave") }
            return Event(text: "\(actor) left the group", event: "leave")
        case "Call":
            guard let minutes else { return Event(text: "\(actor) started a call", event: "call") }
            return Event(text: "\(actor) started a call that lasted \(minutes) minute\(minutes == 1 ? "" : "s")", event: "call")
        case "ChannelNameChange":
            // Older exports hold the new name; newer ones DiscordChatExporter's own sentence.
            let name = content.hasPrefix("Changed the channel name") ? "" : content
            return Event(text: name.isEmpty ? "\(actor) changed the channel name" : "\(actor) changed the channel name: \(name)", event: "rename")
        case "ChannelIconChange":
            return Event(text: "\(actor) changed the channel icon", event: "icon")
        case "ChannelPinnedMessage":
            return Event(text: "\(actor) pinned a message", event: "pin")
        case "GuildMemberJoin":
            return Event(text: "\(actor) joined the server", event: "join")
        case "ThreadCreated":
            let name = content.hasPrefix("Started a thread") ? "" : content
            return Event(text: name.isEmpty ? "\(actor) started a thread" : "\(actor) started a thread: \(name)", event: "thread")
        case "GuildBoost":
            return Event(text: "\(actor) boosted the server", event: "boost")
        case "GuildBoostTier1", "GuildBoostTier2", "GuildBoostTier3":
            return Event(text: "\(actor) boosted the server to level \(kind.suffix(1))", event: "boost")
        default:
            let text = content.isEmpty ? "\(actor): \(kind)" : "\(actor): \(kind)\n\(content)"
            return Event(text: text, event: kind.lowercased())
        }
    }
}

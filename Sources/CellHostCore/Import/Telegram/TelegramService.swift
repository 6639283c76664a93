/// The sentence a Telegram service message (`"type":"service"`) is shown as:
/// "Alice pinned a message", "Bob invited Carol and Dan", "Call from Alice
/// (2 min 5 s)". The message's `action` is its CellHost `systemEvent`; an
/// action this importer has no sentence for is shown as "Alice: action_name".
enum TelegramService {
    /// The sentence for `message`, whose actor is called `actor`.
    static func sentence(_ message: TelegramNode, actor: String) -> String {
        let action = message["action"]?.string ?? ""
        let title = message["title"]?.nonEmptyString.map(quoted)
        let members = names(message["members"])
        switch action {
        case "create_group":
            return "\(actor) created the group\(title.map { " \($0)" } ?? "")"
                + (members.isEmpty ? "" : " with \(list(members))")
        case "create_channel": return "\(actor) created the channel\(title.map { " \($0)" } ?? "")"
        case "edit_group_title": return title.map { "\(actor) renamed the group to \($0)" } ?? "\(actor) renamed the group"
        case "edit_group_photo": return "\(actor) changed the group photo"
        case "delete_group_photo": return "\(actor) removed the group photo"
        case "invite_members":
            if members.isEmpty || members == [actor] { return "\(actor) joined the group" }
            return "\(actor) invited \(list(members))"
        case "remove_members":
            if members.isEmpty || members == [actor] { return "\(actor) left the group" }
            return "\(actor) removed \(list(members))"
        case "join_group_by_link":
            let inviter = message["inviter"]?.nonEmptyString
            return "\(actor) joined the group via an invite link" + (inviter.map { " from \($0)" } ?? "")
        case "join_group_by_request": return "\(actor) was accepted into the group"
        case "migrate_to_supergroup": return "\(actor) converted this group to a supergroup"
        case "migrate_from_group": return "This supergroup was converted from the group\(title.map { " \($0)" } ?? "")"
        case "pin_message": return "\(actor) pinned a message"
        case "clear_history": return "\(actor) cleared the history"
        case "score_in_game":
            return message["score"]?.integer.map { "\(actor) scored \($0)" } ?? "\(actor) scored in a game"
        case "phone_call": return call(message, actor: actor)
        case "group_call":
            let duration = (message["duration"] ?? message["duration_seconds"])?.count
            return duration.map { "Video chat (\(describe(seconds: $0)))" } ?? "\(actor) started a video chat"
        case "invite_to_group_call":
            return "\(actor) invited \(members.isEmpty ? "members" : list(members)) to the video chat"
        case "group_call_scheduled": return "\(actor) scheduled a video chat"
        case "take_screenshot": return "\(actor) took a screenshot"
        case "joined_telegram": return "\(actor) joined Telegram"
        case "set_messages_ttl":
            guard let period = message["period"]?.count, period > 0 else { return "\(actor) turned off auto-delete" }
            return "\(actor) set messages to auto-delete after \(describe(seconds: period))"
        case "topic_created": return "\(actor) created the topic\(title.map { " \($0)" } ?? "")"
        case "topic_edit":
            return message["new_title"]?.nonEmptyString.map { "\(actor) renamed the topic to \(quoted($0))" }
                ?? "\(actor) changed the topic"
        case "edit_chat_theme":
            return message["emoticon"]?.nonEmptyString.map { "\(actor) changed the chat theme to \($0)" }
                ?? "\(actor) turned off the chat theme"
        case "set_chat_wallpaper", "set_same_chat_wallpaper": return "\(actor) changed the chat wallpaper"
        case "suggest_profile_photo": return "\(actor) suggested a profile photo"
        case "requested_phone_number": return "\(actor) asked for a phone number"
        case "send_payment": return "A payment was sent"
        case "send_premium_gift": return "\(actor) sent a Premium gift"
        case "allow_sending_messages", "attach_menu_bot_allowed": return "The bot was allowed to send messages"
        case "send_passport_values": return "Passport data was sent"
        case "proximity_reached":
            let from = message["from"]?.nonEmptyString ?? "Someone"
            let to = message["to"]?.nonEmptyString ?? "someone"
            return message["distance"]?.count.map { "\(from) is within \($0) m of \(to)" } ?? "\(from) is near \(to)"
        case "":
            if let information = message["information_text"]?.nonEmptyString { return information }
            return "\(actor): service message"
        default:
            return "\(actor): \(action)"
        }
    }

    /// "Call from Alice (2 min 5 s)", "Missed call from Alice", …
    private static func call(_ message: TelegramNode, actor: String) -> String {
        let duration = message["duration_seconds"]?.count.flatMap { $0 > 0 ? $0 : nil }
        switch message["discard_reason"]?.string {
        case "missed": return "Missed call from \(actor)"
        case "busy": return "Call from \(actor) (busy)"
        default:
            return "Call from \(actor)" + (duration.map { " (\(describe(seconds: $0)))" } ?? "")
        }
    }

    /// "45 s", "2 min 5 s", "1 h 2 min", "3 d".
    static func describe(seconds: Int64) -> String {
        if seconds < 60 { return "\(seconds) s" }
        if seconds < 3600 { return seconds % 60 == 0 ? "\(seconds / 60) min" : "\(seconds / 60) min \(seconds % 60) s" }
        if seconds < 86400 {
            let minutes = seconds % 3600 / 60
            return minutes == 0 ? "\(seconds / 3600) h" : "\(seconds / 3600) h \(minutes) min"
        }
        return "\(seconds / 86400) d"
    }

    private static func quoted(_ text: String) -> String { "“\(text)”" }

    /// The names of a `members` array (a member without a name, `null`, is "a deleted account").
    private static func names(_ value: TelegramNode?) -> [String] {
        guard let value, value.isArray else { return [] }
        return value.elements.prefix(100).map { $0.nonEmptyString ?? "a deleted account" }
    }

    /// "Carol", "Carol and Dan", "Carol, Dan and Eve".
    static func list(_ names: [String]) -> String {
        guard let last = names.last else { return "" }
        if names.count == 1 { return last }
        return names.dropLast().joined(separator: ", ") + " and " + last
    }
}

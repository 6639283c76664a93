/// Slack's event subtypes (`channel_join`, `channel_topic`, …) as CellHost
/// system lines: what the line says and its `systemEvent`.
enum SlackSystemEvent {
    /// The line for subtype `subtype` done by `actor`, or nil when the
    /// subtype is a message (`bot_message`, `file_share`, …) rather than an event.
    static func line(_ subtype: String, actor: String, message: JSONView, markup: SlackMarkup) -> (nodes: [MarkupNode], event: String)? {
        let place = subtype.hasPrefix("group_") ? "the private channel" : "the channel"
        func said(_ key: StaticString) -> [MarkupNode] { markup.nodes(message[key]?.string ?? "") }
        switch subtype {
        case "channel_join", "group_join":
            var text = "\(actor) joined \(place)"
            if let inviter = message["inviter"]?.text { text += " (invited by \(markup.users[inviter] ?? inviter))" }
            return ([.text(text)], "join")
        case "channel_leave", "group_leave":
            return ([.text("\(actor) left \(place)")], "leave")
        case "channel_topic", "group_topic":
            return ([.text("\(actor) set the channel topic: ")] + said("topic"), "topic")
        case "channel_purpose", "group_purpose":
            return ([.text("\(actor) set the channel purpose: ")] + said("purpose"), "purpose")
        case "channel_name", "group_name":
            let old = message["old_name"]?.text.map { " from #\($0)" } ?? ""
            let new = message["name"]?.text.map { " to #\($0)" } ?? ""
            return ([.text("\(actor) renamed \(place)\(old)\(new)")], "rename")
        case "channel_archive", "group_archive":
            return ([.text("\(actor) archived \(place)")], "archive")
        case "channel_unarchive", "group_unarchive":
            return ([.text("\(actor) unarchived \(place)")], "unarchive")
        case "pinned_item":
            return ([.text("\(actor) pinned a message")], "pin")
        case "unpinned_item":
            return ([.text("\(actor) unpinned a message")], "unpin")
        case "sh_room_created":
            return ([.text("\(actor) started a huddle")], "call")
        case "bot_add":
            return ([.text("\(actor) added an app")], "app")
        case "bot_remove":
            return ([.text("\(actor) removed an app")], "app")
        case "file_share", "thread_broadcast", "reply_broadcast", "bot_message", "slackbot_response", "me_message",
             "file_comment", "file_mention", "huddle_thread", "tombstone", "message_changed", "message_deleted",
             "message_replied":
            return nil
        default:
            // Slack writes the sentence of most events into `text`.
            let nodes = markup.nodes(message["text"]?.string ?? "")
            if MarkupNode.plain(nodes).trimmingSpaces.core.isEmpty { return ([.text("\(actor): \(subtype)")], subtype) }
            return (nodes, subtype)
        }
    }
}

/// Maps one Slack message object (an element of a day file) to CellHost
/// messages: the message, then one more for each further file (ids
/// `<id>#2`, …), since a CellHost message holds one file.
///
/// Ids are `<folder>/<ts>` (`ts` is unique within a conversation); a thread
/// reply (`thread_ts` other than its own `ts`) answers `<folder>/<thread_ts>`.
struct SlackMessageReader {
    var markup: SlackMarkup
    /// The conversation's folder (`general`), the prefix of every id; nil for
    /// a lone day file outside an export.
    var folder: String?
    var media: SlackMedia
    var options: ImportOptions
    /// Hidden events left out (`message_deleted`, `message_replied`, …).
    private(set) var dropped = 0
    /// `message_changed` events shown as edits.
    private(set) var edits = 0

    init(markup: SlackMarkup, folder: String?, media: SlackMedia, options: ImportOptions) {
        self.markup = markup
        self.folder = folder
        self.media = media
        self.options = options
    }

    func id(_ ts: String) -> String { folder.map { "\($0)/\(ts)" } ?? ts }

    /// The messages of `message`, which starts on `line` of the file named
    /// `file` (nil: the input itself).
    mutating func messages(_ message: JSONView, line: Int, file: String?, sink: ImportSink) -> [ImportedMessage] {
        guard message.isObject else {
            SlackFileSystem.problem(sink, file: file, line: line, "a message that is not a JSON object")
            return []
        }
        let subtype = message["subtype"]?.string
        if subtype == "message_changed" {
            guard let changed = message["message"], changed.isObject else {
                SlackFileSystem.problem(sink, file: file, line: line, "a message_changed event without the changed \"message\" object")
                return []
            }
            edits += 1
            var edit = base(changed, line: line, file: file, sink: sink, idFrom: message)
            edit.edited = true
            edit.replyTo = changed["ts"]?.text.map(id)
            edit.text = body(changed, subtype: changed["subtype"]?.string)
            return [edit]
        }
        if message["hidden"]?.bool == true || subtype == "message_deleted" || subtype == "message_replied" {
            dropped += 1
            return []
        }
        var result = base(message, line: line, file: file, sink: sink, idFrom: message)
        if let subtype, let event = SlackSystemEvent.line(subtype, actor: result.senderName ?? "Someone", message: message, markup: markup) {
            result.type = "system"
            result.systemEvent = event.event
            result.text = MarkupNode.render(event.nodes)
            return [result]
        }
        if let thread = message["thread_ts"]?.text, thread != message["ts"]?.text { result.replyTo = id(thread) }
        if let edited = message["edited"], edited.isObject { result.edited = true }
        result.text = body(message, subtype: subtype)
        for reaction in message["reactions"]?.elements.prefix(64) ?? [] {
            guard let name = reaction["name"]?.text else { continue }
            let count = reaction["count"]?.integer.map { Int(clamping: $0) } ?? max(1, reaction["users"]?.elements.count ?? 1)
            result.addReaction(SlackEmoji.emoji(name), count: count)
        }
        var files = (message["files"]?.elements ?? []).filter(\.isObject)
        if files.isEmpty, let file = message["file"], file.isObject { files = [file] }
        guard let first = files.first else { return [result] }
        (result.type, result.media) = media.media(first)
        var all = [result]
        for (index, file) in files.dropFirst().prefix(64).enumerated() {
            var extra = result.attachmentMessage(number: index + 2)
            extra.replyTo = result.replyTo
            (extra.type, extra.media) = media.media(file)
            all.append(extra)
        }
        return all
    }

    /// The id, sender and time of `message` (the id and time from `idFrom`,
    /// which differs for an edit event).
    func base(_ message: JSONView, line: Int, file: String?, sink: ImportSink, idFrom: JSONView) -> ImportedMessage {
        var result = ImportedMessage()
        if let ts = idFrom["ts"]?.text {
            result.id = id(ts)
            if let time = ImportTime.seconds(ts) { result.time = time } else { result.unreadableTime = ts }
        } else {
            SlackFileSystem.problem(sink, file: file, line: line, "a message without a \"ts\" string; shown with the id \"line-\(line)\"")
            result.id = id("line-\(line)")
        }
        let user = message["user"]?.text
        let bot = message["bot_id"]?.text
        let profile = message["user_profile"]
        let botName = message["username"]?.text ?? message["bot_profile"]?["name"]?.text
        result.senderID = user ?? bot
        if message["subtype"]?.string == "bot_message" || user == nil {
            result.senderName = botName ?? user.flatMap { markup.users[$0] } ?? bot ?? user
        } else if let user {
            result.senderName = markup.users[user] ?? profile?["display_name"]?.text ?? profile?["real_name"]?.text
                ?? botName ?? (user == "USLACKBOT" ? "Slackbot" : user)
        }
        result.direction = options.direction(sender: result.senderID, exporter: nil)
        return result
    }

    /// The text of a message: its mrkdwn, then its attachments (link
    /// previews, bot cards) as lines.
    func body(_ message: JSONView, subtype: String?) -> String? {
        var lines: [String] = []
        let text = message["text"]?.string ?? ""
        switch subtype {
        case "tombstone":
            lines.append(MarkupNode.render([.emphasis([.text("This message was deleted.")])]))
        case "me_message":
            lines.append(MarkupNode.render([.emphasis(markup.nodes(text))]))
        default:
            if !text.isEmpty { lines.append(markup.markup(text)) }
        }
        for attachment in message["attachments"]?.elements.prefix(8) ?? [] where attachment.isObject {
            var added = false
            if let pretext = attachment["pretext"]?.text { lines.append(markup.markup(pretext)); added = true }
            let title = attachment["title"]?.text
            let link = attachment["title_link"]?.text ?? attachment["from_url"]?.text
            switch (title, link) {
            case let (title?, link?): lines.append(ImportText.escaped("🔗 \(title) — ") + link); added = true
            case let (title?, nil): lines.append(ImportText.escaped("🔗 \(title)")); added = true
            default: break
            }
            if let body = attachment["text"]?.text {
                if let author = attachment["author_name"]?.text, title == nil {
                    lines.append(MarkupNode.render([.strong([.text(author)])]) + ": " + markup.markup(body))
                } else {
                    lines.append(markup.markup(body))
                }
                added = true
            }
            if !added, let fallback = attachment["fallback"]?.text { lines.append(ImportText.escaped(fallback)) }
        }
        return lines.isEmpty ? nil : lines.joined(separator: "\n")
    }
}

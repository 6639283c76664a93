/// Maps one DiscordChatExporter message object to CellHost messages: the
/// message itself, then one more for each further attachment or sticker
/// (ids `<id>#2`, `<id>#3`, …), since a CellHost message holds one file.
struct DiscordMessageReader {
    /// The exported channel's id and name (for `<#id>` and replies).
    var channelID: String?
    var channelName: String?
    var options: ImportOptions

    /// The messages of `message`, which starts on `line`; problems with its
    /// fields go to `sink`.
    func messages(_ message: JSONView, line: Int, sink: ImportSink) -> [ImportedMessage] {
        guard message.isObject else {
            sink.problem(line: line, "a message that is not a JSON object")
            return []
        }
        var base = ImportedMessage()
        if let id = message["id"]?.id {
            base.id = id
        } else {
            sink.problem(line: line, "a message without an \"id\"; shown with the id \"line-\(line)\"")
            base.id = "line-\(line)"
        }
        let author = message["author"]
        base.senderID = author?["id"]?.id
        base.senderName = author?["nickname"]?.text ?? author?["name"]?.text ?? base.senderID
        base.direction = options.direction(sender: base.senderID, exporter: nil)
        var start: Double?
        if let stamp = message["timestamp"] {
            // A number is read as seconds since the epoch, as the same text would be.
            let text = stamp.string ?? (stamp.kind == .number ? stamp.integer.map(String.init) ?? stamp.number.map { "\($0)" } : nil)
            if let text, let time = ImportTime.parse(text) {
                base.time = time
                start = time
            } else {
                base.unreadableTime = text ?? "(not a string)"
            }
        }
        if let edited = message["timestampEdited"], edited.kind != .null { base.edited = true }

        let kind = DiscordMessageKind.name(message["type"])
        let mentions = mentioned(message)
        let content = message["content"]?.string ?? ""
        if !DiscordMessageKind.ordinary.contains(kind) {
            var minutes: Int64?
            if let start, let endText = message["callEndedTimestamp"]?.text, let end = ImportTime.parse(endText), end >= start {
                minutes = Int64(exactly: ((end - start) / 60).rounded(.down))
            }
            let first = message["mentions"]?.elements.first
            let firstMention = first.flatMap { view in view["id"]?.id.map { ($0, mentions[$0] ?? $0) } }
            let event = DiscordMessageKind.event(kind, actor: base.senderName ?? "Someone", content: content,
                                                 mentioned: firstMention, actorID: base.senderID, minutes: minutes)
            base.type = "system"
            base.systemEvent = event.event
            base.text = ImportText.escaped(event.text)
            if kind == "ChannelPinnedMessage" { base.replyTo = message["reference"]?["messageId"]?.id }
            return [base]
        }

        var markdown = DiscordMarkdown(users: mentions)
        if let channelID, let channelName { markdown.channels[channelID] = channelName }
        var lines: [String] = []
        if let interaction = message["interaction"], let name = interaction["name"]?.text {
            let user = interaction["user"]
            let who = user?["nickname"]?.text ?? user?["name"]?.text ?? "Someone"
            lines.append(MarkupNode.render([.emphasis([.text("\(who) used /\(name)")])]))
        }
        if !content.isEmpty { lines.append(markdown.markup(content)) }
        let reference = message["reference"]
        if reference?["type"]?.string == "Forward", let forwarded = message["forwardedMessage"] {
            let text = forwarded["content"]?.string ?? ""
            lines.append(MarkupNode.render([.emphasis([.text("Forwarded")])]) + (text.isEmpty ? "" : "\n" + markdown.markup(text)))
        } else if let replyTo = reference?["messageId"]?.id {
            base.replyTo = replyTo
        }
        lines.append(contentsOf: embedLines(message, content: content, markdown: markdown))
        if !lines.isEmpty { base.text = lines.joined(separator: "\n") }
        for reaction in message["reactions"]?.elements ?? [] {
            guard let emoji = reaction["emoji"], let name = emoji["name"]?.text else { continue }
            let custom = emoji["id"]?.id != nil && !(name.unicodeScalars.first?.properties.isEmojiPresentation ?? false)
            let count = reaction["count"]?.integer.map { Int(clamping: $0) } ?? 1
            base.addReaction(custom ? ":\(name):" : name, count: count)
        }

        var media: [(type: String, media: ImportedMessage.Media)] = []
        for attachment in message["attachments"]?.elements ?? [] where attachment.isObject {
            media.append(DiscordAttachment.media(attachment))
        }
        if reference?["type"]?.string == "Forward" {
            for attachment in message["forwardedMessage"]?["attachments"]?.elements ?? [] where attachment.isObject {
                media.append(DiscordAttachment.media(attachment))
            }
        }
        for sticker in message["stickers"]?.elements ?? [] where sticker.isObject {
            media.append(("sticker", DiscordAttachment.sticker(sticker)))
        }
        guard let first = media.first else { return [base] }
        base.type = first.type
        base.media = first.media
        var result = [base]
        for (index, extra) in media.dropFirst().enumerated() {
            var message = base.attachmentMessage(number: index + 2)
            message.type = extra.type
            message.media = extra.media
            result.append(message)
        }
        return result
    }

    /// Display names of the users the message mentions, by id.
    func mentioned(_ message: JSONView) -> [String: String] {
        var names: [String: String] = [:]
        for user in message["mentions"]?.elements.prefix(256) ?? [] {
            guard let id = user["id"]?.id else { continue }
            names[id] = user["nickname"]?.text ?? user["name"]?.text ?? id
        }
        return names
    }

    /// An embed's lines: `🔗 title — url`, its description and fields. A bare
    /// link preview whose URL the text already shows adds nothing.
    func embedLines(_ message: JSONView, content: String, markdown: DiscordMarkdown) -> [String] {
        var lines: [String] = []
        for embed in message["embeds"]?.elements.prefix(16) ?? [] where embed.isObject {
            let title = embed["title"]?.text
            let url = embed["url"]?.text
            switch (title, url) {
            case let (title?, url?): lines.append(ImportText.escaped("🔗 \(title) — ") + url)
            case let (title?, nil): lines.append(ImportText.escaped("🔗 \(title)"))
            case let (nil, url?) where !content.contains(url): lines.append("🔗 " + url)
            default: break
            }
            if let description = embed["description"]?.text {
                lines.append(markdown.markup(String(description.prefix(2000))))
            }
            for field in embed["fields"]?.elements.prefix(25) ?? [] {
                guard let name = field["name"]?.text else { continue }
                let value = field["value"]?.string ?? ""
                lines.append(MarkupNode.render([.strong([.text(name)])]) + (value.isEmpty ? "" : ": " + markdown.markup(value)))
            }
        }
        return lines
    }
}

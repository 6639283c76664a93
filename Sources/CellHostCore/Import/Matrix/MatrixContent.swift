/// Reads the `content` of a message event (`m.room.message`, `m.sticker`),
/// or an edit's `m.new_content`, into a message: its class, text and media.
struct MatrixContent {
    /// The event (or the edit's new content) the content is in.
    let event: MatrixEvent
    let content: Int

    /// Fills `message` from the content. `eventType` is the type of the
    /// event (`m.sticker` is a sticker whatever its content); `isReply` says
    /// the body may start with a reply fallback to remove; `senderName`
    /// starts an emote.
    func apply(to message: inout ImportedMessage, eventType: String, isReply: Bool, senderName: String,
               milliseconds: Double?, files: MatrixMediaFiles) {
        let msgtype = event.string(content, "msgtype")
        message.media = nil
        message.location = nil
        message.text = nil
        if eventType == "m.sticker" {
            message.type = "sticker"
            message.media = media(folder: "stickers", forcedExtension: ".png", milliseconds: milliseconds, files: files, message: &message, isReply: isReply)
            return
        }
        switch msgtype {
        case "m.image":
            message.type = "image"
            message.media = media(folder: "images", forcedExtension: nil, milliseconds: milliseconds, files: files, message: &message, isReply: isReply)
        case "m.video":
            message.type = "video"
            message.media = media(folder: "videos", forcedExtension: nil, milliseconds: milliseconds, files: files, message: &message, isReply: isReply)
        case "m.file":
            message.type = "file"
            message.media = media(folder: "files", forcedExtension: nil, milliseconds: milliseconds, files: files, message: &message, isReply: isReply)
        case "m.audio":
            let flagged = event.member(content, "org.matrix.msc3245.voice") || event.member(content, "org.matrix.msc2516.voice")
            let audio = event.object(content, "org.matrix.msc1767.audio")
            let described = audio.map { event.array($0, "waveform") != nil || event.number($0, "duration") != nil } ?? false
            message.type = flagged || described ? "voice" : "file"
            var media = self.media(folder: "audio", forcedExtension: flagged ? ".ogg" : nil, milliseconds: milliseconds,
                                   files: files, message: &message, isReply: isReply)
            if message.type == "voice" {
                if let audio, let duration = event.number(audio, "duration"), duration >= 0 {
                    media.duration = min(duration, 1e12) / 1000
                }
                if let audio, let waveform = event.array(audio, "waveform") {
                    media.waveform = samples(waveform)
                }
            } else {
                media.duration = nil
            }
            message.media = media
        case "m.location":
            if let location = location() {
                message.type = "location"
                message.location = location
                // What the fallbacks show where no cell draws a location.
                message.text = "📍 " + ImportText.escaped(location.name ?? "\(location.latitude), \(location.longitude)")
            } else {
                message.type = "text"
                message.text = text(isReply: isReply)
            }
        case "m.emote":
            message.type = "text"
            message.text = ImportText.escaped("* \(senderName) ") + (text(isReply: isReply) ?? "")
        case "m.bad.encrypted":
            message.type = "encrypted"
            message.text = MatrixContent.encryptedText
        default:
            // m.text, m.notice (shown as text: CellHost has no muted style for
            // it) and message types this importer does not know (their `body`
            // is the fallback the specification asks clients to show).
            message.type = "text"
            message.text = text(isReply: isReply)
        }
    }

    /// The text of an event that could not be decrypted.
    static let encryptedText = "🔒 Encrypted message (not decrypted in this export)"

    /// The message text: `formatted_body` as markup when it is HTML, else
    /// `body` as literal text, the reply fallback removed.
    func text(isReply: Bool) -> String? {
        let body = event.string(content, "body")
        if event.string(content, "format") == "org.matrix.custom.html", let html = event.string(content, "formatted_body") {
            let markup = MatrixHTML.markup(html)
            if !markup.isEmpty || (body ?? "").isEmpty { return markup }
        }
        guard let body else { return nil }
        return ImportText.escaped(isReply ? MatrixContent.withoutReplyFallback(body) : body)
    }

    /// `body` without the quote of the message it answers: the leading lines
    /// `> <@user:server> …` and the empty line after them.
    static func withoutReplyFallback(_ body: String) -> String {
        guard body.hasPrefix("> <") || body.hasPrefix("> * <") else { return body }
        var rest = Substring(body)
        while rest.hasPrefix(">") {
            guard let newline = rest.firstIndex(of: "\n") else { return body }
            rest = rest[rest.index(after: newline)...]
        }
        if rest.hasPrefix("\n") { rest = rest.dropFirst() }
        return rest.isEmpty ? body : String(rest)
    }

    /// The file of a media message; its caption (a `body` that is not the
    /// file name, when `filename` is given) becomes the text.
    private func media(folder: String, forcedExtension: String?, milliseconds: Double?, files: MatrixMediaFiles,
                       message: inout ImportedMessage, isReply: Bool) -> ImportedMessage.Media {
        var media = ImportedMessage.Media()
        let body = event.string(content, "body") ?? ""
        let filename = event.string(content, "filename").flatMap { $0.isEmpty ? nil : $0 }
        media.name = filename ?? (body.isEmpty ? nil : body)
        if let filename, !body.isEmpty, filename != body { message.text = text(isReply: isReply) }
        if let info = event.object(content, "info") {
            media.mime = event.string(info, "mimetype")
            media.size = event.integer(info, "size")
            media.width = event.integer(info, "w", in: 0...Int64(Int32.max))
            media.height = event.integer(info, "h", in: 0...Int64(Int32.max))
            if let duration = event.number(info, "duration"), duration >= 0 { media.duration = min(duration, 1e12) / 1000 }
        }
        let url = event.string(content, "url") ?? event.object(content, "file").flatMap { event.string($0, "url") }
        guard let url, !url.isEmpty else {
            media.unavailable = "no file in the event"
            return media
        }
        if url.hasPrefix("mxc://") {
            if let path = files.find(folder: folder, body: body, forcedExtension: forcedExtension, milliseconds: milliseconds) {
                media.path = path
            } else {
                media.unavailable = "not downloaded (\(url.prefix(256)))"
            }
        } else if url.contains("://") || url.hasPrefix("data:") {
            media.unavailable = "not downloaded (\(url.prefix(256)))"
        } else {
            // An export that rewrote the address to its own copy of the file.
            media.path = url
        }
        return media
    }

    /// A waveform's samples (0…1024 in Matrix) as 0…1, at most 1024 of them.
    private func samples(_ array: Int) -> [Double] {
        var result: [Double] = []
        for element in event.document.elements(array).prefix(1024) {
            guard let value = event.document.number(element), value.isFinite else { continue }
            result.append(min(max(value, 0), 1024) / 1024)
        }
        return result
    }

    /// The place of an `m.location`: `geo_uri` (`geo:51.5008,0.1247;u=35`),
    /// or the extensible-events `org.matrix.msc3488.location.uri`.
    private func location() -> ImportedMessage.Location? {
        let extensible = event.object(content, "org.matrix.msc3488.location")
        guard let uri = event.string(content, "geo_uri") ?? extensible.flatMap({ event.string($0, "uri") }),
              let (latitude, longitude) = MatrixContent.coordinates(uri) else { return nil }
        let body = event.string(content, "body") ?? extensible.flatMap { event.string($0, "description") }
        let name = body.flatMap { $0.isEmpty || $0.hasPrefix("geo:") ? nil : $0 }
        return ImportedMessage.Location(latitude: latitude, longitude: longitude, name: name)
    }

    static func coordinates(_ uri: String) -> (Double, Double)? {
        guard uri.hasPrefix("geo:"), uri.utf8.count <= 256 else { return nil }
        let point = uri.dropFirst(4).prefix { $0 != ";" && $0 != "?" }
        let parts = point.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count >= 2, let latitude = Double(parts[0]), let longitude = Double(parts[1]),
              latitude.isFinite, longitude.isFinite, abs(latitude) <= 90, abs(longitude) <= 180 else { return nil }
        return (latitude, longitude)
    }
}

extension MatrixEvent {
    /// True when the object `node` has the member `key` (of any type).
    func member(_ node: Int, _ key: StaticString) -> Bool { document.member(node, key) != nil }
}

/// A DiscordChatExporter attachment or sticker as CellHost media.
///
/// With `--media`, DiscordChatExporter downloads files and rewrites `url` to
/// a path relative to the export (`channel_Files/cat-1234.png`,
/// percent-encoded); without it, `url` stays a Discord CDN address, which
/// CellHost does not fetch: the media is marked unavailable instead.
enum DiscordAttachment {
    /// The message type and media of an attachment object.
    static func media(_ attachment: JSONView) -> (type: String, media: ImportedMessage.Media) {
        var media = ImportedMessage.Media()
        let url = attachment["url"]?.text
        let name = attachment["fileName"]?.text ?? url.map(lastComponent)
        media.name = name
        if let size = attachment["fileSizeBytes"]?.integer, size >= 0 { media.size = size }
        locate(url, into: &media)
        let kind = MediaFileKind.of(name: name ?? media.path ?? "")
        media.mime = kind.mime
        return (kind.type, media)
    }

    /// The media of a sticker object (`name`, `sourceUrl`).
    static func sticker(_ sticker: JSONView) -> ImportedMessage.Media {
        var media = ImportedMessage.Media()
        media.name = sticker["name"]?.text
        locate(sticker["sourceUrl"]?.text, into: &media)
        if media.path != nil { media.mime = MediaFileKind.of(name: media.path ?? "").mime }
        return media
    }

    /// Sets `path` for a local file, or `unavailable` for a remote or missing one.
    static func locate(_ url: String?, into media: inout ImportedMessage.Media) {
        guard let url, !url.isEmpty else {
            media.unavailable = "not included in the export"
            return
        }
        if let host = remoteHost(url) {
            media.unavailable = host.isEmpty ? "not downloaded" : "not downloaded (\(host))"
            return
        }
        media.path = percentDecoded(url.replacingBackslashes)
    }

    /// `text` with `%XX` sequences decoded (DiscordChatExporter encodes file
    /// paths as URLs); malformed sequences stay as they are.
    static func percentDecoded(_ text: String) -> String {
        guard text.contains("%") else { return text }
        let bytes = Array(text.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count,
               let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2]) {
                output.append(UInt8(high << 4 | low))
                index += 3
            } else {
                output.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// The host of a URL with a scheme (`https://cdn.discordapp.com/…` →
    /// `cdn.discordapp.com`); nil for a path.
    static func remoteHost(_ url: String) -> Substring? {
        let scalars = url.unicodeScalars
        guard let colon = scalars.firstIndex(of: ":"),
              scalars[..<colon].allSatisfy({ $0.properties.isAlphabetic || $0 == "+" || $0 == "-" || $0 == "." }),
              url.unicodeScalars[colon...].starts(with: "://".unicodeScalars), colon != scalars.startIndex else { return nil }
        let rest = Substring(url.unicodeScalars[scalars.index(colon, offsetBy: 3)...])
        return rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
    }

    static func lastComponent(_ url: String) -> String {
        let path = url.prefix { $0 != "?" && $0 != "#" }
        return String(path.split(separator: "/").last ?? Substring(path))
    }
}

private extension String {
    /// Windows separators as `/`.
    var replacingBackslashes: String { contains("\\") ? String(map { $0 == "\\" ? "/" : $0 }) : self }
}

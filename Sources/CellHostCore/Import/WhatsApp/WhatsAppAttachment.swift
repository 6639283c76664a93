/// The media of a WhatsApp message: a file the export has beside the chat
/// (`IMG-20201231-WA0001.jpg (file attached)` on Android, `<attached:
/// 00000012-PHOTO-2020-12-31-23-59-59.jpg>` on iOS), or a placeholder for
/// one it left out (`<Media omitted>`, `image omitted`, `null`).
enum WhatsAppAttachment {
    /// What `unavailable` says for media the export left out.
    static let notIncluded = "not included in the export"
    /// What `unavailable` says for a view-once photo or video (`null`).
    static let viewOnce = "view-once media, never included in the export"

    /// A message's media, its class, and the text after it (a caption).
    struct Found {
        var type: String
        var media: ImportedMessage.Media
        var caption: String?
    }

    /// The media `body` (without U+200E marks at its start) is, or nil.
    static func find(_ body: String) -> Found? {
        let firstLine = body.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false)
        let head = firstLine.first.map(String.init) ?? ""
        guard head.utf8.count <= 2048 else { return nil }
        let rest = firstLine.count > 1 ? String(firstLine[1]) : nil
        let plain = String(head.unicodeScalars.filter { $0 != "\u{200E}" }).trimmingSpaces.core
        if omitted.contains(plain) {
            return Found(type: "file", media: unavailable(notIncluded), caption: rest)
        }
        if plain == "null" && rest == nil {
            return Found(type: "file", media: unavailable(viewOnce), caption: nil)
        }
        if let found = placeholder(plain) { return Found(type: found.type, media: found.media, caption: rest) }
        if let attached = iOSAttachment(head) {
            let caption = [attached.after, rest].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: "\n")
            return found(path: attached.name, caption: caption.isEmpty ? nil : caption)
        }
        if let name = androidAttachment(plain) { return found(path: name, caption: rest) }
        return nil
    }

    private static func unavailable(_ reason: String, name: String? = nil) -> ImportedMessage.Media {
        var media = ImportedMessage.Media()
        media.unavailable = reason
        media.name = name
        return media
    }

    /// Android's placeholder for any media when exported without media.
    private static let omitted: Set<String> = [
        "<Media omitted>", "<Multimedia omitido>", "<Medien ausgeschlossen>", "<Medien weggelassen>",
        "<Médias omis>", "<Mídia oculta>", "<Media omessi>",
    ]

    /// iOS's placeholders (`image omitted`) and the class of each.
    private static let omittedKinds: [(String, String)] = [
        ("image omitted", "image"), ("video omitted", "video"), ("audio omitted", "voice"),
        ("sticker omitted", "sticker"), ("GIF omitted", "video"), ("document omitted", "file"),
        ("Contact card omitted", "file"),
        ("imagen omitida", "image"), ("video omitido", "video"), ("audio omitido", "voice"),
        ("sticker omitido", "sticker"), ("GIF omitido", "video"), ("documento omitido", "file"),
        ("Bild weggelassen", "image"), ("Video weggelassen", "video"), ("Audio weggelassen", "voice"),
        ("Sticker weggelassen", "sticker"), ("GIF weggelassen", "video"), ("Dokument weggelassen", "file"),
    ]

    /// `image omitted`, or iOS's `Itinerary.pdf • 2 pages document omitted`
    /// (the document's name kept).
    private static func placeholder(_ plain: String) -> (type: String, media: ImportedMessage.Media)? {
        for (suffix, type) in omittedKinds where plain.hasSuffix(suffix) {
            let before = plain.dropLast(suffix.count).trimmingSpacesSubstring
            if before.isEmpty { return (type, unavailable(notIncluded)) }
            guard type == "file" else { continue }
            let name = (before.firstRange(of: " • ").map { before[..<$0.lowerBound] } ?? before).trimmingSpacesSubstring
            return (type, unavailable(notIncluded, name: name.isEmpty ? nil : String(name)))
        }
        return nil
    }

    /// iOS's `<attached: NAME>` at the start of the line: the name and what follows it.
    private static func iOSAttachment(_ line: String) -> (name: String, after: String?)? {
        var text = Substring(line)
        while text.unicodeScalars.first == "\u{200E}" { text = text.dropFirst() }
        guard text.hasPrefix("<attached: "), let close = text.firstIndex(of: ">") else { return nil }
        let name = text[text.index(text.startIndex, offsetBy: 11)..<close].trimmingSpacesSubstring
        guard isFileName(name) else { return nil }
        let after = text[text.index(after: close)...].trimmingSpacesSubstring
        return (String(name), after.isEmpty ? nil : String(after))
    }

    /// What Android writes after the file name (`(file attached)`), by language.
    private static let attachedMarks = [
        " (file attached)", " (archivo adjunto)", " (Datei angehängt)", " (fichier joint)",
        " (arquivo anexado)", " (file allegato)",
    ]

    /// Android's `NAME (file attached)`: the name.
    private static func androidAttachment(_ plain: String) -> String? {
        for mark in attachedMarks where plain.hasSuffix(mark) {
            let name = plain.dropLast(mark.count).trimmingSpacesSubstring
            if isFileName(name) { return String(name) }
        }
        return nil
    }

    /// A name WhatsApp gives a file beside the export: not empty, not a path
    /// (no `/`, so it can only name a file beside the export), not too long.
    private static func isFileName(_ name: Substring) -> Bool {
        !name.isEmpty && name.utf8.count <= 1024 && !name.contains("/") && !name.contains("\n") && name != "." && name != ".."
    }

    /// The media for the file `path` beside the export, its class told by its name.
    private static func found(path: String, caption: String?) -> Found {
        var media = ImportedMessage.Media()
        media.path = path
        let type = kind(of: path)
        if type == "file" { media.name = displayName(path) }
        return Found(type: type, media: media, caption: caption)
    }

    /// The class of an exported file, by its name as WhatsApp writes it:
    /// `IMG-…jpg`/`…-PHOTO-…jpg` images, `STK-…webp`/`…-STICKER-…webp`
    /// stickers, `PTT-…opus`/`…-AUDIO-…opus` voice notes, `VID-…mp4` videos,
    /// anything else a file.
    static func kind(of name: String) -> String {
        let upper = name.uppercased()
        let base = upper.split(separator: "/").last.map(String.init) ?? upper
        let ext = base.split(separator: ".").count > 1 ? String(base.split(separator: ".").last ?? "") : ""
        let sticker = base.hasPrefix("STK-") || base.contains("-STICKER-")
        switch ext {
        case "WEBP": return sticker ? "sticker" : "image"
        case "JPG", "JPEG", "PNG", "GIF", "HEIC", "BMP": return sticker ? "sticker" : "image"
        case "OPUS": return "voice"
        case "OGG", "OGA", "M4A", "MP3", "AAC", "AMR", "WAV":
            return base.hasPrefix("PTT-") || base.hasPrefix("AUD-") || base.contains("AUDIO") ? "voice" : "file"
        case "MP4", "3GP", "MOV", "MKV", "WEBM", "M4V": return "video"
        default: return "file"
        }
    }

    /// A file's name as its sender gave it: iOS's `00000007-Itinerary.pdf`
    /// without the number it puts before it.
    static func displayName(_ path: String) -> String {
        let base = path.split(separator: "/").last.map(String.init) ?? path
        let digits = base.prefix { $0.isASCII && $0.isNumber }
        if digits.count == 8, base.dropFirst(8).first == "-", base.count > 9 { return String(base.dropFirst(9)) }
        return base
    }
}

extension StringProtocol {
    /// The text without leading and trailing spaces (ASCII, U+00A0, U+202F, U+200E).
    var trimmingSpacesSubstring: Substring {
        let string = Substring(self)
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\u{00A0}" || $0 == "\u{202F}" || $0 == "\u{200E}" || $0 == "\t" }
        guard let first = string.firstIndex(where: { !isSpace($0) }), let last = string.lastIndex(where: { !isSpace($0) }) else {
            return string[string.endIndex...]
        }
        return string[first...last]
    }
}

/// The media of a Telegram message as a CellHost payload.
///
/// A photo is `photo` (a path relative to the export) with `width` and
/// `height`; any other file is `file`, with `media_type` saying what it is:
/// `voice_message` → voice, `video_file`, `video_message` (a round video)
/// and `animation` → video, `sticker` → sticker, `audio_file` or none → file.
/// `mime_type`, `duration_seconds`, `width`, `height`, `file_name` and
/// `file_size` / `photo_file_size` fill the payload; `thumbnail` is not used.
///
/// When the export left a file out, Telegram writes a sentence in place of
/// its path ("(File not included. Change data exporting settings to
/// download.)"). That is never taken as a path: the payload has no path and
/// `unavailable` says why, so cells show a missing-file mark.
enum TelegramMedia {
    /// The CellHost type and payload of the message's photo or file, or nil when it has neither.
    static func payload(of message: TelegramNode) -> (type: String, media: ImportedMessage.Media)? {
        if let photo = message["photo"] {
            var media = ImportedMessage.Media()
            setPath(photo, in: &media)
            media.size = message["photo_file_size"]?.count
            setDimensions(message, in: &media)
            return ("image", media)
        }
        let mediaType = message["media_type"]?.string
        let file = message["file"]
        guard file != nil || mediaType != nil else { return nil }
        var media = ImportedMessage.Media()
        if let file { setPath(file, in: &media) } else { media.unavailable = "unavailable" }
        media.name = message["file_name"]?.nonEmptyString ?? media.path.map(lastComponent)
        media.size = message["file_size"]?.count
        media.mime = message["mime_type"]?.nonEmptyString
        if let seconds = message["duration_seconds"]?.number { media.duration = min(max(seconds, 0), 1e9) }
        setDimensions(message, in: &media)
        switch mediaType {
        case "voice_message": return ("voice", media)
        case "video_file", "video_message", "animation": return ("video", media)
        case "sticker": return ("sticker", media)
        case "audio_file":
            if message["file_name"] == nil, let title = message["title"]?.nonEmptyString {
                media.name = message["performer"]?.nonEmptyString.map { "\($0) – \(title)" } ?? title
            }
            return ("file", media)
        default: return ("file", media)
        }
    }

    /// Why the export has no file, from the sentence Telegram writes in
    /// place of its path; nil for a path.
    static func unavailableReason(_ text: String) -> String? {
        guard text.hasPrefix("(") || text.contains(" (") else { return nil }
        if text.contains("not included") { return "not included in the export" }
        if text.contains("exceeds maximum size") { return "too large for the export" }
        if text.contains("unavailable, please try again") { return "unavailable" }
        return nil
    }

    private static func setPath(_ value: TelegramNode, in media: inout ImportedMessage.Media) {
        guard let path = value.string else {
            media.unavailable = "unavailable"
            return
        }
        if let reason = unavailableReason(path) {
            media.unavailable = reason
        } else if path.isEmpty {
            media.unavailable = "unavailable"
        } else {
            media.path = path
        }
    }

    private static func setDimensions(_ message: TelegramNode, in media: inout ImportedMessage.Media) {
        media.width = message["width"]?.count.map { min($0, 1 << 30) }
        media.height = message["height"]?.count.map { min($0, 1 << 30) }
    }

    private static func lastComponent(_ path: String) -> String {
        String(path.split(separator: "/", omittingEmptySubsequences: true).last ?? Substring(path))
    }
}

/// The text of a WhatsApp message after its sender, read into the message's
/// class and fields: media, a deleted message, a poll, a location, an edit
/// mark, or text.
enum WhatsAppBody {
    /// Fills `message`'s class and content from `body` (its continuation
    /// lines included).
    static func fill(_ message: inout ImportedMessage, body: String) {
        var body = Substring(body)
        while body.unicodeScalars.first == "\u{200E}" { body = body.dropFirst() }
        if let unedited = withoutEditMark(body) {
            body = unedited
            message.edited = true
        }
        let text = String(body)
        if let found = WhatsAppAttachment.find(text) {
            message.type = found.type
            message.media = found.media
            if let caption = found.caption, !caption.trimmingSpacesSubstring.isEmpty {
                message.text = WhatsAppText.markup(String(caption.trimmingSpacesSubstring))
            }
            return
        }
        // Notices, polls and locations are short: a long text is only text.
        guard text.utf8.count <= 4096 else {
            message.text = WhatsAppText.markup(text)
            return
        }
        let plain = String(text.unicodeScalars.filter { $0 != "\u{200E}" }).trimmingSpacesSubstring
        let sentence = plain.hasSuffix(".") ? plain.dropLast() : plain
        if deletedNotices.contains(String(sentence)) {
            message.text = "🚫 " + ImportText.styled(String(sentence), marker: "_")
            return
        }
        if let poll = WhatsAppPoll.parse(text) {
            message.type = "poll"
            message.poll = poll
            return
        }
        if let shared = WhatsAppLocation.parse(String(plain)) {
            message.type = "location"
            message.location = shared.location
            message.text = shared.url
            return
        }
        message.text = WhatsAppText.markup(text)
    }

    /// What WhatsApp writes for a deleted message (its own or someone
    /// else's), without the final full stop. Such a message stays a text
    /// message (a class of its own would only be shown as unsupported), its
    /// wording in italics after 🚫.
    static let deletedNotices: Set<String> = [
        "This message was deleted", "You deleted this message",
        "Se eliminó este mensaje", "Eliminaste este mensaje", "Este mensaje fue eliminado",
        "Diese Nachricht wurde gelöscht", "Du hast diese Nachricht gelöscht",
        "Ce message a été supprimé", "Vous avez supprimé ce message",
    ]

    /// What Android puts after an edited message.
    private static let editMarks = [
        "<This message was edited>", "<Se editó este mensaje.>", "<Se editó este mensaje>",
        "<Diese Nachricht wurde bearbeitet>", "<Ce message a été modifié>",
    ]

    /// `body` without its edit mark, or nil when it has none.
    private static func withoutEditMark(_ body: Substring) -> Substring? {
        let trimmed = body.trimmingSpacesSubstring
        for mark in editMarks where trimmed.hasSuffix(mark) {
            return trimmed.dropLast(mark.count).trimmingSpacesSubstring
        }
        return nil
    }
}

/// WhatsApp's text formatting as CellHost markup.
enum WhatsAppText {
    /// `*bold*` and `_italic_` are written the same way in both and are kept;
    /// WhatsApp's ```` ```monospace``` ```` becomes `` `code` ``; a backslash
    /// that CellHost would read as an escape (before a marker or another
    /// backslash) is doubled, since WhatsApp has no escapes. `~strike~` has
    /// no CellHost form and stays as written.
    static func markup(_ text: String) -> String {
        var text = text
        if text.contains("```") { text = text.replacing("```", with: "`") }
        guard text.contains("\\") else { return text }
        let scalars = Array(text.unicodeScalars)
        var result = String.UnicodeScalarView()
        for (index, scalar) in scalars.enumerated() {
            result.append(scalar)
            if scalar == "\\", index + 1 < scalars.count, "*_`\\".unicodeScalars.contains(scalars[index + 1]) {
                result.append("\\")
            }
        }
        return String(result)
    }
}

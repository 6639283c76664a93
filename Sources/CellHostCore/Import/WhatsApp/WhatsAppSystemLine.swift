/// WhatsApp's lines about the chat rather than from someone in it: the
/// encryption notice, members added, leaving, the subject changed, calls.
///
/// Android writes them with no sender (`… - Alice added Bob`); iOS with the
/// chat's name as the sender and a U+200E mark before the text (`[…] Trip:
/// ‎Alice added Bob`). A known line is recognised by its wording (English,
/// and the commonest Spanish and German ones); a name in it never contains
/// `": "`, so `Bob: Alice left` stays a message from Bob.
enum WhatsAppSystemLine {
    /// The `system.event` of a known system line, or nil.
    ///
    /// Events: `notice` (encryption, security code, anything else),
    /// `created`, `added`, `removed`, `joined`, `left`, `subject`,
    /// `description`, `icon`, `number`, `admin`, `pin` and `call`.
    static func event(_ text: String) -> String? {
        // System lines are one short sentence.
        guard text.utf8.count <= 1024 else { return nil }
        if notices.contains(where: { text.hasPrefix($0) }) { return "notice" }
        if text.hasPrefix("You're now an admin") { return "admin" }
        for phrase in encryption {
            if let range = text.firstRange(of: phrase), !text[..<range.lowerBound].contains(": ") { return "notice" }
        }
        if calls.contains(where: { text.hasPrefix($0) }) { return "call" }
        // The phrase that comes first names the event: `Alice changed the
        // subject to "Bob added sugar"` is a subject change.
        var first: (event: String, at: String.Index)?
        for (event, phrases) in actions {
            for phrase in phrases {
                guard let range = text.firstRange(of: phrase), first.map({ range.lowerBound < $0.at }) ?? true,
                      isName(text[..<range.lowerBound]) else { continue }
                first = (event, range.lowerBound)
            }
        }
        if let first { return first.event }
        for (event, suffixes) in endings {
            for suffix in suffixes where text.hasSuffix(suffix) {
                if isName(text.dropLast(suffix.count)) { return event }
            }
        }
        return nil
    }

    /// A name as system lines write it (`Alice`, `You`, `+1 555 0100`): not
    /// empty, not too long, with no `": "` (which would make the line a
    /// message from whoever is before it) and no quotation mark.
    private static func isName(_ text: Substring) -> Bool {
        !text.isEmpty && text.utf8.count <= 256 && !text.contains(": ") && !text.contains("\n")
            && !text.contains(where: { WhatsAppSender.quotes.contains($0) })
    }

    /// Phrases of the end-to-end encryption notice, in several languages.
    private static let encryption = [
        "end-to-end encrypted", "end-to-end encryption", "cifrados de extremo a extremo",
        "Ende-zu-Ende-verschlüsselt", "chiffrés de bout en bout", "criptografia de ponta a ponta",
    ]

    /// Notices that start the line.
    private static let notices = [
        "Your security code with ", "Security code changed", "This chat is with a business account",
        "You blocked this contact", "You unblocked this contact",
        "Disappearing messages", "This message was deleted by admin",
    ]

    /// Call lines (iOS puts them in the chat as lines from the caller).
    private static let calls = [
        "Missed voice call", "Missed video call", "Missed group voice call", "Missed group video call",
        "Voice call", "Video call", "Llamada perdida", "Verpasster Sprachanruf", "Verpasster Videoanruf",
    ]

    /// `NAME phrase …`: the event, and the phrases after the actor's name.
    private static let actions: [(String, [String])] = [
        ("created", [" created group ", " created this group", " creó el grupo ", " hat die Gruppe „"]),
        ("added", [" added ", " añadió a ", " agregó a "]),
        ("removed", [" removed ", " eliminó a "]),
        ("subject", [" changed the subject ", " changed the group name ", " cambió el asunto ", " hat den Betreff ", " changed this group's name"]),
        ("description", [" changed the group description", " deleted the group description", " cambió la descripción del grupo"]),
        ("icon", [" changed this group's icon", " deleted this group's icon", " changed the group photo", " cambió el ícono de este grupo"]),
        ("number", [" changed their phone number", " changed to ", " cambió su número"]),
        ("joined", [" joined using this group's invite link", " joined using an invite link", " se unió usando el enlace de invitación"]),
        ("pin", [" pinned a message"]),
        ("admin", [" made you an admin", " changed this group's settings", " changed the settings"]),
    ]

    /// `NAME suffix`: the event, and the whole rest of the line after the name.
    private static let endings: [(String, [String])] = [
        ("left", [" left", " salió del grupo", " salió", " hat die Gruppe verlassen"]),
        ("added", [" hinzugefügt", " hinzugefügt."]),
        ("removed", [" entfernt", " entfernt."]),
        ("joined", [" joined", " joined the group"]),
    ]
}

/// Who a WhatsApp line is from: the name before the first `": "` after the
/// header, or no one (a system line).
///
/// The rule, and its limits: a sender's name never contains `": "` nor a
/// quotation mark, and system lines are known by their wording
/// (`WhatsAppSystemLine`). An Android line is a system line when its
/// wording is known or when it has no `": "` after a possible name; an iOS
/// line is one when the text after its sender (the chat's name) starts with a
/// U+200E mark and its wording is known. A system line in another language
/// that has a `": "` in it (a subject with a colon) is read as a message from
/// the words before the colon.
enum WhatsAppSender {
    enum Parts: Equatable {
        /// A message from `name`, with its text.
        case message(name: String, body: String)
        /// A line about the chat.
        case system(event: String, text: String)
        /// A call, which iOS writes as a line from the caller.
        case call(name: String, text: String)
    }

    /// Splits the rest of a line after its header (`rest`, continuation
    /// lines included); `bracketed` says it is an iOS line.
    static func split(_ rest: String, bracketed: Bool) -> Parts {
        var rest = Substring(rest)
        while rest.unicodeScalars.first == "\u{200E}" { rest = rest.dropFirst() }
        let author = self.author(rest)
        if bracketed, let (name, body) = author {
            var text = body
            if text.unicodeScalars.first == "\u{200E}" {
                while text.unicodeScalars.first == "\u{200E}" { text = text.dropFirst() }
                if let event = WhatsAppSystemLine.event(String(text)) {
                    return event == "call" ? .call(name: name, text: String(text)) : .system(event: event, text: String(text))
                }
            }
            return .message(name: name, body: String(body))
        }
        if let event = WhatsAppSystemLine.event(String(rest)) { return .system(event: event, text: String(rest)) }
        if let (name, body) = author { return .message(name: name, body: String(body)) }
        return .system(event: "notice", text: String(rest))
    }

    /// The sender's name (cleaned) and the text after `": "` in the first line, when
    /// what is before it can be a name.
    private static func author(_ rest: Substring) -> (String, Substring)? {
        let firstLine = rest.prefix { $0 != "\n" }
        let nameEnd: Substring.Index
        let bodyStart: Substring.Index
        if let colon = firstLine.firstRange(of: ": ") {
            (nameEnd, bodyStart) = (colon.lowerBound, colon.upperBound)
        } else if firstLine.hasSuffix(":"), firstLine.count > 1 {
            // `Alice:` with the text on the next lines.
            nameEnd = firstLine.index(before: firstLine.endIndex)
            bodyStart = firstLine.endIndex < rest.endIndex ? rest.index(after: firstLine.endIndex) : rest.endIndex
        } else {
            return nil
        }
        let raw = rest[..<nameEnd]
        guard raw.utf8.count <= 256, !raw.contains(where: { quotes.contains($0) }) else { return nil }
        let name = clean(raw)
        guard !name.isEmpty else { return nil }
        return (name, rest[bodyStart...])
    }

    /// Quotation marks, which names do not have and subjects in system lines do.
    static let quotes: Set<Character> = ["\"", "“", "”", "„", "«", "»"]

    /// A name without the invisible direction marks WhatsApp puts around
    /// phone numbers (U+200E, U+200F, U+202A–U+202E, U+2066–U+2069), so
    /// `--me "+1 555 0100"` matches it.
    static func clean(_ name: Substring) -> String {
        var scalars = String.UnicodeScalarView()
        scalars.append(contentsOf: name.unicodeScalars.filter { scalar in
            !(scalar == "\u{200E}" || scalar == "\u{200F}" || (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value))
        })
        return String(String(scalars).trimmingSpacesSubstring)
    }
}

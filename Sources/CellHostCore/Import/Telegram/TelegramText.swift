/// A Telegram message text as CellHost markup.
///
/// Telegram writes `text` either as a string or as an array of plain strings
/// and entity objects (`{"type":"bold","text":"…"}`), and, in newer exports,
/// the same entities again as `text_entities` (objects only, plain runs as
/// `{"type":"plain"}`); `text_entities` is read when present.
///
/// Bold becomes `*…*`, italic `_…_`, code and pre `` `…` ``; a `text_link`
/// becomes "label (href)" (the address alone when the label is the
/// address). Every other entity keeps its text as literal text: mentions,
/// hashtags, links and the like read the same, underline and strikethrough
/// have no terminal style in the ABI (the text is kept, the style dropped),
/// spoilers are shown (a transcript is for reading), a custom emoji is its
/// fallback emoji, and an entity type this importer does not know is its
/// text. A style whose markers would touch a letter or digit on either side
/// (`**Hel**lo`) could not be read as markup, so that part stays unstyled.
enum TelegramText {
    /// One piece of a text: literal text, or text in a markup style.
    private struct Part {
        var text: String
        /// `*`, `_` or `` ` ``; nil for literal text.
        var marker: Character?
    }

    /// The markup of a message's text: `text_entities` when it is an array,
    /// else `text`; nil when there is none or it is empty.
    static func markup(of message: TelegramNode) -> String? {
        let source = message["text_entities"].flatMap { $0.isArray ? $0 : nil } ?? message["text"]
        guard let source else { return nil }
        let text = markup(source)
        return text.isEmpty ? nil : text
    }

    /// The markup of a `text`-like value: a string, or an array of strings and entities.
    static func markup(_ value: TelegramNode) -> String {
        if let text = value.string { return ImportText.escaped(text) }
        guard value.isArray else { return "" }
        var parts: [Part] = []
        for element in value.elements {
            if let text = element.string {
                append(Part(text: text, marker: nil), to: &parts)
            } else if element.isObject {
                append(part(of: element), to: &parts)
            }
        }
        return render(parts)
    }

    /// The plain text of a `text`-like value (poll questions and answers,
    /// which are shown as they are, not as markup).
    static func plain(_ value: TelegramNode) -> String {
        if let text = value.string { return text }
        guard value.isArray else { return "" }
        var result = ""
        for element in value.elements {
            if let text = element.string { result += text } else if let text = element["text"]?.string { result += text }
        }
        return result
    }

    private static func part(of entity: TelegramNode) -> Part {
        let text = entity["text"]?.string ?? ""
        switch entity["type"]?.string ?? "" {
        case "bold": return Part(text: text, marker: "*")
        case "italic": return Part(text: text, marker: "_")
        case "code", "pre": return Part(text: text, marker: "`")
        case "text_link":
            guard let href = entity["href"]?.nonEmptyString, href != text else { return Part(text: text, marker: nil) }
            return Part(text: text.isEmpty ? href : "\(text) (\(href))", marker: nil)
        default:
            return Part(text: text, marker: nil)
        }
    }

    /// Adds `part`, merging it with the one before when both are in the same
    /// style (literal runs are escaped as one, so a marker between two of
    /// them is judged by its real neighbours; `*a**b*` would not be markup).
    private static func append(_ part: Part, to parts: inout [Part]) {
        guard !part.text.isEmpty else { return }
        if let last = parts.last, last.marker == part.marker {
            parts[parts.count - 1].text += part.text
        } else {
            parts.append(part)
        }
    }

    private static func render(_ parts: [Part]) -> String {
        // Styles that could not be read as markup become literal text first.
        var settled: [Part] = []
        for (index, part) in parts.enumerated() {
            var part = part
            if part.marker != nil {
                let before = index > 0 ? parts[index - 1].text.unicodeScalars.last : nil
                let after = index + 1 < parts.count ? parts[index + 1].text.unicodeScalars.first : nil
                let first = part.text.unicodeScalars.first
                let last = part.text.unicodeScalars.last
                let opens = first.map { $0.properties.isWhitespace } == true || !ImportText.isWord(before)
                let closes = last.map { $0.properties.isWhitespace } == true || !ImportText.isWord(after)
                if !(opens && closes) { part.marker = nil }
            }
            append(part, to: &settled)
        }
        var result = ""
        for part in settled {
            if let marker = part.marker {
                result += ImportText.styled(part.text, marker: marker)
            } else {
                result += ImportText.escaped(part.text)
            }
        }
        return result
    }
}

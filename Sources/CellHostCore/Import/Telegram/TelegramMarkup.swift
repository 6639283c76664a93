/// CellHost markup for literal text that keeps its links working.
///
/// `ImportText.escaped` puts a backslash before a marker at a word boundary;
/// inside a URL the markup parser takes a backslash literally, so an escaped
/// `https://example.org/_next` would no longer be the address it was. Here
/// the URLs the parser will recognise (`http://` or `https://` at a word
/// boundary, up to whitespace, minus the trailing punctuation it trims) are
/// left exactly as they are and only the text around them is escaped.
enum TelegramMarkup {
    /// `text` as literal markup text.
    static func literal(_ text: String) -> String {
        guard text.utf8.contains(UInt8(ascii: ":")) else { return ImportText.escaped(text) }
        let scalars = Array(text.unicodeScalars)
        var result = ""
        var plainStart = 0
        var index = 0
        while index < scalars.count {
            if let end = urlEnd(scalars, at: index) {
                result += ImportText.escaped(string(scalars[plainStart..<index]))
                result += string(scalars[index..<end])
                index = end
                plainStart = end
            } else {
                index += 1
            }
        }
        result += ImportText.escaped(string(scalars[plainStart..<scalars.count]))
        return result
    }

    /// `text` wrapped in `marker` (`*` strong, `_` emphasis), literal inside,
    /// its leading and trailing spaces outside the pair. Blank text is
    /// returned as literal text.
    static func styled(_ text: String, marker: Character) -> String {
        let parts = text.trimmingSpaces
        guard !parts.core.isEmpty else { return literal(text) }
        if marker == "`" { return ImportText.styled(text, marker: "`") }
        return parts.leading + String(marker) + literal(parts.core) + String(marker) + parts.trailing
    }

    /// True for a character the markup counts as part of a word (markers
    /// next to one do not open or close a span).
    static func isWord(_ scalar: Unicode.Scalar?) -> Bool {
        guard let scalar else { return false }
        return scalar.properties.isAlphabetic || scalar.properties.numericType != nil
    }

    // MARK: URLs, as the markup parser finds them

    private static func string(_ scalars: ArraySlice<Unicode.Scalar>) -> String {
        var view = String.UnicodeScalarView()
        view.append(contentsOf: scalars)
        return String(view)
    }

    private static func matches(_ scalars: [Unicode.Scalar], _ index: Int, _ scheme: String) -> Bool {
        var position = index
        for expected in scheme.unicodeScalars {
            guard position < scalars.count else { return false }
            var value = scalars[position].value
            if value >= 0x41 && value <= 0x5A { value |= 0x20 }
            guard value == expected.value else { return false }
            position += 1
        }
        return true
    }

    /// The end (exclusive) of a URL starting at `index`, or nil.
    private static func urlEnd(_ scalars: [Unicode.Scalar], at index: Int) -> Int? {
        let first = scalars[index]
        guard first == "h" || first == "H", !isWord(index > 0 ? scalars[index - 1] : nil) else { return nil }
        let schemeLength = matches(scalars, index, "https://") ? 8 : matches(scalars, index, "http://") ? 7 : 0
        guard schemeLength > 0 else { return nil }
        let start = index + schemeLength
        var end = start
        var opened: [Unicode.Scalar: Int] = [:]
        while end < scalars.count, !scalars[end].properties.isWhitespace {
            if "()[]{}<>".unicodeScalars.contains(scalars[end]) { opened[scalars[end], default: 0] += 1 }
            end += 1
        }
        let partners: [Unicode.Scalar: Unicode.Scalar] = [")": "(", "]": "[", "}": "{", ">": "<"]
        while end > start {
            let last = scalars[end - 1]
            let unbalanced = partners[last].map { opened[last, default: 0] > opened[$0, default: 0] } ?? false
            guard isTrailingPunctuation(last) || unbalanced else { break }
            if partners[last] != nil { opened[last, default: 0] -= 1 }
            end -= 1
        }
        return end > start ? end : nil
    }

    private static func isTrailingPunctuation(_ scalar: Unicode.Scalar) -> Bool {
        ".,;:!?'\"*_`。、，！？…".unicodeScalars.contains(scalar)
    }
}

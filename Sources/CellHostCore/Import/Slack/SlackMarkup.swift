import Glibc

/// Reads Slack's message text (mrkdwn with `<…>` entities) into CellHost markup.
///
/// - `<@U123>` → `@display name` (from users.json), `<@U123|name>` → `@name`;
///   `<#C123|general>` → `#general`; `<!here>`, `<!channel>`, `<!everyone>` →
///   `@here`, …; `<!subteam^S1|@team>` → `@team`; `<!date^…|fallback>` → the
///   fallback; `<https://x|label>` → `label (https://x)`; `<https://x>` and
///   `<mailto:a@b|a@b>` → the address.
/// - `*bold*` → `*bold*`, `_it_` → `_it_`, `~strike~` → its text (CellHost
///   has no strike style), `` `code` `` and ```` ``` ```` blocks → code, line by
///   line; `&gt; quote` lines → `│ quote`.
/// - `:shortcode:` → the emoji, for the names `SlackEmoji` knows.
/// - `&amp;`, `&lt;`, `&gt;` are decoded; everything else is literal text.
///
/// Styles do not span lines (as in Slack); a marker without its partner is
/// literal; searches remember their failures, so hostile text stays linear.
struct SlackMarkup {
    /// Display names by user id.
    var users: [String: String] = [:]
    /// Channel names by id.
    var channels: [String: String] = [:]

    /// Text longer than this (in scalars) is not read for styles.
    static let styledLimit = 40_000

    func markup(_ text: String) -> String { MarkupNode.render(nodes(text)) }

    func nodes(_ text: String) -> [MarkupNode] {
        var reader = SlackMarkupReader(text, names: self)
        return reader.document()
    }
}

/// One pass of `SlackMarkup` over a text.
private struct SlackMarkupReader {
    /// The text's scalars, `&amp;` `&lt;` `&gt;` decoded…
    var s: [Unicode.Scalar] = []
    /// …and which of them came from such an entity (always literal).
    var decoded: [Bool] = []
    let names: SlackMarkup
    let styles: Bool
    var noCloser: [Unicode.Scalar: (from: Int, end: Int)] = [:]

    init(_ text: String, names: SlackMarkup) {
        self.names = names
        let raw = Array(text.unicodeScalars)
        s.reserveCapacity(raw.count)
        var i = 0
        while i < raw.count {
            if raw[i] == "&" {
                let replacements: [(String, Unicode.Scalar)] = [("&amp;", "&"), ("&lt;", "<"), ("&gt;", ">")]
                if let (entity, scalar) = replacements.first(where: { Self.matches($0.0, raw, at: i) }) {
                    s.append(scalar)
                    decoded.append(true)
                    i += entity.unicodeScalars.count
                    continue
                }
            }
            s.append(raw[i])
            decoded.append(false)
            i += 1
        }
        styles = s.count <= SlackMarkup.styledLimit
    }

    static func matches(_ word: String, _ raw: [Unicode.Scalar], at i: Int) -> Bool {
        var j = i
        for scalar in word.unicodeScalars {
            guard j < raw.count, raw[j] == scalar else { return false }
            j += 1
        }
        return true
    }

    func isMarker(_ i: Int, _ scalar: Unicode.Scalar) -> Bool { s[i] == scalar && !decoded[i] }

    // MARK: Blocks

    mutating func document() -> [MarkupNode] {
        var out: [MarkupNode] = []
        var position = 0
        var search = 0
        while let open = fence(from: search), let close = fence(from: open + 3) {
            lines(position..<open, into: &out)
            codeBlock((open + 3)..<close, into: &out)
            position = close + 3
            search = position
        }
        lines(position..<s.count, into: &out)
        return out
    }

    func fence(from: Int) -> Int? {
        var j = from
        while j + 3 <= s.count {
            if isMarker(j, "`"), isMarker(j + 1, "`"), isMarker(j + 2, "`") { return j }
            j += 1
        }
        return nil
    }

    func codeBlock(_ range: Range<Int>, into out: inout [MarkupNode]) {
        var lines = text(range).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.count > 1, lines.first?.trimmingSpaces.core.isEmpty == true { lines.removeFirst() }
        if lines.count > 1, lines.last?.trimmingSpaces.core.isEmpty == true { lines.removeLast() }
        let multiline = lines.count > 1
        if multiline, range.lowerBound > 3, s[range.lowerBound - 4] != "\n" { out.append(.text("\n")) }
        for (index, line) in lines.enumerated() {
            if index > 0 { out.append(.text("\n")) }
            let parts = line.trimmingSpaces
            if !parts.core.isEmpty {
                out.append(.text(parts.leading))
                out.append(.code(parts.core))
            }
        }
        if multiline, range.upperBound + 3 < s.count, s[range.upperBound + 3] != "\n" { out.append(.text("\n")) }
    }

    mutating func lines(_ range: Range<Int>, into out: inout [MarkupNode]) {
        guard !range.isEmpty else { return }
        var start = range.lowerBound
        while start <= range.upperBound {
            var end = start
            while end < range.upperBound, s[end] != "\n" { end += 1 }
            var lineStart = start
            if styles, start == 0 || s[start - 1] == "\n", lineStart < end, s[lineStart] == ">" {
                lineStart += 1
                if lineStart < end, s[lineStart] == " " { lineStart += 1 }
                out.append(.text("│ "))
            }
            out.append(contentsOf: inline(lineStart..<end))
            if end < range.upperBound { out.append(.text("\n")) }
            start = end + 1
        }
    }

    // MARK: Inline

    mutating func inline(_ range: Range<Int>, depth: Int = 0) -> [MarkupNode] {
        var out: [MarkupNode] = []
        var literal = String.UnicodeScalarView()
        func flush() {
            if !literal.isEmpty { out.append(.text(String(literal))); literal = String.UnicodeScalarView() }
        }
        var i = range.lowerBound
        let end = range.upperBound
        while i < end {
            let c = s[i]
            if decoded[i] {
                literal.append(c)
                i += 1
                continue
            }
            if c == "`", let close = next("`", from: i + 1, end: end), close > i + 1 {
                flush()
                out.append(.code(text((i + 1)..<close)))
                i = close + 1
                continue
            }
            if c == "<", let (nodes, after) = entity(at: i, end: end) {
                flush()
                out.append(contentsOf: nodes)
                i = after
                continue
            }
            if c == "h", i == range.lowerBound || !Self.isWord(s[i - 1]), let after = urlEnd(at: i, end: end) {
                flush()
                out.append(.verbatim(text(i..<after)))
                i = after
                continue
            }
            if c == ":", let (emoji, after) = shortcode(at: i, end: end) {
                literal.append(contentsOf: emoji.unicodeScalars)
                i = after
                continue
            }
            if styles, depth < 4, c == "*" || c == "_" || c == "~", let (nodes, after) = styled(at: i, range: range, depth: depth) {
                flush()
                out.append(contentsOf: nodes)
                i = after
                continue
            }
            literal.append(c)
            i += 1
        }
        flush()
        return out
    }

    /// `*bold*`, `_italic_`, `~strike~`: the opener at a word boundary before
    /// a non-space, the closer after a non-space before a non-word character.
    mutating func styled(at i: Int, range: Range<Int>, depth: Int) -> ([MarkupNode], Int)? {
        let marker = s[i]
        guard i == range.lowerBound || !(Self.isWord(s[i - 1]) || s[i - 1] == marker),
              i + 1 < range.upperBound, !s[i + 1].properties.isWhitespace, s[i + 1] != marker else { return nil }
        let from = i + 2
        if let known = noCloser[marker], from >= known.from, range.upperBound <= known.end { return nil }
        var j = from
        while j < range.upperBound {
            if isMarker(j, marker), !s[j - 1].properties.isWhitespace,
               j + 1 >= s.count || !(Self.isWord(s[j + 1]) || s[j + 1] == marker) {
                let inner = inline((i + 1)..<j, depth: depth + 1)
                switch marker {
                case "*": return ([.strong(inner)], j + 1)
                case "_": return ([.emphasis(inner)], j + 1)
                default: return (inner, j + 1)
                }
            }
            j += 1
        }
        noCloser[marker] = (from, range.upperBound)
        return nil
    }

    /// `<…>`: mentions, channels, special mentions, links.
    func entity(at i: Int, end: Int) -> ([MarkupNode], Int)? {
        var close = i + 1
        while close < end, close - i < 2048, s[close] != "\n", s[close] != ">" || decoded[close] {
            if s[close] == "<", !decoded[close] { return nil }
            close += 1
        }
        guard close < end, s[close] == ">", !decoded[close], close > i + 1 else { return nil }
        let body = text((i + 1)..<close)
        let after = close + 1
        var target = Substring(body)
        var label: Substring?
        if let bar = body.firstIndex(of: "|") {
            target = body[..<bar]
            label = body[body.index(after: bar)...]
            if label?.isEmpty == true { label = nil }
        }
        if target.hasPrefix("@") {
            let id = String(target.dropFirst())
            let name = label.map(String.init) ?? names.users[id] ?? id
            return ([.text("@" + name)], after)
        }
        if target.hasPrefix("#") {
            let id = String(target.dropFirst())
            let name = label.map(String.init) ?? names.channels[id] ?? id
            return ([.text("#" + name)], after)
        }
        if target.hasPrefix("!") {
            let command = target.dropFirst()
            if let label { return ([.text(label.hasPrefix("@") || command.hasPrefix("date") ? String(label) : "@" + label)], after) }
            if command.hasPrefix("subteam^") { return ([.text("@group")], after) }
            if command.hasPrefix("date^") {
                let parts = command.split(separator: "^")
                if parts.count > 1, let seconds = Int64(parts[1]), let formatted = DiscordMarkdown.formatTime(seconds, style: nil) {
                    return ([.text(formatted)], after)
                }
                return nil
            }
            return ([.text("@" + command)], after)
        }
        if target.hasPrefix("mailto:") {
            let address = String(target.dropFirst(7))
            if let label, label != address { return ([.text("\(label) (\(address))")], after) }
            return ([.text(address)], after)
        }
        guard target.contains(":"), !target.contains(" ") else { return nil }
        let url = String(target)
        if let label, label != url {
            return ([.text(String(label) + " ("), .verbatim(url), .text(")")], after)
        }
        return ([.verbatim(url)], after)
    }

    /// `:name:` for a name the emoji table knows (`:+1::skin-tone-2:` too).
    func shortcode(at i: Int, end: Int) -> (String, Int)? {
        var j = i + 1
        while j < end, j - i < 64 {
            if s[j] == ":" {
                guard Self.matches("::skin-tone-", s, at: j) else { break }
                j += 2
                continue
            }
            guard s[j].isASCII, Self.isWord(s[j]) || "+-_".unicodeScalars.contains(s[j]) else { return nil }
            j += 1
        }
        guard j < end, s[j] == ":", j > i + 1, let emoji = SlackEmoji.known(text((i + 1)..<j)) else { return nil }
        return (emoji, j + 1)
    }

    func urlEnd(at i: Int, end: Int) -> Int? {
        guard Self.matches("https://", s, at: i) || Self.matches("http://", s, at: i) else { return nil }
        var j = i
        while j < end, !s[j].properties.isWhitespace, !(s[j] == "<" || s[j] == ">") { j += 1 }
        while j > i, ".,;:!?'\"*_~)]".unicodeScalars.contains(s[j - 1]) { j -= 1 }
        return j > i + 8 ? j : nil
    }

    /// The next undecoded `scalar` in `from..<end`.
    func next(_ scalar: Unicode.Scalar, from: Int, end: Int) -> Int? {
        var j = from
        while j < end {
            if s[j] == scalar, !decoded[j] { return j }
            if s[j] == "\n" { return nil }
            j += 1
        }
        return nil
    }

    func text(_ range: Range<Int>) -> String {
        var view = String.UnicodeScalarView()
        view.append(contentsOf: s[range])
        return String(view)
    }

    static func isWord(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.isAlphabetic || scalar.properties.numericType != nil
    }
}

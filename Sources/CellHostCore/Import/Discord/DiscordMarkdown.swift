import Glibc

/// Reads Discord's markdown (as DiscordChatExporter writes message content)
/// into CellHost markup.
///
/// - `**bold**` → `*bold*`; `*it*` and `_it_` → `_it_`; `***both***` → both.
///   A single `*` or `_` inside a word (`2*3*4`, `snake_case`) is literal.
/// - `__underline__`, `~~strike~~` → their text, unstyled (CellHost has
///   neither style); `||spoiler||` → `[spoiler: text]` (a terminal cannot
///   hide text until clicked, so it is shown, marked).
/// - `` `code` `` and fenced ```` ``` ```` blocks → code, line by line (the
///   block's language line is dropped).
/// - `> quote` and `>>> quote to the end` → lines starting with `│ `;
///   `# heading` → a bold line; `-# subtext` → plain; `- item` → `• item`.
/// - `<@id>` → `@name` (from the message's `mentions`), `<#id>` → `#name`
///   (the exported channel) or `#id`, `<@&id>` → `@role`, `<:name:id>` →
///   `:name:`, `<t:seconds:style>` → the local date and time, `</cmd:id>` →
///   `/cmd`, `<https://…>` and `[label](https://…)` → the URL (after the label).
/// - `\*` and other backslash escapes → the literal character.
///
/// Everything else is literal text. The reader is tolerant: a marker without
/// its partner is literal, nothing traps, and the work is linear in practice
/// (styles nest at most `depthLimit` deep; text longer than `styledLimit` is
/// read for mentions and links only).
struct DiscordMarkdown {
    /// Display names by user id, for `<@id>`.
    var users: [String: String] = [:]
    /// Channel names by id, for `<#id>`.
    var channels: [String: String] = [:]

    /// Content longer than this (in scalars) is not read for styles.
    static let styledLimit = 10_000
    /// How deep styles nest before inner markers are read literally.
    static let depthLimit = 8

    /// `content` as CellHost markup.
    func markup(_ content: String) -> String { MarkupNode.render(nodes(content)) }

    /// `content` as a markup tree.
    func nodes(_ content: String) -> [MarkupNode] {
        var reader = DiscordMarkdownReader(scalars: Array(content.unicodeScalars), names: self)
        return reader.document()
    }

    /// A `<t:…>` time in the run's time zone: `t` → `HH:MM`, `T` → `HH:MM:SS`,
    /// `d`/`D` → the date, anything else → date and time.
    static func formatTime(_ seconds: Int64, style: Unicode.Scalar?) -> String? {
        guard seconds > -62_135_596_800, seconds < 253_402_300_800 else { return nil }
        var time = time_t(seconds)
        var parts = tm()
        guard localtime_r(&time, &parts) != nil else { return nil }
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let year = Int(parts.tm_year) + 1900
        var yearText = String(year)
        while yearText.count < 4 { yearText = "0" + yearText }
        let date = "\(yearText)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))"
        let clock = "\(two(parts.tm_hour)):\(two(parts.tm_min))"
        switch style {
        case "t": return clock
        case "T": return clock + ":" + two(parts.tm_sec)
        case "d", "D": return date
        default: return date + " " + clock
        }
    }
}

/// One pass of `DiscordMarkdown` over a message's content.
private struct DiscordMarkdownReader {
    let s: [Unicode.Scalar]
    let names: DiscordMarkdown
    let styles: Bool
    /// Per delimiter, a range known to hold no closer: searches inside it fail at once.
    var noCloser: [String: (from: Int, end: Int)] = [:]

    init(scalars: [Unicode.Scalar], names: DiscordMarkdown) {
        s = scalars
        self.names = names
        styles = scalars.count <= DiscordMarkdown.styledLimit
    }

    // MARK: Blocks

    /// The whole content: fenced code blocks, and lines of text between them.
    mutating func document() -> [MarkupNode] {
        var out: [MarkupNode] = []
        var quoteAll = false
        var position = 0
        for block in codeBlocks() {
            lines(position..<block.lowerBound - 3, quoteAll: &quoteAll, into: &out)
            codeBlock(block, into: &out)
            position = block.upperBound + 3
        }
        lines(position..<s.count, quoteAll: &quoteAll, into: &out)
        return out
    }

    /// The contents of fenced blocks that span lines (```` ```…``` ````), in order.
    func codeBlocks() -> [Range<Int>] {
        var blocks: [Range<Int>] = []
        var index = 0
        while let open = find("```", from: index, end: s.count) {
            guard let close = find("```", from: open + 3, end: s.count) else { break }
            if s[(open + 3)..<close].contains("\n") { blocks.append((open + 3)..<close) }
            index = close + 3
        }
        return blocks
    }

    /// A code block on lines of its own, each line a code span.
    func codeBlock(_ range: Range<Int>, into out: inout [MarkupNode]) {
        var lines = text(range).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        // ```swift\n…: the first line names the language.
        if let first = lines.first, lines.count > 1,
           first.isEmpty || first.unicodeScalars.allSatisfy({ $0.properties.isAlphabetic || "+#-_.0123456789".unicodeScalars.contains($0) }) {
            lines.removeFirst()
        }
        if lines.count > 1, lines.last?.trimmingSpaces.core.isEmpty == true { lines.removeLast() }
        if let last = Self.lastCharacter(out), last != "\n" { out.append(.text("\n")) }
        for (index, line) in lines.enumerated() {
            if index > 0 { out.append(.text("\n")) }
            let parts = line.trimmingSpaces
            if !parts.core.isEmpty {
                out.append(.text(parts.leading))
                out.append(.code(parts.core))
            }
        }
        if range.upperBound + 3 < s.count, s[range.upperBound + 3] != "\n" { out.append(.text("\n")) }
    }

    /// Lines of text: block prefixes (quotes, headings, lists), then inline markup.
    mutating func lines(_ range: Range<Int>, quoteAll: inout Bool, into out: inout [MarkupNode]) {
        guard !range.isEmpty else { return }
        var start = range.lowerBound
        while start <= range.upperBound {
            var end = start
            while end < range.upperBound, s[end] != "\n" { end += 1 }
            line(start..<end, quoteAll: &quoteAll, into: &out)
            if end < range.upperBound { out.append(.text("\n")) }
            start = end + 1
        }
    }

    mutating func line(_ range: Range<Int>, quoteAll: inout Bool, into out: inout [MarkupNode]) {
        var start = range.lowerBound
        if styles {
            if quoteAll {
                out.append(.text("│ "))
            } else if starts(">>> ", at: start, end: range.upperBound) {
                quoteAll = true
                out.append(.text("│ "))
                start += 4
            } else if starts("> ", at: start, end: range.upperBound) {
                out.append(.text("│ "))
                start += 2
            }
            let rest = start..<range.upperBound
            for prefix in ["### ", "## ", "# "] where starts(prefix, at: start, end: rest.upperBound) {
                out.append(.strong(inline((start + prefix.unicodeScalars.count)..<rest.upperBound, depth: 1)))
                return
            }
            if starts("-# ", at: start, end: rest.upperBound) {
                out.append(contentsOf: inline((start + 3)..<rest.upperBound, depth: 0))
                return
            }
            var indent = start
            while indent < rest.upperBound, s[indent] == " " { indent += 1 }
            if starts("- ", at: indent, end: rest.upperBound) || starts("* ", at: indent, end: rest.upperBound) {
                out.append(.text(String(repeating: " ", count: indent - start) + "• "))
                out.append(contentsOf: inline((indent + 2)..<rest.upperBound, depth: 0))
                return
            }
        }
        out.append(contentsOf: inline(start..<range.upperBound, depth: 0))
    }

    // MARK: Inline

    /// Inline markup in `range`: escapes, code, mentions and links, styles.
    mutating func inline(_ range: Range<Int>, depth: Int) -> [MarkupNode] {
        var out: [MarkupNode] = []
        var literal = String.UnicodeScalarView()
        func flush() {
            if !literal.isEmpty { out.append(.text(String(literal))); literal = String.UnicodeScalarView() }
        }
        var i = range.lowerBound
        let end = range.upperBound
        while i < end {
            let c = s[i]
            if c == "\\", i + 1 < end, s[i + 1].isASCII, s[i + 1].properties.isPatternSyntax || s[i + 1] == "_" {
                literal.append(s[i + 1])
                i += 2
                continue
            }
            if c == "`" {
                var run = i
                while run < end, s[run] == "`" { run += 1 }
                let count = run - i
                if let close = backtickRun(count, from: run, end: end) {
                    var content = text(run..<close)
                    if content.hasPrefix(" "), content.hasSuffix(" "), content.count > 2 { content = String(content.dropFirst().dropLast()) }
                    flush()
                    out.append(.code(content))
                    i = close + count
                } else {
                    literal.append(contentsOf: s[i..<run])
                    i = run
                }
                continue
            }
            if c == "<", let (nodes, next) = entity(at: i, end: end) {
                flush()
                out.append(contentsOf: nodes)
                i = next
                continue
            }
            if c == "h", i == range.lowerBound || !Self.isWord(s[i - 1]), let next = urlEnd(at: i, end: end) {
                flush()
                out.append(.verbatim(text(i..<next)))
                i = next
                continue
            }
            if c == "[", let (nodes, next) = maskedLink(at: i, end: end, depth: depth) {
                flush()
                out.append(contentsOf: nodes)
                i = next
                continue
            }
            if styles, depth < DiscordMarkdown.depthLimit, "*_~|".unicodeScalars.contains(c),
               let (nodes, next) = delimited(at: i, range: range, depth: depth) {
                flush()
                out.append(contentsOf: nodes)
                i = next
                continue
            }
            literal.append(c)
            i += 1
        }
        flush()
        return out
    }

    /// A styled run starting with the delimiter at `i`, and where it ends.
    mutating func delimited(at i: Int, range: Range<Int>, depth: Int) -> ([MarkupNode], Int)? {
        let end = range.upperBound
        func pair(_ delimiter: String) -> Range<Int>? {
            let width = delimiter.unicodeScalars.count
            guard starts(delimiter, at: i, end: end), i + width < end, !s[i + width].properties.isWhitespace,
                  let close = closer(delimiter, from: i + width + 1, end: end) else { return nil }
            return (i + width)..<close
        }
        switch s[i] {
        case "*":
            if let inner = pair("***") {
                return ([.strong([.emphasis(inline(inner, depth: depth + 2))])], inner.upperBound + 3)
            }
            if let inner = pair("**") { return ([.strong(inline(inner, depth: depth + 1))], inner.upperBound + 2) }
            // A single `*` inside a word (`2*3*4`) stays literal, as CellHost reads it.
            if i == 0 || !Self.isWord(s[i - 1]), let inner = pair("*") {
                return ([.emphasis(inline(inner, depth: depth + 1))], inner.upperBound + 1)
            }
        case "_":
            if let inner = pair("__") { return (inline(inner, depth: depth + 1), inner.upperBound + 2) }
            if i == 0 || !(Self.isWord(s[i - 1]) || s[i - 1] == "_"), let inner = pair("_") {
                return ([.emphasis(inline(inner, depth: depth + 1))], inner.upperBound + 1)
            }
        case "~":
            if let inner = pair("~~") { return (inline(inner, depth: depth + 1), inner.upperBound + 2) }
        case "|":
            if let inner = pair("||") {
                return ([.text("[spoiler: ")] + inline(inner, depth: depth + 1) + [.text("]")], inner.upperBound + 2)
            }
        default:
            break
        }
        return nil
    }

    /// The first valid closing `delimiter` at or after `from`: after a
    /// non-space; a single `*` or `_` not part of a pair, and before a
    /// non-word character. Remembers failures, so hostile text stays linear.
    mutating func closer(_ delimiter: String, from: Int, end: Int) -> Int? {
        if let known = noCloser[delimiter], from >= known.from, end <= known.end { return nil }
        let d = Array(delimiter.unicodeScalars)
        var j = from
        while j + d.count <= end {
            if s[j] == "\\" { j += 2; continue }
            if s[j] == d[0], starts(delimiter, at: j, end: end) {
                let single = d.count == 1
                if single, j + 1 < end, s[j + 1] == d[0] {
                    // `**` / `__` inside a single-marker span belongs to a nested span.
                    j += 2
                    continue
                }
                if !s[j - 1].properties.isWhitespace {
                    if d == ["_"] || d == ["*"] {
                        if j + 1 >= s.count || !(Self.isWord(s[j + 1]) || s[j + 1] == "_") { return j }
                    } else {
                        return j
                    }
                }
            }
            j += 1
        }
        noCloser[delimiter] = (from, end)
        return nil
    }

    /// The start of the next run of exactly `count` backticks after some
    /// text. Remembers failures, as `closer` does.
    mutating func backtickRun(_ count: Int, from: Int, end: Int) -> Int? {
        let key = "`\(count)"
        if let known = noCloser[key], from >= known.from, end <= known.end { return nil }
        var j = from
        while j < end {
            guard s[j] == "`" else { j += 1; continue }
            var run = j
            while run < end, s[run] == "`" { run += 1 }
            if run - j == count, j > from { return j }
            j = run
        }
        noCloser[key] = (from, end)
        return nil
    }

    /// `<@id>`, `<@!id>`, `<@&id>`, `<#id>`, `<:name:id>`, `<a:name:id>`,
    /// `<t:seconds[:style]>`, `</command:id>`, `<https://…>`.
    func entity(at i: Int, end: Int) -> ([MarkupNode], Int)? {
        var close = i + 1
        while close < end, close - i < 256, s[close] != ">", s[close] != "<", s[close] != "\n" { close += 1 }
        guard close < end, s[close] == ">", close > i + 1 else { return nil }
        let body = text((i + 1)..<close)
        let next = close + 1
        func digits(_ text: Substring) -> Bool { !text.isEmpty && text.unicodeScalars.allSatisfy { $0.isASCII && $0.properties.numericType != nil } }
        if body.hasPrefix("@&"), digits(body.dropFirst(2)) { return ([.text("@role")], next) }
        if body.hasPrefix("@!"), digits(body.dropFirst(2)) { return ([.text(userName(String(body.dropFirst(2))))], next) }
        if body.hasPrefix("@"), digits(body.dropFirst()) { return ([.text(userName(String(body.dropFirst())))], next) }
        if body.hasPrefix("#"), digits(body.dropFirst()) {
            let id = String(body.dropFirst())
            return ([.text("#" + (names.channels[id] ?? id))], next)
        }
        if body.hasPrefix("http://") || body.hasPrefix("https://"), !body.contains(" ") { return ([.verbatim(body)], next) }
        let parts = body.split(separator: ":", omittingEmptySubsequences: false)
        if parts.count == 3, parts[0].isEmpty || parts[0] == "a", !parts[1].isEmpty, digits(parts[2]) {
            return ([.text(":\(parts[1]):")], next)
        }
        if parts.count >= 2, parts.count <= 3, parts[0] == "t" {
            var number = Substring(parts[1])
            let negative = number.hasPrefix("-")
            if negative { number = number.dropFirst() }
            guard digits(number), number.count <= 15, let magnitude = Int64(number) else { return nil }
            let style = parts.count == 3 ? parts[2].unicodeScalars.first : nil
            guard let formatted = DiscordMarkdown.formatTime(negative ? -magnitude : magnitude, style: style) else { return nil }
            return ([.text(formatted)], next)
        }
        if body.hasPrefix("/"), parts.count == 2, digits(parts[1]), parts[0].count > 1 {
            return ([.text(String(parts[0]))], next)
        }
        return nil
    }

    func userName(_ id: String) -> String { "@" + (names.users[id] ?? id) }

    /// `[label](https://…)`: the label, then the URL in parentheses (just the
    /// URL when the label is the URL).
    mutating func maskedLink(at i: Int, end: Int, depth: Int) -> ([MarkupNode], Int)? {
        var close = i + 1
        while close < end, close - i < 512, s[close] != "]", s[close] != "\n", s[close] != "[" { close += 1 }
        guard close < end, s[close] == "]", close > i + 1, close + 1 < end, s[close + 1] == "(" else { return nil }
        let urlStart = close + 2
        var urlEnd = urlStart
        while urlEnd < end, urlEnd - urlStart < 2048, s[urlEnd] != ")", !s[urlEnd].properties.isWhitespace { urlEnd += 1 }
        guard urlEnd < end, s[urlEnd] == ")" else { return nil }
        let url = text(urlStart..<urlEnd)
        guard url.hasPrefix("http://") || url.hasPrefix("https://") else { return nil }
        let label = inline((i + 1)..<close, depth: depth + 1)
        if MarkupNode.plain(label) == url { return ([.verbatim(url)], urlEnd + 1) }
        return (label + [.text(" ("), .verbatim(url), .text(")")], urlEnd + 1)
    }

    /// The end of a bare `http(s)://` URL at `i`: up to whitespace, less the
    /// punctuation and markers that end a sentence or a style.
    func urlEnd(at i: Int, end: Int) -> Int? {
        guard starts("https://", at: i, end: end) || starts("http://", at: i, end: end) else { return nil }
        var j = i
        while j < end, !s[j].properties.isWhitespace, s[j] != "<", s[j] != ">" { j += 1 }
        var opened = 0
        var closed = 0
        for scalar in s[i..<j] {
            if scalar == "(" { opened += 1 } else if scalar == ")" { closed += 1 }
        }
        while j > i {
            let last = s[j - 1]
            if last == ")", closed > opened { closed -= 1; j -= 1; continue }
            guard ".,;:!?'\"*_~|]".unicodeScalars.contains(last) else { break }
            j -= 1
        }
        return j > i + 8 ? j : nil
    }

    // MARK: Helpers

    func starts(_ prefix: String, at i: Int, end: Int) -> Bool {
        var j = i
        for scalar in prefix.unicodeScalars {
            guard j < end, s[j] == scalar else { return false }
            j += 1
        }
        return true
    }

    func find(_ needle: String, from: Int, end: Int) -> Int? {
        var j = from
        while j < end {
            if starts(needle, at: j, end: end) { return j }
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

    static func lastCharacter(_ nodes: [MarkupNode]) -> Character? {
        for node in nodes.reversed() {
            switch node {
            case .text(let text), .verbatim(let text), .code(let text):
                if let last = text.last { return last }
            case .strong(let children), .emphasis(let children):
                if let last = lastCharacter(children) { return last }
            }
        }
        return nil
    }
}

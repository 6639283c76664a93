/// Formatted chat text on its way to CellHost markup: what the Discord
/// markdown and Slack mrkdwn readers produce, and the one place that spells
/// it with CellHost's markers.
///
/// Exports mark styles their own way (`**bold**`, `~strike~`, `<@U123>`); the
/// readers turn that into this small tree, and `MarkupNode.render` writes it
/// as CellHost markup: literal text escaped, a style wrapped in its marker
/// only where CellHost's rules let the marker open and close (at word
/// boundaries, around non-space text), otherwise left plain, so that a style
/// CellHost cannot express costs the style, never the text.
indirect enum MarkupNode {
    /// Literal text, escaped when written.
    case text(String)
    /// Text written as it is: a URL, which CellHost recognises before any
    /// markup, so a backslash in it would corrupt it.
    case verbatim(String)
    /// `*strong*`.
    case strong([MarkupNode])
    /// `_emphasis_`.
    case emphasis([MarkupNode])
    /// `` `code` `` (a backtick inside becomes `'`, which code cannot hold).
    case code(String)

    /// `nodes` as CellHost markup.
    static func render(_ nodes: [MarkupNode]) -> String {
        var renderer = MarkupRenderer()
        renderer.append(nodes, inside: [])
        return renderer.output
    }

    /// The text of `nodes` without any markup (for comparisons and names).
    static func plain(_ nodes: [MarkupNode]) -> String {
        var result = ""
        for node in nodes {
            switch node {
            case .text(let text), .verbatim(let text), .code(let text): result += text
            case .strong(let children), .emphasis(let children): result += plain(children)
            }
        }
        return result
    }

    /// The first character the node shows (for the boundary rules).
    var firstCharacter: Character? {
        switch self {
        case .text(let text), .verbatim(let text), .code(let text): return text.first
        case .strong(let children), .emphasis(let children): return children.lazy.compactMap(\.firstCharacter).first
        }
    }
}

/// Writes `MarkupNode`s as CellHost markup.
private struct MarkupRenderer {
    var output = ""

    /// Appends `nodes`; `inside` holds the markers already open around them
    /// (a style is not opened twice: CellHost pairs a marker with the first
    /// closer of its kind).
    mutating func append(_ nodes: [MarkupNode], inside: [Character]) {
        for (index, node) in nodes.enumerated() {
            let next = nodes[(index + 1)...].lazy.compactMap(\.firstCharacter).first
            switch node {
            case .text(let text):
                output += ImportText.escaped(text)
            case .verbatim(let text):
                output += text
            case .code(let text):
                wrap(marker: "`", next: next) { $0.output += String(text.map { $0 == "`" ? "'" : $0 }) }
            case .strong(let children):
                styled("*", children, inside: inside, next: next)
            case .emphasis(let children):
                styled("_", children, inside: inside, next: next)
            }
        }
    }

    private mutating func styled(_ marker: Character, _ children: [MarkupNode], inside: [Character], next: Character?) {
        if inside.contains(marker) {
            append(children, inside: inside)
            return
        }
        wrap(marker: marker, next: next) { $0.append(children, inside: inside + [marker]) }
    }

    /// Writes what `body` writes, wrapped in `marker` when CellHost would
    /// read the pair back: leading and trailing spaces go outside, the text
    /// before must not end in a letter or digit, nor `next` be one.
    private mutating func wrap(marker: Character, next: Character?, _ body: (inout MarkupRenderer) -> Void) {
        var inner = MarkupRenderer()
        body(&inner)
        let parts = inner.output.trimmingSpaces
        let opens = !parts.core.isEmpty && !Self.isWord((parts.leading.isEmpty ? output.last : parts.leading.last))
        let closes = parts.trailing.isEmpty ? !Self.isWord(next) : true
        if opens && closes {
            output += parts.leading + String(marker) + parts.core + String(marker) + parts.trailing
        } else if marker == "`" {
            // Code that cannot be marked is literal text.
            output += ImportText.escaped(inner.output)
        } else {
            output += inner.output
        }
    }

    static func isWord(_ character: Character?) -> Bool {
        guard let scalar = character?.unicodeScalars.first else { return false }
        return scalar.properties.isAlphabetic || scalar.properties.numericType != nil
    }
}

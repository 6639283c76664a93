/// Turns the HTML subset of Matrix's `formatted_body`
/// (`format: org.matrix.custom.html`) into CellHost's light markup.
///
/// Bold and strong become `*…*`, italics and emphasis `_…_`, code `` `…` ``
/// (each line of a code block), a link `label (href)` (a mention pill its
/// label only), line breaks, paragraphs and list items lines (`• `, or `1. `
/// in a numbered list), a block quote lines starting `> `. The reply
/// fallback `<mx-reply>` is dropped with its content; every other tag is
/// replaced by its text. Entities are decoded and text is escaped, so
/// literal `*` or `_` stay literal.
///
/// The tokenizer is tolerant: unclosed, stray or overlapping tags, a `<`
/// that starts no tag and unknown entities are read as well as they can be,
/// in one pass over the bytes; nesting beyond a limit is flattened to text.
enum MatrixHTML {
    static func markup(_ html: String) -> String {
        var converter = HTMLConverter()
        converter.convert(Array(html.utf8))
        return converter.result()
    }
}

/// The state of one conversion: the markup written so far, the text not yet
/// escaped into it, and the open elements.
private struct HTMLConverter {
    private enum Kind {
        case style(UInt8)
        case code
        case pre
        case link(String)
        case quote
        case list(ordered: Bool, next: Int)
        case item
        case heading
        case block
        case inline
    }

    private struct Frame {
        var name: [UInt8]
        var kind: Kind
        /// Offset in `out` where the element's markup starts.
        var start: Int
    }

    /// Elements nested deeper than this are read as their text.
    private static let maximumDepth = 48

    private var out: [UInt8] = []
    private var pending: [UInt8] = []
    private var frames: [Frame] = []
    /// Inside an element whose content is dropped (`mx-reply`, `script`, `style`).
    private var skipping: [UInt8]?
    private var skipDepth = 0
    private var codeDepth = 0
    private var preDepth = 0
    /// The markers of the styled span closed last, while nothing follows it:
    /// removed again when a word character comes right after (markup needs a boundary).
    private var lastStyled: (open: Int, close: Int)?

    // MARK: Tokenizing

    mutating func convert(_ bytes: [UInt8]) {
        var i = 0
        var noMoreTagEnds = false
        let count = bytes.count
        while i < count {
            let byte = bytes[i]
            if byte == UInt8(ascii: "<"), !noMoreTagEnds, i + 1 < count {
                let next = bytes[i + 1]
                if next == UInt8(ascii: "!") || next == UInt8(ascii: "?") {
                    let isComment = i + 3 < count && bytes[i + 2] == UInt8(ascii: "-") && bytes[i + 3] == UInt8(ascii: "-")
                    if let end = isComment ? find(bytes, "-->", from: i + 4).map({ $0 + 2 }) : find(bytes, ">", from: i + 2) {
                        i = end + 1
                        continue
                    }
                    noMoreTagEnds = true
                } else if next == UInt8(ascii: "/") || isLetter(next) {
                    if let end = tagEnd(bytes, from: i + 1) {
                        tag(bytes, i + 1, end)
                        i = end + 1
                        continue
                    }
                    noMoreTagEnds = true
                }
            }
            if skipping != nil { i += 1; continue }
            if byte == UInt8(ascii: "&") {
                i = entity(bytes, at: i)
                continue
            }
            pending.append(byte)
            i += 1
        }
        flush()
        while !frames.isEmpty { closeTop() }
    }

    /// The offset of the `>` that ends the tag starting after `<` at `start`
    /// (quotes in attributes respected), or nil when the input has none.
    private func tagEnd(_ bytes: [UInt8], from start: Int) -> Int? {
        var quote: UInt8 = 0
        var i = start
        while i < bytes.count {
            let byte = bytes[i]
            if quote != 0 {
                if byte == quote { quote = 0 }
            } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                quote = byte
            } else if byte == UInt8(ascii: ">") {
                return i
            }
            i += 1
        }
        // An unbalanced quote: the first `>` ends the tag after all.
        return quote != 0 ? find(bytes, ">", from: start) : nil
    }

    private func find(_ bytes: [UInt8], _ needle: StaticString, from start: Int) -> Int? {
        let n = needle.utf8CodeUnitCount
        let p = needle.utf8Start
        var i = start
        while i + n <= bytes.count {
            var matched = true
            for k in 0..<n where bytes[i + k] != p[k] { matched = false; break }
            if matched { return i }
            i += 1
        }
        return nil
    }

    private func isLetter(_ byte: UInt8) -> Bool { (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z") }

    private func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x0A || byte == 0x09 || byte == 0x0D || byte == 0x0C }

    /// Reads the tag between `start` (after `<`) and `end` (its `>`).
    private mutating func tag(_ bytes: [UInt8], _ start: Int, _ end: Int) {
        var i = start
        let closing = bytes[i] == UInt8(ascii: "/")
        if closing { i += 1 }
        var name: [UInt8] = []
        while i < end, !isSpace(bytes[i]), bytes[i] != UInt8(ascii: "/") {
            if name.count < 32 { name.append(bytes[i] | (isLetter(bytes[i]) ? 0x20 : 0)) }
            i += 1
        }
        if let skipped = skipping {
            if name == skipped { skipDepth += closing ? -1 : 1 }
            if skipDepth <= 0 { skipping = nil }
            return
        }
        if closing { close(name); return }
        var attributes: [(name: [UInt8], value: [UInt8])] = []
        while i < end {
            while i < end, isSpace(bytes[i]) || bytes[i] == UInt8(ascii: "/") { i += 1 }
            var key: [UInt8] = []
            while i < end, !isSpace(bytes[i]), bytes[i] != UInt8(ascii: "="), bytes[i] != UInt8(ascii: "/") {
                if key.count < 32 { key.append(bytes[i] | (isLetter(bytes[i]) ? 0x20 : 0)) }
                i += 1
            }
            while i < end, isSpace(bytes[i]) { i += 1 }
            var value: [UInt8] = []
            if i < end, bytes[i] == UInt8(ascii: "=") {
                i += 1
                while i < end, isSpace(bytes[i]) { i += 1 }
                if i < end, bytes[i] == UInt8(ascii: "\"") || bytes[i] == UInt8(ascii: "'") {
                    let quote = bytes[i]
                    i += 1
                    let valueStart = i
                    while i < end, bytes[i] != quote { i += 1 }
                    value = Array(bytes[valueStart..<i])
                    if i < end { i += 1 }
                } else {
                    let valueStart = i
                    while i < end, !isSpace(bytes[i]) { i += 1 }
                    value = Array(bytes[valueStart..<i])
                }
            }
            if key.isEmpty { if i < end { i += 1 }; continue }
            if attributes.count < 16 { attributes.append((key, value)) }
        }
        open(name, attributes: attributes, selfClosing: end > start && bytes[end - 1] == UInt8(ascii: "/"))
    }

    /// Decodes the entity at `start` (`&amp;`, `&#39;`, `&#x1F600;`) into the
    /// pending text; returns the offset after it. An unknown one stays as it is.
    private mutating func entity(_ bytes: [UInt8], at start: Int) -> Int {
        var i = start + 1
        while i < bytes.count, i - start <= 12, bytes[i] != UInt8(ascii: ";"), bytes[i] != UInt8(ascii: "&"), !isSpace(bytes[i]) { i += 1 }
        guard i < bytes.count, bytes[i] == UInt8(ascii: ";"), i > start + 1 else {
            pending.append(UInt8(ascii: "&"))
            return start + 1
        }
        if let scalar = HTMLConverter.decodeEntity(bytes[(start + 1)..<i]) {
            appendScalar(scalar)
            return i + 1
        }
        pending.append(UInt8(ascii: "&"))
        return start + 1
    }

    /// Appends `scalar` to the pending text as UTF-8.
    private mutating func appendScalar(_ scalar: Unicode.Scalar) {
        UTF8.encode(scalar) { pending.append($0) }
    }

    /// The entities HTML messages use, by name.
    private static let namedEntities: [(name: [UInt8], scalar: Unicode.Scalar)] = [
        ("amp", "&"), ("lt", "<"), ("gt", ">"), ("quot", "\""), ("apos", "'"), ("nbsp", " "), ("ndash", "–"),
        ("mdash", "—"), ("hellip", "…"), ("laquo", "«"), ("raquo", "»"), ("copy", "©"),
    ].map { (Array($0.0.utf8), $0.1) }

    private static func decodeEntity(_ name: ArraySlice<UInt8>) -> Unicode.Scalar? {
        if name.first == UInt8(ascii: "#") {
            var value: UInt32 = 0
            var digits = name.dropFirst()
            var radix: UInt32 = 10
            if digits.first.map({ $0 | 0x20 }) == UInt8(ascii: "x") { radix = 16; digits = digits.dropFirst() }
            guard !digits.isEmpty, digits.count <= 8 else { return nil }
            for byte in digits {
                guard let digit = hexValue(byte), digit < radix else { return nil }
                value = value * radix + digit
            }
            guard value != 0, let scalar = Unicode.Scalar(value) else { return "\u{FFFD}" }
            return scalar
        }
        return namedEntities.first { $0.name.elementsEqual(name) }?.scalar
    }

    // MARK: Elements

    private mutating func open(_ name: [UInt8], attributes: [(name: [UInt8], value: [UInt8])], selfClosing: Bool) {
        func attribute(_ key: String) -> String? {
            guard let found = attributes.first(where: { $0.name.elementsEqual(key.utf8) }) else { return nil }
            return decodeAttribute(found.value)
        }
        let tag = String(decoding: name, as: UTF8.self)
        switch tag {
        case "mx-reply", "script", "style", "head", "title":
            if !selfClosing {
                flush()
                skipping = name
                skipDepth = 1
            }
            return
        case "br":
            flush()
            trimTrailingSpaces()
            out.append(0x0A)
            return
        case "hr":
            lineBreak()
            return
        case "img":
            if let alt = attribute("alt") ?? attribute("title") { pending.append(contentsOf: Array(alt.utf8)) }
            return
        default:
            break
        }
        if selfClosing { return }
        let kind: Kind
        switch tag {
        case "b", "strong": kind = .style(UInt8(ascii: "*"))
        case "i", "em": kind = .style(UInt8(ascii: "_"))
        case "code", "tt", "kbd", "samp": kind = .code
        case "pre": kind = .pre
        case "a": kind = .link(attribute("href") ?? "")
        case "blockquote": kind = .quote
        case "ul": kind = .list(ordered: false, next: 1)
        case "ol": kind = .list(ordered: true, next: Int(attribute("start") ?? "").map { min(max($0, 0), 1_000_000) } ?? 1)
        case "li": kind = .item
        case "h1", "h2", "h3", "h4", "h5", "h6": kind = .heading
        case "p", "div", "table", "tr", "details", "summary", "figure", "section", "article", "dl", "dt", "dd", "caption":
            kind = .block
        default: kind = .inline
        }
        // A new item or paragraph ends an open one (HTML lets them go unclosed).
        if case .item = kind, let index = frames.lastIndex(where: { if case .list = $0.kind { return true }; if case .item = $0.kind { return true }; return false }),
           case .item = frames[index].kind {
            while frames.count > index { closeTop() }
        }
        if tag == "p", let top = frames.last, top.name == name { closeTop() }
        guard frames.count < HTMLConverter.maximumDepth else { return }
        flush()
        switch kind {
        case .block, .heading, .quote, .list, .pre: lineBreak()
        case .item:
            lineBreak()
            let depth = frames.reduce(0) { count, frame in if case .list = frame.kind { return count + 1 }; return count }
            if depth > 1 { out.append(contentsOf: repeatElement(0x20, count: min(depth - 1, 8) * 2)) }
            if let index = frames.lastIndex(where: { if case .list = $0.kind { return true }; return false }),
               case .list(let ordered, let next) = frames[index].kind, ordered {
                out.append(contentsOf: Array("\(next). ".utf8))
                frames[index].kind = .list(ordered: true, next: next &+ 1)
            } else {
                out.append(contentsOf: Array("• ".utf8))
            }
        default: break
        }
        if case .code = kind { codeDepth += 1 }
        if case .pre = kind { preDepth += 1 }
        frames.append(Frame(name: name, kind: kind, start: out.count))
    }

    private func decodeAttribute(_ value: [UInt8]) -> String {
        var copy = HTMLConverter()
        var i = 0
        while i < value.count {
            if value[i] == UInt8(ascii: "&") { i = copy.entity(value, at: i) } else { copy.pending.append(value[i]); i += 1 }
        }
        return String(decoding: copy.pending, as: UTF8.self)
    }

    /// Closes the innermost open element named `name` (and those inside it);
    /// a closing tag with no open element is ignored.
    private mutating func close(_ name: [UInt8]) {
        guard let index = frames.lastIndex(where: { $0.name == name }) else { return }
        while frames.count > index { closeTop() }
    }

    private mutating func closeTop() {
        flush()
        guard let frame = frames.popLast() else { return }
        switch frame.kind {
        case .style(let marker):
            let outer = frames.contains { if case .style(let other) = $0.kind { return other == marker }; return false }
            if !outer && codeDepth == 0 { wrap(from: frame.start, marker: marker) }
        case .heading:
            if codeDepth == 0 { wrap(from: frame.start, marker: UInt8(ascii: "*")) }
            lineBreak()
        case .code:
            codeDepth -= 1
            if codeDepth == 0 { wrapCode(from: frame.start) }
        case .pre:
            preDepth -= 1
            lineBreak()
        case .link(let href):
            link(from: frame.start, href: href)
        case .quote:
            quote(from: frame.start)
        case .list, .item, .block:
            lineBreak()
        case .inline:
            break
        }
    }

    // MARK: Text

    /// Writes the pending text: whitespace collapsed (outside `pre`), escaped
    /// (outside code), backticks made quotes (inside code).
    private mutating func flush() {
        guard !pending.isEmpty else { return }
        defer { pending.removeAll(keepingCapacity: true) }
        var text: [UInt8]
        if preDepth > 0 {
            text = pending
        } else {
            text = []
            text.reserveCapacity(pending.count)
            var lastWasSpace = out.isEmpty || out.last == 0x0A || out.last == 0x20
            for byte in pending {
                if isSpace(byte) {
                    if !lastWasSpace { text.append(0x20) }
                    lastWasSpace = true
                } else {
                    text.append(byte)
                    lastWasSpace = false
                }
            }
            if text.isEmpty { return }
        }
        let string = String(decoding: text, as: UTF8.self)
        if let styled = lastStyled, styled.close == out.count - 1 {
            if isWord(string.unicodeScalars.first) {
                out.remove(at: styled.close)
                out.remove(at: styled.open)
            }
        }
        lastStyled = nil
        if codeDepth > 0 {
            out.append(contentsOf: text.map { $0 == UInt8(ascii: "`") ? UInt8(ascii: "'") : $0 })
        } else {
            out.append(contentsOf: Array(ImportText.escaped(string).utf8))
        }
    }

    private func isWord(_ scalar: Unicode.Scalar?) -> Bool {
        guard let scalar else { return false }
        return scalar.properties.isAlphabetic || scalar.properties.numericType != nil
    }

    /// The scalar that ends `out[..<index]`.
    private func scalar(before index: Int) -> Unicode.Scalar? {
        guard index > 0, index <= out.count else { return nil }
        var start = index - 1
        while start > 0, index - start < 4, out[start] & 0xC0 == 0x80 { start -= 1 }
        return String(decoding: out[start..<index], as: UTF8.self).unicodeScalars.last
    }

    private mutating func trimTrailingSpaces() {
        while let last = out.last, last == 0x20 { out.removeLast() }
    }

    /// Ends the current line unless it is already ended.
    private mutating func lineBreak() {
        flush()
        trimTrailingSpaces()
        if let last = out.last, last != 0x0A { out.append(0x0A) }
    }

    /// The span `out[start...]` split into leading spaces, core and trailing spaces.
    private func core(from start: Int) -> (lead: Int, trail: Int)? {
        var lead = start
        var trail = out.count
        while lead < trail, isSpace(out[lead]) { lead += 1 }
        while trail > lead, isSpace(out[trail - 1]) { trail -= 1 }
        return lead < trail ? (lead, trail) : nil
    }

    /// Wraps `out[start...]` in `marker` when markup can mark it there: one
    /// line, a boundary before it.
    private mutating func wrap(from start: Int, marker: UInt8) {
        guard let (lead, trail) = core(from: start), !out[lead..<trail].contains(0x0A),
              !isWord(scalar(before: lead)) else { return }
        out.insert(marker, at: trail)
        out.insert(marker, at: lead)
        if trail + 2 == out.count { lastStyled = (lead, trail + 1) }
    }

    /// Wraps code: each line of it in backticks; code that cannot be marked
    /// (right after a word) is escaped as literal text instead.
    private mutating func wrapCode(from start: Int) {
        guard let (lead, trail) = core(from: start) else { return }
        let inner = Array(out[lead..<trail])
        if !inner.contains(0x0A) {
            if isWord(scalar(before: lead)) {
                let escaped = Array(ImportText.escaped(String(decoding: inner, as: UTF8.self)).utf8)
                out.replaceSubrange(lead..<trail, with: escaped)
                return
            }
            out.insert(UInt8(ascii: "`"), at: trail)
            out.insert(UInt8(ascii: "`"), at: lead)
            if trail + 2 == out.count { lastStyled = (lead, trail + 1) }
            return
        }
        var rebuilt: [UInt8] = []
        rebuilt.reserveCapacity(inner.count + 16)
        for (index, line) in inner.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated() {
            if index > 0 { rebuilt.append(0x0A) }
            var a = line.startIndex
            var b = line.endIndex
            while a < b, isSpace(line[a]) { a += 1 }
            while b > a, isSpace(line[b - 1]) { b -= 1 }
            rebuilt.append(contentsOf: line[line.startIndex..<a])
            if a < b {
                rebuilt.append(UInt8(ascii: "`"))
                rebuilt.append(contentsOf: line[a..<b])
                rebuilt.append(UInt8(ascii: "`"))
            }
        }
        out.replaceSubrange(lead..<trail, with: rebuilt)
    }

    /// `label (href)`; the label alone for a mention pill, an empty href or a
    /// label that is the address itself.
    private mutating func link(from start: Int, href: String) {
        let label = String(decoding: out[start...], as: UTF8.self)
        let trimmed = href.trimmingSpaces.core
        if trimmed.isEmpty || trimmed.hasPrefix("https://matrix.to/#/") { return }
        let plainLabel = label.replacingBackslashes()
        if plainLabel == trimmed || "mailto:" + plainLabel == trimmed { return }
        if label.trimmingSpaces.core.isEmpty {
            out.append(contentsOf: Array(trimmed.utf8))
            return
        }
        out.append(contentsOf: Array(" (\(trimmed))".utf8))
    }

    /// Starts each line of `out[start...]` with `> `.
    private mutating func quote(from start: Int) {
        flush()
        trimTrailingSpaces()
        while out.count > start, out.last == 0x0A { out.removeLast() }
        guard out.count > start else { return }
        var rebuilt: [UInt8] = []
        for (index, line) in out[start...].split(separator: 0x0A, omittingEmptySubsequences: false).enumerated() {
            if index > 0 { rebuilt.append(0x0A) }
            rebuilt.append(contentsOf: Array("> ".utf8))
            rebuilt.append(contentsOf: line)
        }
        out.replaceSubrange(start..., with: rebuilt)
        out.append(0x0A)
    }

    /// The markup, without leading and trailing blank lines and spaces, and
    /// with no more than one empty line in a row.
    func result() -> String {
        var text: [UInt8] = []
        text.reserveCapacity(out.count)
        var newlines = 0
        for byte in out {
            if byte == 0x0A {
                newlines += 1
                if newlines > 2 { continue }
            } else {
                newlines = 0
            }
            text.append(byte)
        }
        return String(decoding: text, as: UTF8.self).trimmingSpaces.core
    }
}

private extension String {
    /// The text with markup escapes removed (to compare a link's label with its address).
    func replacingBackslashes() -> String {
        var result = String.UnicodeScalarView()
        var escape = false
        for scalar in unicodeScalars {
            if scalar == "\\" && !escape { escape = true; continue }
            escape = false
            result.append(scalar)
        }
        return String(result)
    }
}

import CellHostABI

/// `--format html`: one self-contained page, written as the messages
/// arrive — the head with the style sheet first, then one element per
/// message, the closing tags at the end — so memory stays flat however long
/// the conversation.
///
/// The chrome is the terminal's (`Chrome.frame`: day separators, sender and
/// time once per group, sender colours), the content is what the cell
/// appended (`CellCanvas.items`, before wrapping: the browser wraps), and
/// the media element comes from the message's payload (`HTMLMedia`): the
/// cells draw text, the host adds `<img>`, `<audio controls>` or a link.
///
/// Every string from a message or a plugin is sanitized, then escaped by
/// `HTMLText` (text and attribute values alike); the only tags and
/// attributes in the page are the encoder's own: `html head meta title style
/// body main div span strong em code a time img audio`, with `lang charset
/// name content http-equiv class id role aria-level href rel src alt loading
/// controls preload style` (HTMLTranscriptTests holds the page to these).
final class HTMLEncoder {
    private let html: HTMLSettings
    private let chrome: Chrome
    /// The columns plugins drew for: rows are cut to it as in the terminal.
    private let contentWidth: Int
    /// The absolute directory links are relative to.
    private let linkBase: String
    private var started = false
    private var ended = false
    /// The sender colour of the current group of incoming messages.
    private var groupColor: Int?

    init(settings: OutputSettings, chrome: Chrome, contentWidth: Int) {
        html = settings.html
        self.chrome = chrome
        self.contentWidth = contentWidth
        linkBase = settings.html.linkBase ?? BaseDirectory.current.path
    }

    // MARK: The page

    /// Writes the head, once, before the first message.
    private func begin(_ out: OutputBuffer) {
        guard !started else { return }
        started = true
        out.append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
        out.append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
        out.append("<meta name=\"color-scheme\" content=\"light dark\">\n")
        // No script, no network, whatever the page holds.
        out.append(contentsOf: "<meta http-equiv=\"Content-Security-Policy\" content=\"\(Self.contentSecurityPolicy)\">\n")
        out.append("<title>")
        HTMLText.append(html.title, limit: 1024, to: out)
        out.append("</title>\n<style>\n")
        out.append(contentsOf: HTMLStyleSheet.css)
        out.append("</style>\n</head>\n<body>\n<main class=\"transcript\">\n")
    }

    /// Scripts, frames, fonts, connections and forms are refused; pictures
    /// and audio load from the page itself (`data:`) or next to it.
    static let contentSecurityPolicy = "default-src 'none'; style-src 'unsafe-inline'; img-src data: file: http: https:; "
        + "media-src data: file: http: https:; base-uri 'none'; form-action 'none'"

    /// Writes the closing tags (and the head, when no message came).
    func finish(to out: OutputBuffer) {
        begin(out)
        guard !ended else { return }
        ended = true
        out.append("</main>\n</body>\n</html>\n")
    }

    // MARK: A message

    func write(_ canvas: CellCanvas, message: Message, outcome: RenderOutcome,
               quote: (sender: String, preview: String)?, baseDirectory: BaseDirectory, to out: OutputBuffer) {
        begin(out)
        let frame = chrome.frame(message)
        if let day = frame.day {
            out.append("<div class=\"day\" role=\"separator\"><span>")
            HTMLText.append(day, to: out)
            out.append("</span></div>\n")
        }
        if message.isSystem {
            out.append(frame.startsConversation ? "<div class=\"conversation\" role=\"heading\" aria-level=\"2\""
                                                : "<div class=\"system\"")
            appendID(message, to: out)
            out.append(">")
            var writer = ContentWriter(canvas: canvas, width: contentWidth, out: out)
            writer.write()
            appendMore(canvas, to: out)
            out.append("</div>\n")
            return
        }
        let outgoing = message.isOutgoing
        if frame.startsGroup {
            groupColor = outgoing ? nil : frame.header.flatMap { $0.name.isEmpty ? nil : $0.colorIndex }
        }
        out.append(outgoing ? "<div class=\"msg out" : "<div class=\"msg in")
        if let color = groupColor, !outgoing { out.append(contentsOf: " c\(color)") }
        if frame.startsGroup { out.append(" start") }
        out.append("\"")
        appendID(message, to: out)
        out.append(">\n")
        if let header = frame.header {
            out.append("<div class=\"head\">")
            if !header.name.isEmpty {
                out.append("<span class=\"sender\">")
                HTMLText.append(header.name, to: out)
                out.append("</span>")
            }
            if let time = header.time {
                if !header.name.isEmpty { out.append(" ") }
                out.append("<time>")
                HTMLText.append(time, to: out)
                out.append("</time>")
            }
            out.append("</div>\n")
        }
        out.append("<div class=\"bubble\">")
        if let replyTo = message.replyTo {
            if let quote {
                out.append("<a class=\"quote\" href=\"#m-")
                out.append(contentsOf: HTMLText.percentEncoded(Self.elementID(replyTo)))
                out.append("\">↪ ")
                if !quote.sender.isEmpty {
                    HTMLText.append(quote.sender, limit: 1024, to: out)
                    out.append(": ")
                }
                HTMLText.append(quote.preview, limit: 1024, to: out)
                out.append("</a>")
            } else {
                out.append("<div class=\"quote\">↪ reply to ")
                HTMLText.append(replyTo, limit: 256, to: out)
                out.append("</div>")
            }
        }
        var writer = ContentWriter(canvas: canvas, width: contentWidth, out: out)
        writer.attachment = attachment(message, outcome: outcome, baseDirectory: baseDirectory)
        writer.write()
        appendMore(canvas, to: out)
        appendFooter(message, to: out)
        out.append("</div>\n</div>\n")
        out.flushIfFull()
    }

    /// ` id="m-ID"`, when the message has an id.
    private func appendID(_ message: Message, to out: OutputBuffer) {
        guard !message.id.isEmpty else { return }
        out.append(" id=\"m-")
        var id = Array(Self.elementID(message.id).utf8)
        id.withUnsafeMutableBufferPointer { HTMLText.appendEscaped(UnsafeBufferPointer($0), to: out) }
        out.append("\"")
    }

    /// A message id as the page names it: sanitized, at most 256 bytes.
    static func elementID(_ id: String) -> String {
        var id = id
        var clean: [UInt8] = []
        id.withUTF8 { _ = Sanitizer.sanitize(StringArena.prefix($0, 256), into: &clean) }
        return String(decoding: clean, as: UTF8.self)
    }

    /// `… N more lines` when the cell's content passed the caps.
    private func appendMore(_ canvas: CellCanvas, to out: OutputBuffer) {
        guard canvas.droppedLines > 0 else { return }
        let hidden = canvas.droppedLines
        out.append(contentsOf: "<div class=\"more\">… \(hidden) more line\(hidden == 1 ? "" : "s")</div>")
    }

    /// Reactions, the edited mark and (outgoing) the status.
    private func appendFooter(_ message: Message, to out: OutputBuffer) {
        var parts: [(String, String)] = []
        if message.reactionsNode != nil {
            let reactions = Chrome.reactions(message)
            if !reactions.isEmpty { parts.append(("reactions", reactions)) }
        }
        if message.isEdited { parts.append(("edited", "edited")) }
        if message.isOutgoing, let status = Chrome.statusText(message.status) {
            parts.append(("status " + Self.statusClass(message.status), status.text))
        }
        guard !parts.isEmpty else { return }
        out.append("<div class=\"foot\">")
        for (cls, text) in parts {
            out.append(contentsOf: "<span class=\"\(cls)\">")
            HTMLText.append(text, to: out)
            out.append("</span>")
        }
        out.append("</div>")
    }

    private static func statusClass(_ status: DeliveryStatus) -> String {
        switch status {
        case .none: return ""
        case .sending: return "sending"
        case .sent: return "sent"
        case .delivered: return "delivered"
        case .read: return "read"
        case .failed: return "failed"
        }
    }

    // MARK: Media

    /// The media element of a message: by the class it was rendered as, from
    /// the path its payload gives, when that names a regular file (else the
    /// cell's own mark — `missing`, `not a regular file` — is all there is).
    private func attachment(_ message: Message, outcome: RenderOutcome, baseDirectory: BaseDirectory) -> Attachment? {
        guard let kind = HTMLMedia.kind(renderedAs: outcome.messageClass),
              let path = HTMLMedia.path(of: message, kind: kind) else { return nil }
        let absolute = HTMLMedia.resolve(path, against: baseDirectory.path)
        let link = HTMLMedia.relativeURL(to: absolute, from: linkBase)
        switch kind {
        case .picture:
            guard html.pictures, let file = HTMLMedia.open(absolute, embedLimit: html.embedLimit),
                  let mime = HTMLMedia.pictureType(file.head) else { return nil }
            let name = String(path.split(separator: "/").last ?? "")
            return .block { out in
                out.append("<div class=\"media\"><img src=\"")
                if let bytes = file.bytes { HTMLMedia.appendDataURI(mime: mime, bytes, to: out) } else { out.append(contentsOf: link) }
                out.append("\" alt=\"")
                HTMLText.append(name, limit: 1024, to: out)
                out.append("\" loading=\"lazy\"></div>")
            }
        case .audio:
            guard let file = HTMLMedia.open(absolute, embedLimit: html.embedLimit) else { return nil }
            let mime = HTMLMedia.audioType(file.head)
            return .block { out in
                out.append("<div class=\"media\"><audio controls preload=\"metadata\" src=\"")
                if let bytes = file.bytes, let mime { HTMLMedia.appendDataURI(mime: mime, bytes, to: out) } else { out.append(contentsOf: link) }
                out.append("\"></audio></div>")
            }
        case .file:
            guard HTMLMedia.isRegularFile(absolute) else { return nil }
            return .link(link)
        }
    }
}

/// What a message's content gets from its payload: an element after the
/// content's first line (a picture, an audio player), or its first line
/// made a link (an attachment).
enum Attachment {
    case block((OutputBuffer) -> Void)
    case link(String)
}

/// Writes a cell's content (`CellCanvas.items`) as HTML: text in
/// `<div class="text">` (white-space: pre-wrap, so line breaks are the
/// cell's and wrapping is the browser's), styled runs as `<strong>`, `<em>`,
/// `<code>`, `<a href>` (http and https only) and classes, preformatted
/// rows in `<div class="rows">` with their colours. The attachment goes
/// after the first line.
struct ContentWriter {
    let canvas: CellCanvas
    let width: Int
    let out: OutputBuffer
    var attachment: Attachment?

    private enum Block { case none, text, rows }
    /// The block open now.
    private var block = Block.none
    /// The last block (open or closed): what a line end before the next one means.
    private var previous = Block.none
    /// Line ends since the last content.
    private var pendingEnds = 0
    /// Something was written (text or a row).
    private var wroteContent = false
    /// The last content was a row (which ends its line).
    private var afterRow = false
    /// The first line is over (the attachment went in after it).
    private var firstLineDone = false
    /// The attachment's `<a>` is open around the first line.
    private var linkOpen = false
    private var glyph: [UInt8] = []

    init(canvas: CellCanvas, width: Int, out: OutputBuffer) {
        self.canvas = canvas
        self.width = max(1, width)
        self.out = out
    }

    mutating func write() {
        let bytes = canvas.bytes.elements
        for item in canvas.items.elements {
            switch item {
            case let .text(start, end, style):
                guard end > start else { continue }
                if wroteContent && (pendingEnds > 0 || afterRow) { endFirstLine() }
                openText()
                writeRun(UnsafeBufferPointer(rebasing: bytes[Int(start)..<Int(end)]), style)
                wroteContent = true
                afterRow = false
            case .lineBreak:
                pendingEnds += 1
            case let .row(start, count):
                if wroteContent { endFirstLine() }
                openRows()
                writeRow(Int(start), min(Int(count), width))
                wroteContent = true
                afterRow = true
            }
        }
        endFirstLine()
        close()
    }

    /// The first line is over: close its link, or put the attachment in.
    private mutating func endFirstLine() {
        guard !firstLineDone else { return }
        firstLineDone = true
        switch attachment {
        case .block(let write)?:
            close()
            write(out)
        case .link?:
            if linkOpen { out.append("</a>"); linkOpen = false }
        case nil: break
        }
    }

    private mutating func openText() {
        if block == .text {
            newlines(pendingEnds)
        } else {
            close()
            out.append("<div class=\"text\">")
            block = .text
            // A block boundary is one line end after text.
            newlines(previous == .text ? pendingEnds - 1 : pendingEnds)
            previous = .text
            if !firstLineDone, case .link(let href)? = attachment, !linkOpen {
                out.append("<a class=\"file\" href=\"")
                out.append(contentsOf: href)
                out.append("\">")
                linkOpen = true
            }
        }
        pendingEnds = 0
    }

    private mutating func openRows() {
        if block == .rows {
            // The row before ended its own line.
            newlines(1 + pendingEnds)
        } else {
            close()
            out.append("<div class=\"rows\">")
            block = .rows
            newlines(previous == .text ? pendingEnds - 1 : pendingEnds)
            previous = .rows
        }
        pendingEnds = 0
    }

    private mutating func close() {
        if linkOpen { out.append("</a>"); linkOpen = false }
        if block != .none { out.append("</div>") }
        block = .none
    }

    private func newlines(_ count: Int) {
        for _ in 0..<max(0, count) { out.append(0x0A) }
    }

    /// One run of text in its style.
    private func writeRun(_ text: UnsafeBufferPointer<UInt8>, _ style: Style) {
        var classes: [String] = []
        if style.contains(.muted) { classes.append("muted") }
        if style.contains(.accent) { classes.append("accent") }
        if style.contains(.success) { classes.append("ok") }
        if style.contains(.warning) { classes.append("warn") }
        if style.contains(.error) { classes.append("err") }
        if style.contains(.quote) { classes.append("q") }
        let link = style.contains(.link)
        let anchor = link && !linkOpen && HTMLText.isWebURL(text)
        if link && !anchor { classes.append("link") }
        // A bar chart or waveform drawn with block characters keeps its
        // columns: monospace, never broken.
        if Self.isBars(text) { classes.append("bars") }
        var closing: [StaticString] = []
        if anchor {
            out.append("<a href=\"")
            HTMLText.appendEscaped(text, to: out)
            out.append("\" rel=\"noopener noreferrer nofollow\"")
            if !classes.isEmpty { out.append(contentsOf: " class=\"\(classes.joined(separator: " "))\"") }
            out.append(">")
            closing.append("</a>")
        } else if !classes.isEmpty {
            out.append(contentsOf: "<span class=\"\(classes.joined(separator: " "))\">")
            closing.append("</span>")
        }
        if style.contains(.strong) { out.append("<strong>"); closing.append("</strong>") }
        if style.contains(.emphasis) { out.append("<em>"); closing.append("</em>") }
        if style.contains(.code) { out.append("<code>"); closing.append("</code>") }
        HTMLText.appendEscaped(text, to: out)
        for tag in closing.reversed() { out.append(UnsafeBufferPointer(start: tag.utf8Start, count: tag.utf8CodeUnitCount)) }
    }

    /// Text made only of box drawing, block elements and braille (U+2500–
    /// U+25BF, U+2800–U+28FF): bars and waveforms.
    static func isBars(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        guard !text.isEmpty, text.count % 3 == 0 else { return false }
        var index = 0
        while index < text.count {
            guard text[index] == 0xE2, (0x94...0x96).contains(text[index + 1]) || (0xA0...0xA3).contains(text[index + 1]),
                  text[index + 2] & 0xC0 == 0x80 else { return false }
            index += 3
        }
        return true
    }

    /// A preformatted row: runs of cells of one colour pair as spans with
    /// the colours in a `style` attribute (written by the host: `#rrggbb`).
    private mutating func writeRow(_ start: Int, _ count: Int) {
        var index = start
        let end = start + count
        while index < end {
            let first = canvas.blockCells[index]
            let colours = UInt32(CELLHOST_BLOCK_HAS_FG | CELLHOST_BLOCK_HAS_BG)
            let hasFG = first.flags & UInt32(CELLHOST_BLOCK_HAS_FG) != 0, hasBG = first.flags & UInt32(CELLHOST_BLOCK_HAS_BG) != 0
            glyph.removeAll(keepingCapacity: true)
            var next = index
            while next < end {
                let cell = canvas.blockCells[next]
                guard cell.flags & colours == first.flags & colours, !hasFG || cell.fg == first.fg, !hasBG || cell.bg == first.bg else { break }
                Wrapper.blockGlyph(cell.codepoint, into: &glyph)
                next += 1
            }
            if hasFG || hasBG {
                out.append("<span style=\"")
                if hasFG { out.append(contentsOf: "color:\(Self.hex(first.fg))") }
                if hasFG && hasBG { out.append(";") }
                if hasBG { out.append(contentsOf: "background:\(Self.hex(first.bg))") }
                out.append("\">")
            }
            glyph.withUnsafeBufferPointer { HTMLText.appendEscaped($0, to: out) }
            if hasFG || hasBG { out.append("</span>") }
            index = next
        }
    }

    private static func hex(_ color: UInt32) -> String {
        let digits = String(color & 0xFF_FFFF, radix: 16)
        return "#" + String(repeating: "0", count: 6 - digits.count) + digits
    }
}

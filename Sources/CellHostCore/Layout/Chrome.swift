import Glibc

/// The chat chrome `MessageCell` draws around every cell's content:
/// incoming messages on the left and outgoing on the right, sender and time
/// once per group of consecutive messages, day separators, reply quotes,
/// reactions, the edited mark and delivery status.
///
/// It keeps the little state a conversation needs (the previous message, and
/// a bounded map of recent messages for reply quotes), so memory stays flat
/// however long the stream.
final class Chrome {
    /// Consecutive messages from one sender within this many seconds share a header.
    static let groupWindow: Double = 5 * 60

    let width: Int
    private var lastSender: String?
    private var lastOutgoing = false
    private var lastTime: Double?
    private var lastDay: Int?
    private var wroteAnything = false
    /// Sender colours in order of first appearance, so the first six people
    /// of a conversation never share one; later senders hash (bounded memory).
    private var senderColors: [String: Int] = [:]
    /// The width of each delivery status's text (fixed), measured once.
    private var statusWidths = [Int](repeating: -1, count: 6)
    /// This conversation's local-time cache (never shared between sessions).
    private let times = LocalTimeCache()

    /// The most columns a bubble takes.
    let maximumBubbleWidth: Int

    /// How sender names, quotes and footers are measured.
    let mode: WidthMode

    init(width: Int, maximumBubbleWidth: Int = OutputSettings.defaultBubbleWidth, mode: WidthMode = .grapheme) {
        self.width = width
        self.maximumBubbleWidth = max(12, maximumBubbleWidth)
        self.mode = mode
    }

    /// The columns of content for a message, inside its bubble and gutter.
    var contentWidth: Int { max(2, bubbleWidth - 2) }
    private var bubbleWidth: Int { width < 30 ? width : min(width * 4 / 5, maximumBubbleWidth) }

    /// What the chrome draws before a message's bubble, decided from the
    /// messages before it. `frame(_:)` computes it and moves the
    /// conversation's state on; the terminal layout and the HTML encoder
    /// both draw from it.
    struct Frame {
        /// The group header: the sender (incoming only) and the time.
        struct Header {
            /// The sender's name as the message gives it (unsanitized); empty
            /// for an outgoing message or when there is none.
            var name: String
            /// Which of the six sender colours the name is drawn in.
            var colorIndex: Int
            /// The local time, `HH:MM`, when the message has one.
            var time: String?
        }

        /// A blank line first: the message starts a group or a day (or, for
        /// a system line, follows other messages).
        var gap = false
        /// The first message of a group (one sender, within `groupWindow`).
        var startsGroup = false
        /// The day separator's label, when the local date changed.
        var day: String?
        /// The header, for the first message of a group when it has
        /// something to show.
        var header: Header?
        /// A `system` message whose `system.event` is `conversation`: its
        /// content is a heading, and the next message shows its day again.
        var startsConversation = false
    }

    /// The frame of `message`, and the state moved on past it.
    func frame(_ message: Message) -> Frame {
        var frame = Frame()
        if message.isSystem {
            frame.startsConversation = message.systemEvent == "conversation"
            if frame.startsConversation {
                lastDay = nil
                frame.gap = wroteAnything
            } else if let time = message.time {
                let day = dayNumber(time)
                if day != lastDay {
                    frame.gap = wroteAnything
                    frame.day = dayLabel(time)
                    lastDay = day
                } else {
                    frame.gap = lastSender != nil
                }
            } else {
                frame.gap = lastSender != nil
            }
            lastSender = nil
            lastTime = message.time
            wroteAnything = true
            return frame
        }
        var startsGroup = true
        // The local time, computed once for the day and the clock.
        let parts = message.time.map(localTime)
        if let time = message.time, let parts {
            let day = Chrome.dayNumber(parts)
            if day != lastDay {
                frame.day = dayLabel(time)
                lastDay = day
                lastSender = nil
            }
        }
        if let previous = lastSender, previous == message.senderID, lastOutgoing == message.isOutgoing {
            switch (lastTime, message.time) {
            case let (before?, now?): startsGroup = !(now >= before && now - before <= Chrome.groupWindow)
            case (nil, nil): startsGroup = false
            default: startsGroup = true
            }
        }
        if startsGroup {
            // A new day always starts a group (the sender was forgotten).
            frame.startsGroup = true
            frame.gap = wroteAnything
            let time = parts.map(Chrome.clock)
            if message.isOutgoing {
                if time != nil { frame.header = Frame.Header(name: "", colorIndex: 0, time: time) }
            } else if !message.senderName.isEmpty || time != nil {
                // Missing sender and time are left out; with neither there is no header.
                let name = message.senderName
                frame.header = Frame.Header(name: name, colorIndex: name.isEmpty ? 0 : colorIndex(message.senderID), time: time)
            }
        }
        lastSender = message.senderID
        lastOutgoing = message.isOutgoing
        lastTime = message.time
        wroteAnything = true
        return frame
    }

    /// Lays out the message whose content lines are in `canvas.contentLines`
    /// into `canvas.outputLines`.
    /// `quote` is the sender and one-line preview of the message `reply_to`
    /// names, when it is still remembered.
    func layout(_ message: Message, _ canvas: CellCanvas, quote: ReplyQuote) {
        let frame = self.frame(message)
        if frame.gap { blankLine(canvas) }
        if let day = frame.day { separator(day, canvas) }
        if message.isSystem {
            system(frame, canvas)
            return
        }
        if let header = frame.header { self.header(header, outgoing: message.isOutgoing, canvas) }
        let outgoing = message.isOutgoing
        // The bubble: reply quote, content, footer, all aligned together.
        // Lines are ranges of pieces; quote and footer pieces are appended
        // after the content's, so nothing is copied into temporary arrays.
        var quoteLine: Range<Int>?
        if let replyTo = message.replyTo {
            let first = canvas.pieces.count
            // "↪ sender: preview" (or "↪ reply to id"), put together as
            // bytes in a reused buffer instead of as a `String`.
            quoteText.removeAll(keepingCapacity: true)
            quoteText += [0xE2, 0x86, 0xAA, 0x20] // "↪ "
            if quote.isFound {
                quote.withParts { sender, preview in
                    if !sender.isEmpty {
                        quoteText.append(contentsOf: sender)
                        quoteText += [0x3A, 0x20] // ": "
                    }
                    quoteText.append(contentsOf: preview)
                }
            } else {
                quoteText += "reply to ".utf8
                quoteText += replyTo.utf8
            }
            let piece = quoteText.withUnsafeBufferPointer {
                fitted(utf8: $0, style: [.quote, .muted], maxWidth: contentWidth, canvas)
            }
            canvas.pieces.append(piece)
            quoteLine = first..<canvas.pieces.count
        }
        let footer = self.footer(message, canvas)
        func width(_ range: Range<Int>) -> Int {
            var total = 0
            for index in range { total += Int(canvas.pieces[index].width) }
            return total
        }
        let quoteWidth = quoteLine.map(width) ?? 0
        let footerWidth = footer.map(width) ?? 0
        var bubbleContent = max(quoteWidth, footerWidth)
        for line in canvas.contentLines { bubbleContent = max(bubbleContent, Int(line.width)) }
        // The first line of each message has a heavier bar, so consecutive
        // messages of one group stay distinguishable.
        // "┃" and "│", appended at once.
        let gutterStart = Int32(truncatingIfNeeded: canvas.bytes.count)
        canvas.bytes.append(contentsOf: Chrome.gutterBytes)
        let firstGutter = Piece(start: gutterStart, end: gutterStart + 3, width: 1, style: .gutter)
        let otherGutter = Piece(start: gutterStart + 3, end: gutterStart + 6, width: 1, style: .gutter)
        // The bubble's lines are built in local arrays (moved out of the
        // canvas and back), so each append needs no uniqueness check
        // through the class; each line's width is summed as it is built.
        var pieces = canvas.pieces
        var lines = canvas.outputLines
        canvas.pieces = []
        canvas.outputLines = []
        let leftPadding = Piece.padding(max(0, self.width - 2 - bubbleContent))
        var isFirst = true
        func bubbleLine(_ range: Range<Int>, width lineWidth: Int) {
            let gutter = isFirst ? firstGutter : otherGutter
            isFirst = false
            let lineStart = pieces.count
            var total: Int32
            if outgoing {
                let rightPadding = Piece.padding(bubbleContent - lineWidth + 1)
                pieces.append(leftPadding)
                for index in range { pieces.append(pieces[index]) }
                pieces.append(rightPadding)
                pieces.append(gutter)
                total = leftPadding.width + Int32(lineWidth) + rightPadding.width + gutter.width
            } else {
                pieces.append(gutter)
                pieces.append(.padding(1))
                for index in range { pieces.append(pieces[index]) }
                total = gutter.width + 1 + Int32(lineWidth)
            }
            lines.append(Line(firstPiece: Int32(lineStart), endPiece: Int32(pieces.count), width: total))
        }
        if let quoteLine { bubbleLine(quoteLine, width: quoteWidth) }
        for line in canvas.contentLines {
            bubbleLine(Int(line.firstPiece)..<Int(line.endPiece), width: Int(line.width))
        }
        if let footer { bubbleLine(footer, width: footerWidth) }
        canvas.pieces = pieces
        canvas.outputLines = lines
    }

    /// A `system` message: its content centred and muted, with no sender,
    /// bubble or footer; the next message starts a new group. One whose
    /// `system.event` is `conversation` starts a new conversation: a blank
    /// line, its content as a heading between rules, and the day separator
    /// shown again for the conversation's first message.
    private func system(_ frame: Frame, _ canvas: CellCanvas) {
        let startsConversation = frame.startsConversation
        for line in canvas.contentLines {
            let lineWidth = Int(line.width)
            let start = canvas.pieces.count
            if startsConversation {
                let remaining = max(0, width - lineWidth - 2)
                canvas.pieces.append(rule(remaining / 2, canvas, double: true))
                canvas.pieces.append(.padding(1))
            } else {
                canvas.pieces.append(.padding(max(0, (width - lineWidth) / 2)))
            }
            for index in Int(line.firstPiece)..<Int(line.endPiece) {
                var piece = canvas.pieces[index]
                piece.style.formUnion(startsConversation ? [.strong] : [.muted])
                canvas.pieces.append(piece)
            }
            if startsConversation {
                canvas.pieces.append(.padding(1))
                canvas.pieces.append(rule(max(0, width - lineWidth - 2) - max(0, width - lineWidth - 2) / 2, canvas, double: true))
            }
            endLine(from: start, canvas)
        }
    }

    // MARK: Pieces

    /// Reactions, the edited mark and (outgoing) the status, as a range of
    /// pieces kept within the content width; nil when there is none.
    private func footer(_ message: Message, _ canvas: CellCanvas) -> Range<Int>? {
        let first = canvas.pieces.count
        var total = 0
        func add(_ text: String, _ style: Style, knownWidth: Int? = nil) {
            let piece: Piece
            if let knownWidth, knownWidth <= contentWidth {
                // Fixed chrome text, measured before: no sanitizing or measuring.
                let start = canvas.bytes.count
                canvas.bytes.append(contentsOf: text.utf8)
                piece = Piece(start: Int32(start), end: Int32(canvas.bytes.count), width: Int32(knownWidth), style: style)
            } else {
                piece = fitted(text, style: style, maxWidth: contentWidth, canvas)
            }
            addPiece(piece)
        }
        func addPiece(_ piece: Piece) {
            let separator = canvas.pieces.count > first ? 2 : 0
            // Keep the footer within the content width: later parts are dropped.
            guard canvas.pieces.count == first || total + separator + Int(piece.width) <= contentWidth else { return }
            if separator > 0 { canvas.pieces.append(.padding(separator)) }
            canvas.pieces.append(piece)
            total += separator + Int(piece.width)
        }
        if message.reactionsNode != nil {
            reactionText.removeAll(keepingCapacity: true)
            Chrome.reactions(message, into: &reactionText)
            if !reactionText.isEmpty {
                let piece = reactionText.withUnsafeBufferPointer { fitted(utf8: $0, style: [], maxWidth: contentWidth, canvas) }
                addPiece(piece)
            }
        }
        // "edited" is printable ASCII: six columns, no need to measure it.
        if message.isEdited { add("edited", [.muted, .emphasis], knownWidth: 6) }
        if message.isOutgoing, let status = Chrome.statusText(message.status) {
            let index = Int(message.status.rawValue)
            if statusWidths[index] < 0 { statusWidths[index] = DisplayWidth.width(of: status.text, mode: mode) }
            add(status.text, status.style, knownWidth: statusWidths[index])
        }
        return canvas.pieces.count > first ? first..<canvas.pieces.count : nil
    }

    /// The UTF-8 of the two gutters, "┃" (a message's first line) then "│".
    private static let gutterBytes: [UInt8] = [0xE2, 0x94, 0x83, 0xE2, 0x94, 0x82]

    /// The reactions line being put together (kept for its capacity).
    private var reactionText: [UInt8] = []

    /// The reply quote's text being put together (kept for its capacity).
    private var quoteText: [UInt8] = []

    private func header(_ header: Frame.Header, outgoing: Bool, _ canvas: CellCanvas) {
        let first = canvas.pieces.count
        let time = header.time
        if outgoing {
            guard let time else { return }
            // `fitted`, without sanitizing and measuring `HH:MM`.
            let piece = timePiece(time, afterName: false, canvas)
            add(.padding(width - Int(piece.width)), canvas)
            add(piece, canvas)
        } else {
            if !header.name.isEmpty {
                let timeWidth = time.map { Chrome.isPrintableASCII($0) ? $0.utf8.count + 3 : DisplayWidth.width(of: $0) + 3 } ?? 0
                add(senderName(header.name, style: [.sender, .strong, Style.senderColor(header.colorIndex)],
                               maxWidth: max(1, width - timeWidth), canvas), canvas)
            }
            if let time {
                let afterName = canvas.pieces.count > first
                if afterName { add(.padding(1), canvas) }
                add(timePiece(time, afterName: afterName, canvas), canvas)
            }
            guard canvas.pieces.count > first else { return }
        }
        endLine(from: first, canvas)
    }

    /// `fitted` for a sender's name, from `names` when the name was drawn
    /// at this width lately: a conversation has few senders, and each group
    /// header would sanitize and measure the name again.
    private func senderName(_ name: String, style: Style, maxWidth: Int, _ canvas: CellCanvas) -> Piece {
        let start = canvas.bytes.count
        for entry in names where entry.maxWidth == maxWidth && entry.name == name {
            canvas.bytes.append(contentsOf: entry.bytes)
            return Piece(start: Int32(start), end: Int32(canvas.bytes.count), width: entry.width, style: style)
        }
        let piece = fitted(name, style: style, maxWidth: maxWidth, canvas)
        let entry = NameEntry(name: name, maxWidth: maxWidth, bytes: Array(canvas.bytes[Int(piece.start)..<Int(piece.end)]),
                              width: piece.width)
        if names.count < Chrome.namesKept { names.append(entry) } else { names[nextName] = entry }
        nextName = (nextName + 1) % Chrome.namesKept
        return piece
    }

    /// A sender's name as `fitted` drew it.
    private struct NameEntry {
        var name: String
        var maxWidth: Int
        var bytes: [UInt8]
        var width: Int32
    }

    /// Names drawn lately (at most `namesKept`, the oldest replaced first).
    private var names: [NameEntry] = []
    private var nextName = 0
    private static let namesKept = 8

    /// True when every byte of `text` is printable ASCII (one column each).
    static func isPrintableASCII(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            for byte in bytes where byte < 0x20 || byte >= 0x7F { return false }
            return true
        }
    }

    /// The header's time, after "· " when it follows a name. `clock`'s
    /// `HH:MM` is printable ASCII, one column a byte: no sanitizing or
    /// measuring unless the line is too narrow for it.
    private func timePiece(_ time: String, afterName: Bool, _ canvas: CellCanvas) -> Piece {
        let columns = time.utf8.count + (afterName ? 2 : 0)
        guard columns <= width, Chrome.isPrintableASCII(time) else {
            return fitted(afterName ? "· " + time : time, style: .muted, maxWidth: width, canvas)
        }
        let start = canvas.bytes.count
        if afterName { canvas.bytes += [0xC2, 0xB7, 0x20] } // "· "
        canvas.bytes.append(contentsOf: time.utf8)
        return Piece(start: Int32(start), end: Int32(canvas.bytes.count), width: Int32(columns), style: .muted)
    }

    private func separator(_ label: String, _ canvas: CellCanvas) {
        let first = canvas.pieces.count
        let text = fitted(" \(label) ", style: .separator, maxWidth: width, canvas)
        let remaining = width - Int(text.width)
        let left = remaining / 2
        add(rule(left, canvas), canvas)
        add(text, canvas)
        add(rule(remaining - left, canvas), canvas)
        endLine(from: first, canvas)
    }

    private func rule(_ columns: Int, _ canvas: CellCanvas, double: Bool = false) -> Piece {
        let start = canvas.bytes.count
        // ─, or ═ for a conversation's heading
        for _ in 0..<max(0, columns) { canvas.bytes.append(contentsOf: double ? [0xE2, 0x95, 0x90] : [0xE2, 0x94, 0x80]) }
        return Piece(start: Int32(start), end: Int32(canvas.bytes.count), width: Int32(max(0, columns)), style: .separator)
    }

    private func blankLine(_ canvas: CellCanvas) { endLine(from: canvas.pieces.count, canvas) }

    /// Appends a piece of a chrome line; padding of no columns is left out.
    private func add(_ piece: Piece, _ canvas: CellCanvas) {
        if piece.width > 0 || piece.start >= 0 { canvas.pieces.append(piece) }
    }

    /// Ends the chrome line made of the pieces from `first` on.
    private func endLine(from first: Int, _ canvas: CellCanvas) {
        var total: Int32 = 0
        for index in first..<canvas.pieces.count { total += canvas.pieces[index].width }
        canvas.outputLines.append(Line(firstPiece: Int32(first), endPiece: Int32(canvas.pieces.count), width: total))
    }

    /// Sanitized `text` as one piece, cut with "…" to `maxWidth` columns.
    func fitted(_ text: String, style: Style, maxWidth: Int, _ canvas: CellCanvas) -> Piece {
        var text = text
        return text.withUTF8 { fitted(utf8: $0, style: style, maxWidth: maxWidth, canvas) }
    }

    /// `fitted` for text given as valid UTF-8.
    func fitted(utf8 text: UnsafeBufferPointer<UInt8>, style: Style, maxWidth: Int, _ canvas: CellCanvas) -> Piece {
        let start = canvas.bytes.count
        // Only the first columns are shown: a huge sender name or reply id
        // is not sanitized (and grown) whole. A cluster is at most 32 scalars.
        let needed = max(4096, (max(0, maxWidth) + 1) * 32 * 4)
        let clean = Sanitizer.sanitize(StringArena.prefix(text, needed), into: &canvas.bytes)
        let length = canvas.bytes.count - start
        if clean && length <= maxWidth {
            // Printable ASCII: one column per byte.
            return Piece(start: Int32(start), end: Int32(canvas.bytes.count), width: Int32(length), style: style)
        }
        let (end, width, ellipsis) = canvas.bytes.withUnsafeMutableBufferPointer {
            Chrome.fit($0, from: start, maxWidth: maxWidth, mode: mode)
        }
        canvas.bytes.removeSubrange(end...)
        if ellipsis { canvas.bytes.append(contentsOf: [0xE2, 0x80, 0xA6]) } // …
        return Piece(start: Int32(start), end: Int32(canvas.bytes.count), width: Int32(width), style: style)
    }

    /// Cuts sanitized `bytes[start...]` to `maxWidth` columns in place and
    /// returns where the kept text ends and the width with the ellipsis:
    /// whole when it fits, else the clusters that fit in `maxWidth - 1`
    /// columns and `ellipsis` true, for the caller to append "…" (nothing at
    /// all when `maxWidth` < 1). Marks beyond a cluster's
    /// limit are dropped. Clusters are measured only until the text is known
    /// not to fit, so a long reply preview costs what its first line costs;
    /// bytes move only towards `start`, so the cut needs no copy.
    static func fit(_ bytes: UnsafeMutableBufferPointer<UInt8>, from start: Int, maxWidth: Int,
                    mode: WidthMode) -> (end: Int, width: Int, ellipsis: Bool) {
        guard let base = bytes.baseAddress else { return (start, 0, false) }
        let limit = max(0, maxWidth - 1)
        var scanner = ClusterScanner(UnsafeBufferPointer(bytes), start..<bytes.count, mode: mode)
        // `write`: end of the clusters kept so far (all of them while the
        // text fits); `cut`, `cutWidth`: the same within `limit` columns.
        var write = start
        var total = 0
        var cut = start
        var cutWidth = 0
        var cutClosed = false
        func keep(_ from: Int, _ count: Int) {
            if write != from { memmove(base + write, base + from, count) }
            write += count
        }
        while let cluster = scanner.next() {
            let width = Int(cluster.width)
            if total + width > maxWidth {
                // Too wide: what fits in `limit` columns, then the ellipsis.
                if !cutClosed, cluster.isRun, cutWidth < limit {
                    let take = min(limit - cutWidth, width)
                    keep(Int(cluster.start), take)
                    cut = write
                    cutWidth += take
                }
                return maxWidth >= 1 ? (cut, cutWidth + 1, true) : (cut, 0, false)
            }
            keep(Int(cluster.start), Int(cluster.end - cluster.start))
            total += width
            if !cutClosed {
                if cutWidth + width <= limit {
                    cut = write
                    cutWidth += width
                } else {
                    if cluster.isRun, cutWidth < limit {
                        cut = write - width + (limit - cutWidth)
                        cutWidth = limit
                    }
                    cutClosed = true
                }
            }
        }
        return (write, total, false)
    }

    // MARK: Formatting

    static func statusText(_ status: DeliveryStatus) -> (text: String, style: Style)? {
        switch status {
        case .none: return nil
        case .sending: return ("◌ sending", .muted)
        case .sent: return ("✓ sent", .muted)
        case .delivered: return ("✓✓ delivered", .muted)
        case .read: return ("✓✓ read", .success)
        case .failed: return ("✗ failed", [.error, .strong])
        }
    }

    /// The reactions line: each emoji (its first 8 characters) with its
    /// count when above 1, two spaces apart; "" when there are none.
    static func reactions(_ message: Message) -> String {
        var text: [UInt8] = []
        reactions(message, into: &text)
        return String(decoding: text, as: UTF8.self)
    }

    /// `reactions(_:)` as UTF-8, appended to `text` (empty for none): the
    /// terminal footer reuses one buffer and makes no `String` of it.
    static func reactions(_ message: Message, into text: inout [UInt8]) {
        let document = message.document
        guard let list = message.reactionsNode, document.kind(list) == .array else { return }
        let start = text.count
        for element in document.elements(list).prefix(20) {
            guard document.kind(element) == .object,
                  var emoji = document.member(element, "emoji").flatMap({ document.string($0) }), !emoji.isEmpty else { continue }
            // A count below 1 means no one reacted; above 999 999 it is shown as "999999+".
            let count = document.member(element, "count").flatMap { document.integer($0) } ?? 1
            guard count >= 1 else { continue }
            if text.count > start { text.append(0x20); text.append(0x20) }
            // Up to 8 bytes hold at most 8 characters: no need to count them.
            if emoji.utf8.count > 8 { emoji = String(emoji.prefix(8)) }
            emoji.withUTF8 { text.append(contentsOf: $0) }
            if count > 1 {
                text.append(0x20)
                if count > 999_999 {
                    text += "999999+".utf8
                } else {
                    // 2 to 999 999: its decimal digits, written in place.
                    DecimalDigits.with(Int(count)) { text.append(contentsOf: $0) }
                }
            }
        }
    }

    private func colorIndex(_ sender: String) -> Int {
        // A conversation's groups alternate between a few senders: those
        // met lately are compared first, without hashing the id.
        for entry in recentColors where entry.sender == sender { return entry.index }
        let index = assignedColorIndex(sender)
        if recentColors.count < Chrome.recentColorsKept {
            recentColors.append((sender, index))
        } else {
            recentColors[nextRecentColor] = (sender, index)
            nextRecentColor = (nextRecentColor + 1) % Chrome.recentColorsKept
        }
        return index
    }

    /// The colour of `sender`: once given (or hashed, after the first 64
    /// senders), it never changes, so `recentColors` may keep it.
    private func assignedColorIndex(_ sender: String) -> Int {
        if let index = senderColors[sender] { return index }
        guard senderColors.count < 64 else { return Chrome.hashedColorIndex(sender) }
        let index = senderColors.count % 6
        senderColors[sender] = index
        return index
    }

    /// Senders whose colour was asked for lately, with it (at most
    /// `recentColorsKept`, the oldest replaced first).
    private var recentColors: [(sender: String, index: Int)] = []
    private var nextRecentColor = 0
    private static let recentColorsKept = 8

    static func hashedColorIndex(_ sender: String) -> Int {
        var hash: UInt32 = 2166136261
        for byte in sender.utf8 { hash = (hash ^ UInt32(byte)) &* 16777619 }
        return Int(hash % 6)
    }

    func localTime(_ seconds: Double) -> tm {
        times.localTime(seconds)
    }

    func dayNumber(_ seconds: Double) -> Int { Chrome.dayNumber(localTime(seconds)) }

    /// The day of local time `parts`, as a number that changes at midnight.
    static func dayNumber(_ parts: tm) -> Int { Int(parts.tm_year) * 400 + Int(parts.tm_yday) }

    /// `HH:MM` of local time `parts`, built in place (a small string: no
    /// allocation).
    static func clock(_ parts: tm) -> String {
        let hour = UInt8(clamping: min(max(parts.tm_hour, 0), 99))
        let minute = UInt8(clamping: min(max(parts.tm_min, 0), 99))
        return String(unsafeUninitializedCapacity: 5) { text in
            text[0] = 0x30 + hour / 10
            text[1] = 0x30 + hour % 10
            text[2] = 0x3A // :
            text[3] = 0x30 + minute / 10
            text[4] = 0x30 + minute % 10
            return 5
        }
    }

    static let weekdays = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
    static let months = ["January", "February", "March", "April", "May", "June", "July", "August",
                         "September", "October", "November", "December"]

    func dayLabel(_ seconds: Double) -> String {
        let parts = localTime(seconds)
        return "\(Chrome.weekdays[Int(parts.tm_wday) % 7]), \(parts.tm_mday) \(Chrome.months[Int(parts.tm_mon) % 12]) \(1900 + Int(parts.tm_year))"
    }
}

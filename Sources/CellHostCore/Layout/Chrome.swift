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
        emojiWidths = EmojiWidths(mode: mode)
    }

    /// The columns of content for a message, inside its bubble and gutter.
    var contentWidth: Int { max(2, bubbleWidth - 2) }
    private var bubbleWidth: Int { width < 30 ? width : min(width * 4 / 5, maximumBubbleWidth) }

    /// What the chrome draws before a message's bubble, decided from the
    /// messages before it, as plain values: the terminal layout decides it
    /// for every message, and a `String` in it would cost reference counting
    /// each time it is copied. `place(_:)` computes it and moves the
    /// conversation's state on; `layout` and `frame(_:)` draw from it.
    struct Placement {
        /// A blank line first: the message starts a group or a day (or, for
        /// a system line, follows other messages).
        var gap = false
        /// The first message of a group (one sender, within `groupWindow`).
        var startsGroup = false
        /// A `system` message whose `system.event` is `conversation`: its
        /// content is a heading, and the next message shows its day again.
        var startsConversation = false
        /// The local date changed: a day separator for the message's day.
        var startsDay = false
        /// The group header: the first message of a group, when it has
        /// something to show (a time, or an incoming message's sender).
        var hasHeader = false
        /// The header shows the sender's name (incoming, with a name) in
        /// sender colour `colorIndex`.
        var showsName = false
        var colorIndex = 0
        /// The second of its local day the message was sent, when it has a time.
        var second: Int?
    }

    /// The placement of `message`, and the state moved on past it.
    func place(_ message: Message) -> Placement {
        var placement = Placement()
        // The local day and time of day, computed once for the day and the clock.
        let local = message.time.map(times.dayAndSecond)
        placement.second = local?.second
        if message.isSystem {
            placement.startsConversation = message.systemEvent == "conversation"
            if placement.startsConversation {
                lastDay = nil
                placement.gap = wroteAnything
            } else if let day = local?.day {
                if day != lastDay {
                    placement.gap = wroteAnything
                    placement.startsDay = true
                    lastDay = day
                } else {
                    placement.gap = lastSender != nil
                }
            } else {
                placement.gap = lastSender != nil
            }
            lastSender = nil
            lastTime = message.time
            wroteAnything = true
            return placement
        }
        if let day = local?.day {
            if day != lastDay {
                placement.startsDay = true
                lastDay = day
                lastSender = nil
            }
        }
        var startsGroup = true
        let sender = message.senderID
        // An equal id is kept as it is (no reference counting).
        var sameSender = false
        if let previous = lastSender, previous == sender {
            sameSender = true
            if lastOutgoing == message.isOutgoing {
                switch (lastTime, message.time) {
                case let (before?, now?): startsGroup = !(now >= before && now - before <= Chrome.groupWindow)
                case (nil, nil): startsGroup = false
                default: startsGroup = true
                }
            }
        }
        if startsGroup {
            // A new day always starts a group (the sender was forgotten).
            placement.startsGroup = true
            placement.gap = wroteAnything
            if message.isOutgoing {
                placement.hasHeader = local != nil
            } else if !message.senderName.isEmpty {
                placement.hasHeader = true
                placement.showsName = true
                placement.colorIndex = colorIndex(sender)
            } else {
                // Missing sender and time are left out; with neither there is no header.
                placement.hasHeader = local != nil
            }
        }
        if !sameSender { lastSender = sender }
        lastOutgoing = message.isOutgoing
        lastTime = message.time
        wroteAnything = true
        return placement
    }

    /// What the chrome draws before a message's bubble, with its texts:
    /// `placement` for the HTML encoder, which writes the texts as they are.
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

        var gap = false
        var startsGroup = false
        /// The day separator's label, when the local date changed.
        var day: String?
        var header: Header?
        var startsConversation = false
    }

    /// The frame of `message` (`place(_:)` with its texts), and the state
    /// moved on past it.
    func frame(_ message: Message) -> Frame {
        let placement = place(message)
        var frame = Frame(gap: placement.gap, startsGroup: placement.startsGroup,
                          startsConversation: placement.startsConversation)
        if placement.startsDay { frame.day = message.time.map { Chrome.dayLabel(times.localTime($0)) } }
        if placement.hasHeader {
            frame.header = Frame.Header(name: placement.showsName ? message.senderName : "", colorIndex: placement.colorIndex,
                                        time: placement.second.map(Chrome.clock))
        }
        return frame
    }

    /// Lays out the message whose content lines are in `canvas.contentLines`
    /// into `canvas.outputLines`.
    /// `quote` is the quote of the message `reply_to` names (nil for a
    /// message without `reply_to`: it need not be copied then).
    func layout(_ message: Message, _ canvas: CellCanvas, quote: ReplyQuote?) {
        let placement = place(message)
        var out = ChromeLines(from: canvas)
        if placement.gap { out.blankLine() }
        if placement.startsDay, let time = message.time { separator(Chrome.dayLabel(times.localTime(time)), &out) }
        if message.isSystem {
            system(startsConversation: placement.startsConversation, canvas, &out)
        } else {
            if placement.hasHeader { header(placement, message, &out) }
            bubble(message, canvas, quote: quote, &out)
        }
        out.store(into: canvas)
    }

    /// The bubble: reply quote, content, footer, all aligned together.
    /// Lines are ranges of pieces; quote and footer pieces are appended
    /// after the content's, so nothing is copied into temporary arrays.
    private func bubble(_ message: Message, _ canvas: CellCanvas, quote: ReplyQuote?, _ out: inout ChromeLines) {
        let outgoing = message.isOutgoing
        var quoteLine: Range<Int>?
        if let replyTo = message.replyTo {
            let first = out.pieces.count
            // "↪ sender: preview" as the quote holds it, or "↪ reply to id"
            // put together as bytes in a reused buffer instead of as a `String`.
            let piece: Piece
            if let quote, quote.isFound {
                piece = quote.line.withUnsafeBufferPointer {
                    fitted(utf8: $0, style: [.quote, .muted], maxWidth: contentWidth, into: &out.bytes)
                }
            } else {
                quoteText.removeAll(keepingCapacity: true)
                quoteText += "↪ reply to ".utf8
                quoteText += replyTo.utf8
                piece = quoteText.withUnsafeBufferPointer {
                    fitted(utf8: $0, style: [.quote, .muted], maxWidth: contentWidth, into: &out.bytes)
                }
            }
            out.pieces.append(piece)
            quoteLine = first..<out.pieces.count
        }
        // Most messages have no footer: asked here, without a call.
        let footer = Chrome.hasFooter(message) ? self.footer(message, &out) : nil
        let contentLines = canvas.contentLines.elements
        func width(_ range: Range<Int>) -> Int {
            var total = 0
            for index in range { total += Int(out.pieces[index].width) }
            return total
        }
        let quoteWidth = quoteLine.map(width) ?? 0
        let footerWidth = footer.map(width) ?? 0
        var bubbleContent = max(quoteWidth, footerWidth)
        // The pieces the bubble's lines copy, counted with the widest line.
        var copied = (quoteLine?.count ?? 0) + (footer?.count ?? 0)
        for line in contentLines {
            bubbleContent = max(bubbleContent, Int(line.width))
            copied += Int(line.endPiece) - Int(line.firstPiece)
        }
        // The first line of each message has a heavier bar, so consecutive
        // messages of one group stay distinguishable: "┃" and "│", each
        // followed by the space an incoming line puts before its content,
        // stored in place as one word. That space is a piece of text (no
        // style) right after its bar's bytes, so the encoders write bar and
        // space as one run (plain output and json `lines` copy pieces whose
        // bytes follow each other at once: a padding piece was a run of its
        // own); ANSI writes a piece without style as it is, as it writes
        // padding. A line without content keeps the padding, which as
        // trailing padding is not written.
        let gutterStart = out.bytes.count
        let gutterBytes = UnsafeMutableRawPointer(out.bytes.reserve(8) + gutterStart)
        // E2 94 83 20 E2 94 82 20, as a little-endian word.
        gutterBytes.storeBytes(of: UInt64(0x2082_94E2_2083_94E2).littleEndian, as: UInt64.self)
        out.bytes.extend(to: gutterStart + 8)
        // Canvas bytes and pieces are far below `Int32.max` (`OutputLimits`
        // caps a message's content at a few MiB): the conversions below
        // need no overflow checks.
        let start32 = Int32(truncatingIfNeeded: gutterStart)
        let firstGutter = Piece(start: start32, end: start32 &+ 3, width: 1, style: .gutter)
        let otherGutter = Piece(start: start32 &+ 4, end: start32 &+ 7, width: 1, style: .gutter)
        let firstSpace = Piece(start: start32 &+ 3, end: start32 &+ 4, width: 1, style: [])
        let otherSpace = Piece(start: start32 &+ 7, end: start32 &+ 8, width: 1, style: [])
        let leftPadding = Piece.padding(max(0, self.width - 2 - bubbleContent))
        // Room for every line and its pieces (those it copies, and up to
        // three of its own) is made once; the lines are stored in place,
        // each line's width summed as it is built.
        let lineCount = contentLines.count + (quoteLine == nil ? 0 : 1) + (footer == nil ? 0 : 1)
        let pieces = out.pieces.reserve(copied + 3 * lineCount)
        let lines = out.lines.reserve(lineCount)
        var next = out.pieces.count
        var nextLine = out.lines.count
        var gutter = firstGutter
        var space = firstSpace
        /// Copies the pieces `range` (before `next`, so never overlapping
        /// the copies) to `next`: most lines are a single piece.
        @inline(__always)
        func copy(_ range: Range<Int>) {
            if range.count == 1 {
                (pieces + next).initialize(to: pieces[range.lowerBound])
            } else {
                (pieces + next).initialize(from: pieces + range.lowerBound, count: range.count)
            }
            next &+= range.count
        }
        @inline(__always)
        func bubbleLine(_ range: Range<Int>, width lineWidth: Int) {
            let lineStart = next
            var total: Int32
            if outgoing {
                let rightPadding = Piece.padding(bubbleContent - lineWidth + 1)
                (pieces + next).initialize(to: leftPadding)
                next &+= 1
                copy(range)
                (pieces + next).initialize(to: rightPadding)
                (pieces + next + 1).initialize(to: gutter)
                next &+= 2
                total = leftPadding.width &+ Int32(truncatingIfNeeded: lineWidth) &+ rightPadding.width &+ 1
            } else {
                (pieces + next).initialize(to: gutter)
                (pieces + next + 1).initialize(to: range.isEmpty ? .padding(1) : space)
                next &+= 2
                copy(range)
                total = 2 &+ Int32(truncatingIfNeeded: lineWidth)
            }
            (lines + nextLine).initialize(to: Line(firstPiece: Int32(truncatingIfNeeded: lineStart),
                                                   endPiece: Int32(truncatingIfNeeded: next), width: total))
            nextLine &+= 1
            gutter = otherGutter
            space = otherSpace
        }
        if let quoteLine { bubbleLine(quoteLine, width: quoteWidth) }
        for line in contentLines {
            bubbleLine(Int(line.firstPiece)..<Int(line.endPiece), width: Int(line.width))
        }
        if let footer { bubbleLine(footer, width: footerWidth) }
        out.pieces.extend(to: next)
        out.lines.extend(to: nextLine)
    }

    /// A `system` message: its content centred and muted, with no sender,
    /// bubble or footer; the next message starts a new group. One whose
    /// `system.event` is `conversation` starts a new conversation: a blank
    /// line, its content as a heading between rules, and the day separator
    /// shown again for the conversation's first message.
    private func system(startsConversation: Bool, _ canvas: CellCanvas, _ out: inout ChromeLines) {
        for line in canvas.contentLines.elements {
            let lineWidth = Int(line.width)
            let start = out.pieces.count
            if startsConversation {
                let remaining = max(0, width - lineWidth - 2)
                out.pieces.append(rule(remaining / 2, &out.bytes, double: true))
                out.pieces.append(.padding(1))
            } else {
                out.pieces.append(.padding(max(0, (width - lineWidth) / 2)))
            }
            for index in Int(line.firstPiece)..<Int(line.endPiece) {
                var piece = out.pieces[index]
                piece.style.formUnion(startsConversation ? [.strong] : [.muted])
                out.pieces.append(piece)
            }
            if startsConversation {
                out.pieces.append(.padding(1))
                out.pieces.append(rule(max(0, width - lineWidth - 2) - max(0, width - lineWidth - 2) / 2, &out.bytes, double: true))
            }
            out.endLine(from: start)
        }
    }

    // MARK: Pieces

    /// Reactions, the edited mark and (outgoing) the status, as a range of
    /// pieces kept within the content width; nil when there is none.
    private func footer(_ message: Message, _ out: inout ChromeLines) -> Range<Int>? {
        guard Chrome.hasFooter(message) else { return nil }
        let first = out.pieces.count
        var total = 0
        func add(_ piece: Piece) {
            let separator = out.pieces.count > first ? 2 : 0
            // Keep the footer within the content width: later parts are dropped.
            guard out.pieces.count == first || total + separator + Int(piece.width) <= contentWidth else { return }
            if separator > 0 { out.pieces.append(.padding(separator)) }
            out.pieces.append(piece)
            total += separator + Int(piece.width)
        }
        /// Fixed chrome text of `knownWidth` columns: no sanitizing or
        /// measuring when it fits.
        func add(_ text: UnsafeBufferPointer<UInt8>, _ style: Style, knownWidth: Int) {
            add(knownWidth <= contentWidth ? out.piece(text, width: knownWidth, style: style)
                                           : fitted(utf8: text, style: style, maxWidth: contentWidth, into: &out.bytes))
        }
        if message.reactionsNode != nil {
            reactionText.removeAll(keepingCapacity: true)
            let columns = Chrome.reactions(message, into: &reactionText, widths: &emojiWidths)
            if !reactionText.isEmpty {
                if let columns {
                    // Every emoji is safe and measured alone (at most 16 bytes
                    // each, so the line is far shorter than what `fitted` keeps).
                    reactionText.withUnsafeBufferPointer { add($0, [], knownWidth: columns) }
                } else {
                    add(reactionText.withUnsafeBufferPointer { fitted(utf8: $0, style: [], maxWidth: contentWidth, into: &out.bytes) })
                }
            }
        }
        // "edited" is printable ASCII: six columns, no need to measure it.
        if message.isEdited {
            let edited: StaticString = "edited"
            add(UnsafeBufferPointer(start: edited.utf8Start, count: edited.utf8CodeUnitCount), [.muted, .emphasis], knownWidth: 6)
        }
        if message.isOutgoing, let (text, style) = Chrome.statusBytes(message.status) {
            let index = Int(message.status.rawValue)
            let bytes = UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount)
            if statusWidths[index] < 0 { statusWidths[index] = DisplayWidth.width(of: String(decoding: bytes, as: UTF8.self), mode: mode) }
            add(bytes, style, knownWidth: statusWidths[index])
        }
        return out.pieces.count > first ? first..<out.pieces.count : nil
    }

    /// Whether `message` has reactions, the edited mark or (outgoing) a status.
    @inline(__always)
    private static func hasFooter(_ message: Message) -> Bool {
        message.reactionsNode != nil || message.isEdited || (message.isOutgoing && message.status != .none)
    }

    /// The reactions line being put together (kept for its capacity).
    private var reactionText: [UInt8] = []

    /// The widths of the emoji of recent reactions.
    private var emojiWidths: EmojiWidths

    /// "↪ reply to id" being put together (kept for its capacity).
    private var quoteText: [UInt8] = []

    /// The group header: the time (right-aligned, outgoing), or the
    /// sender's name and the time (incoming).
    private func header(_ placement: Placement, _ message: Message, _ out: inout ChromeLines) {
        // At most three pieces, stored in place (room made once) with the
        // line's width summed as they are stored: an `add` per piece and
        // `endLine`'s second pass over them cost some 80 instructions a
        // header. Padding of no columns is left out, as `add` leaves it.
        let first = out.pieces.count
        let pieces = out.pieces.reserve(3)
        var next = first
        var total: Int32 = 0
        @inline(__always)
        func put(_ piece: Piece) {
            guard piece.width > 0 || piece.start >= 0 else { return }
            (pieces + next).initialize(to: piece)
            next &+= 1
            total &+= piece.width
        }
        if message.isOutgoing {
            guard let second = placement.second else { return }
            let piece = timePiece(second, afterName: false, &out)
            put(.padding(width - Int(piece.width)))
            put(piece)
        } else {
            if placement.showsName {
                // The time after the name takes "· HH:MM" and a space.
                let timeWidth = placement.second == nil ? 0 : 8
                put(senderName(message, style: [.sender, .strong, Style.senderColor(placement.colorIndex)],
                               maxWidth: max(1, width - timeWidth), &out.bytes))
            }
            if let second = placement.second {
                let afterName = next > first
                if afterName { put(.padding(1)) }
                put(timePiece(second, afterName: afterName, &out))
            }
            guard next > first else { return }
        }
        out.pieces.extend(to: next)
        out.lines.append(Line(firstPiece: Int32(truncatingIfNeeded: first), endPiece: Int32(truncatingIfNeeded: next),
                              width: total))
    }

    /// `fitted` for the sender's name of `message`, from `names` when the
    /// name was drawn at this width lately: a conversation has few senders,
    /// and each group header would sanitize and measure the name again.
    /// Names are compared as `String`s; at most one entry of a width has an
    /// equal name (one is added only when none has), so the entries of the
    /// message's sender id are looked at first: ids compare quickly, and the
    /// name of a sender met before is most often the same string.
    private func senderName(_ message: Message, style: Style, maxWidth: Int, _ bytes: inout UnsafeList<UInt8>) -> Piece {
        let name = message.senderName
        let sender = message.senderID
        var found: Int?
        for index in names.indices where names[index].sender == sender {
            if names[index].maxWidth == maxWidth && names[index].name == name { found = index; break }
        }
        if found == nil {
            for index in names.indices where names[index].maxWidth == maxWidth && names[index].name == name {
                found = index
                break
            }
        }
        let start = bytes.count
        if let found {
            names[found].bytes.withUnsafeBufferPointer { bytes.append(contentsOf: $0) }
            return Piece(start: Int32(start), end: Int32(bytes.count), width: names[found].width, style: style)
        }
        let piece = fitted(name, style: style, maxWidth: maxWidth, into: &bytes)
        let drawn = Array(UnsafeBufferPointer(rebasing: bytes.elements[Int(piece.start)..<Int(piece.end)]))
        let entry = NameEntry(name: name, sender: sender, maxWidth: maxWidth, bytes: drawn, width: piece.width)
        if names.count < Chrome.namesKept { names.append(entry) } else { names[nextName] = entry }
        nextName = (nextName + 1) % Chrome.namesKept
        return piece
    }

    /// A sender's name as `fitted` drew it, and the id it was drawn for.
    private struct NameEntry {
        var name: String
        var sender: String
        var maxWidth: Int
        var bytes: [UInt8]
        var width: Int32
    }

    /// Names drawn lately (at most `namesKept`, the oldest replaced first).
    private var names: [NameEntry] = []
    private var nextName = 0
    private static let namesKept = 8

    /// The header's time, `HH:MM` of the day's `second`, after "· " when it
    /// follows a name: printable ASCII, one column a byte, written in place
    /// unless the line is too narrow for it.
    ///
    /// Inlined into the header (a call of its own cost some 30
    /// instructions a header); a line too narrow for it is a call.
    @inline(__always)
    private func timePiece(_ second: Int, afterName: Bool, _ out: inout ChromeLines) -> Piece {
        let columns = afterName ? 7 : 5
        guard columns <= width else { return narrowTimePiece(second, afterName: afterName, &out) }
        // Stored in place: "· " (C2 B7 20) and the clock's five bytes.
        let start = out.bytes.count
        let length = afterName ? 8 : 5
        var target = out.bytes.reserve(length) + start
        if afterName {
            target[0] = 0xC2
            target[1] = 0xB7
            target[2] = 0x20
            target += 3
        }
        Chrome.storeClock(second, at: target)
        out.bytes.extend(to: start + length)
        // Canvas bytes are far below `Int32.max` (`OutputLimits`).
        return Piece(start: Int32(truncatingIfNeeded: start), end: Int32(truncatingIfNeeded: start + length),
                     width: Int32(columns), style: .muted)
    }

    /// `timePiece` on a line narrower than it: fitted, cut with "…".
    @inline(never)
    private func narrowTimePiece(_ second: Int, afterName: Bool, _ out: inout ChromeLines) -> Piece {
        let time = Chrome.clock(second)
        return fitted(afterName ? "· " + time : time, style: .muted, maxWidth: width, into: &out.bytes)
    }

    private func separator(_ label: String, _ out: inout ChromeLines) {
        let first = out.pieces.count
        let text = fitted(" \(label) ", style: .separator, maxWidth: width, into: &out.bytes)
        let remaining = width - Int(text.width)
        let left = remaining / 2
        out.add(rule(left, &out.bytes))
        out.add(text)
        out.add(rule(remaining - left, &out.bytes))
        out.endLine(from: first)
    }

    private func rule(_ columns: Int, _ bytes: inout UnsafeList<UInt8>, double: Bool = false) -> Piece {
        let start = bytes.count
        // ─, or ═ for a conversation's heading
        let middle: UInt8 = double ? 0x95 : 0x94
        let last: UInt8 = double ? 0x90 : 0x80
        for _ in 0..<max(0, columns) {
            bytes.append(0xE2)
            bytes.append(middle)
            bytes.append(last)
        }
        return Piece(start: Int32(start), end: Int32(bytes.count), width: Int32(max(0, columns)), style: .separator)
    }

    /// Sanitized `text` as one piece appended to `bytes` (a canvas's), cut
    /// with "…" to `maxWidth` columns.
    func fitted(_ text: String, style: Style, maxWidth: Int, into bytes: inout UnsafeList<UInt8>) -> Piece {
        var text = text
        return text.withUTF8 { fitted(utf8: $0, style: style, maxWidth: maxWidth, into: &bytes) }
    }

    /// `fitted` for text given as valid UTF-8.
    func fitted(utf8 text: UnsafeBufferPointer<UInt8>, style: Style, maxWidth: Int, into bytes: inout UnsafeList<UInt8>) -> Piece {
        let start = bytes.count
        // Only the first columns are shown: a huge sender name or reply id
        // is not sanitized (and grown) whole. A cluster is at most 32 scalars.
        let needed = max(4096, (max(0, maxWidth) + 1) * 32 * 4)
        let clean = Sanitizer.sanitize(StringArena.prefix(text, needed), into: &bytes)
        let length = bytes.count - start
        if clean && length <= maxWidth {
            // Printable ASCII: one column per byte.
            return Piece(start: Int32(start), end: Int32(bytes.count), width: Int32(length), style: style)
        }
        let (end, width, ellipsis) = Chrome.fit(bytes.mutableElements, from: start, maxWidth: maxWidth, mode: mode)
        bytes.truncate(to: end)
        if ellipsis { UTF8Repair.appendScalar(0x2026, to: &bytes) } // …
        return Piece(start: Int32(start), end: Int32(bytes.count), width: Int32(width), style: style)
    }

    /// Cuts sanitized `bytes[start...]` to `maxWidth` columns in place and
    /// returns where the kept text ends and the width with the ellipsis:
    /// whole when it fits, else the clusters that fit in `maxWidth - 1`
    /// columns and `ellipsis` true, for the caller to append "…" (nothing at
    /// all when `maxWidth` < 1). Marks beyond a cluster's
    /// limit are dropped. Clusters are measured only until the text is known
    /// not to fit, so a long reply preview costs what its first line costs
    /// (and its ASCII a stretch at a time, `nextASCIIStretch`, as runs may
    /// be cut at any byte); bytes move only towards `start`, so the cut
    /// needs no copy.
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
        while let cluster = scanner.nextASCIIStretch() ?? scanner.next() {
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

    /// `statusText` as a literal's bytes, for the terminal footer (no
    /// `String` to open for its UTF-8 every outgoing message).
    static func statusBytes(_ status: DeliveryStatus) -> (text: StaticString, style: Style)? {
        switch status {
        case .none: return nil
        case .sending: return ("◌ sending", .muted)
        case .sent: return ("✓ sent", .muted)
        case .delivered: return ("✓✓ delivered", .muted)
        case .read: return ("✓✓ read", .success)
        case .failed: return ("✗ failed", [.error, .strong])
        }
    }

    static func statusText(_ status: DeliveryStatus) -> (text: String, style: Style)? {
        statusBytes(status).map { ($0.text.description, $0.style) }
    }

    /// The reactions line: each emoji (its first 8 characters) with its
    /// count when above 1, two spaces apart; "" when there are none.
    static func reactions(_ message: Message) -> String {
        var text: [UInt8] = []
        reactions(message, into: &text)
        return String(decoding: text, as: UTF8.self)
    }

    /// `reactions(_:)` as UTF-8, appended to `text` (empty for none): the
    /// terminal footer reuses one buffer and makes no `String` of it, and
    /// each emoji is decoded straight into it.
    static func reactions(_ message: Message, into text: inout [UInt8]) {
        reactions(message, into: &text, known: { _ in false }) { _ in }
    }

    /// `reactions(_:into:)`, returning the width of what it appended when
    /// every emoji has one in `widths` (the rest of the line is printable
    /// ASCII, spaces and counts, one column a byte), else nil: the terminal
    /// footer then needs neither sanitize nor measure the line.
    static func reactions(_ message: Message, into text: inout [UInt8], widths: inout EmojiWidths) -> Int? {
        let start = text.count
        var emojiColumns = 0
        var emojiBytes = 0
        reactions(message, into: &text, known: { raw in
            guard let width = widths.knownWidth(of: raw) else { return false }
            if emojiColumns >= 0 {
                emojiColumns += width
                emojiBytes += raw.count
            }
            return true
        }) { emoji in
            guard emojiColumns >= 0 else { return }
            emojiColumns = widths.width(of: emoji).map { emojiColumns + $0 } ?? -1
            emojiBytes += emoji.count
        }
        return emojiColumns >= 0 ? text.count - start - emojiBytes + emojiColumns : nil
    }

    /// `reactions(_:into:)`, calling `eachEmoji` with the bytes of each
    /// emoji as the line keeps them (cut, not yet sanitized). An emoji
    /// whose string has no escape is first given to `known` as it is in
    /// the record: when that returns true, the line keeps those bytes as
    /// they are, without decoding or cutting them, and `eachEmoji` is not
    /// called for it. `known` may return true only for bytes that decoding
    /// and cutting to 8 characters would leave as they are (valid UTF-8 of
    /// at most 8 characters: an emoji `EmojiWidths` measured, after its
    /// cut, which keeps a cut the same); decoding each emoji into the line
    /// (a copy that checks the UTF-8) and asking `EmojiWidths` for its
    /// width after it cost some 380 instructions an emoji.
    private static func reactions(_ message: Message, into text: inout [UInt8],
                                  known: (UnsafeBufferPointer<UInt8>) -> Bool,
                                  eachEmoji: (UnsafeBufferPointer<UInt8>) -> Void) {
        let document = message.document
        guard let list = message.reactionsNode, document.kind(list) == .array else { return }
        let start = text.count
        var element = list + 1
        for _ in 0..<min(document.count(list), 20) {
            defer { element = document.skip(element) }
            guard document.kind(element) == .object else { continue }
            // The first "emoji" and "count" members, found in one pass.
            var emoji: Int?
            var countNode: Int?
            var key = element + 1
            for _ in 0..<document.count(element) {
                if emoji == nil, document.keyEquals(key, "emoji") {
                    emoji = key + 1
                } else if countNode == nil, document.keyEquals(key, "count") {
                    countNode = key + 1
                }
                key = document.skip(key + 1)
            }
            guard let emoji else { continue }
            // A count below 1 means no one reacted; above 999 999 it is shown as "999999+".
            let count = countNode.flatMap { document.integer($0) } ?? 1
            guard count >= 1 else { continue }
            let before = text.count
            if text.count > start { text.append(0x20); text.append(0x20) }
            let emojiStart = text.count
            if let raw = document.rawString(emoji), raw.count > 0, raw.count <= 16,
               document.bytes.withUnsafeBufferPointer({ bytes in
                   let bytes = UnsafeBufferPointer(rebasing: bytes[raw])
                   guard known(bytes) else { return false }
                   // A few bytes: appended one at a time (the array's
                   // `append(contentsOf:)` cost some 200 instructions a call).
                   for byte in bytes { text.append(byte) }
                   return true
               }) {
                appendCount(count, to: &text)
                continue
            }
            // Not a string, or empty: no reaction.
            document.appendString(emoji, to: &text)
            guard text.count > emojiStart else {
                text.removeSubrange(before...)
                continue
            }
            // Its first 8 characters; up to 8 bytes hold at most 8, no need to count them.
            if text.count - emojiStart > 8 { CharacterPrefix.cut(&text, from: emojiStart, toCharacters: 8) }
            text.withUnsafeBufferPointer { eachEmoji(UnsafeBufferPointer(rebasing: $0[emojiStart...])) }
            appendCount(count, to: &text)
        }
    }

    /// A reaction's count after its emoji: nothing for 1, " 999999+" above 999 999.
    @inline(__always)
    private static func appendCount(_ count: Int64, to text: inout [UInt8]) {
        if count > 1 {
            text.append(0x20)
            if count > 999_999 {
                text += "999999+".utf8
            } else {
                // 2 to 999 999: its decimal digits, written in place.
                DecimalDigits.with(Int(count)) { for digit in $0 { text.append(digit) } }
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

    /// `HH:MM` of the day's `second` (0 to 86 399), stored in the five
    /// bytes at `target`: every group header shows one, written in place.
    static func storeClock(_ second: Int, at target: UnsafeMutablePointer<UInt8>) {
        let minutes = UInt32(truncatingIfNeeded: second) / 60
        let hour = UInt8(truncatingIfNeeded: minutes / 60 % 24)
        let minute = UInt8(truncatingIfNeeded: minutes % 60)
        target[0] = 0x30 + hour / 10
        target[1] = 0x30 + hour % 10
        target[2] = 0x3A // :
        target[3] = 0x30 + minute / 10
        target[4] = 0x30 + minute % 10
    }

    /// `HH:MM` of the day's `second`, as a string (for the HTML page, and a
    /// header too narrow for it).
    static func clock(_ second: Int) -> String {
        String(unsafeUninitializedCapacity: 5) { buffer in
            guard let base = buffer.baseAddress, buffer.count >= 5 else { return 0 }
            storeClock(second, at: base)
            return 5
        }
    }

    static let weekdays = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
    static let months = ["January", "February", "March", "April", "May", "June", "July", "August",
                         "September", "October", "November", "December"]

    /// The day separator's label for local time `parts`.
    static func dayLabel(_ parts: tm) -> String {
        return "\(Chrome.weekdays[Int(parts.tm_wday) % 7]), \(parts.tm_mday) \(Chrome.months[Int(parts.tm_mon) % 12]) \(1900 + Int(parts.tm_year))"
    }
}

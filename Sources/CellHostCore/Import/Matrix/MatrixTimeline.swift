/// Turns Matrix events into CellHost messages in the order they are handed
/// over, with what other events said about them applied: edits, reactions,
/// deletions, display names.
///
/// `collect` is given the events first (a whole file in a first pass, or
/// each event just before it is shown when the input can be read only
/// once); `present` then shows them. Edit, reaction and redaction events are
/// never shown themselves.
final class MatrixTimeline {
    let sink: ImportSink
    let options: ImportOptions
    let files: MatrixMediaFiles
    let relations = MatrixRelations()
    let members = MatrixMembers()
    /// Element's `exported_by`: whose side the export is from.
    var exporter: String?
    private var roomNames: [String: String] = [:]
    private var document = JSONDocument()
    private var contentDocument = JSONDocument()
    private var skipped: [String: Int] = [:]
    private var skippedCount = 0
    private var editsApplied = 0
    private var reactionsApplied = 0
    private var deletions = 0
    private var pendingRoom: String?

    /// The text of a deleted (redacted) message.
    static let deletedText = "🗑 _Message deleted_"

    init(sink: ImportSink, options: ImportOptions, files: MatrixMediaFiles) {
        self.sink = sink
        self.options = options
        self.files = files
    }

    // MARK: Reading one event

    /// Parses `bytes` as an event. Invalid string escapes are mended (with a
    /// warning when `report`); nil, with a problem when `report`, for what
    /// is not JSON or not an object.
    func parse(_ bytes: UnsafeBufferPointer<UInt8>, line: Int, report: Bool) -> MatrixEvent? {
        do {
            try document.parse(bytes)
        } catch let error as JSONSyntaxError {
            guard let repaired = InvalidEscapes.repair(bytes),
                  (try? repaired.bytes.withUnsafeBufferPointer { try document.parse($0) }) != nil else {
                if report { sink.problem(line: line, "not a readable event: \(error)") }
                return nil
            }
            if report {
                let what = repaired.count == 1 ? "an invalid escape" : "\(repaired.count) invalid escapes, the first"
                sink.warning("line \(line): \(what) \(repaired.first) read as text")
            }
        } catch {
            if report { sink.problem(line: line, "not a readable event: \(error)") }
            return nil
        }
        guard let event = MatrixEvent(document) else {
            if report { sink.problem(line: line, "not a Matrix event: a JSON \(MatrixTimeline.describe(document.rootKind)), not an object") }
            return nil
        }
        return event
    }

    static func describe(_ kind: JSONDocument.Kind?) -> String {
        switch kind {
        case .array: return "array"
        case .string: return "string"
        case .number: return "number"
        case .boolTrue, .boolFalse: return "boolean"
        case .null: return "null"
        default: return "value"
        }
    }

    // MARK: Collecting relations

    /// Records what `event` says about other events (an edit, a reaction, a
    /// deletion) and, in a first pass, the names members start with.
    func collect(_ event: MatrixEvent, place: MatrixPlace, firstPass: Bool) {
        if firstPass { members.learn(event, block: place.block) }
        guard let type = event.type else { return }
        if type == "m.room.name", let room = place.room, let content = event.content, let name = event.string(content, "name") {
            roomNames[room] = name
        }
        guard place.block == .timeline else { return }
        let id = event.eventID ?? ""
        if type == "m.room.redaction" {
            let target = event.string(event.root, "redacts") ?? event.content.flatMap { event.string($0, "redacts") }
            if let target { relations.addRedaction(target: target) }
            return
        }
        guard let relatesTo = event.relatesTo, let kind = event.string(relatesTo, "rel_type"),
              let target = event.string(relatesTo, "event_id") else { return }
        if kind == "m.replace" {
            let newContent = event.content.flatMap { event.object($0, "m.new_content") }.map(event.rawBytes)
            relations.addEdit(target: target, MatrixRelation.Edit(eventID: id, sender: event.sender,
                                                                  milliseconds: event.milliseconds ?? 0, order: 0,
                                                                  newContent: newContent))
        } else if kind == "m.annotation", type == "m.reaction", let key = event.string(relatesTo, "key") {
            relations.addReaction(target: target, eventID: id, key: key)
        }
    }

    /// A state event of a stream read once: its member's name is the name
    /// from then on.
    func presentState(_ event: MatrixEvent, place: MatrixPlace) {
        collect(event, place: place, firstPass: false)
        guard event.type == "m.room.member", let user = event.stateKey, let content = event.content,
              event.string(content, "membership") == "join" else { return }
        members.set(user, event.string(content, "displayname"))
    }

    // MARK: Showing

    /// A `/sync` room started: its conversation line comes before its first
    /// event, when the room's state (its name) may have been read.
    func startRoom(_ id: String) { pendingRoom = id }

    /// The conversation line of the room started last, with its name.
    private func showPendingRoom() {
        guard let id = pendingRoom else { return }
        pendingRoom = nil
        var message = ImportedMessage()
        message.id = id
        message.type = "system"
        message.systemEvent = "conversation"
        message.text = ImportText.escaped(roomNames[id].flatMap { $0.isEmpty ? nil : $0 } ?? id)
        sink.emit(message, line: 0)
    }

    /// Shows `event` (found at `line`) as a message or system line, or
    /// leaves it out: relation events, and types nobody shows (counted).
    func present(_ event: MatrixEvent, line: Int, place: MatrixPlace) {
        guard let type = event.type else {
            let kind = event.document.member(event.root, "type") == nil ? "no \"type\"" : "a \"type\" that is not a string"
            sink.problem(line: line, "not a Matrix event: \(kind)")
            return
        }
        showPendingRoom()
        if type == "m.reaction" || type == "m.room.redaction" { return }
        if let relatesTo = event.relatesTo, event.string(relatesTo, "rel_type") == "m.replace" { return }
        var message = ImportedMessage()
        message.id = event.eventID ?? ""
        if let sender = event.sender {
            message.senderID = sender
            message.senderName = members.name(of: sender)
        }
        let time = event.time
        message.time = time.seconds
        message.unreadableTime = time.unreadable
        if let exporter {
            message.direction = options.direction(sender: exporter.hasPrefix("@") ? message.senderID : message.senderName,
                                                  exporter: exporter)
        }
        switch type {
        case "m.room.message", "m.sticker", "m.room.encrypted":
            guard let content = event.content else {
                sink.problem(line: line, "message \(message.id.prefix(80)): \"content\" is not an object, skipped")
                return
            }
            showMessage(event, type: type, content: content, into: &message)
        default:
            guard let (kind, text) = MatrixStateLine.describe(event, members: members) else {
                if type != "m.room.member" { skip(type) }
                return
            }
            message.type = "system"
            message.systemEvent = kind
            message.text = ImportText.escaped(text)
            // Who joins is shown with the name they join with.
            if kind == "join", let sender = event.sender, sender == event.stateKey { message.senderName = members.name(of: sender) }
        }
        sink.emit(message, line: line)
    }

    private func skip(_ type: String) {
        skippedCount += 1
        if skipped[type] != nil || skipped.count < 16 { skipped[type, default: 0] += 1 }
    }

    /// The content, the reply, and the relations of a message event.
    private func showMessage(_ event: MatrixEvent, type: String, content: Int, into message: inout ImportedMessage) {
        let relatesTo = event.relatesTo
        let inReplyTo = relatesTo.flatMap { event.object($0, "m.in_reply_to") }.flatMap { event.string($0, "event_id") }
        if let relatesTo, event.string(relatesTo, "rel_type") == "m.thread" {
            // In a thread, the reply is real only when it is not the fallback
            // for clients without threads; else the message answers the thread's root.
            let fallingBack = event.document.member(relatesTo, "is_falling_back").flatMap(event.document.bool) ?? false
            message.replyTo = (fallingBack ? nil : inReplyTo) ?? event.string(relatesTo, "event_id")
        } else {
            message.replyTo = inReplyTo
        }
        let relation = relations.take(message.id)
        let emptied = type == "m.room.message" && event.document.count(content) == 0
        if event.isRedacted || relation?.redacted == true || emptied {
            message.type = "text"
            message.text = MatrixTimeline.deletedText
            deletions += 1
            return
        }
        let senderName = message.senderName ?? "Someone"
        let milliseconds = event.milliseconds
        if type == "m.room.encrypted" {
            message.type = "encrypted"
            message.text = MatrixContent.encryptedText
        } else {
            MatrixContent(event: event, content: content)
                .apply(to: &message, eventType: type, isReply: inReplyTo != nil, senderName: senderName,
                       milliseconds: milliseconds, files: files)
        }
        applyEdits(event, relation: relation, type: type, isReply: inReplyTo != nil, into: &message)
        applyReactions(event, relation: relation, into: &message)
    }

    /// The latest edit by the sender, from this input or bundled in the
    /// event's `unsigned.m.relations.m.replace`, replaces the content.
    private func applyEdits(_ event: MatrixEvent, relation: MatrixRelation?, type: String, isReply: Bool,
                            into message: inout ImportedMessage) {
        let senderName = message.senderName ?? "Someone"
        let collected = relation.flatMap { relations.latestEdit(of: $0, sender: event.sender) }
        let bundled = event.unsigned.flatMap { event.object($0, "m.relations") }.flatMap { event.object($0, "m.replace") }
        guard collected != nil || bundled != nil else { return }
        message.edited = true
        guard type != "m.room.encrypted" else { return }
        // A bundled edit (specification 1.7 on) is the whole replacement event.
        if let bundled, let content = event.object(bundled, "content"), let newContent = event.object(content, "m.new_content"),
           event.string(bundled, "sender") == nil || event.string(bundled, "sender") == event.sender,
           (event.number(bundled, "origin_server_ts") ?? 0) >= (collected?.milliseconds ?? -Double.infinity) {
            MatrixContent(event: event, content: newContent)
                .apply(to: &message, eventType: type, isReply: isReply, senderName: senderName,
                       milliseconds: event.milliseconds, files: files)
            editsApplied += 1
            return
        }
        guard let bytes = collected?.newContent else { return }
        let parsed: Bool = bytes.withUnsafeBufferPointer { (try? contentDocument.parse($0)) != nil }
        guard parsed, contentDocument.rootKind == .object else { return }
        let newContent = MatrixEvent(document: contentDocument, root: JSONDocument.root)
        MatrixContent(event: newContent, content: JSONDocument.root)
            .apply(to: &message, eventType: type, isReply: isReply, senderName: senderName,
                   milliseconds: event.milliseconds, files: files)
        editsApplied += 1
    }

    /// Reaction events counted by key; a bundled count
    /// (`unsigned.m.relations.m.annotation.chunk`) is taken when it is higher.
    private func applyReactions(_ event: MatrixEvent, relation: MatrixRelation?, into message: inout ImportedMessage) {
        if let relation {
            for (key, count) in relations.reactionCounts(of: relation) {
                message.addReaction(key, count: count)
                reactionsApplied += count
            }
        }
        guard let chunk = event.unsigned.flatMap({ event.object($0, "m.relations") })
            .flatMap({ event.object($0, "m.annotation") }).flatMap({ event.array($0, "chunk") }) else { return }
        for element in event.document.elements(chunk).prefix(1024) where event.document.kind(element) == .object {
            guard let key = event.string(element, "key"), let count = event.integer(element, "count", in: 0...1_000_000_000) else { continue }
            let have = message.reactions.first { $0.emoji == key }?.count ?? 0
            if Int(count) > have { message.addReaction(key, count: Int(count) - have) }
        }
    }

    // MARK: The end

    /// Adds the `--verbose` summary notes; on a stream read once, warns
    /// about the relations that came too late to be applied.
    func finish(readOnce: Bool) {
        if editsApplied > 0 { sink.note(MatrixTimeline.count(editsApplied, "edit") + " applied") }
        if reactionsApplied > 0 { sink.note(MatrixTimeline.count(reactionsApplied, "reaction") + " counted") }
        if deletions > 0 { sink.note(MatrixTimeline.count(deletions, "deleted message") + " shown as deleted") }
        if skippedCount > 0 {
            let types = skipped.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.prefix(5).map(\.key)
            sink.note(MatrixTimeline.count(skippedCount, "event") + " of other types skipped (\(types.joined(separator: ", "))\(skipped.count > 5 ? ", …" : ""))")
        }
        let unapplied = relations.unapplied
        let late = relations.late
        let total = (edits: unapplied.edits + late.edits, reactions: unapplied.reactions + late.reactions,
                     deletions: unapplied.deletions + late.deletions)
        guard total.edits + total.reactions + total.deletions > 0 else { return }
        let list = MatrixTimeline.list(total)
        if readOnce {
            sink.warning("\(list) not applied: they came after their message (or it is not in the input), "
                         + "and this input cannot be read twice; give the file's path instead to apply them")
        } else {
            sink.note("\(list) about events not in the input")
        }
    }

    static func count(_ value: Int, _ noun: String) -> String { "\(value) \(noun)\(value == 1 ? "" : "s")" }

    /// "2 edits, 1 reaction and 3 deletions" (the kinds there are).
    static func list(_ counts: (edits: Int, reactions: Int, deletions: Int)) -> String {
        var parts: [String] = []
        if counts.edits > 0 { parts.append(count(counts.edits, "edit")) }
        if counts.reactions > 0 { parts.append(count(counts.reactions, "reaction")) }
        if counts.deletions > 0 { parts.append(count(counts.deletions, "deletion")) }
        guard let last = parts.popLast() else { return "" }
        return parts.isEmpty ? last : parts.joined(separator: ", ") + " and " + last
    }
}

extension MatrixEvent {
    /// An event view over `root` of `document` (an edit's new content).
    init(document: JSONDocument, root: Int) {
        self.document = document
        self.root = root
    }
}

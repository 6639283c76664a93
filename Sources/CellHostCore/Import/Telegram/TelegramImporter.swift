/// Reads a Telegram Desktop JSON export (`result.json`): one chat
/// (`{"name","type","id","messages":[…]}`) or a whole account
/// (`{"personal_information":{…},"chats":{"list":[{chat},…]},"left_chats":{…}}`).
///
/// The file is walked as a stream: the walk descends into the root, the
/// chat lists and each chat, captures a chat's `name`, `type` and `id`, and
/// captures the elements of `messages` one at a time, so only one message
/// is held whatever the size of the export. Each chat starts with a system
/// message (`systemEvent` "conversation") naming it, emitted when its
/// `messages` begin; a chat's fields written after its messages are not
/// used. In a full-account export message ids become `<chat id>/<message
/// id>`, since every chat numbers its messages from 1.
public enum TelegramImporter: ChatImporter {
    public static var format: ImportFormat { .telegram }

    public static func run(_ input: ImportInput, options: ImportOptions, sink: ImportSink) throws {
        let source = try input.requireSource(.telegram)
        let reader = TelegramExportReader(options: options, sink: sink)
        try reader.read(source)
    }
}

/// The state of one walk over an export (see `TelegramImporter`).
final class TelegramExportReader {
    private let sink: ImportSink
    private var mapper: TelegramMessageMapper
    private var chat = TelegramChat()
    private var chats = 0
    private var headerEmitted = false
    private var document = JSONDocument()
    private var rootIsObject = true
    /// True once `messages`, `chats` or `left_chats` was found.
    private var foundChats = false
    private var lastLine = 1
    private var repairs = TelegramRepairReport()

    init(options: ImportOptions, sink: ImportSink) {
        self.sink = sink
        self.mapper = TelegramMessageMapper(options: options, exporter: nil)
    }

    func read(_ source: ByteSource) throws {
        let stream = JSONStream(source: source)
        defer { finish() }
        try stream.walk(decide: { path, first in
            self.decide(path, first)
        }, value: { path, value in
            self.take(path, value)
        }, problem: { line, reason in
            self.sink.problem(line: line, reason)
        })
        let shapes = "(an export is {\"name\",\"type\",\"id\",\"messages\"} or {\"personal_information\",\"chats\"})"
        guard rootIsObject else {
            throw ImportError(line: 1, reason: "not a Telegram export: the document is not an object \(shapes)")
        }
        guard foundChats else {
            throw ImportError(line: nil, reason: "not a Telegram export: it has neither \"messages\" nor \"chats\" \(shapes)")
        }
    }

    private func finish() {
        if chats > 1 { sink.note("\(chats) chats") }
        repairs.finish(sink)
    }

    // MARK: The walk

    private static let opening = UInt8(ascii: "{")
    private static let bracket = UInt8(ascii: "[")

    /// True when `path` starts inside a chat of `chats.list` or
    /// `left_chats.list` (a full-account export); a single-chat export's
    /// chat is the root itself.
    private func isInListedChat(_ path: [JSONStream.Step]) -> Bool {
        guard path.count >= 3, case .key(let list) = path[0], list == "chats" || list == "left_chats",
              path[1] == .key("list"), case .index = path[2] else { return false }
        return true
    }

    private func decide(_ path: [JSONStream.Step], _ first: UInt8) -> JSONStream.Decision {
        switch path.count {
        case 0:
            if first == Self.opening { return .descend }
            rootIsObject = false
            return .skip
        case 1:
            guard case .key(let key) = path[0] else { return .skip }
            switch key {
            case "personal_information": return first == Self.opening ? .capture : .skip
            case "chats", "left_chats":
                guard first == Self.opening else { return .skip }
                foundChats = true
                return .descend
            case "name", "type", "id": return .capture
            case "messages":
                guard first == Self.bracket else { return .skip }
                beginMessages()
                return .descend
            default: return .skip
            }
        case 2:
            if case .key(let key) = path[0], key == "chats" || key == "left_chats", path[1] == .key("list") {
                return first == Self.bracket ? .descend : .skip
            }
            if path[0] == .key("messages"), case .index = path[1] { return .capture }
            return .skip
        case 3:
            guard isInListedChat(path), first == Self.opening else { return .skip }
            beginChat(left: path[0] == .key("left_chats"))
            return .descend
        case 4:
            guard isInListedChat(path), case .key(let key) = path[3] else { return .skip }
            switch key {
            case "name", "type", "id": return .capture
            case "messages":
                guard first == Self.bracket else { return .skip }
                beginMessages()
                return .descend
            default: return .skip
            }
        case 5:
            guard isInListedChat(path), path[3] == .key("messages"), case .index = path[4] else { return .skip }
            return .capture
        default:
            return .skip
        }
    }

    private func take(_ path: [JSONStream.Step], _ value: JSONStream.Value) {
        lastLine = value.line
        guard case .key(let key)? = path.last else {
            message(value)
            return
        }
        guard let node = parse(value, what: key == "personal_information" ? "personal_information" : "the chat's \(key)") else {
            return
        }
        switch key {
        case "personal_information":
            if let id = node["user_id"]?.scalarText, !id.isEmpty {
                mapper.exporter = TelegramPeer.isNumber(id) ? TelegramPeer.sender(fromNumber: id) : id
            }
        case "name": chat.name = node.string
        case "type": chat.type = node.string
        case "id": chat.id = node.scalarText
        default: break
        }
    }

    private func beginChat(left: Bool) {
        chats += 1
        chat = TelegramChat()
        chat.ordinal = chats
        chat.isListed = true
        chat.isLeft = left
        headerEmitted = false
    }

    private func beginMessages() {
        foundChats = true
        if chats == 0 { chats = 1 }
        guard !headerEmitted else { return }
        headerEmitted = true
        sink.emit(chat.header(), line: lastLine)
    }

    // MARK: Messages

    private func message(_ value: JSONStream.Value) {
        guard let node = parse(value, what: "a message") else { return }
        guard node.isObject else {
            sink.problem(line: value.line, "a message is \(Self.describe(node.kind)), not an object; skipped")
            return
        }
        sink.emit(mapper.map(node, chat: chat), line: value.line)
    }

    /// Parses a captured value, repairing Telegram's `\xNN` escapes; reports
    /// a value that is still not JSON.
    private func parse(_ value: JSONStream.Value, what: String) -> TelegramNode? {
        do {
            if let repaired = TelegramEscapes.repaired(value.bytes) {
                try repaired.bytes.withUnsafeBufferPointer { try document.parse($0) }
                repairs.record(line: value.line, count: repaired.count, sink: sink)
            } else {
                try document.parse(value.bytes)
            }
        } catch {
            sink.problem(line: value.line, "\(what) is not valid JSON (\(error)); skipped")
            return nil
        }
        return TelegramNode(document: document, index: JSONDocument.root)
    }

    private static func describe(_ kind: JSONDocument.Kind) -> String {
        switch kind {
        case .array: return "an array"
        case .string: return "a string"
        case .number: return "a number"
        case .boolTrue, .boolFalse: return "a boolean"
        case .null: return "null"
        case .object: return "an object"
        }
    }
}

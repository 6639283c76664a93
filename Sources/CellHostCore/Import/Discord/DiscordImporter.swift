/// Reads a DiscordChatExporter JSON export (one channel:
/// `{"guild":{…},"channel":{…},"messages":[…],"messageCount":N}`) as a
/// stream: `guild` and `channel` are captured whole (they are small), each
/// element of `messages` is captured, mapped and handed over on its own.
///
/// The conversation starts with a `conversation` system line naming the
/// channel (`#general — Guild`). DiscordChatExporter does not say whose
/// account made the export, so direction is left to `--me`.
public enum DiscordImporter: ChatImporter {
    public static let format = ImportFormat.discord

    public static func run(_ input: ImportInput, options: ImportOptions, sink: ImportSink) throws {
        let source = try input.requireSource(format)
        var state = State(reader: DiscordMessageReader(options: options))
        var document = JSONDocument()
        let stream = JSONStream(source: source)
        try stream.walk(decide: { path, first in
            switch path.count {
            case 0:
                return first == UInt8(ascii: "{") && !state.rootSeen ? .descend : .skip
            case 1:
                guard case .key(let key) = path[0] else { return .skip }
                switch key {
                case "guild", "channel": return first == UInt8(ascii: "{") ? .capture : .skip
                case "messages":
                    if first == UInt8(ascii: "[") { return .descend }
                    state.badMessages = true
                    return .skip
                default: return .skip
                }
            case 2:
                return .capture
            default:
                return .skip
            }
        }, value: { path, value in
            guard case .key(let key)? = path.first else { return }
            var repaired = false
            do {
                repaired = try ExportValueParser.parse(value.bytes, into: &document)
            } catch {
                sink.problem(line: value.line, "\(path.count == 1 ? "\"\(key)\"" : "a message") is not valid JSON: \(error)")
                return
            }
            if repaired { sink.warning("line \(value.line): invalid escapes in a string were repaired") }
            let view = JSONView(document)
            switch (key, path.count) {
            case ("guild", 1):
                state.guildName = view["name"]?.text
            case ("channel", 1):
                state.reader.channelID = view["id"]?.id
                state.reader.channelName = view["name"]?.text
                state.channelType = view["type"]?.text
            case ("messages", 2):
                state.header(sink: sink, line: value.line)
                for message in state.reader.messages(view, line: value.line, sink: sink) {
                    sink.emit(message, line: value.line)
                }
                state.count += 1
            default:
                break
            }
        }, end: { path in
            if path.isEmpty { state.rootSeen = true }
        }, problem: { line, reason in
            sink.problem(line: line, reason)
        })
        guard state.rootSeen else {
            throw ImportError(line: nil, reason: "not a DiscordChatExporter export: the document is not a JSON object")
        }
        if state.badMessages { sink.problem(line: nil, "\"messages\" is not an array; no messages read") }
        state.header(sink: sink, line: 0)
        sink.note("\(state.count) message object\(state.count == 1 ? "" : "s") read")
    }

    /// What the walk learns before and between messages.
    private struct State {
        var reader: DiscordMessageReader
        var guildName: String?
        var channelType: String?
        var headerDone = false
        var rootSeen = false
        var badMessages = false
        var count = 0

        /// The `conversation` line, once, before the first message.
        mutating func header(sink: ImportSink, line: Int) {
            guard !headerDone else { return }
            headerDone = true
            guard reader.channelName != nil || guildName != nil else { return }
            var header = ImportedMessage()
            header.id = reader.channelID.map { "channel-\($0)" } ?? "channel"
            header.type = "system"
            header.systemEvent = "conversation"
            let direct = channelType.map { $0.hasPrefix("Direct") } ?? false
            var title = reader.channelName.map { direct ? $0 : "#" + $0 } ?? ""
            if !direct, let guildName, !guildName.isEmpty {
                title += title.isEmpty ? guildName : " — " + guildName
            }
            header.text = ImportText.escaped(title)
            sink.emit(header, line: line)
        }
    }
}

import Glibc

/// Tells which format an input is from its first bytes (never its name).
///
/// JSON is recognised by the keys of its root object and of the first element
/// of its message array (`messages`, `chunk`, …); a JSON Lines file by its
/// first line; WhatsApp's text export by the date and time that start its
/// lines. What is none of them is described, so the user learns what the file
/// looked like instead of a stream of JSON errors.
public enum FormatDetector {
    /// How many bytes detection reads at most before deciding.
    public static let prefixLimit = 64 << 10

    public enum Outcome: Equatable {
        case format(ImportFormat)
        /// Not a format CellHost knows; what it looked like.
        case unknown(String)
    }

    /// Decides from `prefix`, or returns nil when more bytes are needed
    /// (`atEnd` says there are no more, and the prefix is under the limit).
    public static func detect(_ prefix: [UInt8], atEnd: Bool) -> Outcome? {
        let decisive = atEnd || prefix.count >= prefixLimit
        var start = 0
        if prefix.starts(with: [0xEF, 0xBB, 0xBF]) { start = 3 }
        while start < prefix.count, [0x20, 0x09, 0x0D, 0x0A].contains(prefix[start]) { start += 1 }
        guard start < prefix.count else { return decisive ? .format(.cellhost) : nil }
        let body = Array(prefix[start...])
        let firstLineEnd = body.firstIndex(of: 0x0A)
        // iOS's WhatsApp lines start with `[` too: `[31/12/2020, 23:59:59] Alice: …`.
        if body[0] == UInt8(ascii: "["), WhatsAppLine.startsMessage(Array(body[..<(firstLineEnd ?? body.count)].prefix(256))) {
            return .format(.whatsapp)
        }
        if body[0] == UInt8(ascii: "{") || body[0] == UInt8(ascii: "[") {
            return json(body, firstLineComplete: firstLineEnd != nil || atEnd, decisive: decisive)
        }
        guard let lineEnd = firstLineEnd ?? (decisive ? body.count : nil) else { return nil }
        let firstLine = Array(body[..<lineEnd])
        if WhatsAppLine.startsMessage(firstLine) { return .format(.whatsapp) }
        // A bare JSON value (`42`, `"x"`, `null`) is a line of JSON Lines
        // that is not a message: reported on its line like any other.
        var document = JSONDocument()
        let trimmed = firstLine.last == 0x0D ? Array(firstLine.dropLast()) : firstLine
        if (try? trimmed.withUnsafeBufferPointer { try document.parse($0) }) != nil { return .format(.cellhost) }
        return .unknown(describeText(firstLine))
    }

    /// Detects a directory input: only a Slack export is one.
    public static func detect(directory: String) -> Outcome {
        if SlackLayout.isExport(directory) { return .format(.slack) }
        return .unknown("a directory without users.json or channels.json (only a Slack export is read as a directory)")
    }

    // MARK: JSON

    /// What the walk over a prefix saw.
    private struct Shape {
        var rootIsArray = false
        var rootKeys: [String] = []
        var rootStrings: [String: String] = [:]
        /// The keys of the first element of the root array, or of the first
        /// element of a message array (`messages`, `chunk`) of the root object.
        var elementKeys: [String] = []
        var elementStrings: [String: String] = [:]
        var rootEnded = false
        var rootEndLine = 0

        func hasRoot(_ keys: String...) -> Bool { keys.contains(where: rootKeys.contains) }
        func hasElement(_ keys: String...) -> Bool { keys.contains(where: elementKeys.contains) }
    }

    private static let messageArrays: Set<String> = ["messages", "chunk"]

    private static func json(_ body: [UInt8], firstLineComplete: Bool, decisive: Bool) -> Outcome? {
        var shape = Shape()
        shape.rootIsArray = body[0] == UInt8(ascii: "[")
        let stream = JSONStream(source: ByteSource(bytes: body), valueLimit: prefixLimit)
        do {
            try stream.walk(decide: { path, first in
                switch path.count {
                case 0:
                    return shape.rootEnded ? .skip : .descend
                case 1:
                    if case .key(let key) = path[0] {
                        if shape.rootKeys.count < 64 { shape.rootKeys.append(key) }
                        if first == UInt8(ascii: "\"") { return .capture }
                        return messageArrays.contains(key) && first == UInt8(ascii: "[") ? .descend : .skip
                    }
                    return path[0] == .index(0) && first == UInt8(ascii: "{") ? .descend : .skip
                case 2:
                    if case .key(let key) = path[1] {
                        // A member of the root array's first element.
                        if shape.elementKeys.count < 64 { shape.elementKeys.append(key) }
                        return first == UInt8(ascii: "\"") ? .capture : .skip
                    }
                    return path[1] == .index(0) && first == UInt8(ascii: "{") ? .descend : .skip
                case 3:
                    if case .key(let key) = path[2] {
                        if shape.elementKeys.count < 64 { shape.elementKeys.append(key) }
                        return first == UInt8(ascii: "\"") ? .capture : .skip
                    }
                    return .skip
                default:
                    return .skip
                }
            }, value: { path, value in
                guard case .key(let key)? = path.last, value.bytes.count <= 256 else { return }
                let text = String(decoding: value.bytes.dropFirst().dropLast(), as: UTF8.self)
                if path.count == 1 { shape.rootStrings[key] = text } else { shape.elementStrings[key] = text }
            }, end: { path in
                if path.isEmpty, !shape.rootEnded {
                    shape.rootEnded = true
                }
            }, problem: { _, _ in })
        } catch {
            // A prefix ends in the middle of the document: what was seen decides.
        }
        if let format = recognise(shape) { return .format(format) }
        // Not an export. A first line that holds a whole value is JSON Lines
        // (or a JSON array of records): CellHost's own input.
        let firstLine = body.prefix { $0 != 0x0A }
        let trimmed = firstLine.filter { ![0x20, 0x09, 0x0D].contains($0) }
        let opensDocument = trimmed.count == 1 || [UInt8(ascii: ","), UInt8(ascii: "{"), UInt8(ascii: "[")].contains(trimmed.last ?? 0)
        if shape.rootIsArray || !opensDocument { return firstLineComplete || decisive ? .format(.cellhost) : nil }
        guard decisive || shape.rootEnded else { return nil }
        let keys = shape.rootKeys.prefix(8).map { "\"\($0)\"" }.joined(separator: ", ")
        return .unknown(shape.rootKeys.isEmpty ? "a JSON document that is an empty object"
                        : "a JSON document with the keys \(keys)\(shape.rootKeys.count > 8 ? ", …" : ""), which no importer reads")
    }

    /// Telegram's chat types (the `type` of a chat).
    private static let telegramChatTypes: Set<String> = [
        "personal_chat", "bot_chat", "private_group", "private_supergroup", "public_supergroup",
        "private_channel", "public_channel", "saved_messages", "replies",
    ]

    private static func recognise(_ shape: Shape) -> ImportFormat? {
        if shape.rootIsArray {
            if shape.hasElement("event_id", "origin_server_ts", "room_id") { return .matrix }
            if shape.hasElement("ts"), shape.hasElement("user", "subtype", "bot_id") || shape.elementStrings["type"] == "message" {
                return .slack
            }
            return nil
        }
        if shape.hasRoot("messages"), shape.hasRoot("guild", "channel") { return .discord }
        if shape.hasRoot("chats", "personal_information", "frequent_contacts", "left_chats") { return .telegram }
        if shape.hasRoot("room_name", "room_creator", "exported_by", "export_date") { return .matrix }
        if shape.hasRoot("messages") {
            if shape.hasElement("date_unixtime", "from_id", "text_entities", "actor_id")
                || shape.rootStrings["type"].map(telegramChatTypes.contains) == true { return .telegram }
            if shape.hasElement("event_id", "origin_server_ts") { return .matrix }
            if shape.hasElement("timestampEdited", "author") { return .discord }
        }
        if shape.hasRoot("chunk") { return .matrix }
        // A /sync response: `next_batch` often comes after `rooms`, past the
        // prefix of a big one, so its other keys (or `rooms` alone) do too; a
        // first member `account_data` may even fill the whole prefix.
        let syncKeys = shape.hasRoot("next_batch", "account_data", "presence", "to_device", "device_lists")
        if shape.hasRoot("rooms") && (syncKeys || shape.rootKeys == ["rooms"])
            || (shape.rootKeys == ["account_data"] && !shape.rootEnded) { return .matrix }
        if shape.hasRoot("event_id", "origin_server_ts"), shape.hasRoot("content") || shape.hasRoot("type") { return .matrix }
        return nil
    }

    // MARK: Text

    private static func describeText(_ line: [UInt8]) -> String {
        let printable = line.prefix(256).allSatisfy { $0 >= 0x20 || $0 == 0x09 || $0 == 0x0D }
        guard printable, String(validating: line.prefix(256), as: UTF8.self) != nil || line.count > 256 else {
            return "binary data, not text"
        }
        var text = String(decoding: line.prefix(60), as: UTF8.self)
        text = String(text.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }.map(Character.init))
        return "text whose first line is \"\(text)\(line.count > 60 ? "…" : "")\", not JSON nor a WhatsApp export"
    }
}

/// What starts a message line in a WhatsApp text export: a date and a time,
/// bracketed on iOS, in any locale's order and separators.
public enum WhatsAppLine {
    /// True when `line` starts like `12/31/20, 11:59 PM - `, `31.12.2020, 23:59 - `
    /// or `[31/12/2020, 23:59:59] ` (after an optional U+200E mark): the
    /// header `WhatsAppHeader` reads, so detection and import agree.
    public static func startsMessage(_ line: [UInt8]) -> Bool {
        WhatsAppHeader.parse(line) != nil
    }
}

/// The files that make a directory a Slack export.
enum SlackLayout {
    static func isExport(_ directory: String) -> Bool {
        for name in ["users.json", "channels.json"] {
            var info = stat()
            if stat(directory + "/" + name, &info) == 0, info.st_mode & S_IFMT == S_IFREG { return true }
        }
        return false
    }
}

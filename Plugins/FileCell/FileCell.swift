// FileCell: the shipped renderer for "file" messages, and the fallback for
// every message class below "file" in the tree (image, video, voice,
// sticker) when their own cells are missing or decline.
//
//     [PDF] itinerary.pdf          tag in accent, name in strong
//     1.2 KB · application/pdf     muted; sizes in binary units (1 KB = 1024 B)
//     📄 itinerary.pdf             the message text (caption), when present
import CellKit

/// `FileMessageCell`, registered for `file`.
public struct FileCell: MessageCellRenderer {
    public static let plugin = PluginInfo(
        id: "org.cellhost.file", version: "1.0.0",
        description: "File attachments: type tag, name, size and MIME type",
        author: "CellHost", license: "MIT")
    public static let className = "FileMessageCell"
    public static let messageClasses = ["file"]

    public init() {}

    /// What the cell shows, read from the message.
    struct Attachment {
        var name: String
        var tag: String
        var size: String?
        var mime: String?
        var caption: String
    }

    /// Reads the attachment. A message rendered as a fallback (a `voice`
    /// shown by this cell) keeps its payload under its own type's key
    /// (`voice.path`), so that key is read first, then `file`. Returns nil
    /// when there is no name, no path and no text at all.
    static func attachment(of message: Message) -> Attachment? {
        let info = message.info
        var keys = ["file"]
        if !info.type.isEmpty, info.type != "file", isKey(info.type) {
            keys.insert(info.type, at: 0)
        }
        func field(_ name: String) -> String? {
            for key in keys {
                if let value = message.string("\(key).\(name)"), !value.isEmpty { return value }
            }
            return nil
        }
        func number(_ name: String) -> Double? {
            for key in keys {
                if let value = message.number("\(key).\(name)") { return value }
            }
            return nil
        }

        let givenName = field("name")
        let path = field("path")
        guard givenName != nil || path != nil || !info.text.isEmpty else { return nil }
        let name = givenName ?? path.flatMap(MediaType.basename) ?? "file"

        let mime = field("mime") ?? MediaType.guessMIME(fromFileName: name)
            ?? path.flatMap(MediaType.guessMIME(fromFileName:))
        let tag: String
        if let mime {
            tag = MediaType.tag(forMIME: mime)
        } else {
            // No MIME and no known extension: the message class still says
            // what family the file is.
            switch info.type {
            case "image", "sticker": tag = "[IMG]"
            case "voice", "audio": tag = "[AUD]"
            case "video": tag = "[VID]"
            default: tag = "[FILE]"
            }
        }
        return Attachment(name: name, tag: tag, size: number("size").flatMap(ByteCount.format),
                          mime: mime, caption: info.text)
    }

    /// A payload key must be a plain key, not a path (no dots).
    static func isKey(_ type: String) -> Bool {
        !type.contains(".") && type.utf8.count <= 64
    }

    public mutating func render(_ message: Message, into cell: inout CellBuilder,
                                context: RenderContext) -> RenderOutcome {
        guard let file = Self.attachment(of: message) else { return .declined }

        cell.append(file.tag + " ", style: .accent)
        cell.append(file.name, style: .strong)

        let details = [file.size, file.mime].compactMap { $0 }
        if !details.isEmpty {
            cell.lineBreak()
            cell.append(details.joined(separator: " · "), style: .muted)
        }
        if !file.caption.isEmpty {
            cell.lineBreak()
            cell.append(file.caption)
        }
        return .rendered
    }

    /// `[PDF] itinerary.pdf`.
    public func plainText(for message: Message) -> String? {
        Self.attachment(of: message).map { "\($0.tag) \($0.name)" }
    }
}

@_cdecl("cellhost_plugin_entry")
public func cellhostPluginEntry() -> UnsafeRawPointer? { CellKit.export(FileCell.self) }

// ImageCell: the shipped renderer for "image" messages (and, by the message
// class tree, stickers without a cell of their own).
//
//     [IMG] cat.png · 640×480      tag in accent, dimensions muted
//     our cat                      the message text (caption), when present
//
// No pixel preview yet: a later version draws one with libchafa through
// CellBuilder.appendRow.
import CellKit

/// `ImageMessageCell`, registered for `image`.
public struct ImageCell: MessageCellRenderer {
    public static let plugin = PluginInfo(
        id: "org.cellhost.image", version: "1.0.0",
        description: "Images: file name, dimensions and caption",
        author: "CellHost", license: "MIT")
    public static let className = "ImageMessageCell"
    public static let messageClasses = ["image"]

    public init() {}

    /// What the cell shows.
    struct Picture {
        var name: String?
        var dimensions: String?
        var caption: String
    }

    /// Reads the picture from the payload under the message's own type
    /// (`sticker.path` for a sticker shown by this cell), then `image`.
    /// Returns nil when there is neither a path nor text.
    static func picture(of message: Message) -> Picture? {
        let info = message.info
        var keys = ["image"]
        if !info.type.isEmpty, info.type != "image", !info.type.contains("."), info.type.utf8.count <= 64 {
            keys.insert(info.type, at: 0)
        }
        guard let key = keys.first(where: { message.string("\($0).path")?.isEmpty == false })
                ?? (info.text.isEmpty ? nil : keys.last) else {
            return nil
        }
        let path = message.string("\(key).path") ?? ""
        var dimensions: String?
        if let width = message.integer("\(key).width"), let height = message.integer("\(key).height"),
           width > 0, height > 0 {
            dimensions = "\(width)×\(height)"
        }
        return Picture(name: MediaType.basename(path), dimensions: dimensions, caption: info.text)
    }

    public mutating func render(_ message: Message, into cell: inout CellBuilder,
                                context: RenderContext) -> RenderOutcome {
        guard let picture = Self.picture(of: message) else { return .declined }

        cell.append("[IMG] ", style: .accent)
        cell.append(picture.name ?? "image")
        if let dimensions = picture.dimensions {
            cell.append(" · " + dimensions, style: .muted)
        }
        if !picture.caption.isEmpty {
            cell.lineBreak()
            cell.append(picture.caption)
        }
        return .rendered
    }

    /// The caption, else `[IMG] name`.
    public func plainText(for message: Message) -> String? {
        guard let picture = Self.picture(of: message) else { return nil }
        return picture.caption.isEmpty ? "[IMG] \(picture.name ?? "image")" : picture.caption
    }
}

@_cdecl("cellhost_plugin_entry")
public func cellhostPluginEntry() -> UnsafeRawPointer? { CellKit.export(ImageCell.self) }

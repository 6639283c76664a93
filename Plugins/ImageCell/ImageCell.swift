// ImageCell: the shipped renderer for "image" messages (and, by the message
// class tree, stickers without a cell of their own).
//
//     [IMG] cat.png · 64×48        tag in accent, dimensions muted
//     ▄▄▆▆▄▄▖ …                    the preview (Preview.swift), unless --images none
//     our cat                      the message text (caption), when present
//
// The dimensions are the file's when its header can be read (they win over
// the message's); a file that cannot be shown adds a muted mark instead:
// `missing`, `not a regular file`, `corrupt image`, …
import CellKit
import Glibc

/// `ImageMessageCell`, registered for `image`.
public struct ImageCell: MessageCellRenderer, PlainTextSummarizing {
    public static let plugin = PluginInfo(
        id: "org.cellhost.image", version: "1.0.0",
        description: "Images: file name, size, a preview drawn with libchafa, and caption",
        author: "CellHost", license: "MIT",
        threadSafe: true) // stateless; the previews' cache is behind a lock (ImagePreviews)
    public static let className = "ImageMessageCell"
    public static let messageClasses = ["image"]
    public static let samples = [
        #"{"type":"image","id":"s-1","text":"our cat","image":{"path":"photos/cat.png","width":640,"height":480}}"#,
        #"{"type":"image","id":"s-2","image":{"path":"/srv/media/panorama.jpeg","width":12000,"height":2000}}"#,
        #"{"type":"sticker","id":"s-3","sticker":{"path":"stickers/party.webp","width":512,"height":512}}"#,
    ]

    /// Decoded headers and drawn previews, per file (bounded), shared by
    /// every thread the host calls the cell on.
    static let previews = ImagePreviews()

    public init() {}

    /// What the cell shows.
    struct Picture {
        var name: ShownText?
        /// The path as the message gives it (the host's bytes, valid during
        /// the call); empty when there is none.
        var path = UnsafeBufferPointer<UInt8>(start: nil, count: 0)
        /// The size the message gives.
        var dimensions: (width: Int64, height: Int64)?
    }

    /// Reads the picture of a message of class `type` (`info.type`, as
    /// UTF-8) whose text is empty or not (`hasText`), from the payload under
    /// its own type (`sticker.path` for a sticker shown by this cell), then
    /// `image`. Returns nil when there is neither a path nor text. The
    /// dimensions are read only `withDimensions` (the summary does not show
    /// them). The strings are the host's bytes (`Message.utf8`), read while
    /// the call that received the message lasts.
    static func picture(of message: Message, type: UnsafeBufferPointer<UInt8>, hasText: Bool,
                        withDimensions: Bool = true) -> Picture? {
        // The type is escaped, so a type with a dot in it names one key.
        // ("image" is ASCII: a type is that Character for Character only when
        // it has exactly its bytes.)
        let ownKey = !type.isEmpty && !isImage(type) && type.count <= 64
            ? Message.escapedKey(String(decoding: type, as: UTF8.self)) : nil
        // The first key with a non-empty path, else "image" when there is
        // text (its path is then missing or empty, so there is no name).
        var key = "image"
        var picture = Picture()
        if let ownKey, let ownPath = message.utf8(ownKey + ".path"), !ownPath.isEmpty {
            key = ownKey
            picture.path = ownPath
        } else if let imagePath = message.utf8("image.path"), !imagePath.isEmpty {
            picture.path = imagePath
        } else if !hasText || message.utf8((ownKey ?? "image") + ".unavailable") != nil
                    || message.utf8("image.unavailable") != nil {
            // With no path and a reason the export has no file, FileCell
            // (the parent class's cell) shows the missing-file mark.
            return nil
        }
        if withDimensions, let width = message.integer(key == "image" ? "image.width" : key + ".width"),
           let height = message.integer(key == "image" ? "image.height" : key + ".height"),
           width > 0, height > 0 {
            picture.dimensions = (width, height)
        }
        picture.name = MediaType.basename(utf8: picture.path)
        return picture
    }

    /// True when `type` is `image`.
    static func isImage(_ type: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = type.baseAddress, type.count == 5 else { return false }
        return memcmp(base, "image", 5) == 0
    }

    public mutating func render(_ message: Message, into cell: inout CellBuilder,
                                context: RenderContext) -> RenderOutcome {
        // `info.type` (the `type` string when it is one of at most 64 bytes,
        // else none) and the caption, each with its own look-up: asking for
        // `info` copies every common field into the host's arena, these two
        // cost less. The caption is appended straight from the host's bytes.
        let none = UnsafeBufferPointer<UInt8>(start: nil, count: 0)
        let type = message.utf8("type").flatMap { $0.count <= 64 ? $0 : nil } ?? none
        return message.withTextUTF8 { caption in
            render(message, type: type, caption: caption, into: &cell, context: context)
        }
    }

    private func render(_ message: Message, type: UnsafeBufferPointer<UInt8>, caption: UnsafeBufferPointer<UInt8>,
                        into cell: inout CellBuilder, context: RenderContext) -> RenderOutcome {
        guard let picture = Self.picture(of: message, type: type, hasText: !caption.isEmpty) else { return .declined }
        let shown = picture.path.isEmpty ? ShownImage() : Self.previews.show(picture.path, context: context)

        cell.append("[IMG] ", style: .accent)
        if let name = picture.name {
            name.withUTF8 { cell.append(utf8: $0) }
        } else {
            cell.append("image")
        }
        if let size = shown.size {
            Self.appendDimensions(Int64(size.width), Int64(size.height), to: &cell)
        } else if let dimensions = picture.dimensions {
            Self.appendDimensions(dimensions.width, dimensions.height, to: &cell)
        }
        if let notice = shown.notice {
            Self.appendDetail(notice, to: &cell)
        }
        for row in shown.rows {
            cell.appendRow(row) // a row is a whole line
        }
        if !caption.isEmpty {
            if shown.rows.isEmpty { cell.lineBreak() }
            // A caption is message text: its markup counts, as in a text message.
            InlineMarkup.append(hostString: caption, to: &cell)
        }
        return .rendered
    }

    /// What goes before each detail after the name.
    static let separator: StaticString = " · "

    /// Appends `" · WIDTH×HEIGHT"`, muted, written digit by digit.
    static func appendDimensions(_ width: Int64, _ height: Int64, to cell: inout CellBuilder) {
        let times: StaticString = "×"
        let capacity = separator.utf8CodeUnitCount + times.utf8CodeUnitCount + 2 * DecimalText.maximumLength
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { buffer in
            var end = write(separator, into: buffer)
            end += DecimalText.write(Int(truncatingIfNeeded: width), into: UnsafeMutableBufferPointer(rebasing: buffer[end...]))
            end += write(times, into: UnsafeMutableBufferPointer(rebasing: buffer[end...]))
            end += DecimalText.write(Int(truncatingIfNeeded: height), into: UnsafeMutableBufferPointer(rebasing: buffer[end...]))
            cell.append(utf8: UnsafeBufferPointer(rebasing: buffer[..<end]), style: .muted)
        }
    }

    /// Appends `" · "` and `detail` (a notice), muted, as one piece.
    static func appendDetail(_ detail: String, to cell: inout CellBuilder) {
        var detail = detail
        detail.withUTF8 { detail in
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: separator.utf8CodeUnitCount + detail.count) { buffer in
                let end = write(separator, into: buffer)
                _ = UnsafeMutableBufferPointer(rebasing: buffer[end...]).initialize(fromContentsOf: detail)
                cell.append(utf8: UnsafeBufferPointer(buffer), style: .muted)
            }
        }
    }

    /// Writes `literal` at the start of `buffer`; returns its length.
    private static func write(_ literal: StaticString, into buffer: UnsafeMutableBufferPointer<UInt8>) -> Int {
        buffer.initialize(fromContentsOf: UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    /// The caption, else `[IMG] name`.
    public func plainText(for message: Message, context: RenderContext) -> String? {
        let caption = message.text
        if !caption.isEmpty { return caption }
        return message.withTypeAndTextUTF8 { type, text in
            Self.picture(of: message, type: type, hasText: !text.isEmpty, withDimensions: false)
                .map { "[IMG] \($0.name?.string ?? "image")" }
        }
    }

    /// `plainText(for:context:)`, with the caption (the usual case) appended
    /// straight from the host's bytes.
    public func plainText(for message: Message, context: RenderContext, into cell: inout CellBuilder) -> Bool {
        let appended = message.withTextUTF8 { caption -> Bool in
            guard !caption.isEmpty else { return false }
            cell.append(utf8: caption)
            return true
        }
        if appended { return true }
        guard let summary = plainText(for: message, context: context) else { return false }
        cell.append(summary)
        return true
    }
}

@c(cellhost_plugin_entry)
public func cellhostPluginEntry() -> UnsafeRawPointer? { CellKit.export(ImageCell.self) }

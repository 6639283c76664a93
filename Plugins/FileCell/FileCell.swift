// FileCell: the shipped renderer for "file" messages, and the fallback for
// every message class below "file" in the tree (image, video, voice,
// sticker) when their own cells are missing or decline.
//
//     [PDF] itinerary.pdf          tag in accent, name in strong
//     1.2 KB · application/pdf     muted; sizes in binary units (1 KB = 1024 B)
//     18 MB · application/zip · missing   when the named file is not there
//     missing: not included in the export  when the payload has no path but
//                                          says why (`unavailable`)
//     📄 itinerary.pdf             the message text (caption), when present
import CellKit

/// `FileMessageCell`, registered for `file`.
public struct FileCell: MessageCellRenderer, PlainTextSummarizing {
    public static let plugin = PluginInfo(
        id: "org.cellhost.file", version: "1.0.0",
        description: "File attachments: type tag, name, size and MIME type",
        author: "CellHost", license: "MIT",
        threadSafe: true) // stateless; libmagic and the type cache are behind a lock (FileType)
    public static let className = "FileMessageCell"
    public static let messageClasses = ["file"]
    public static let samples = [
        #"{"type":"file","id":"s-1","text":"Tickets for Saturday","file":{"name":"itinerary.pdf","path":"docs/itinerary.pdf","size":1234,"mime":"application/pdf"}}"#,
        #"{"type":"file","id":"s-2","file":{"path":"/tmp/backup-2024.tar.gz","size":18874368}}"#,
        #"{"type":"file","id":"s-3","text":"no payload at all, only a caption"}"#,
        #"{"type":"voice","id":"s-4","voice":{"path":"memo.m4a","size":52000}}"#,
        #"{"type":"file","id":"s-5","text":"a directory, not a file","file":{"path":"/"}}"#,
        #"{"type":"file","id":"s-6","file":{"name":"zeros.bin","path":"/dev/zero"}}"#,
    ]

    public init() {}

    /// What the cell shows, read from the message.
    struct Attachment {
        var name: String
        var tag: String
        var size: String?
        var mime: String?
        /// Why the named file is not shown ("missing"), when it is not.
        var notice: String?
    }

    /// The paths of one payload key's fields (`file.name`, …), built once
    /// per key rather than for every look-up. The key is escaped, so a
    /// message type with a dot in it names one key.
    struct Fields {
        let name, path, mime, size, unavailable: String

        init(key: String) {
            let key = Message.escapedKey(key)
            name = key + ".name"
            path = key + ".path"
            mime = key + ".mime"
            size = key + ".size"
            unavailable = key + ".unavailable"
        }

        /// The fields of the `file` key.
        static let file = Fields(key: "file")
    }

    /// Reads the attachment of a message of class `type` (`info.type`)
    /// whose text is empty or not (`hasText`); the caller has both from one
    /// `withTypeAndTextUTF8` call, and shows the text itself. A message
    /// rendered as a fallback (a `voice` shown by this cell) keeps its
    /// payload under its own type's key (`voice.path`), so that key is read
    /// first, then `file`. Returns nil when there is no name, no path and no
    /// text at all. The size is read only `withSize` (the summary does not
    /// show it).
    ///
    /// When the message gives a path, the file there is looked at
    /// (`FileProbe`, relative paths against `context.baseDirectory`): its
    /// size replaces the message's, libmagic's type is chosen as
    /// `FileTypeChoice` says, and a path with no readable regular file gets
    /// a `notice` ("missing", "unreadable", "not a regular file").
    static func attachment(of message: Message, type: String, hasText: Bool, context: RenderContext,
                           withSize: Bool = true) -> Attachment? {
        // The keys to read, most specific first: the message's own type
        // (when it is not "file" and short enough for a key path), then "file".
        let own = !type.isEmpty && type != "file" && isKey(type) ? Fields(key: type) : nil
        let file = Fields.file
        func field(_ ownPath: String?, _ filePath: String) -> String? {
            if let ownPath, let value = message.string(ownPath), !value.isEmpty { return value }
            if let value = message.string(filePath), !value.isEmpty { return value }
            return nil
        }

        let givenName = field(own?.name, file.name)
        let path = field(own?.path, file.path)
        // Why an export has no file for it ("not included in the export").
        let unavailable = path == nil ? field(own?.unavailable, file.unavailable) : nil
        guard givenName != nil || hasText || path != nil || unavailable != nil else { return nil }
        let name = givenName ?? path.flatMap(MediaType.basename) ?? Self.familyName(type)

        // The file itself, when the message names one.
        var fileSize: Int64?
        var detected: String?
        var notice = unavailable.map { "missing: " + $0 }
        if let path {
            switch FileProbe.probe(MediaFile.resolve(path, baseDirectory: context.baseDirectory), host: context.host) {
            case .file(let size, let type):
                fileSize = size
                detected = type
            case .problem(let problem):
                notice = problem.notice
            }
        }

        let mime = FileTypeChoice.mime(
            declared: field(own?.mime, file.mime),
            guessed: { MediaType.guessMIME(fromFileName: name) ?? path.flatMap(MediaType.guessMIME(fromFileName:)) },
            detected: detected)
        let tag: String
        if let mime, !FileTypeChoice.isGeneric(mime) {
            tag = MediaType.tag(forMIME: mime)
        } else {
            // No MIME, no known extension, or content libmagic cannot name:
            // the message class still says what family the file is.
            switch type {
            case "image", "sticker": tag = "[IMG]"
            case "voice", "audio": tag = "[AUD]"
            case "video": tag = "[VID]"
            default: tag = "[FILE]"
            }
        }
        var size: String?
        if withSize {
            // The file's own size when it was found; else the message's.
            if let fileSize {
                size = ByteCount.format(fileSize)
            } else {
                let bytes = own.flatMap { message.number($0.size) } ?? message.number(file.size)
                size = bytes.flatMap(ByteCount.format)
            }
        }
        return Attachment(name: name, tag: tag, size: size, mime: mime, notice: notice)
    }

    /// What to call an attachment that has neither a name nor a path.
    static func familyName(_ type: String) -> String {
        switch type {
        case "image", "sticker", "voice", "video": return type
        default: return "file"
        }
    }

    /// A type short enough to be a payload key: its field paths, escaped,
    /// stay well inside the host's 255-byte limit.
    static func isKey(_ type: String) -> Bool {
        type.utf8.count <= 64
    }

    /// The message class as a `String`: short and ASCII in practice, so
    /// a small string, made without a heap allocation.
    static func type(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        bytes.isEmpty ? "" : String(decoding: bytes, as: UTF8.self)
    }

    public mutating func render(_ message: Message, into cell: inout CellBuilder,
                                context: RenderContext) -> RenderOutcome {
        // The type and the caption from one host call; the caption is
        // appended straight from the host's bytes.
        message.withTypeAndTextUTF8 { type, caption in
            render(message, type: Self.type(type), caption: caption, into: &cell, context: context)
        }
    }

    private func render(_ message: Message, type: String, caption: UnsafeBufferPointer<UInt8>,
                        into cell: inout CellBuilder, context: RenderContext) -> RenderOutcome {
        guard let file = Self.attachment(of: message, type: type, hasText: !caption.isEmpty, context: context) else {
            return .declined
        }

        Self.appendJoined(file.tag, " ", separator: "", style: .accent, to: &cell) // tag + " ": "[PDF] "
        cell.append(file.name, style: .strong)

        // "size · MIME · notice", or whichever of the three there are.
        Self.appendJoined(file.size, file.mime, file.notice, separator: " · ", style: .muted, lineBreakFirst: true,
                          to: &cell)
        if !caption.isEmpty {
            cell.lineBreak()
            // A caption is message text: its markup counts, as in a text message.
            InlineMarkup.append(caption, to: &cell)
        }
        return .rendered
    }

    /// Appends the parts there are (not nil), `separator` after each
    /// non-empty stretch that another part follows, as one piece of text
    /// (written into temporary storage instead of a `String` built with
    /// `+=`); nothing when that text is empty, else `lineBreakFirst` puts
    /// a line break before it.
    static func appendJoined(_ first: String?, _ second: String?, _ third: String? = nil, separator: StaticString,
                             style: Style, lineBreakFirst: Bool = false, to cell: inout CellBuilder) {
        let separatorBytes = UnsafeBufferPointer(start: separator.utf8Start, count: separator.utf8CodeUnitCount)
        let capacity = (first?.utf8.count ?? 0) + (second?.utf8.count ?? 0) + (third?.utf8.count ?? 0)
            + 2 * separatorBytes.count
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { buffer in
            var end = 0
            func write(_ bytes: UnsafeBufferPointer<UInt8>) {
                _ = UnsafeMutableBufferPointer(rebasing: buffer[end...]).initialize(fromContentsOf: bytes)
                end += bytes.count
            }
            func add(_ part: String?) {
                guard var part else { return }
                if end > 0 { write(separatorBytes) }
                part.withUTF8(write)
            }
            add(first)
            add(second)
            add(third)
            guard end > 0 else { return }
            if lineBreakFirst { cell.lineBreak() }
            cell.append(utf8: UnsafeBufferPointer(rebasing: buffer[..<end]), style: style)
        }
    }

    /// `[PDF] itinerary.pdf`.
    public func plainText(for message: Message, context: RenderContext) -> String? {
        message.withTypeAndTextUTF8 { type, text in
            Self.attachment(of: message, type: Self.type(type), hasText: !text.isEmpty, context: context,
                            withSize: false).map { "\($0.tag) \($0.name)" }
        }
    }
}

@c(cellhost_plugin_entry)
public func cellhostPluginEntry() -> UnsafeRawPointer? { CellKit.export(FileCell.self) }

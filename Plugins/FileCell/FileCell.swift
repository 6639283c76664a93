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
import Glibc

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
        var name: ShownText
        var tag: StaticString
        /// The size in bytes, shown formatted (`ByteCount`).
        var size: Double?
        var mime: ShownText?
        /// Why the named file is not shown ("missing"), when it is not.
        var notice: ShownText?
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

    /// Reads the attachment of a message of class `type` (`info.type`, as
    /// UTF-8) whose text is empty or not (`hasText`); the caller has both
    /// from one `withTypeAndTextUTF8` call, and shows the text itself. A
    /// message rendered as a fallback (a `voice` shown by this cell) keeps
    /// its payload under its own type's key (`voice.path`), so that key is
    /// read first, then `file`. Returns nil when there is no name, no path
    /// and no text at all. The size is read only `withSize` (the summary
    /// does not show it).
    ///
    /// When the message gives a path, the file there is looked at
    /// (`FileProbe`, relative paths against `context.baseDirectory`): its
    /// size replaces the message's, libmagic's type is chosen as
    /// `FileTypeChoice` says, and a path with no readable regular file gets
    /// a `notice` ("missing", "unreadable", "not a regular file").
    ///
    /// The strings are read as the host's bytes (`Message.utf8`), valid for
    /// the call: the attachment is shown before the call returns.
    static func attachment(of message: Message, type: UnsafeBufferPointer<UInt8>, hasText: Bool,
                           context: RenderContext, withSize: Bool = true) -> Attachment? {
        // The keys to read, most specific first: the message's own type
        // (when it is not "file" and short enough for a key path), then "file".
        let own = !type.isEmpty && !Self.equals(type, "file") && isKey(type)
            ? Fields(key: String(decoding: type, as: UTF8.self)) : nil
        let file = Fields.file
        func field(_ ownPath: String?, _ filePath: String) -> UnsafeBufferPointer<UInt8>? {
            if let ownPath, let value = message.utf8(ownPath), !value.isEmpty { return value }
            if let value = message.utf8(filePath), !value.isEmpty { return value }
            return nil
        }

        let givenName = field(own?.name, file.name)
        let path = field(own?.path, file.path)
        // Why an export has no file for it ("not included in the export").
        let unavailable = path == nil ? field(own?.unavailable, file.unavailable) : nil
        guard givenName != nil || hasText || path != nil || unavailable != nil else { return nil }
        let name = givenName.map(ShownText.bytes) ?? path.flatMap(MediaType.basename(utf8:)) ?? .literal(familyName(type))

        // The file itself, when the message names one.
        var fileSize: Int64?
        var detected: String?
        var notice = unavailable.map { ShownText.string("missing: " + String(decoding: $0, as: UTF8.self)) }
        if let path {
            var outcome = FileProbe.Outcome.problem(.missing)
            MediaFile.withResolved(path, baseDirectory: context.baseDirectory) {
                outcome = FileProbe.probe($0, host: context.host)
            }
            switch outcome {
            case .file(let size, let type):
                fileSize = size
                detected = type
            case .problem(let problem):
                notice = .string(problem.notice)
            }
        }

        let declared = field(own?.mime, file.mime)
        func guessed() -> String? {
            MediaType.guessMIME(fromFileName: name.string)
                ?? path.flatMap { MediaType.guessMIME(fromFileName: String(decoding: $0, as: UTF8.self)) }
        }
        // Without a detected type, the message's type, else the extension's.
        let mime = detected == nil
            ? declared.map(ShownText.bytes) ?? guessed().map(ShownText.string)
            : FileTypeChoice.mime(declared: declared.map { String(decoding: $0, as: UTF8.self) }, guessed: guessed,
                                  detected: detected).map(ShownText.string)
        // The type's tag, unless the type tells nothing about the content.
        let specificTag = mime?.withUTF8 { FileTypeChoice.isGeneric($0) ? nil : MediaType.tag(forMIMEUTF8: $0) }
        // No MIME, no known extension, or content libmagic cannot name:
        // the message class still says what family the file is.
        let tag: StaticString = specificTag
            ?? (Self.equals(type, "image") || Self.equals(type, "sticker") ? "[IMG]"
                : Self.equals(type, "voice") || Self.equals(type, "audio") ? "[AUD]"
                : Self.equals(type, "video") ? "[VID]" : "[FILE]")
        var size: Double?
        if withSize {
            // The file's own size when it was found; else the message's.
            size = fileSize.map(Double.init) ?? own.flatMap { message.number($0.size) } ?? message.number(file.size)
        }
        return Attachment(name: name, tag: tag, size: size, mime: mime, notice: notice)
    }

    /// What to call an attachment that has neither a name nor a path.
    static func familyName(_ type: UnsafeBufferPointer<UInt8>) -> StaticString {
        for family: StaticString in ["image", "sticker", "voice", "video"] where equals(type, family) { return family }
        return "file"
    }

    /// True when `type` is the ASCII `literal`: for an ASCII string, the
    /// same bytes is the same Characters.
    static func equals(_ type: UnsafeBufferPointer<UInt8>, _ literal: StaticString) -> Bool {
        guard let base = type.baseAddress, type.count == literal.utf8CodeUnitCount else { return false }
        return memcmp(base, literal.utf8Start, type.count) == 0
    }

    /// A type short enough to be a payload key: its field paths, escaped,
    /// stay well inside the host's 255-byte limit.
    static func isKey(_ type: UnsafeBufferPointer<UInt8>) -> Bool {
        type.count <= 64
    }

    public mutating func render(_ message: Message, into cell: inout CellBuilder,
                                context: RenderContext) -> RenderOutcome {
        // The type and the caption from one host call; the caption is
        // appended straight from the host's bytes.
        message.withTypeAndTextUTF8 { type, caption in
            render(message, type: type, caption: caption, into: &cell, context: context)
        }
    }

    private func render(_ message: Message, type: UnsafeBufferPointer<UInt8>, caption: UnsafeBufferPointer<UInt8>,
                        into cell: inout CellBuilder, context: RenderContext) -> RenderOutcome {
        guard let file = Self.attachment(of: message, type: type, hasText: !caption.isEmpty, context: context) else {
            return .declined
        }

        Self.appendTag(file.tag, to: &cell) // tag + " ": "[PDF] "
        file.name.withUTF8 { cell.append(utf8: $0, style: .strong) }

        // "size · MIME · notice", or whichever of the three there are.
        Self.appendDetails(size: file.size, file.mime, file.notice, to: &cell)
        if !caption.isEmpty {
            cell.lineBreak()
            // A caption is message text: its markup counts, as in a text message.
            InlineMarkup.append(hostString: caption, to: &cell)
        }
        return .rendered
    }

    /// Appends `tag` and a space, as one piece in the accent style.
    static func appendTag(_ tag: StaticString, to cell: inout CellBuilder) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: tag.utf8CodeUnitCount + 1) { buffer in
            let end = buffer.initialize(fromContentsOf: UnsafeBufferPointer(start: tag.utf8Start, count: tag.utf8CodeUnitCount))
            buffer[end] = UInt8(ascii: " ")
            cell.append(utf8: UnsafeBufferPointer(buffer), style: .accent)
        }
    }

    /// Appends the parts there are (a size that formats, a MIME type, a
    /// notice), " · " after each non-empty stretch that another part
    /// follows, as one piece of muted text on a line of its own (written
    /// into temporary storage); nothing when that text is empty.
    static func appendDetails(size: Double?, _ mime: ShownText?, _ notice: ShownText?, to cell: inout CellBuilder) {
        let separator: StaticString = " · "
        let separatorBytes = UnsafeBufferPointer(start: separator.utf8Start, count: separator.utf8CodeUnitCount)
        let capacity = ByteCount.maximumLength + (mime?.utf8Count ?? 0) + (notice?.utf8Count ?? 0)
            + 2 * separatorBytes.count
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { buffer in
            var end = 0
            func write(_ bytes: UnsafeBufferPointer<UInt8>) {
                _ = UnsafeMutableBufferPointer(rebasing: buffer[end...]).initialize(fromContentsOf: bytes)
                end += bytes.count
            }
            func add(_ part: ShownText?) {
                guard let part else { return }
                if end > 0 { write(separatorBytes) }
                part.withUTF8(write)
            }
            if let size, let length = ByteCount.write(size, into: buffer) { end = length }
            add(mime)
            add(notice)
            guard end > 0 else { return }
            cell.lineBreak()
            cell.append(utf8: UnsafeBufferPointer(rebasing: buffer[..<end]), style: .muted)
        }
    }

    /// `[PDF] itinerary.pdf`.
    public func plainText(for message: Message, context: RenderContext) -> String? {
        message.withTypeAndTextUTF8 { type, text in
            Self.attachment(of: message, type: type, hasText: !text.isEmpty, context: context, withSize: false)
                .map { "\($0.tag) \($0.name.string)" }
        }
    }
}

@c(cellhost_plugin_entry)
public func cellhostPluginEntry() -> UnsafeRawPointer? { CellKit.export(FileCell.self) }

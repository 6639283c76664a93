/// File names, MIME types and the short ASCII tags cells show for them.
public enum MediaType {
    /// The last path component of `path` (`"media/cat.png"` → `"cat.png"`),
    /// ignoring trailing slashes; `nil` when nothing is left.
    public static func basename(_ path: String) -> String? {
        // An ASCII path (almost every one) is cut at its '/' bytes; any other
        // goes by Character, where "/" followed by a combining mark is no '/'.
        let ascii = path.utf8.withContiguousStorageIfAvailable { bytes -> String?? in
            guard ASCIIBytes.isASCII(bytes) else { return nil }
            return .some(ASCIIBytes.basename(bytes).map {
                String(decoding: UnsafeBufferPointer(rebasing: bytes[$0]), as: UTF8.self)
            })
        }
        if case .some(.some(let name)) = ascii { return name }
        return characterBasename(path)
    }

    /// `basename(_:)` by Character, for any text.
    static func characterBasename(_ path: String) -> String? {
        // The last non-empty piece between "/" characters, as
        // `split(separator: "/").last` finds it, without the array.
        var last: Range<String.Index>?
        var pieceStart = path.startIndex
        var index = path.startIndex
        while index < path.endIndex {
            let next = path.index(after: index)
            if path[index] == "/" {
                if pieceStart < index { last = pieceStart..<index }
                pieceStart = next
            }
            index = next
        }
        if pieceStart < path.endIndex { last = pieceStart..<path.endIndex }
        return last.map { String(path[$0]) }
    }

    /// The lower-cased extension of a file name (`"Report.PDF"` → `"pdf"`),
    /// or `nil` when it has none (dot files such as `.bashrc` have none).
    public static func fileExtension(_ name: String) -> String? {
        let base = basename(name) ?? name
        guard let dot = base.lastIndex(of: "."), dot != base.startIndex else { return nil }
        let ext = base[base.index(after: dot)...]
        return ext.isEmpty ? nil : ext.lowercased()
    }

    /// A MIME type guessed from the extension of `name`, for common types;
    /// `nil` when unknown.
    public static func guessMIME(fromFileName name: String) -> String? {
        fileExtension(name).flatMap { byExtension[$0] }
    }

    private static let byExtension: [String: String] = [
        "pdf": "application/pdf",
        "zip": "application/zip", "gz": "application/gzip", "tgz": "application/gzip",
        "tar": "application/x-tar", "7z": "application/x-7z-compressed",
        "rar": "application/vnd.rar", "bz2": "application/x-bzip2", "xz": "application/x-xz",
        "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif",
        "webp": "image/webp", "svg": "image/svg+xml", "heic": "image/heic", "bmp": "image/bmp",
        "tif": "image/tiff", "tiff": "image/tiff",
        "mp3": "audio/mpeg", "ogg": "audio/ogg", "oga": "audio/ogg", "opus": "audio/ogg",
        "m4a": "audio/mp4", "wav": "audio/wav", "flac": "audio/flac", "aac": "audio/aac",
        "mp4": "video/mp4", "m4v": "video/mp4", "mov": "video/quicktime", "webm": "video/webm",
        "mkv": "video/x-matroska", "avi": "video/x-msvideo",
        "txt": "text/plain", "md": "text/markdown", "csv": "text/csv", "tsv": "text/tab-separated-values",
        "json": "application/json", "xml": "application/xml", "html": "text/html", "htm": "text/html",
        "log": "text/plain",
        "doc": "application/msword",
        "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "xls": "application/vnd.ms-excel",
        "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "ppt": "application/vnd.ms-powerpoint",
        "pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        "odt": "application/vnd.oasis.opendocument.text",
        "ods": "application/vnd.oasis.opendocument.spreadsheet",
        "odp": "application/vnd.oasis.opendocument.presentation",
        "rtf": "application/rtf", "epub": "application/epub+zip",
    ]

    /// A short ASCII tag for a MIME type's family, so widths are predictable:
    /// `"[PDF]"`, `"[ZIP]"` (archives), `"[IMG]"`, `"[AUD]"`, `"[VID]"`,
    /// `"[TXT]"` (text, JSON, XML), `"[DOC]"` (office documents, RTF,
    /// e-books), else `"[FILE]"`. Parameters (`; charset=…`) and case are
    /// ignored.
    public static func tag(forMIME mime: String) -> String {
        // An ASCII type (almost every one) is read as bytes; any other by
        // Character, with Unicode lower-casing and canonical equivalence
        // (U+037E GREEK QUESTION MARK is a ";" there).
        if let tag = mime.utf8.withContiguousStorageIfAvailable(ASCIIBytes.tag), let tag { return tag }
        return characterTag(forMIME: mime)
    }

    /// `tag(forMIME:)` by Character, for any text.
    static func characterTag(forMIME mime: String) -> String {
        // The first non-empty piece before a ";" (`split(separator: ";").first`).
        var start = mime.startIndex
        while start < mime.endIndex, mime[start] == ";" { start = mime.index(after: start) }
        var end = start
        while end < mime.endIndex, mime[end] != ";" { end = mime.index(after: end) }
        let type = mime[start..<end].lowercased()
        let essence = type.trimmingSpaces
        // `essence.split(separator: "/", maxSplits: 1)`: leading "/"s are
        // skipped, the family runs to the next "/", the subtype is the rest.
        var familyStart = essence.startIndex
        while familyStart < essence.endIndex, essence[familyStart] == "/" {
            familyStart = essence.index(after: familyStart)
        }
        var familyEnd = familyStart
        while familyEnd < essence.endIndex, essence[familyEnd] != "/" { familyEnd = essence.index(after: familyEnd) }
        let family = String(essence[familyStart..<familyEnd])
        let subtype = familyEnd < essence.endIndex ? String(essence[essence.index(after: familyEnd)...]) : ""
        switch family {
        case "image": return "[IMG]"
        case "audio": return "[AUD]"
        case "video": return "[VID]"
        case "text": return "[TXT]"
        default: break
        }
        if subtype == "pdf" { return "[PDF]" }
        if archiveSubtypes.contains(subtype) { return "[ZIP]" }
        if textSubtypes.contains(subtype)
            || subtype.hasSuffix("+json") || subtype.hasSuffix("+xml") && !subtype.contains("svg") {
            return "[TXT]"
        }
        if subtype == "msword" || subtype == "rtf" || subtype.hasPrefix("vnd.ms-")
            || subtype.hasPrefix("vnd.openxmlformats-officedocument") || subtype.hasPrefix("vnd.oasis.opendocument")
            || subtype == "epub+zip" {
            return "[DOC]"
        }
        return "[FILE]"
    }

    static let archiveSubtypes = ["zip", "gzip", "x-gzip", "x-tar", "x-7z-compressed", "vnd.rar",
                                          "x-rar-compressed", "x-rar", "x-bzip2", "x-xz", "zstd", "x-zstd",
                                          "java-archive"]
    static let textSubtypes = ["json", "xml", "x-yaml", "yaml", "javascript", "x-sh"]
}

/// `MediaType`'s work on ASCII bytes. For ASCII, a byte is a Character
/// (CR LF aside, which is neither ";", "/", a space nor a tab, and ends
/// none of the compared names), lower-casing is ASCII's and equality is
/// byte equality, so these give exactly what the Character versions give.
enum ASCIIBytes {
    /// True when every byte is ASCII.
    static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var i = 0
        let count = bytes.count
        if let base = bytes.baseAddress {
            while i + 8 <= count {
                if UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { return false }
                i += 8
            }
        }
        while i < count {
            if bytes[i] >= 0x80 { return false }
            i += 1
        }
        return true
    }

    /// The byte range of `MediaType.basename` of an ASCII path, or `nil`
    /// when nothing is left.
    static func basename(_ path: UnsafeBufferPointer<UInt8>) -> Range<Int>? {
        var end = path.count
        while end > 0, path[end - 1] == UInt8(ascii: "/") { end -= 1 }
        guard end > 0 else { return nil }
        var start = end
        while start > 0, path[start - 1] != UInt8(ascii: "/") { start -= 1 }
        return start..<end
    }

    /// `MediaType.tag(forMIME:)` of an ASCII type; `nil` when it is not ASCII.
    static func tag(_ mime: UnsafeBufferPointer<UInt8>) -> String? {
        guard isASCII(mime) else { return nil }
        // The first non-empty piece before a ";", without spaces and tabs
        // around it.
        var start = 0
        while start < mime.count, mime[start] == UInt8(ascii: ";") { start += 1 }
        var end = start
        while end < mime.count, mime[end] != UInt8(ascii: ";") { end += 1 }
        while start < end, isSpaceOrTab(mime[start]) { start += 1 }
        while end > start, isSpaceOrTab(mime[end - 1]) { end -= 1 }
        // Leading "/"s are skipped, the family runs to the next "/", the
        // subtype is the rest.
        var familyStart = start
        while familyStart < end, mime[familyStart] == UInt8(ascii: "/") { familyStart += 1 }
        var familyEnd = familyStart
        while familyEnd < end, mime[familyEnd] != UInt8(ascii: "/") { familyEnd += 1 }
        let family = Text(bytes: mime, range: familyStart..<familyEnd)
        let subtype = Text(bytes: mime, range: familyEnd < end ? familyEnd + 1..<end : end..<end)
        if family == "image" { return "[IMG]" }
        if family == "audio" { return "[AUD]" }
        if family == "video" { return "[VID]" }
        if family == "text" { return "[TXT]" }
        if subtype == "pdf" { return "[PDF]" }
        if archiveSubtypes.contains(where: { subtype == $0 }) { return "[ZIP]" }
        if textSubtypes.contains(where: { subtype == $0 })
            || subtype.hasSuffix("+json") || subtype.hasSuffix("+xml") && !subtype.contains("svg") {
            return "[TXT]"
        }
        if subtype == "msword" || subtype == "rtf" || subtype.hasPrefix("vnd.ms-")
            || subtype.hasPrefix("vnd.openxmlformats-officedocument") || subtype.hasPrefix("vnd.oasis.opendocument")
            || subtype == "epub+zip" {
            return "[DOC]"
        }
        return "[FILE]"
    }

    /// `MediaType.archiveSubtypes` and `textSubtypes`, as literals.
    static let archiveSubtypes: [StaticString] = ["zip", "gzip", "x-gzip", "x-tar", "x-7z-compressed", "vnd.rar",
                                                  "x-rar-compressed", "x-rar", "x-bzip2", "x-xz", "zstd", "x-zstd",
                                                  "java-archive"]
    static let textSubtypes: [StaticString] = ["json", "xml", "x-yaml", "yaml", "javascript", "x-sh"]

    @inline(__always)
    static func isSpaceOrTab(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t")
    }

    /// A piece of ASCII text compared lower-cased with lower-case literals.
    struct Text {
        let bytes: UnsafeBufferPointer<UInt8>
        let range: Range<Int>

        /// The byte at `offset` from the start, lower-cased.
        @inline(__always)
        func lowered(_ offset: Int) -> UInt8 {
            let byte = bytes[range.lowerBound + offset]
            return byte &- UInt8(ascii: "A") < 26 ? byte | 0x20 : byte
        }

        /// True when the `literal.count` bytes from `offset` are `literal`.
        func matches(_ literal: StaticString, at offset: Int) -> Bool {
            let length = literal.utf8CodeUnitCount
            guard offset >= 0, offset + length <= range.count else { return false }
            let expected = literal.utf8Start
            for k in 0..<length where lowered(offset + k) != expected[k] { return false }
            return true
        }

        static func == (text: Text, literal: StaticString) -> Bool {
            text.range.count == literal.utf8CodeUnitCount && text.matches(literal, at: 0)
        }

        func hasPrefix(_ literal: StaticString) -> Bool { matches(literal, at: 0) }

        func hasSuffix(_ literal: StaticString) -> Bool {
            matches(literal, at: range.count - literal.utf8CodeUnitCount)
        }

        func contains(_ literal: StaticString) -> Bool {
            let length = literal.utf8CodeUnitCount
            guard length <= range.count else { return false }
            for offset in 0...(range.count - length) where matches(literal, at: offset) { return true }
            return false
        }
    }
}

extension String {
    /// Without leading and trailing spaces and tabs.
    var trimmingSpaces: String {
        var s = Substring(self)
        while let first = s.first, first == " " || first == "\t" { s = s.dropFirst() }
        while let last = s.last, last == " " || last == "\t" { s = s.dropLast() }
        return String(s)
    }
}

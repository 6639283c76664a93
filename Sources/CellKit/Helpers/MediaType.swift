/// File names, MIME types and the short ASCII tags cells show for them.
public enum MediaType {
    /// The last path component of `path` (`"media/cat.png"` → `"cat.png"`),
    /// ignoring trailing slashes; `nil` when nothing is left.
    public static func basename(_ path: String) -> String? {
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

    private static let archiveSubtypes = ["zip", "gzip", "x-gzip", "x-tar", "x-7z-compressed", "vnd.rar",
                                          "x-rar-compressed", "x-rar", "x-bzip2", "x-xz", "zstd", "x-zstd",
                                          "java-archive"]
    private static let textSubtypes = ["json", "xml", "x-yaml", "yaml", "javascript", "x-sh"]
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

import Glibc

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
        let characters = CharacterBytes(path, lowercased: false)
        return characters.bytes.withUnsafeBufferPointer(ASCIIBytes.basename).map { String(path[characters.range($0)]) }
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
        staticTag(forMIME: mime).description
    }

    /// `tag(forMIME:)` as the literal it is.
    static func staticTag(forMIME mime: String) -> StaticString {
        // An ASCII type (almost every one) is read as bytes; any other as one
        // byte per Character, with Unicode lower-casing and canonical
        // equivalence (U+037E GREEK QUESTION MARK is a ";" there).
        if let tag = mime.utf8.withContiguousStorageIfAvailable(ASCIIBytes.tag), let tag { return tag }
        return CharacterBytes(mime, lowercased: true).bytes.withUnsafeBufferPointer(ASCIIBytes.classify)
    }

    /// `tag(forMIME:)` of a type given as UTF-8 (what the host hands over),
    /// as the literal it is: no `String` is made for an ASCII type.
    package static func tag(forMIMEUTF8 mime: UnsafeBufferPointer<UInt8>) -> StaticString {
        ASCIIBytes.tag(mime) ?? staticTag(forMIME: String(decoding: mime, as: UTF8.self))
    }

    /// `basename(_:)` of a path given as UTF-8: a slice of its bytes when
    /// the path is ASCII (almost every one), else the `String` that
    /// `basename(_:)` cuts by Character; nil when nothing is left.
    package static func basename(utf8 path: UnsafeBufferPointer<UInt8>) -> ShownText? {
        guard ASCIIBytes.isASCII(path) else {
            return basename(String(decoding: path, as: UTF8.self)).map(ShownText.string)
        }
        return ASCIIBytes.basename(path).map { .bytes(UnsafeBufferPointer(rebasing: path[$0])) }
    }
}

/// Text that is not ASCII as one byte per Character, so that `ASCIIBytes`'
/// rules, which compare with ASCII literals, give what comparing Characters
/// gives: a Character equal to ";" or "/" (canonical equivalence included)
/// is that byte; one that is, or lower-cases to, a single ASCII character is
/// that byte (lower-cased when asked); any other is 0x80, which equals no
/// byte the rules look for.
struct CharacterBytes {
    private(set) var bytes: [UInt8] = []
    /// Where each Character starts, and the end of the text.
    private var starts: [String.Index] = []

    init(_ text: String, lowercased: Bool) {
        for index in text.indices {
            let character = text[index]
            starts.append(index)
            if character == ";" || character == "/" {
                bytes.append(character == ";" ? UInt8(ascii: ";") : UInt8(ascii: "/"))
                continue
            }
            let form = lowercased ? character.lowercased() : String(character)
            var utf8 = form.utf8.makeIterator()
            if let first = utf8.next(), first < 0x80, utf8.next() == nil {
                bytes.append(first)
            } else {
                bytes.append(0x80)
            }
        }
        starts.append(text.endIndex)
    }

    /// The text of Characters `range` (of `bytes`).
    func range(_ range: Range<Int>) -> Range<String.Index> { starts[range.lowerBound]..<starts[range.upperBound] }
}

/// `MediaType`'s work on ASCII bytes. For ASCII, a byte is a Character
/// (CR LF aside, which is neither ";", "/", a space nor a tab, and ends
/// none of the compared names), lower-casing is ASCII's and equality is
/// byte equality, so these give exactly what comparing Characters gives;
/// other text comes here as `CharacterBytes`.
enum ASCIIBytes {
    /// True when every byte is ASCII.
    static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var i = 0
        let count = bytes.count
        if let base = bytes.baseAddress, count >= 8 {
            while i + 8 <= count {
                if UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { return false }
                i += 8
            }
            // The rest as the last eight bytes (a MIME type's tail took a
            // byte a step).
            return i == count
                || UnsafeRawPointer(base + (count - 8)).loadUnaligned(as: UInt64.self) & 0x8080_8080_8080_8080 == 0
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
    static func tag(_ mime: UnsafeBufferPointer<UInt8>) -> StaticString? {
        isASCII(mime) ? classify(mime) : nil
    }

    /// The tag of a type as ASCII bytes (or `CharacterBytes`).
    static func classify(_ mime: UnsafeBufferPointer<UInt8>) -> StaticString {
        // The first non-empty piece before a ";", without spaces and tabs
        // around it.
        var start = 0
        while start < mime.count, mime[start] == UInt8(ascii: ";") { start += 1 }
        // The next ";" by `memchr` (a byte a step cost some 100 instructions
        // for an office document's type).
        var end = mime.count
        if let base = mime.baseAddress, start < end,
           let semicolon = memchr(base + start, Int32(UInt8(ascii: ";")), end - start) {
            end = base.distance(to: semicolon.assumingMemoryBound(to: UInt8.self))
        }
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

    /// Archive and text subtypes.
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

import Glibc

/// The media files `--format html` shows: a picture as `<img>`, a voice note
/// as `<audio controls>`, an attachment as a link. The host reads them from
/// the message's payload (the cells only draw text), under the policy the
/// cells follow (CellKit's `MediaFile`): a relative path resolves against
/// the input's base directory, only a regular file is opened (never a
/// device, FIFO, socket or directory, which could block or never end), with
/// `O_NONBLOCK`, and at most the embedding limit of it is read.
enum HTMLMedia {
    /// What the page shows for a message, by the class it was rendered as.
    enum Kind {
        /// `image` (and `sticker`): an `<img>`.
        case picture
        /// `voice` (and `audio`): an `<audio controls>`.
        case audio
        /// `file` (and `video`, and whatever falls back to the file cell): a link.
        case file
    }

    /// The kind of media element for a message rendered as `messageClass`, or
    /// nil for a message that shows none.
    static func kind(renderedAs messageClass: String) -> Kind? {
        switch messageClass {
        case "image", "sticker": return .picture
        case "voice", "audio": return .audio
        case "file", "video": return .file
        default: return nil
        }
    }

    /// The path a message's payload gives for `kind`, as the cells read it:
    /// under the message's own type first (`sticker.path`), then the key of
    /// the kind (`image.path`, `voice.path`, `file.path`). Nil when none is
    /// a non-empty string.
    static func path(of message: Message, kind: Kind) -> String? {
        let document = message.document
        var keys: [String] = []
        if !message.type.isEmpty, message.type.utf8.count <= 64 { keys.append(message.type) }
        switch kind {
        case .picture: keys.append("image")
        case .audio: keys.append("voice")
        case .file: keys.append("file")
        }
        for var key in keys {
            let payload = key.withUTF8 { document.member(JSONDocument.root, $0) }
            guard let payload, let node = document.member(payload, "path"),
                  let path = document.string(node), !path.isEmpty, !path.utf8.contains(0) else { continue }
            return path
        }
        return nil
    }

    /// `path` made absolute against `base` (an absolute directory).
    static func resolve(_ path: String, against base: String) -> String {
        if path.hasPrefix("/") { return path }
        return base == "/" ? "/" + path : base + "/" + path
    }

    /// A regular file looked at: its size, its first bytes, and all of it
    /// when it is no larger than the limit it was opened with.
    struct Opened {
        var size: Int
        var head: [UInt8]
        var bytes: [UInt8]?
    }

    /// Opens the regular file at the absolute `path`, reads its first 16
    /// bytes, and the whole file when it has at most `embedLimit` bytes.
    /// Nil for anything else (missing, unreadable, not a regular file).
    static func open(_ path: String, embedLimit: Int) -> Opened? {
        let fd = Glibc.open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_size >= 0 else { return nil }
        let size = Int(info.st_size)
        let wanted = size <= embedLimit ? size : min(size, 16)
        var bytes = [UInt8](repeating: 0, count: wanted)
        var offset = 0
        while offset < wanted {
            let got = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + offset, wanted - offset) }
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else { break }
            offset += got
        }
        guard offset == wanted else { return nil }
        return Opened(size: size, head: Array(bytes.prefix(16)), bytes: size <= embedLimit ? bytes : nil)
    }

    /// True when `path` (absolute) is a regular file; nothing is read.
    static func isRegularFile(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
    }

    /// The MIME type of a picture browsers show, by its magic bytes: PNG,
    /// JPEG, GIF or WebP (what the image cell decodes); nil for anything else.
    static func pictureType(_ head: [UInt8]) -> String? {
        func starts(_ magic: [UInt8], at offset: Int = 0) -> Bool {
            head.count >= offset + magic.count && Array(head[offset..<offset + magic.count]) == magic
        }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "image/png" }
        if starts([0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) { return "image/gif" }
        if starts(Array("RIFF".utf8)), starts(Array("WEBP".utf8), at: 8) { return "image/webp" }
        return nil
    }

    /// The MIME type of audio by its magic bytes (Ogg, WAV, FLAC, MP3,
    /// MP4/M4A), or nil when it is none of them.
    static func audioType(_ head: [UInt8]) -> String? {
        func starts(_ magic: [UInt8], at offset: Int = 0) -> Bool {
            head.count >= offset + magic.count && Array(head[offset..<offset + magic.count]) == magic
        }
        if starts(Array("OggS".utf8)) { return "audio/ogg" }
        if starts(Array("RIFF".utf8)), starts(Array("WAVE".utf8), at: 8) { return "audio/wav" }
        if starts(Array("fLaC".utf8)) { return "audio/flac" }
        if starts(Array("ID3".utf8)) || (head.count >= 2 && head[0] == 0xFF && head[1] & 0xE0 == 0xE0) { return "audio/mpeg" }
        if starts(Array("ftyp".utf8), at: 4) { return "audio/mp4" }
        return nil
    }

    /// Appends `data:MIME;base64,…` for `bytes`.
    static func appendDataURI(mime: String, _ bytes: [UInt8], to out: OutputBuffer) {
        out.append("data:")
        out.append(contentsOf: mime)
        out.append(";base64,")
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        out.reserveCapacity(out.count + (bytes.count + 2) / 3 * 4)
        var index = 0
        while index + 3 <= bytes.count {
            let value = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            out.append(alphabet[Int(value >> 18 & 63)])
            out.append(alphabet[Int(value >> 12 & 63)])
            out.append(alphabet[Int(value >> 6 & 63)])
            out.append(alphabet[Int(value & 63)])
            index += 3
        }
        let rest = bytes.count - index
        if rest > 0 {
            let value = UInt32(bytes[index]) << 16 | (rest == 2 ? UInt32(bytes[index + 1]) << 8 : 0)
            out.append(alphabet[Int(value >> 18 & 63)])
            out.append(alphabet[Int(value >> 12 & 63)])
            out.append(rest == 2 ? alphabet[Int(value >> 6 & 63)] : UInt8(ascii: "="))
            out.append(UInt8(ascii: "="))
        }
    }

    /// The URL of the absolute `target` relative to the directory `base`
    /// (absolute), each segment percent-encoded: `media/cat.png`,
    /// `../chats/media/cat%20%231.png`. Paths are compared as written (`.`
    /// and `..` resolved, symbolic links not).
    static func relativeURL(to target: String, from base: String) -> String {
        let to = components(target), from = components(base)
        var common = 0
        while common < to.count, common < from.count, to[common] == from[common] { common += 1 }
        let parts = Array(repeating: "..", count: from.count - common) + to[common...].map(HTMLText.percentEncoded)
        return parts.isEmpty ? "." : parts.joined(separator: "/")
    }

    /// The segments of an absolute path, `.` and `..` resolved.
    static func components(_ path: String) -> [String] {
        var result: [String] = []
        for part in path.split(separator: "/", omittingEmptySubsequences: true) {
            if part == "." { continue }
            if part == ".." { if !result.isEmpty { result.removeLast() }; continue }
            result.append(String(part))
        }
        return result
    }
}

/// What kind of CellHost message a shared file makes, told from its name's
/// extension or its MIME type: exports name files, and cells draw pictures
/// and voice notes only for the types they can decode.
enum MediaFileKind {
    /// The message type (`image`, `voice`, `video` or `file`) and MIME type
    /// for a file named `name`.
    static func of(name: String) -> (type: String, mime: String?) {
        let ext = fileExtension(name)
        if let mime = images[ext] { return ("image", mime) }
        if let mime = audio[ext] { return ("voice", mime) }
        if let mime = videos[ext] { return ("video", mime) }
        return ("file", documents[ext])
    }

    /// The message type for a MIME type (`image/png` → `image`), or nil when
    /// the MIME type says nothing about it.
    static func of(mime: String) -> String? {
        let lower = mime.lowercased()
        if lower.hasPrefix("image/") { return images.values.contains(lower) ? "image" : "file" }
        if lower.hasPrefix("audio/") { return "voice" }
        if lower.hasPrefix("video/") { return "video" }
        return lower.isEmpty ? nil : "file"
    }

    /// The lowercased extension of `name` (after its last dot), or "".
    static func fileExtension(_ name: String) -> String {
        let base = name.split(separator: "/", omittingEmptySubsequences: false).last ?? ""
        guard let dot = base.lastIndex(of: "."), dot != base.startIndex else { return "" }
        return String(base[base.index(after: dot)...]).lowercased()
    }

    private static let images = ["png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg",
                                 "gif": "image/gif", "webp": "image/webp"]
    private static let audio = ["ogg": "audio/ogg", "oga": "audio/ogg", "opus": "audio/ogg", "mp3": "audio/mpeg",
                                "m4a": "audio/mp4", "wav": "audio/wav", "flac": "audio/flac"]
    private static let videos = ["mp4": "video/mp4", "webm": "video/webm", "mov": "video/quicktime", "mkv": "video/x-matroska"]
    private static let documents = ["pdf": "application/pdf", "txt": "text/plain", "csv": "text/csv",
                                    "zip": "application/zip", "json": "application/json", "md": "text/markdown",
                                    "doc": "application/msword", "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
                                    "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
                                    "svg": "image/svg+xml", "bmp": "image/bmp", "tiff": "image/tiff", "heic": "image/heic"]
}

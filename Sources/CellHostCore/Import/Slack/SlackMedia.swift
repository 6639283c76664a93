/// A Slack file object (`files[]`, or the older `file`) as CellHost media.
///
/// Slack's own export holds no files, only `url_private` links to the
/// workspace (which need a login): such a file is marked "not downloaded".
/// Tools that add the files put them beside the day files; the locator looks
/// for them there (see `SlackFileLocator.candidates`).
struct SlackMedia {
    var locator: SlackFileLocator

    /// The message type and media of `file`.
    func media(_ file: JSONView) -> (type: String, media: ImportedMessage.Media) {
        var media = ImportedMessage.Media()
        let id = file["id"]?.id
        let name = file["name"]?.text ?? file["title"]?.text
        media.name = name
        if let size = file["size"]?.integer, size >= 0 { media.size = size }
        let mime = file["mimetype"]?.text
        media.mime = mime
        let type = mime.flatMap(MediaFileKind.of(mime:)) ?? MediaFileKind.of(name: name ?? "").type
        if mime == nil { media.mime = MediaFileKind.of(name: name ?? "").mime }
        switch file["mode"]?.string {
        case "tombstone":
            media.unavailable = "deleted"
            return (type == "image" ? "image" : "file", media)
        case "hidden_by_limit":
            media.unavailable = "hidden by the workspace's plan limit"
            return ("file", media)
        case "external":
            media.unavailable = "an external file, not in the export"
            return ("file", media)
        default:
            break
        }
        if type == "image" {
            if let width = file["original_w"]?.integer, width > 0 { media.width = width }
            if let height = file["original_h"]?.integer, height > 0 { media.height = height }
        }
        if let milliseconds = file["duration_ms"]?.number, milliseconds >= 0, milliseconds < 1e12 {
            media.duration = milliseconds / 1000
        }
        if let path = locator.find(id: id, name: name) {
            media.path = path
        } else {
            media.unavailable = file["url_private"]?.text != nil || file["url_private_download"]?.text != nil
                ? "not downloaded" : "not included in the export"
        }
        return (type, media)
    }
}

/// Finds a shared file that a tool saved beside a Slack export.
struct SlackFileLocator {
    /// The directory the host resolves media paths against (the export, or
    /// the folder of a lone day file), as a path to look in.
    var base: String
    /// The conversation's folder relative to `base` (`general/`), or "".
    var folder: String
    /// The export's root relative to `base` (`""`, or `../` for a lone day file).
    var root: String

    /// Where files may be, relative to `base`, for file `id` named `name`:
    /// `<folder>/attachments/<id>-<name>` (slackdump), `<folder>/attachments/<name>`,
    /// `<folder>/<id>-<name>`, `<folder>/<name>`, `<folder>/<id>`, and
    /// `__uploads/<id>/<name>` (slack-advanced-exporter).
    func candidates(id: String?, name: String?) -> [String] {
        let id = id.flatMap { SlackDirectory.isSafe($0) ? $0 : nil }
        let name = name.flatMap { SlackDirectory.isSafe($0) ? $0 : nil }
        var paths: [String] = []
        if let id, let name { paths.append("\(folder)attachments/\(id)-\(name)") }
        if let name { paths.append("\(folder)attachments/\(name)") }
        if let id, let name { paths.append("\(folder)\(id)-\(name)") }
        if let name { paths.append("\(folder)\(name)") }
        if let id { paths.append("\(folder)\(id)") }
        if let id, let name { paths.append("\(root)__uploads/\(id)/\(name)") }
        return paths
    }

    /// The first candidate that is a file, relative to `base`.
    func find(id: String?, name: String?) -> String? {
        candidates(id: id, name: name).first { SlackFileSystem.isFile(base + "/" + $0) }
    }
}

import Glibc

/// Finds the files Element's "Export chat" stores beside its JSON when
/// attachments are included.
///
/// Element keeps each event's original `mxc://` URL in the JSON and writes
/// the file as `<folder>/<name>-<date and time><extension>`: the folder is
/// `images`, `videos`, `audio`, `stickers` or `files`, the name and
/// extension come from the event's `body`, and the date and time are in the
/// exporting browser's locale and time zone (`12-31-2026 at 10-02-00 PM`),
/// which cannot be recomputed. So the folder is searched: a file named for
/// the event is taken when it is the only one, else the one whose time has
/// the event's minutes and seconds. Nothing is held between look-ups.
struct MatrixMediaFiles {
    /// The export's directory, as the host resolves relative paths against it.
    let directory: String
    /// True when the directory has any of Element's media folders.
    let hasFolders: Bool

    static let folders = ["images", "videos", "audio", "stickers", "files"]

    init(directory: String) {
        self.directory = directory
        hasFolders = MatrixMediaFiles.folders.contains { MatrixMediaFiles.isDirectory(directory + "/" + $0) }
    }

    /// The directory of the input `name` (`.` for standard input).
    static func directory(ofInput name: String, fd: Int32) -> String {
        guard fd != 0, let slash = name.lastIndex(of: "/") else { return "." }
        let parent = String(name[..<slash])
        return parent.isEmpty ? "/" : parent
    }

    private static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
    }

    /// The folder Element uses for an event.
    static func folder(eventType: String, msgtype: String?) -> String {
        if eventType == "m.sticker" { return "stickers" }
        switch msgtype {
        case "m.image": return "images"
        case "m.video": return "videos"
        case "m.audio": return "audio"
        default: return "files"
        }
    }

    /// The path (relative to the export) of the file stored for an event
    /// with `body` in `folder`, sent at `milliseconds`; nil when none is there.
    func find(folder: String, body: String, forcedExtension: String?, milliseconds: Double?) -> String? {
        guard hasFolders, !body.isEmpty, !body.contains("/") else { return nil }
        var stem = body
        var ext = ""
        if let dot = body.lastIndex(of: "."), dot != body.startIndex {
            stem = String(body[..<dot])
            ext = String(body[dot...])
        }
        if let forcedExtension { ext = forcedExtension }
        let prefix = Array((stem + "-").utf8)
        let suffix = Array(ext.utf8)
        guard let handle = opendir(directory + "/" + folder) else { return nil }
        defer { closedir(handle) }
        var candidates: [String] = []
        var scanned = 0
        while let entry = readdir(handle), scanned < 1_000_000 {
            scanned += 1
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw -> [UInt8] in
                Array(raw.prefix { $0 != 0 })
            }
            guard name.count >= prefix.count + suffix.count, name.starts(with: prefix),
                  name.suffix(suffix.count).elementsEqual(suffix) else { continue }
            if candidates.count < 64 { candidates.append(String(decoding: name, as: UTF8.self)) }
        }
        let chosen: String?
        if candidates.count == 1 {
            chosen = candidates[0]
        } else if let milliseconds, milliseconds.isFinite, !candidates.isEmpty {
            let matching = candidates.filter { MatrixMediaFiles.hasTime($0, milliseconds: milliseconds, prefix: prefix.count) }
            chosen = matching.count == 1 ? matching[0] : nil
        } else {
            chosen = nil
        }
        return chosen.map { folder + "/" + $0 }
    }

    /// True when the date part of `name` holds the minutes and seconds of
    /// `milliseconds` (`MM-SS`), the minutes shifted by a quarter hour or
    /// more for zones that are not whole hours from UTC.
    private static func hasTime(_ name: String, milliseconds: Double, prefix: Int) -> Bool {
        let seconds = (milliseconds / 1000).rounded(.down)
        guard seconds.magnitude < 1e15, let whole = Int64(exactly: seconds) else { return false }
        let minute = Int((whole / 60) % 60 + 60) % 60
        let second = Int(whole % 60 + 60) % 60
        let part = String(name.utf8.dropFirst(prefix)) ?? ""
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        for shift in [0, 15, 30, 45] where part.contains("\(two((minute + shift) % 60))-\(two(second))") {
            return true
        }
        return false
    }
}

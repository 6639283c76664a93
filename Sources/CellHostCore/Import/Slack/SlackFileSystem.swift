import Glibc

/// The files of a Slack export on disk: listing folders, and streaming the
/// elements of the JSON arrays every export file holds (users.json,
/// channels.json, each day file), one element at a time.
enum SlackFileSystem {
    /// The names in `directory`, sorted, without `.`, `..` and hidden names;
    /// empty when it cannot be read.
    static func entries(_ directory: String) -> [String] {
        guard let handle = opendir(directory) else { return [] }
        defer { closedir(handle) }
        var names: [String] = []
        while let entry = readdir(handle), names.count < 1_000_000 {
            let name = withUnsafePointer(to: &entry.pointee.d_name) { pointer in
                pointer.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if !name.hasPrefix(".") { names.append(name) }
        }
        return names.sorted()
    }

    static func isDirectory(_ path: String) -> Bool { mode(path) == S_IFDIR }
    static func isFile(_ path: String) -> Bool { mode(path) == S_IFREG }

    private static func mode(_ path: String) -> mode_t? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return info.st_mode & S_IFMT
    }

    /// The directory part of `path` (`a/b/c.json` → `a/b`, `c.json` → `.`).
    static func parent(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// The last component of `path`, after resolving it (`.` → the folder's name).
    static func name(of path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        let full = String(cString: resolved)
        guard let last = full.split(separator: "/").last else { return nil }
        return String(last)
    }

    /// Streams the elements of the JSON array in the file `path` (named
    /// `name` in diagnostics) to `body`, each with the line it starts on.
    /// Returns false when the file does not exist; every other problem (not
    /// readable, not an array, broken JSON) is reported on `sink` as
    /// `name:line: reason`, after the elements before it were handed over.
    @discardableResult
    static func forEachElement(path: String, name: String, sink: ImportSink,
                               _ body: (JSONView, Int) -> Void) -> Bool {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { return false }
            sink.problem(line: nil, "\(name): cannot be read: \(String(cString: strerror(errno)))")
            return true
        }
        defer { close(fd) }
        forEachElement(JSONStream(source: ByteSource(fd: fd)), name: name, sink: sink, body)
        return true
    }

    /// Streams the elements of the JSON array `stream` reads (see above);
    /// a nil `name` is the input itself, whose name the sink adds.
    static func forEachElement(_ stream: JSONStream, name: String?, sink: ImportSink, _ body: (JSONView, Int) -> Void) {
        var document = JSONDocument()
        var rootIsArray = true
        func report(_ line: Int?, _ reason: String) { problem(sink, file: name, line: line, reason) }
        do {
            try stream.walk(decide: { path, first in
                if path.isEmpty {
                    guard first == UInt8(ascii: "[") else { rootIsArray = false; return .skip }
                    return .descend
                }
                return path.count == 1 ? .capture : .skip
            }, value: { _, value in
                do {
                    if try ExportValueParser.parse(value.bytes, into: &document) {
                        sink.warning("\(name.map { "\($0):" } ?? "line ")\(value.line): invalid escapes in a string were repaired")
                    }
                } catch {
                    report(value.line, "not valid JSON: \(error)")
                    return
                }
                body(JSONView(document), value.line)
            }, problem: { line, reason in
                report(line, reason)
            })
        } catch let error as ImportError {
            return report(error.line, error.reason)
        } catch {
            return report(nil, "\(error)")
        }
        if !rootIsArray { report(nil, "not a JSON array") }
    }

    /// Reports a problem at `line` of `file` (a file of the export), or of
    /// the input itself when `file` is nil.
    static func problem(_ sink: ImportSink, file: String?, line: Int?, _ reason: String) {
        guard let file else { return sink.problem(line: line, reason) }
        sink.problem(line: nil, line.map { "\(file):\($0): \(reason)" } ?? "\(file): \(reason)")
    }
}

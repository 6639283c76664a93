import Glibc

/// The user's configuration, `$XDG_CONFIG_HOME/cellhost/config` (default
/// `~/.config/cellhost/config`). An INI-like text file:
///
/// ```
/// # Renderers to use for every run, like --renderer TYPE=CLASS.
/// [renderers]
/// image = MyImageCell
///
/// # Defaults of `render` options.
/// [render]
/// isolation = shared
/// plugin-timeout = 500
/// ```
///
/// Blank lines and lines starting with `#` or `;` are ignored.
public struct ConfigFile: Sendable, Equatable {
    /// Message class → cell class overrides.
    public var renderers: [(messageClass: String, className: String)] = []
    /// `render` option defaults from the `[render]` section, by option name
    /// without the dashes (`isolation`, `plugin-timeout`, `plugin-memory`).
    public var render: [String: String] = [:]
    /// The keys `[render]` accepts.
    public static let renderKeys = ["me", "width", "color", "paging", "width-mode", "images", "bubble-width",
                                    "isolation", "plugin-timeout", "plugin-memory"]
    /// The file read, for error messages.
    public var path: String?

    public static func == (lhs: ConfigFile, rhs: ConfigFile) -> Bool {
        lhs.path == rhs.path && lhs.render == rhs.render
            && lhs.renderers.map { "\($0)=\($1)" } == rhs.renderers.map { "\($0)=\($1)" }
    }

    /// A problem in the file, with its line.
    public struct Problem: Error, CustomStringConvertible, Equatable {
        public var path: String
        public var line: Int
        public var reason: String
        /// `PATH:LINE: reason`, or `PATH: reason` for the file as a whole (line 0).
        public var description: String { line > 0 ? "\(path):\(line): \(reason)" : "\(path): \(reason)" }
    }

    public init() {}

    /// Where the config file is for an environment.
    public static func defaultPath(environment: [String: String]) -> String? {
        if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") { return config + "/cellhost/config" }
        if let home = environment["HOME"], !home.isEmpty { return home + "/.config/cellhost/config" }
        return nil
    }

    /// Reads the file at `path`; a missing file is an empty configuration.
    /// Anything but a regular file (a FIFO, a directory, a device) is an
    /// error: it is opened without blocking, so a FIFO cannot hang the run.
    public static func load(path: String) throws -> ConfigFile {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { return ConfigFile() }
            throw Problem(path: path, line: 0, reason: String(cString: strerror(errno)))
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw Problem(path: path, line: 0, reason: String(cString: strerror(errno))) }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw Problem(path: path, line: 0, reason: "not a regular file")
        }
        var text: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw Problem(path: path, line: 0, reason: String(cString: strerror(errno)))
            }
            if count == 0 { break }
            text += chunk[0..<count]
            if text.count > 1 << 20 { throw Problem(path: path, line: 0, reason: "larger than 1 MiB") }
        }
        return try parse(bytes: text, path: path)
    }

    /// Parses the bytes of a config file; invalid UTF-8 becomes U+FFFD.
    public static func parse(bytes: [UInt8], path: String) throws -> ConfigFile {
        try parse(String(decoding: bytes, as: UTF8.self), path: path)
    }

    /// Parses configuration text.
    public static func parse(_ text: String, path: String) throws -> ConfigFile {
        var config = ConfigFile()
        config.path = path
        var section: String?
        // A UTF-8 byte order mark (as some editors write) is not part of the text.
        let text = text.hasPrefix("\u{FEFF}") ? String(text.unicodeScalars.dropFirst()) : text
        // "\r\n" is one Character in Swift: split on scalars so CRLF files work.
        let lines = text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).map { String(String.UnicodeScalarView($0)) }
        for (index, rawLine) in lines.enumerated() {
            let line = rawLine.trimmingCharacters(in: " \t\r")
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("[") {
                guard line.hasSuffix("]") else { throw Problem(path: path, line: index + 1, reason: "unterminated section header") }
                let name = String(line.dropFirst().dropLast()).trimmingCharacters(in: " \t")
                guard name == "renderers" || name == "render" else {
                    throw Problem(path: path, line: index + 1,
                                  reason: "unknown section [\(Sanitizer.sanitize(name))] (known: [renderers], [render])")
                }
                section = name
                continue
            }
            guard let equals = line.firstIndex(of: "=") else {
                throw Problem(path: path, line: index + 1, reason: "expected KEY = VALUE")
            }
            let key = String(line[..<equals]).trimmingCharacters(in: " \t")
            let value = String(line[line.index(after: equals)...]).trimmingCharacters(in: " \t")
            guard let section else {
                throw Problem(path: path, line: index + 1, reason: "'\(Sanitizer.sanitize(key))' outside a section (put it under [renderers])")
            }
            if section == "render" {
                guard renderKeys.contains(key) else {
                    throw Problem(path: path, line: index + 1,
                                  reason: "unknown key '\(Sanitizer.sanitize(key))' in [render] (known: \(renderKeys.joined(separator: ", ")))")
                }
                config.render[key] = value
                continue
            }
            guard !key.isEmpty, !value.isEmpty else {
                throw Problem(path: path, line: index + 1, reason: "expected MESSAGE_CLASS = CELL_CLASS")
            }
            config.renderers.append((key, value))
        }
        return config
    }
}

extension StringProtocol {
    func trimmingCharacters(in set: String) -> String {
        var scalars = Substring(self)
        while let first = scalars.first, set.contains(first) { scalars.removeFirst() }
        while let last = scalars.last, set.contains(last) { scalars.removeLast() }
        return String(scalars)
    }
}

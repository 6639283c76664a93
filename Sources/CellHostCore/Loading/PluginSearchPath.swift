import Glibc

/// Where plugins are looked for, in order:
/// `--plugin-path` directories, `CELLHOST_PLUGIN_PATH` (colon-separated),
/// `$XDG_DATA_HOME/cellhost/plugins` (default `~/.local/share/cellhost/plugins`),
/// `/usr/local/lib/cellhost/plugins`, `/usr/lib/cellhost/plugins`,
/// `$ORIGIN/../lib/cellhost/plugins` (where `.ci/install.sh` puts the shipped
/// plugins, `$ORIGIN` being the directory of the `cellhost` executable), and
/// `$ORIGIN` itself (where `swift build` puts them).
public struct PluginSearchPath: Sendable, Equatable {
    public var directories: [String]

    public init(directories: [String]) { self.directories = directories }

    /// The standard search path for a command line and environment.
    public static func standard(commandLine: [String], environment: [String: String],
                                executableDirectory: String?) -> PluginSearchPath {
        resolve(commandLine: commandLine, environment: environment, executableDirectory: executableDirectory).searchPath
    }

    /// The standard search path and one warning per entry that was ignored
    /// or cannot be searched, for the caller to print:
    ///
    /// - `--plugin-path ''`: empty, ignored (it would mean the current directory);
    /// - a `--plugin-path` that does not exist or is not a directory
    ///   (`--plugin-path /x: no such directory`); a relative one is taken
    ///   relative to the current directory, as the user typed it;
    /// - empty and relative `CELLHOST_PLUGIN_PATH` entries are ignored: a
    ///   variable set once must not depend on the current directory.
    public static func resolve(commandLine: [String], environment: [String: String],
                               executableDirectory: String?) -> (searchPath: PluginSearchPath, warnings: [String]) {
        var warnings: [String] = []
        var directories: [String] = []
        for entry in commandLine {
            guard !entry.isEmpty else {
                warnings.append("--plugin-path '': empty directory name, ignored")
                continue
            }
            // Kept on the path either way (list-plugins shows it); it just has no plugins.
            var info = stat()
            if stat(entry, &info) != 0 {
                warnings.append("--plugin-path \(entry): " + (errno == ENOENT ? "no such directory" : String(cString: strerror(errno))))
            } else if info.st_mode & S_IFMT != S_IFDIR {
                warnings.append("--plugin-path \(entry): not a directory")
            }
            directories.append(entry)
        }
        if let variable = environment["CELLHOST_PLUGIN_PATH"] {
            for entry in variable.split(separator: ":", omittingEmptySubsequences: false).map(String.init) {
                if entry.isEmpty {
                    warnings.append("CELLHOST_PLUGIN_PATH: empty entry ignored")
                } else if !entry.hasPrefix("/") {
                    warnings.append("CELLHOST_PLUGIN_PATH: relative entry '\(entry)' ignored (entries must be absolute)")
                } else {
                    directories.append(entry)
                }
            }
        }
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
            directories.append(data + "/cellhost/plugins")
        } else if let home = environment["HOME"], !home.isEmpty {
            directories.append(home + "/.local/share/cellhost/plugins")
        }
        directories += systemDirectories
        if let executableDirectory { directories += [prefixDirectory(executableDirectory: executableDirectory), executableDirectory] }
        var seen = Set<String>()
        let searchPath = PluginSearchPath(directories: directories.map(absolute).filter { seen.insert($0).inserted })
        return (searchPath, warnings)
    }

    /// The system plugin directories.
    static let systemDirectories = ["/usr/local/lib/cellhost/plugins", "/usr/lib/cellhost/plugins"]

    /// `$ORIGIN/../lib/cellhost/plugins` for the executable directory
    /// `$ORIGIN`, without `..`: the installed plugins of an executable in
    /// `PREFIX/bin` (`PREFIX/lib/cellhost/plugins`), found wherever PREFIX is.
    public static func prefixDirectory(executableDirectory: String) -> String {
        var directory = executableDirectory
        while directory.count > 1, directory.hasSuffix("/") { directory.removeLast() }
        let parent = directory.lastIndex(of: "/").map { String(directory[..<$0]) } ?? "."
        return parent + "/lib/cellhost/plugins"
    }

    /// The directories of plugins installed with the host: beside the
    /// executable, `$ORIGIN/../lib/cellhost/plugins` (`PREFIX/lib/cellhost/plugins`
    /// for an executable in `PREFIX/bin`), and the system directories.
    /// `--isolation auto` runs plugins from these in the host process.
    public static func installedDirectories(executableDirectory: String?) -> Set<String> {
        var directories = Set(systemDirectories)
        if let executableDirectory {
            directories.insert(executableDirectory)
            directories.insert(prefixDirectory(executableDirectory: executableDirectory))
        }
        return directories
    }

    /// The running executable's path.
    public static func executablePath() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The directory holding the running executable.
    public static func executableDirectory() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        let path = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let slash = path.lastIndex(of: "/") else { return nil }
        return String(path[..<slash])
    }

    static func absolute(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return path }
        let directory = String(cString: buffer)
        return directory == "/" ? "/" + path : directory + "/" + path
    }

    /// A candidate plugin file: its path, and what `stat` says of it
    /// (symbolic links followed; nil when it cannot be stat'ed).
    struct Candidate {
        struct Status {
            let identity: FileIdentity
            let owner: uid_t
            let mode: mode_t
        }

        let path: String
        let status: Status?
    }

    /// The candidate files of one directory: names ending in `.so`, sorted
    /// bytewise, each stat'ed once (by name, relative to the open
    /// directory). A missing directory has none. Names are gathered and
    /// sorted as bytes, each path made a `String` once: with 1000 plugins,
    /// a `String` per name and its comparisons were 5 M instructions.
    static func candidates(in directory: String) -> [Candidate] {
        guard let handle = opendir(directory) else { return [] }
        defer { closedir(handle) }
        var prefix = Array(directory.utf8)
        if prefix.last != UInt8(ascii: "/") { prefix.append(UInt8(ascii: "/")) }
        var names: [UInt8] = []
        var starts: [Int] = []
        var lengths: [Int] = []
        // Each name's first 16 bytes as two big-endian words (zero-padded,
        // so a shorter name sorts first): most comparisons end there.
        var highs: [UInt64] = []
        var lows: [UInt64] = []
        while let entry = readdir(handle) {
            withUnsafeBytes(of: &entry.pointee.d_name) { raw in
                let length = strnlen(raw.baseAddress!.assumingMemoryBound(to: CChar.self), raw.count)
                let name = UnsafeRawBufferPointer(rebasing: raw[..<length])
                guard length > 3, name[length - 3] == UInt8(ascii: "."), name[length - 2] == UInt8(ascii: "s"),
                      name[length - 1] == UInt8(ascii: "o") else { return }
                var high: UInt64 = 0, low: UInt64 = 0
                for index in 0..<min(length, 16) {
                    if index < 8 {
                        high |= UInt64(name[index]) << (56 - 8 * index)
                    } else {
                        low |= UInt64(name[index]) << (120 - 8 * index)
                    }
                }
                starts.append(names.count)
                lengths.append(length)
                highs.append(high)
                lows.append(low)
                names.append(contentsOf: name)
                names.append(0)
            }
        }
        let fd = dirfd(handle)
        return names.withUnsafeBytes { bytes in
            var order = Array(starts.indices)
            order.sort { first, second in
                if highs[first] != highs[second] { return highs[first] < highs[second] }
                if lows[first] != lows[second] { return lows[first] < lows[second] }
                let common = min(lengths[first], lengths[second])
                let compared = common <= 16 ? 0 : memcmp(bytes.baseAddress! + starts[first] + 16,
                                                         bytes.baseAddress! + starts[second] + 16, common - 16)
                return compared != 0 ? compared < 0 : lengths[first] < lengths[second]
            }
            var path = prefix
            return order.map { index in
                path.removeSubrange(prefix.count...)
                path.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[starts[index]..<(starts[index] + lengths[index])]))
                var info = stat()
                let name = (bytes.baseAddress! + starts[index]).assumingMemoryBound(to: CChar.self)
                let file = String(decoding: path, as: UTF8.self)
                guard fstatat(fd, name, &info, 0) == 0 else { return Candidate(path: file, status: nil) }
                return Candidate(path: file, status: .init(identity: FileIdentity(path: file, info: info), owner: info.st_uid,
                                                           mode: info.st_mode))
            }
        }
    }
}

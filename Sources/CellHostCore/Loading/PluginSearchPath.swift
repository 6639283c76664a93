import Glibc

/// Where plugins are looked for, in order (DESIGN.md section 7):
/// `--plugin-path` directories, `CELLHOST_PLUGIN_PATH` (colon-separated),
/// `$XDG_DATA_HOME/cellhost/plugins` (default `~/.local/share/cellhost/plugins`),
/// `/usr/local/lib/cellhost/plugins`, `/usr/lib/cellhost/plugins`, and the
/// directory of the `cellhost` executable (where `swift build` puts the
/// shipped plugins).
public struct PluginSearchPath: Sendable, Equatable {
    public var directories: [String]

    public init(directories: [String]) { self.directories = directories }

    /// The standard search path for a command line and environment.
    public static func standard(commandLine: [String], environment: [String: String],
                                executableDirectory: String?) -> PluginSearchPath {
        var directories = commandLine
        if let variable = environment["CELLHOST_PLUGIN_PATH"] {
            directories += variable.split(separator: ":", omittingEmptySubsequences: true).map(String.init)
        }
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
            directories.append(data + "/cellhost/plugins")
        } else if let home = environment["HOME"], !home.isEmpty {
            directories.append(home + "/.local/share/cellhost/plugins")
        }
        directories += ["/usr/local/lib/cellhost/plugins", "/usr/lib/cellhost/plugins"]
        if let executableDirectory { directories.append(executableDirectory) }
        var seen = Set<String>()
        return PluginSearchPath(directories: directories.map(absolute).filter { seen.insert($0).inserted })
    }

    /// The directories of plugins installed with the host: beside the
    /// executable, `PREFIX/lib/cellhost/plugins` for an executable in
    /// `PREFIX/bin`, and the system directories. `--isolation auto` runs
    /// plugins from these in the host process.
    public static func installedDirectories(executableDirectory: String?) -> Set<String> {
        var directories: Set<String> = ["/usr/local/lib/cellhost/plugins", "/usr/lib/cellhost/plugins"]
        if let executableDirectory {
            directories.insert(executableDirectory)
            if executableDirectory.hasSuffix("/bin") {
                directories.insert(String(executableDirectory.dropLast(4)) + "/lib/cellhost/plugins")
            }
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

    /// The candidate files of one directory: names ending in `.so`, sorted
    /// bytewise. A missing directory has none.
    static func candidates(in directory: String) -> [String] {
        guard let handle = opendir(directory) else { return [] }
        defer { closedir(handle) }
        var names: [String] = []
        while let entry = readdir(handle) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: Int(NAME_MAX) + 1) { String(cString: $0) }
            }
            if name.hasSuffix(".so"), name != ".so" { names.append(name) }
        }
        return names.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
            .map { directory.hasSuffix("/") ? directory + $0 : directory + "/" + $0 }
    }
}

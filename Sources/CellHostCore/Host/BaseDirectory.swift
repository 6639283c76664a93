import Glibc

/// The absolute directory that relative paths in messages (media files) are
/// relative to, as plugins read it in `cellhost_context.base_directory`: the
/// directory of the input file, or the current directory for standard input.
/// Immutable; its C string lives as long as it does.
public final class BaseDirectory: @unchecked Sendable {
    /// The directory: absolute, without a trailing "/" (except "/" itself).
    public let path: String
    /// `path` as the NUL-terminated string handed to plugins.
    let pointer: UnsafePointer<CChar>

    /// `path` made absolute against the current directory and normalised.
    public init(path: String) {
        var absolute = path.hasPrefix("/") ? path : BaseDirectory.workingDirectory() + "/" + path
        while absolute.count > 1 && absolute.hasSuffix("/") { absolute.removeLast() }
        if absolute.hasSuffix("/.") && absolute.count > 2 { absolute.removeLast(2) }
        self.path = absolute
        pointer = UnsafePointer(strdup(absolute) ?? strdup("/")!)
    }

    deinit { free(UnsafeMutablePointer(mutating: pointer)) }

    /// The directory holding `file` (a path as given on the command line).
    public convenience init(containing file: String) {
        guard let slash = file.lastIndex(of: "/") else {
            self.init(path: BaseDirectory.workingDirectory())
            return
        }
        let directory = String(file[..<slash])
        self.init(path: directory.isEmpty ? "/" : directory)
    }

    /// The current directory (standard input's base).
    public static var current: BaseDirectory { BaseDirectory(path: workingDirectory()) }

    private static func workingDirectory() -> String {
        guard let cwd = getcwd(nil, 0) else { return "/" }
        defer { free(cwd) }
        return String(cString: cwd)
    }
}

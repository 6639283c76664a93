import CellHostABI
import CellHostCore
import Glibc

/// `cellhost new-plugin NAME --lang c|swift [--type TYPE] [--output DIR] [--sdk DIR]`:
/// writes a plugin directory that builds, passes `check-plugin` and renders
/// its sample as generated, with a README giving the three commands.
struct NewPluginCommand {
    var name = ""
    var language = PluginTemplate.Language.c
    var messageType: String?
    var output: String?
    var sdk: String?

    static func parse(_ arguments: [String]) throws -> NewPluginCommand? {
        var command = NewPluginCommand()
        var help = false
        func unexpected(_ argument: String) -> UsageError {
            UsageError(message: "new-plugin: unexpected argument '\(argument)' (see cellhost new-plugin --help)")
        }
        try ArgumentScanner(arguments: arguments, command: "new-plugin").scan(stopAtHelp: true, operand: { name in
            guard command.name.isEmpty else { throw unexpected(name) }
            command.name = name
        }) { flag, value in
            switch flag {
            case "--help": help = true
            case "--lang":
                let given = try value()
                guard let language = PluginTemplate.Language(rawValue: given) else {
                    throw UsageError(message: "--lang must be c or swift, not '\(given)'")
                }
                command.language = language
            case "--type": command.messageType = try value()
            case "--output": command.output = try value()
            case "--sdk": command.sdk = try value()
            default: throw Suggestion.unknownOption(flag, command: "new-plugin", known: ["--help", "--lang", "--type", "--output", "--sdk"])
            }
        }
        if help { return nil }
        guard !command.name.isEmpty else { throw UsageError(message: "new-plugin needs a NAME (see cellhost new-plugin --help)") }
        return command
    }

    /// Writes the directory; returns the lines to print.
    func run() throws -> [String] {
        let template = try PluginTemplate(name: name, language: language, messageType: messageType,
                                          executable: PluginSearchPath.executablePath() ?? "cellhost",
                                          sdk: try sdkDirectory())
        let directory = output ?? name
        var info = stat()
        guard stat(directory, &info) != 0 else {
            throw UsageError(message: "\(directory): already exists; choose another NAME or --output DIR")
        }
        for (path, contents) in template.files {
            let full = directory + "/" + path
            try makeDirectories(String(full[..<(full.lastIndex(of: "/") ?? full.endIndex)]))
            try write(contents, to: full)
        }
        return ["created \(directory)/ (\(template.files.map(\.path).sorted().joined(separator: ", ")))",
                "next: see \(directory)/README.md"]
    }

    /// Where the headers (and for Swift, CellKit) come from: `--sdk DIR` (a
    /// CellHost checkout, or for C an installation prefix), else found from
    /// this executable: for C the headers installed with it
    /// (`$ORIGIN/../include/cellhost`), else the checkout it was built in
    /// (a build in `.build/`), which Swift needs, since CellKit is not installed.
    private func sdkDirectory() throws -> PluginTemplate.SDK {
        let swift = language == .swift
        if let sdk {
            if Self.isCheckout(sdk) { return .checkout(sdk) }
            if !swift, Self.isPrefix(sdk) { return .installed(prefix: sdk) }
            throw UsageError(message: swift
                ? "new-plugin: --sdk \(sdk): not a CellHost checkout (no Sources/CellKit and Sources/CellHostABI); "
                    + "a Swift plugin needs CellKit's sources"
                : "new-plugin: --sdk \(sdk): neither a CellHost checkout nor an installation prefix (no include/cellhost/cellhost.h)")
        }
        let origin = PluginSearchPath.executableDirectory() ?? "."
        if !swift, let slash = origin.lastIndex(of: "/") {
            let prefix = String(origin[..<slash])
            if Self.isPrefix(prefix.isEmpty ? "/" : prefix) { return .installed(prefix: prefix) }
        }
        var directory = origin
        for _ in 0..<5 {
            if Self.isCheckout(directory) { return .checkout(directory) }
            guard let slash = directory.lastIndex(of: "/"), slash != directory.startIndex else { break }
            directory = String(directory[..<slash])
        }
        throw UsageError(message: swift
            ? "new-plugin: a Swift plugin needs CellKit, which is not installed: pass --sdk DIR (a CellHost checkout)"
            : "new-plugin: cannot find the plugin headers (include/cellhost/cellhost.h) near this executable; "
                + "pass --sdk DIR (a CellHost checkout or installation prefix)")
    }

    private static func isCheckout(_ directory: String) -> Bool {
        access(directory + "/Sources/CellHostABI/include/cellhost/cellhost.h", R_OK) == 0
            && access(directory + "/Sources/CellKit", R_OK) == 0
    }

    private static func isPrefix(_ directory: String) -> Bool {
        access(directory + "/include/cellhost/cellhost.h", R_OK) == 0
    }

    private func makeDirectories(_ path: String) throws {
        var built = path.hasPrefix("/") ? "" : "."
        for part in path.split(separator: "/") {
            built += "/" + part
            if mkdir(built, 0o755) != 0 && errno != EEXIST {
                throw UsageError(message: "\(built): \(String(cString: strerror(errno)))")
            }
        }
    }

    private func write(_ contents: String, to path: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw UsageError(message: "\(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        let bytes = Array(contents.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { throw UsageError(message: "\(path): \(String(cString: strerror(errno)))") }
            offset += written
        }
    }
}

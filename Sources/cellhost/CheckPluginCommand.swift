import CellHostCore
import Glibc

/// `cellhost check-plugin FILE.so`: validates one plugin (docs/check-plugin.md).
/// The checks live in CellHostCore (`PluginChecker`); this parses the
/// options and prints the report.
extension CommandLineTool {
    func checkPlugin(_ arguments: [String]) throws -> Int32 {
        var files: [String] = []
        var json = false
        var allowInsecure = false
        var pluginPaths: [String] = []
        var widths: [Int] = []
        var timeout: Int?
        var memory: Int?
        var help = false
        try ArgumentScanner(arguments: arguments, command: "check-plugin").scan(stopAtHelp: true,
                                                                               operand: { files.append($0) }) { flag, value in
            switch flag {
            case "--help": help = true
            case "--json": json = true
            case "--allow-insecure-plugins": allowInsecure = true
            case "--plugin-path": pluginPaths.append(try value())
            case "--width":
                let text = try value()
                guard let width = Int(text), width >= 1, width <= 1000 else {
                    throw UsageError(message: "--width must be a whole number from 1 to 1000, not '\(text)'")
                }
                widths.append(width)
            case "--timeout":
                let text = try value()
                guard let milliseconds = Int(text), milliseconds >= 1, milliseconds <= 3_600_000 else {
                    throw UsageError(message: "--timeout must be a number of milliseconds from 1 to 3600000, not '\(text)'")
                }
                timeout = milliseconds
            case "--plugin-memory":
                let text = try value()
                guard let mebibytes = Int(text), mebibytes >= 64, mebibytes <= 1 << 20 else {
                    throw UsageError(message: "--plugin-memory must be a number of MiB from 64 to 1048576, not '\(text)'")
                }
                memory = mebibytes
            default:
                throw Suggestion.unknownOption(flag, command: "check-plugin", known: ["--help", "--json", "--plugin-path", "--timeout",
                                                                                   "--width", "--plugin-memory", "--allow-insecure-plugins"])
            }
        }
        if help { printOut(Help.checkPlugin); return 0 }
        guard let file = files.first else { throw UsageError(message: "check-plugin needs a plugin file (see cellhost check-plugin --help)") }
        guard files.count == 1 else { throw UsageError(message: "check-plugin checks one plugin file, not \(files.count)") }
        var info = stat()
        guard stat(file, &info) == 0 else { throw UsageError(message: "\(file): \(String(cString: strerror(errno)))") }
        guard info.st_mode & S_IFMT == S_IFREG else { throw UsageError(message: "\(file): not a regular file") }
        guard let executable = PluginSearchPath.executablePath() else {
            throw UsageError(message: "cannot find the cellhost executable to run the checks in")
        }
        var settings = PluginChecker.Settings(file: file, executable: executable)
        settings.pluginPaths = pluginPaths
        settings.environment = environment
        settings.allowInsecure = allowInsecure
        if !widths.isEmpty { settings.widths = widths }
        if let timeout { settings.limit = Double(timeout) / 1000 }
        if let memory { settings.memoryLimit = memory << 20 }
        let report = PluginChecker(settings: settings).run(warning: { printError($0) })
        printOut(json ? report.jsonLines() : report.text())
        return report.failed ? 1 : 0
    }
}

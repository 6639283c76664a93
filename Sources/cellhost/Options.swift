import CellHostCore

/// A usage error: exit status 2 with a one-line message.
struct UsageError: Error {
    var message: String
}

/// Options shared by the subcommands, parsed by hand (no package outside the
/// toolchain is available): `--flag VALUE` and `--flag=VALUE` both work.
struct Options {
    var files: [String] = []
    var format: String?
    var width: Int?
    var maxRows: Int?
    var maxBytes: Int?
    var me: String?
    var renderers: [String] = []
    var pluginPaths: [String] = []
    var color: ColorChoice?
    var paging: Paging?
    var bubbleWidth: Int?
    /// `--width-mode`: a `WidthMode` name or `auto`.
    var widthMode: String?
    var follow = false
    var lines: Int?
    var json = false
    var verbose = false
    var help = false
    var rescan = false
    var isolation: String?
    var pluginTimeout: Int?
    var pluginMemory: Int?
    var allowInsecurePlugins = false
    var images: ImageMode?
    var imageRows: Int?
    var mediaDirectory: String?
    var from: ImportFormat?

    /// Parses `arguments` accepting only the flags in `allowed`.
    static func parse(_ arguments: [String], allowed: Set<String>, command: String) throws -> Options {
        var options = Options()
        try ArgumentScanner(arguments: arguments, command: command).scan(operand: { options.files.append($0) }) { flag, value in
            guard allowed.contains(flag) else {
                throw Suggestion.unknownOption(flag, command: command, known: Array(allowed))
            }
            switch flag {
            case "--help": options.help = true
            case "--json": options.json = true
            case "--verbose": options.verbose = true
            case "--rescan": options.rescan = true
            case "--isolation":
                let name = try value()
                guard IsolationMode(rawValue: name) != nil else {
                    throw UsageError(message: "--isolation must be none, auto, shared or each, not '\(name)'")
                }
                options.isolation = name
            case "--plugin-timeout":
                let text = try value()
                guard let milliseconds = Int(text), milliseconds > 0, milliseconds <= 3_600_000 else {
                    throw UsageError(message: "--plugin-timeout must be a number of milliseconds from 1 to 3600000, not '\(text)'")
                }
                options.pluginTimeout = milliseconds
            case "--plugin-memory":
                let text = try value()
                guard let mebibytes = Int(text), mebibytes >= 64, mebibytes <= 1 << 20 else {
                    throw UsageError(message: "--plugin-memory must be a number of MiB from 64 to 1048576, not '\(text)'")
                }
                options.pluginMemory = mebibytes
            case "--allow-insecure-plugins": options.allowInsecurePlugins = true
            case "--format": options.format = try value()
            case "--width":
                options.width = try limit(flag, try value(), minimum: OutputSettings.minimumWidth, maximum: OutputSettings.maximumWidth)
            case "--max-rows":
                options.maxRows = try limit(flag, try value(), maximum: OutputLimits.maximumRows)
            case "--max-bytes":
                options.maxBytes = try limit(flag, try value(), maximum: OutputLimits.maximumBytes)
            case "--me": options.me = try value()
            case "--renderer": options.renderers.append(try value())
            case "--plugin-path": options.pluginPaths.append(try value())
            case "--color":
                let text = try value()
                guard let color = ColorChoice(rawValue: text) else {
                    throw UsageError(message: "--color must be auto, always or never, not '\(text)'")
                }
                options.color = color
            case "--paging":
                let text = try value()
                guard let paging = Paging(rawValue: text) else {
                    throw UsageError(message: "--paging must be auto, always or never, not '\(text)'")
                }
                options.paging = paging
            case "--follow": options.follow = true
            case "--lines":
                let text = try value()
                guard let count = Int(text), count >= 0, count <= 1_000_000 else {
                    throw UsageError(message: "--lines must be a whole number from 0 to 1000000, not '\(text)'")
                }
                options.lines = count
            case "--width-mode":
                let text = try value()
                guard text == "auto" || WidthMode(rawValue: text) != nil else {
                    throw UsageError(message: "--width-mode must be grapheme, wcwidth or auto, not '\(text)'")
                }
                options.widthMode = text
            case "--bubble-width":
                options.bubbleWidth = try limit(flag, try value(), minimum: OutputSettings.minimumWidth, maximum: OutputSettings.maximumWidth)
            case "--images":
                let text = try value()
                if text == "sixels" || text == "kitty" {
                    throw UsageError(message: "--images \(text) is not supported: cellhost writes only sanitized text, never a "
                        + "terminal graphics protocol; use --images symbols (the default) or none")
                }
                guard let mode = ImageMode(rawValue: text) else {
                    throw UsageError(message: "--images must be symbols or none, not '\(text)'")
                }
                options.images = mode
            case "--image-rows":
                options.imageRows = try limit(flag, try value(), maximum: 200)
            case "--media-dir": options.mediaDirectory = try value()
            case "--from":
                let text = try value()
                guard let format = ImportFormat(rawValue: text) else {
                    throw UsageError(message: "--from must be one of \(ImportFormat.names), not '\(text)'")
                }
                options.from = format
            default: break
            }
        }
        return options
    }

    /// A whole number in `minimum`…`maximum`, or a usage error naming the flag and the range.
    private static func limit(_ flag: String, _ text: String, minimum: Int = 1, maximum: Int) throws -> Int {
        guard let number = Int(text), number >= minimum, number <= maximum else {
            throw UsageError(message: "\(flag) must be a whole number from \(minimum) to \(maximum), not '\(text)'")
        }
        return number
    }
}

/// Walks a command's arguments the way every subcommand reads them: operands
/// (files, names, and `-`), `--flag VALUE` and `--flag=VALUE`, `--` ending
/// the options, `-h` meaning `--help`.
struct ArgumentScanner {
    let arguments: [String]
    /// Named in "needs a value (see cellhost COMMAND --help)".
    let command: String

    /// Calls `operand` for each operand and `option` for each flag, with a
    /// function that takes the flag's value (inline, or the next argument).
    /// With `stopAtHelp`, nothing after `--help` is read.
    func scan(stopAtHelp: Bool = false, operand: (String) throws -> Void,
              option: (String, () throws -> String) throws -> Void) throws {
        var index = 0
        var onlyOperands = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if onlyOperands || argument == "-" || !argument.hasPrefix("-") {
                try operand(argument)
                continue
            }
            if argument == "--" { onlyOperands = true; continue }
            var flag = argument
            var inline: String?
            if let equals = argument.firstIndex(of: "="), argument.hasPrefix("--") {
                flag = String(argument[..<equals])
                inline = String(argument[argument.index(after: equals)...])
            }
            if flag == "-h" { flag = "--help" }
            try option(flag) {
                if let inline { return inline }
                guard index < arguments.count else {
                    throw UsageError(message: "\(flag) needs a value (see cellhost \(command) --help)")
                }
                index += 1
                return arguments[index - 1]
            }
            if stopAtHelp && flag == "--help" { return }
        }
    }
}

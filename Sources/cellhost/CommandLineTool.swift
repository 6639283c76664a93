import CellHostCore
import Glibc

/// The subcommands and what they share: loading plugins and applying
/// overrides from the config file and `--renderer`.
struct CommandLineTool {
    let environment: [String: String]
    /// The real standard output (fd 1 itself is /dev/null: see `StandardOutput`).
    let output: StandardOutput

    func run(_ arguments: [String]) -> Int32 {
        guard let command = arguments.first else {
            printOut(Help.main)
            return 2
        }
        let rest = Array(arguments.dropFirst())
        do {
            switch command {
            case "render": return try render(rest)
            case "list-plugins": return try listPlugins(rest)
            case "--help", "-h", "help":
                if let topic = rest.first, let text = Help.topic(topic) { printOut(text) } else { printOut(Help.main) }
                return 0
            case "--version": printOut("cellhost \(Help.version) (plugin ABI 1.0)\n"); return 0
            default:
                throw UsageError(message: "unknown command '\(command)' (commands: render, list-plugins; see cellhost --help)")
            }
        } catch let error as UsageError {
            printError(error.message)
            return 2
        } catch {
            printError("\(error)")
            return 2
        }
    }

    /// Loads plugins, prints their diagnostics on stderr, applies overrides.
    private func makeHost(_ options: Options) throws -> (CellHost, PluginSearchPath) {
        let host = CellHost(dispatch: Dispatcher.fromEnvironment(environment).mode)
        let verbose = options.verbose
        host.logHandler = { plugin, level, message in
            if level.rawValue >= CELLHOST_LOG_WARNING_VALUE || verbose { printError("\(plugin): \(message)") }
        }
        let (searchPath, pathWarnings) = PluginSearchPath.resolve(commandLine: options.pluginPaths, environment: environment,
                                                                  executableDirectory: PluginSearchPath.executableDirectory())
        for warning in pathWarnings { printError(warning) }
        host.loadPlugins(searchPath: searchPath)
        for line in host.diagnostics { printError(line) }
        if let path = ConfigFile.defaultPath(environment: environment) {
            let config: ConfigFile
            do { config = try ConfigFile.load(path: path) } catch { throw UsageError(message: "\(error)") }
            for (messageClass, className) in config.renderers {
                do { try host.override(messageClass: messageClass, with: className) } catch {
                    throw UsageError(message: "\(path): renderer for '\(messageClass)': \(error)")
                }
                if !host.isKnownMessageClass(messageClass) {
                    printError("\(path): renderer for '\(messageClass)': \(Self.unknownMessageClass(messageClass))")
                }
            }
        }
        for argument in options.renderers {
            guard let override = RendererOverride(argument: argument) else {
                throw UsageError(message: "--renderer expects TYPE=CLASS, not '\(argument)'")
            }
            do { try host.override(messageClass: override.messageClass, with: override.className) } catch {
                throw UsageError(message: "--renderer \(argument): \(error)")
            }
            if !host.isKnownMessageClass(override.messageClass) {
                printError("--renderer \(argument): \(Self.unknownMessageClass(override.messageClass))")
            }
        }
        return (host, searchPath)
    }

    private func listPlugins(_ arguments: [String]) throws -> Int32 {
        let options = try Options.parse(arguments, allowed: ["--help", "--json", "--verbose", "--plugin-path", "--renderer"],
                                        command: "list-plugins")
        if options.help { printOut(Help.listPlugins); return 0 }
        guard options.files.isEmpty else { throw UsageError(message: "list-plugins takes no files") }
        let (host, searchPath) = try makeHost(options)
        let report = PluginReport(host: host, searchPath: searchPath)
        printOut(options.json ? report.json() + "\n" : report.text(verbose: options.verbose))
        return 0
    }

    private func render(_ arguments: [String]) throws -> Int32 {
        let options = try Options.parse(arguments, allowed: ["--help", "--format", "--width", "--me", "--renderer",
                                                             "--plugin-path", "--color", "--verbose",
                                                             "--max-rows", "--max-bytes"], command: "render")
        if options.help { printOut(Help.render); return 0 }
        var format: OutputFormat?
        if let name = options.format {
            guard let parsed = OutputFormat(rawValue: name) else {
                throw UsageError(message: "--format must be ansi, plain or json, not '\(name)'")
            }
            format = parsed
        }
        guard let color = ColorChoice(rawValue: options.color) else {
            throw UsageError(message: "--color must be auto, always or never, not '\(options.color)'")
        }
        let files = options.files.isEmpty ? ["-"] : options.files
        var readable: [(name: String, fd: Int32)] = []
        for file in files {
            if file == "-" { readable.append(("<stdin>", 0)); continue }
            let fd = open(file, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { throw UsageError(message: "\(file): \(String(cString: strerror(errno)))") }
            var info = stat()
            if fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFDIR {
                throw UsageError(message: "\(file): is a directory")
            }
            readable.append((file, fd))
        }
        let (host, _) = try makeHost(options)
        let settings = OutputSettings.resolve(format: format, color: color, width: options.width, environment: environment,
                                              isTerminal: self.output.isTerminal, terminalWidth: Terminal.width(fd: self.output.fd))
        guard self.output.fd >= 0 else { return 0 } // stdout is closed: main reports it (exit 3).
        let output = OutputBuffer(fd: self.output.fd)
        let limits = OutputLimits(rows: options.maxRows ?? OutputLimits.standard.rows,
                                  bytes: options.maxBytes ?? OutputLimits.standard.bytes)
        let session = RenderSession(host: host, settings: settings, me: options.me, output: output, limits: limits)
        // Plugins and parsing on this thread, layout and output on a second one.
        let pipeline = RenderPipeline(session: session, diagnostics: { printError($0) })
        pipeline.start()
        var invalid = 0
        for (name, fd) in readable {
            // When the input would wait (a live stream), have the output written first.
            // Once a write to stdout failed, stop reading: nothing more can be shown.
            let reader = InputReader(fd: fd, beforeRead: { if !Terminal.hasInput(fd: fd) { pipeline.inputIdle() } },
                                     isCancelled: { output.failed })
            do {
                try reader.read(record: { record in
                    do {
                        try pipeline.submit(record.bytes, line: record.line)
                    } catch {
                        invalid += 1
                        pipeline.report("\(name):\(record.line): \(error)")
                    }
                }, problem: { problem in
                    invalid += 1
                    pipeline.report("\(name):\(problem.line): \(problem.reason)")
                })
            } catch {
                invalid += 1
                pipeline.report("\(name): \(error)")
            }
            if fd != 0 { close(fd) }
            if output.failed { break }
        }
        pipeline.finish()
        if let code = output.failureCode { self.output.fail(errno: code) }
        return invalid > 0 ? 1 : 0
    }
}

let CELLHOST_LOG_WARNING_VALUE: UInt32 = 2

/// The terminal's size, and whether input is waiting.
enum Terminal {
    /// True when reading `fd` would not block (data or end of file is there).
    static func hasInput(fd: Int32) -> Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 0) > 0
    }

    static func width(fd: Int32) -> Int? {
        var size = winsize()
        guard ioctl(fd, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }
}

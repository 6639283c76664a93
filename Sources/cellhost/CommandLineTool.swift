import CellHostABI
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
            // A usage error: the usage goes to stderr, as every diagnostic does.
            writeError(Help.main)
            return 2
        }
        let rest = Array(arguments.dropFirst())
        do {
            switch command {
            case "render": return try render(rest)
            case "list-plugins": return try listPlugins(rest)
            case "check-plugin": return try checkPlugin(rest)
            case "new-plugin":
                guard let command = try NewPluginCommand.parse(rest) else { printOut(Help.newPlugin); return 0 }
                for line in try command.run() { printOut(line + "\n") }
                return 0
            case "--help", "-h", "help":
                if let topic = rest.first, let text = Help.topic(topic) { printOut(text) } else { printOut(Help.main) }
                return 0
            case "--version": printOut("cellhost \(Help.version) (plugin ABI \(CELLHOST_ABI_MAJOR).\(CELLHOST_ABI_MINOR))\n"); return 0
            default:
                let commands = ["render", "list-plugins", "check-plugin", "new-plugin"]
                let hint = Suggestion.closest(to: command, among: commands).map { "did you mean '\($0)'? " } ?? ""
                throw UsageError(message: "unknown command '\(command)' (\(hint)commands: \(commands.joined(separator: ", ")); see cellhost --help)")
            }
        } catch let error as UsageError {
            printError(error.message)
            return 2
        } catch {
            printError("\(error)")
            return 2
        }
    }

    /// The user's config file, or nil when there is none to read.
    private func configFile() throws -> ConfigFile? {
        guard let path = ConfigFile.defaultPath(environment: environment) else { return nil }
        do { return try ConfigFile.load(path: path) } catch { throw UsageError(message: "\(error)") }
    }

    /// Loads plugins, prints their diagnostics on stderr, applies overrides.
    private func makeHost(_ options: Options) throws -> (CellHost, PluginSearchPath) {
        let host = CellHost(dispatch: Dispatcher.fromEnvironment(environment).mode)
        let verbose = options.verbose
        host.logHandler = { plugin, level, message in
            if level >= Int32(CELLHOST_LOG_WARNING) || verbose { printError("\(plugin): \(message)") }
        }
        let (searchPath, pathWarnings) = PluginSearchPath.resolve(commandLine: options.pluginPaths, environment: environment,
                                                                  executableDirectory: PluginSearchPath.executableDirectory())
        for warning in pathWarnings { printError(warning) }
        var description = PluginLoader.Description.inProcess
        if let executable = PluginSearchPath.executablePath() {
            description = .scanner(PluginScanner(executable: executable),
                                   cache: PluginCache.defaultPath(environment: environment).map(PluginCache.init),
                                   rescan: options.rescan)
        }
        let loaded = host.loadPlugins(with: PluginLoader(searchPath: searchPath, description: description,
                                                         allowInsecure: options.allowInsecurePlugins))
        for line in loaded.warnings { printError(line) }
        for line in host.diagnostics { printError(line) }
        if let config = try configFile() {
            let path = config.path ?? "config"
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
        let options = try Options.parse(arguments, allowed: ["--help", "--json", "--verbose", "--plugin-path", "--renderer",
                                                             "--rescan", "--allow-insecure-plugins"],
                                        command: "list-plugins")
        if options.help { printOut(Help.listPlugins); return 0 }
        guard options.files.isEmpty else { throw UsageError(message: "list-plugins takes no files") }
        let (host, searchPath) = try makeHost(options)
        let report = PluginReport(host: host, searchPath: searchPath)
        printOut(options.json ? report.json() + "\n" : report.text(verbose: options.verbose))
        // Exit 1 when anything failed, so the listing can gate a CI job.
        return host.plugins.allSatisfy({ $0.isLoaded && $0.rejectedClasses.isEmpty }) ? 0 : 1
    }

    /// Where plugin code runs and its limits: `--isolation` (default `auto`),
    /// `--plugin-timeout`, `--plugin-memory` (merged with the config file's
    /// `[render]` by `RenderDefaults`).
    private func isolationSettings(_ options: Options) throws -> Supervisor.Settings {
        let mode = options.isolation.flatMap(IsolationMode.init(rawValue:)) ?? .auto
        var settings = Supervisor.Settings(mode: mode, executable: PluginSearchPath.executablePath() ?? "")
        if let milliseconds = options.pluginTimeout {
            settings.timeout = Double(milliseconds) / 1000
            settings.hostTimeout = settings.timeout
        }
        if let mebibytes = options.pluginMemory { settings.memoryLimit = mebibytes << 20 }
        return settings
    }

    /// The supervisor of worker processes, or nil when every plugin runs in
    /// this process: in `auto` mode, plugins installed with the host run
    /// here, every other plugin in a worker.
    private func supervisor(_ settings: Supervisor.Settings, host: CellHost, me: String?, limits: OutputLimits) -> Supervisor? {
        guard settings.mode != .none, !settings.executable.isEmpty else { return nil }
        let installed = PluginSearchPath.installedDirectories(executableDirectory: PluginSearchPath.executableDirectory())
        return Supervisor(settings: settings, plugins: host.loads, me: me, dispatch: host.runtime.dispatcher.mode,
                          limits: limits, output: host.runtime.output) { installed.contains($0) }
    }

    private func render(_ arguments: [String]) throws -> Int32 {
        var options = try Options.parse(arguments, allowed: ["--help", "--format", "--width", "--me", "--renderer",
                                                             "--plugin-path", "--color", "--verbose",
                                                             "--allow-insecure-plugins", "--isolation", "--plugin-timeout",
                                                             "--plugin-memory", "--max-rows", "--max-bytes",
                                                             "--images", "--image-rows", "--media-dir", "--from",
                                                             "--paging", "--bubble-width", "--width-mode", "--follow", "--lines"],
                                        command: "render")
        if options.help { printOut(Help.render); return 0 }
        options = try RenderDefaults(config: try configFile(), environment: environment).apply(to: options)
        var format: OutputFormat?
        if let name = options.format {
            guard let parsed = OutputFormat(rawValue: name) else {
                throw UsageError(message: "--format must be ansi, plain, json or html, not '\(name)'")
            }
            format = parsed
        }
        let color = options.color ?? .auto
        let files = options.files.isEmpty ? ["-"] : options.files
        if options.lines != nil && !options.follow { throw UsageError(message: "--lines goes with --follow") }
        if options.follow && (files.count != 1 || files[0] == "-") {
            throw UsageError(message: "--follow follows one file (standard input is followed by reading it: cellhost render -)")
        }
        // An input that cannot be opened is reported in its place; the others render.
        var readable: [(name: String, fd: Int32, isDirectory: Bool, openError: Int32)] = []
        for file in files {
            if file == "-" { readable.append(("<stdin>", 0, false, 0)); continue }
            let fd = open(file, O_RDONLY | O_CLOEXEC)
            let openError = fd < 0 ? errno : 0
            var info = stat()
            let isDirectory = fd >= 0 && fstat(fd, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
            readable.append((file, fd, isDirectory, openError))
        }
        let (host, _) = try makeHost(options)
        // Once per run: no plugin for file, image or voice means the
        // installation is incomplete, though every message still renders.
        if let warning = Self.missingMediaPlugins(Self.mediaClassesWithoutPlugin(host)) { printError(warning) }
        let isolation = try isolationSettings(options)
        var settings = OutputSettings.resolve(format: format, color: color, width: options.width, environment: environment,
                                              isTerminal: self.output.isTerminal, terminalWidth: Terminal.width(fd: self.output.fd))
        settings.bubbleWidth = options.bubbleWidth ?? OutputSettings.defaultBubbleWidth
        settings.widthMode = options.widthMode.flatMap(WidthMode.init(rawValue:)) ?? WidthMode.auto(environment: environment)
        guard self.output.fd >= 0 else { return 0 } // stdout is closed: main reports it (exit 3).
        if settings.format == .html {
            settings.html = HTMLSettings(pictures: (options.images ?? .symbols) != .none,
                                         linkBase: Self.outputDirectory(fd: self.output.fd),
                                         title: Self.pageTitle(files))
        }
        // A followed file is a live stream: not paged unless asked.
        let paging = options.paging ?? .auto
        let pager = options.follow && paging == .auto ? nil : startPager(paging, inputs: readable.map(\.fd))
        let output = OutputBuffer(fd: pager?.fd ?? self.output.fd)
        let limits = OutputLimits(rows: options.maxRows ?? OutputLimits.standard.rows,
                                  bytes: options.maxBytes ?? OutputLimits.standard.bytes)
        host.runtime.output = PluginOutput(settings: settings, images: options.images ?? .symbols,
                                           imageRows: options.imageRows ?? PluginOutput.defaultImageRows)
        var mediaDirectory: BaseDirectory?
        if let given = options.mediaDirectory {
            var info = stat()
            guard stat(given, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
                throw UsageError(message: "--media-dir \(given): not a directory")
            }
            mediaDirectory = BaseDirectory(path: given)
        }
        let session = RenderSession(host: host, settings: settings, me: options.me, output: output, limits: limits,
                                    supervisor: supervisor(isolation, host: host, me: options.me, limits: limits))
        // Parsing and plugins on CELLHOST_THREADS worker threads (default:
        // one less than the cores available), the rest in input order on
        // this one (with --isolation: parsing and plugins on this thread,
        // layout and output on a second one).
        let pipeline = RenderPipeline(session: session, threads: RenderPipeline.threadCount(environment: environment),
                                      diagnostics: { printError($0) })
        CrashHandler.install(for: pipeline)
        pipeline.start()
        CrashHandler.watch(host.runtime.callStates, timeout: isolation.hostTimeout)
        var invalid = 0
        // When the input would wait (a live stream), have the output written first.
        // Once a write to stdout failed, stop reading: nothing more can be shown.
        let reader = ChatReader(format: options.from, options: ImportOptions(me: options.me), verbose: options.verbose,
                                beforeRead: { fd in if !Terminal.hasInput(fd: fd) { pipeline.inputIdle() } },
                                isCancelled: { output.failed })
        for (name, fd, isDirectory, openError) in readable {
            if options.follow, fd >= 0 {
                close(fd)
                pipeline.source = name
                pipeline.baseDirectory = mediaDirectory ?? BaseDirectory(containing: name)
                invalid += reader.follow(path: name, lines: options.lines ?? 10, into: pipeline)
                break
            }
            if fd < 0 {
                invalid += 1
                pipeline.report("\(name): \(String(cString: strerror(openError)))")
                continue
            }
            pipeline.source = name
            pipeline.baseDirectory = mediaDirectory ?? (fd == 0 ? .current : isDirectory ? BaseDirectory(path: name) : BaseDirectory(containing: name))
            invalid += isDirectory ? reader.read(directory: name, into: pipeline) : reader.read(name: name, fd: fd, into: pipeline)
            if fd != 0 { close(fd) }
            if output.failed { break }
        }
        pipeline.finish()
        invalid += pipeline.deferredProblems
        host.runtime.shutdown()
        pager?.finish()
        // A pager the user quit early closes its input: that is no failure.
        if let code = output.failureCode, !(pager != nil && code == EPIPE) { self.output.fail(errno: code) }
        return invalid > 0 ? 1 : 0
    }
}

extension CommandLineTool {
    /// The directory of the file standard output was redirected to
    /// (`> out/chat.html`), where the page's links to media must start; nil
    /// when it is no regular file (a pipe, a terminal): links are then
    /// relative to the current directory.
    static func outputDirectory(fd: Int32) -> String? {
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/fd/\(fd)", &buffer, buffer.count - 1)
        guard length > 0 else { return nil }
        let path = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        // A deleted file ("/x/chat.html (deleted)") or a pseudo-file has no directory to use.
        guard path.hasPrefix("/"), !path.hasSuffix(" (deleted)"), let slash = path.lastIndex(of: "/") else { return nil }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// The page's title: the inputs' names (sanitized and escaped when written).
    static func pageTitle(_ files: [String]) -> String {
        let names = files.map { $0 == "-" ? "standard input" : String($0.split(separator: "/").last ?? Substring($0)) }
        let shown = names.prefix(3).joined(separator: ", ") + (names.count > 3 ? ", …" : "")
        return shown.isEmpty ? "CellHost transcript" : shown + " — CellHost transcript"
    }

    /// The pager the output goes through, or nil (see `Paging`). A pager
    /// that cannot be found is reported once and the output goes straight
    /// to stdout.
    func startPager(_ paging: Paging, inputs: [Int32]) -> Pager? {
        switch paging {
        case .never: return nil
        case .always: break
        case .auto:
            guard output.isTerminal else { return nil }
            // A live stream (a pipe or the terminal on stdin) is shown as it comes.
            var info = stat()
            if inputs.contains(0), fstat(0, &info) != 0 || info.st_mode & S_IFMT != S_IFREG { return nil }
        }
        guard let command = Pager.command(environment: environment) else { return nil }
        guard Pager.isRunnable(command, environment: environment),
              let pager = Pager.start(command, stdoutFD: output.fd, environment: environment) else {
            printError("pager '\(command)' cannot be run; writing to standard output (set CELLHOST_PAGER, or --paging never)")
            return nil
        }
        // Quitting the pager early closes its input: a write then fails with
        // EPIPE (and ends the render quietly) instead of killing the process.
        signal(SIGPIPE, SIG_IGN)
        return pager
    }
}

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

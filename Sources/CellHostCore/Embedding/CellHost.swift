import CellHostABI

/// The renderer as a library, for programs that embed it (a terminal chat
/// client, an exporter): load plugins, register cells implemented in the
/// program itself, and render messages to lines.
///
/// ```swift
/// let host = CellHost()
/// host.loadPlugins(searchPath: .standard(commandLine: [], environment: env, executableDirectory: nil))
/// let lines = try host.renderLines(#"{"type":"text","text":"hi"}"#, width: 60)
/// ```
///
/// A `CellHost` is not thread-safe: use it from one thread at a time.
public final class CellHost: DiagnosticSink {
    /// The object runtime: classes, registry and dispatch.
    public let runtime: Runtime
    /// What each `loadPlugins` found.
    public private(set) var loads: [LoadedPlugins] = []
    /// Every plugin file found by `loadPlugins`, loaded or not.
    public var plugins: [PluginRecord] { loads.flatMap(\.records) }
    /// Called for each line a plugin logs: (plugin id, level, message).
    public var logHandler: ((String, cellhost_log_level, String) -> Void)?
    /// Keeps in-process cells' closures alive.
    var inProcessCells: [String: InProcessCell] = [:]

    /// Creates a host with only the built-in classes (`MessageCell`, `UnknownMessageCell`).
    public init(dispatch: Dispatcher.Mode = .direct) {
        runtime = Runtime(dispatcher: Dispatcher(mode: dispatch))
        runtime.diagnostics = self
    }

    public func pluginLog(plugin: String, level: cellhost_log_level, message: String) {
        logHandler?(plugin, level, Sanitizer.sanitize(message))
    }

    /// Loads every plugin on `searchPath`, opening each in this process;
    /// returns the records of this call.
    @discardableResult
    public func loadPlugins(searchPath: PluginSearchPath) -> [PluginRecord] {
        loadPlugins(with: PluginLoader(searchPath: searchPath)).records
    }

    /// Loads plugins the way `loader` says (in this process, or described by
    /// a scanner process through the cache); returns what this call found.
    @discardableResult
    public func loadPlugins(with loader: PluginLoader) -> PluginLoader.Result {
        let result = loader.load(into: runtime)
        loads.append(result.plugins)
        return result
    }

    /// One line per plugin problem, as `FILE: reason`.
    public var diagnostics: [String] { loads.flatMap(\.diagnostics) }

    /// Makes `className` render `messageClass` ahead of every candidate.
    /// Throws when no such class exists.
    public func override(messageClass: String, with className: String) throws {
        guard let cls = runtime.classes[className] else {
            throw CellHostError.unknownClass(className, known: runtime.classes.names)
        }
        runtime.registry.override(messageClass, with: cls)
    }

    /// True when `messageClass` is declared (by the host or a plugin) or has
    /// a registered class; an override for an unknown name never applies.
    public func isKnownMessageClass(_ messageClass: String) -> Bool {
        runtime.registry.isKnown(messageClass)
    }

    /// Renders one message (a JSON object) and returns its lines as plain
    /// text; content beyond `limits` becomes one `… N more lines` row.
    public func renderLines(_ json: String, width: Int = 80, me: String? = nil,
                            limits: OutputLimits = .standard) throws -> [String] {
        let output = OutputBuffer(fd: -1)
        let session = RenderSession(host: self, settings: OutputSettings(format: .plain, depth: .none, width: width),
                                    me: me, output: output, limits: limits)
        var json = json
        try json.withUTF8 { try session.render($0, line: 1) }
        runtime.endConversation()
        let text = String(decoding: output.bytes, as: UTF8.self)
        return text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }
}

/// Errors of the embedding API and the command line, with messages a user can act on.
public enum CellHostError: Error, CustomStringConvertible, Equatable {
    case unknownClass(String, known: [String])
    case invalidClass(String)

    public var description: String {
        switch self {
        case let .unknownClass(name, known):
            return "no cell class named '\(name)' (known classes: \(known.joined(separator: ", ")))"
        case let .invalidClass(reason):
            return reason
        }
    }
}

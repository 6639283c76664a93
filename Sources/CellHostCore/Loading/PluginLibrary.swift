import CellHostABI
import Glibc

/// A plugin library opened in this process: checked with the ELF probe,
/// `dlopen`ed with `RTLD_NOW | RTLD_LOCAL`, its descriptor read and checked,
/// and its `init` run. Opening runs the plugin's code (constructors, `init`),
/// so the host does it in the scanner process (`PluginScanner`) to describe
/// a plugin, and in the rendering process only when a class of the plugin is
/// first used.
final class PluginLibrary {
    /// Why a library is opened: to describe it (the scanner: `init` runs
    /// only for a plugin that registers classes from it, and `deinit` right
    /// after), or to use it (`init` before any method, `deinit` at shutdown).
    enum Purpose { case describe, use }

    let file: String
    /// The classes the plugin describes, with their IMPs in this process:
    /// the descriptor's, then those registered from `init`.
    let classes: [ClassDescription]
    let context: PluginHostContext
    /// The plugin's `deinit`, owed once when `needsDeinit` (`Runtime.shutdown`).
    private let deinitialize: (@convention(c) (UnsafePointer<cellhost_host>?) -> Void)?
    private var needsDeinit: Bool
    /// The plugin's `get_extension`, when it has one.
    let extensions: (@convention(c) (UnsafePointer<CChar>?) -> UnsafeRawPointer?)?

    private init(file: String, classes: [ClassDescription], context: PluginHostContext,
                 deinitialize: (@convention(c) (UnsafePointer<cellhost_host>?) -> Void)?, needsDeinit: Bool,
                 extensions: (@convention(c) (UnsafePointer<CChar>?) -> UnsafeRawPointer?)?) {
        self.file = file
        self.classes = classes
        self.context = context
        self.deinitialize = deinitialize
        self.needsDeinit = needsDeinit
        self.extensions = extensions
    }

    /// Calls the plugin's `deinit` if this opening still owes it one.
    func finish() {
        guard needsDeinit else { return }
        needsDeinit = false
        deinitialize?(UnsafePointer(context.table))
    }

    /// The plugin has a `deinit`.
    var hasDeinit: Bool { deinitialize != nil }

    /// The plugin extension named `id`, or nil.
    func pluginExtension(_ id: String) -> UnsafeRawPointer? {
        guard let extensions else { return nil }
        return id.withCString { extensions($0) }
    }

    /// Opens `file`, filling `record` with what was learnt (metadata, classes,
    /// message classes, or the failure). Returns nil when the plugin cannot
    /// be used. `context`: the host context to hand to `init` (one is made
    /// when nil); its plugin id must match the descriptor's. A library
    /// opened to be used is kept by `runtime`, which calls its `deinit` at
    /// `shutdown()`.
    static func open(_ file: String, record: inout PluginRecord, runtime: Runtime,
                     context existing: PluginHostContext? = nil, purpose: Purpose = .use) -> PluginLibrary? {
        func fail(_ reason: String) -> PluginLibrary? {
            record.state = .failed(reason)
            return nil
        }
        if let problem = ELFProbe.problem(with: file) { return fail(problem) }
        guard let handle = dlopen(file, RTLD_NOW | RTLD_LOCAL) else {
            return fail("dlopen failed: \(dlerrorMessage(file))")
        }
        // A library is never closed once opened, even when it is refused: a
        // Swift plugin registers its type metadata and conformances with the
        // Swift runtime on load, and they cannot be unregistered, so closing
        // it would leave the runtime with dangling pointers.
        guard let symbol = dlsym(handle, CELLHOST_PLUGIN_ENTRY_SYMBOL) else {
            return fail("no \(CELLHOST_PLUGIN_ENTRY_SYMBOL) symbol")
        }
        let entry = unsafeBitCast(symbol, to: (@convention(c) () -> UnsafePointer<cellhost_plugin_descriptor>?).self)
        guard let descriptor = entry() else { return fail("\(CELLHOST_PLUGIN_ENTRY_SYMBOL) returned NULL") }
        // `abi` is the first member in every major version, so it can be read
        // before anything else is known about the struct.
        let abi = UnsafeRawPointer(descriptor).loadUnaligned(as: cellhost_version.self)
        record.abi = .init(major: abi.major, minor: abi.minor)
        if let problem = versionProblem(abi) { return fail(problem) }
        let described: DescriptorReader.Description
        do {
            described = try DescriptorReader.read(descriptor)
        } catch let error as DescriptorReader.Invalid {
            return fail("invalid descriptor: \(error.reason)")
        } catch {
            return fail("invalid descriptor: \(error)")
        }
        record.id = described.id
        record.version = described.version
        record.description = described.description
        record.author = described.author
        record.license = described.license
        record.registersAtInit = described.registersAtInit
        record.threadSafe = described.threadSafe
        if let existing, existing.pluginID != described.id {
            return fail("plugin id changed from '\(existing.pluginID)' to '\(described.id)' since it was scanned")
        }
        let context = existing ?? PluginHostContext(pluginID: described.id)
        context.runtime = runtime
        var classes = described.classes
        var messageClasses = described.messageClasses
        var initialized = false
        if let initialize = described.initialize, purpose == .use || described.registersAtInit {
            context.registrationOpen = true
            context.registrationAllowed = described.registersAtInit
            var reason: UnsafePointer<CChar>?
            let status = initialize(UnsafePointer(context.table), &reason)
            context.registrationOpen = false
            if status != 0 {
                let shown = reason.map { String(cString: $0) } ?? "no reason given"
                context.takeRegistrations()
                return fail("init failed: \(Sanitizer.sanitize(shown)) (status \(status))")
            }
            initialized = true
            let registered = context.takeRegistrations()
            classes += registered.classes
            messageClasses += registered.messageClasses
            record.rejectedClasses += registered.rejected
        }
        record.classes = classes
        record.messageClasses = messageClasses
        let library = PluginLibrary(file: file, classes: classes, context: context, deinitialize: described.deinitialize,
                                    needsDeinit: purpose == .use || initialized, extensions: described.extensions)
        switch purpose {
        case .describe: library.finish()
        case .use: runtime.opened(library)
        }
        return library
    }

    /// Why a plugin built against `abi` cannot load here, or nil when it can:
    /// `cellhost_version_is_compatible` decides, the text says which way.
    static func versionProblem(_ abi: cellhost_version) -> String? {
        let host = cellhost_version(major: UInt32(CELLHOST_ABI_MAJOR), minor: UInt32(CELLHOST_ABI_MINOR))
        if cellhost_version_is_compatible(host, abi) { return nil }
        let hostText = "\(host.major).\(host.minor)"
        if abi.major != host.major {
            return "plugin ABI \(abi.major).\(abi.minor) is not supported by this host (ABI \(hostText)): "
                + "the major version differs; rebuild the plugin against the ABI \(host.major) headers"
        }
        return "plugin ABI \(abi.major).\(abi.minor) is newer than this host's ABI \(hostText)"
    }

    static func dlerrorMessage(_ file: String) -> String {
        guard let error = dlerror() else { return "unknown error" }
        var message = String(cString: error)
        if message.hasPrefix(file + ": ") { message.removeFirst(file.count + 2) }
        return message
    }
}

/// A plugin whose classes are linked into a runtime but whose library may not
/// be open yet: it is opened (`PluginLibrary.open`) the first time one of
/// its classes is used, and its classes get their IMPs then
/// (`Runtime.bindChain`). `state` and `linkedClasses` are guarded by the
/// runtime's `linking` lock.
final class LazyPlugin {
    enum State {
        case pending
        case opened(PluginLibrary)
        case failed(String)
    }

    let file: String
    let pluginID: String
    /// The file as it was described; a file changed since is not opened.
    let identity: FileIdentity?
    let context: PluginHostContext
    var state: State
    /// The runtime classes waiting for this library's IMPs.
    var linkedClasses: [RuntimeClass] = []

    /// A plugin described elsewhere (scanner process, cache), opened on first use.
    init(file: String, pluginID: String, identity: FileIdentity?, context: PluginHostContext) {
        self.file = file
        self.pluginID = pluginID
        self.identity = identity
        self.context = context
        state = .pending
    }

    /// A plugin already opened in this process.
    init(opened library: PluginLibrary) {
        file = library.file
        pluginID = library.context.pluginID
        identity = nil
        context = library.context
        state = .opened(library)
    }

    /// Opens the library (unless its file changed since it was described)
    /// and returns the state it is in then; `state` is left to the caller.
    func openLibrary(runtime: Runtime) -> State {
        if let identity, FileIdentity(path: file) != identity {
            return .failed("the file changed since it was scanned; run `cellhost list-plugins --rescan`")
        }
        var record = PluginRecord(file: file, state: .loaded)
        if let library = PluginLibrary.open(file, record: &record, runtime: runtime, context: context) {
            return .opened(library)
        }
        return .failed(record.failure ?? "could not be opened")
    }
}

import CellHostABI
import Glibc

/// A plugin library opened in this process: checked with the ELF probe,
/// `dlopen`ed with `RTLD_NOW | RTLD_LOCAL`, its descriptor read and checked,
/// and its `init` run. Opening runs the plugin's code (constructors, `init`),
/// so the host does it in the scanner process (`PluginScanner`) to describe
/// a plugin, and in the rendering process only when a class of the plugin is
/// first used.
final class PluginLibrary {
    let file: String
    /// The classes the plugin describes, with their IMPs in this process:
    /// the descriptor's, then those registered from `init`.
    let classes: [ClassDescription]
    let context: PluginHostContext
    /// The descriptor the entry returned (plugin-owned, valid until `deinit`).
    let descriptor: UnsafePointer<cellhost_plugin_descriptor>

    private init(file: String, classes: [ClassDescription], context: PluginHostContext,
                 descriptor: UnsafePointer<cellhost_plugin_descriptor>) {
        self.file = file
        self.classes = classes
        self.context = context
        self.descriptor = descriptor
    }

    /// Opens `file`, filling `record` with what was learnt (metadata, classes,
    /// message classes, or the failure). Returns nil when the plugin cannot
    /// be used. `context`: the host context to hand to `init` (one is made
    /// when nil); its plugin id must match the descriptor's.
    static func open(_ file: String, record: inout PluginRecord, runtime: Runtime,
                     context existing: PluginHostContext? = nil) -> PluginLibrary? {
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
        let abi = descriptor.pointee.abi
        record.abi = .init(major: abi.major, minor: abi.minor)
        let host = "\(CELLHOST_ABI_MAJOR).\(CELLHOST_ABI_MINOR)"
        if abi.major != UInt32(CELLHOST_ABI_MAJOR) {
            return fail("plugin ABI \(abi.major).\(abi.minor) is not supported by this host (ABI \(host)): the major version differs")
        }
        if abi.minor > UInt32(CELLHOST_ABI_MINOR) {
            return fail("plugin ABI \(abi.major).\(abi.minor) is newer than this host's ABI \(host)")
        }
        let described: DescriptorReader.Description
        do {
            described = try DescriptorReader.read(descriptor.pointee)
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
        if let existing, existing.pluginID != described.id {
            return fail("plugin id changed from '\(existing.pluginID)' to '\(described.id)' since it was scanned")
        }
        let context = existing ?? PluginHostContext(pluginID: described.id)
        context.runtime = runtime
        var classes = described.classes
        var messageClasses = described.messageClasses
        if let initialize = descriptor.pointee.`init` {
            context.registrationOpen = true
            var reason: UnsafePointer<CChar>?
            let status = initialize(UnsafePointer(context.table), &reason)
            context.registrationOpen = false
            if status != 0 {
                let shown = reason.map { String(cString: $0) } ?? "no reason given"
                return fail("init failed: \(Sanitizer.sanitize(shown)) (status \(status))")
            }
            for pending in context.pendingClasses {
                do {
                    classes.append(try DescriptorReader.readClass(pending.pointee))
                } catch let error as DescriptorReader.Invalid {
                    record.rejectedClasses.append(.init(name: "?", reason: "register_class: \(error.reason)"))
                } catch {}
            }
            context.pendingClasses.removeAll()
            messageClasses += context.pendingMessageClasses.map { .init(name: $0.name, parent: $0.parent) }
            context.pendingMessageClasses.removeAll()
        }
        record.classes = classes
        record.messageClasses = messageClasses
        return PluginLibrary(file: file, classes: classes, context: context, descriptor: descriptor)
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
/// its classes is used, and its classes get their IMPs then.
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
    private(set) var state: State
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

    /// Opens the library if it is not open yet; returns it, or nil (then
    /// `failure` says why).
    func open(runtime: Runtime) -> PluginLibrary? {
        switch state {
        case .opened(let library): return library
        case .failed: return nil
        case .pending:
            if let identity, FileIdentity(path: file) != identity {
                state = .failed("the file changed since it was scanned; run `cellhost list-plugins --rescan`")
                return nil
            }
            var record = PluginRecord(file: file, state: .loaded)
            if let library = PluginLibrary.open(file, record: &record, runtime: runtime, context: context) {
                state = .opened(library)
                return library
            }
            state = .failed(record.failure ?? "could not be opened")
            return nil
        }
    }

    var failure: String? {
        if case .failed(let reason) = state { return reason }
        return nil
    }
}

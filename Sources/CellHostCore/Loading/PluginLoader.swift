import CellHostABI
import Glibc

/// Finds plugin files along a search path, opens them with
/// `dlopen(RTLD_NOW | RTLD_LOCAL)`, checks their ABI and descriptor, runs
/// their `init`, and links their classes into a runtime.
///
/// Every file gets a record: loaded, or failed with a one-line reason. One
/// bad file never stops the others from loading.
public struct PluginLoader {
    public let searchPath: PluginSearchPath

    public init(searchPath: PluginSearchPath) { self.searchPath = searchPath }

    /// A plugin that passed every check, waiting to be linked.
    private struct Opened {
        var recordIndex: Int
        var directoryIndex: Int
        var context: PluginHostContext
        var classes: [ClassDescription]
        var messageClasses: [(name: String, parent: String?)]
    }

    /// Loads every plugin on the search path into `runtime`. Plugins are found
    /// in search-path order (the first of two with one id wins) and registered
    /// from the last directory to the first, each directory in file-name
    /// order, so on equal rank a plugin from an earlier directory (say
    /// `--plugin-path`) beats one from a later one (the shipped plugins).
    public func load(into runtime: Runtime) -> [PluginRecord] {
        var records: [PluginRecord] = []
        var opened: [Opened] = []
        var ids: [String: String] = [:]
        for (directoryIndex, directory) in searchPath.directories.enumerated() {
            for file in PluginSearchPath.candidates(in: directory) {
                var record = PluginRecord(file: file, state: .loaded)
                let result = open(file, record: &record, ids: ids, runtime: runtime)
                if let result {
                    ids[result.context.pluginID] = file
                    opened.append(Opened(recordIndex: records.count, directoryIndex: directoryIndex, context: result.context,
                                         classes: result.classes, messageClasses: result.messageClasses))
                }
                records.append(record)
            }
        }
        // Registration order: later directories first.
        let ordered = opened.enumerated().sorted {
            $0.element.directoryIndex != $1.element.directoryIndex
                ? $0.element.directoryIndex > $1.element.directoryIndex : $0.offset < $1.offset
        }.map(\.element)
        for plugin in ordered {
            for declaration in plugin.messageClasses {
                if let refusal = runtime.registry.declare(declaration.name, parent: declaration.parent, by: plugin.context.pluginID) {
                    runtime.log(plugin: plugin.context.pluginID, level: CELLHOST_LOG_WARNING, message: refusal)
                }
            }
        }
        var batch: [(description: ClassDescription, pluginID: String)] = []
        for plugin in ordered {
            for description in plugin.classes { batch.append((description, plugin.context.pluginID)) }
        }
        let rejections = runtime.link(batch)
        for plugin in ordered {
            let id = plugin.context.pluginID
            let rejected = rejections.filter { $0.pluginID == id }.map { (name: $0.rejection.className, reason: $0.rejection.reason) }
            records[plugin.recordIndex].rejectedClasses = rejected
            records[plugin.recordIndex].classes = plugin.classes.filter { description in
                !rejected.contains { $0.name == description.name }
            }
        }
        return records
    }

    private struct OpenResult {
        var context: PluginHostContext
        var classes: [ClassDescription]
        var messageClasses: [(name: String, parent: String?)]
    }

    private func open(_ file: String, record: inout PluginRecord, ids: [String: String], runtime: Runtime) -> OpenResult? {
        func fail(_ reason: String) -> OpenResult? {
            record.state = .failed(reason)
            return nil
        }
        if let problem = ELFProbe.problem(with: file) { return fail(problem) }
        guard let handle = dlopen(file, RTLD_NOW | RTLD_LOCAL) else {
            return fail("dlopen failed: \(PluginLoader.dlerrorMessage(file))")
        }
        // A library is never closed once opened, even when it is refused: a
        // Swift plugin registers its type metadata and conformances with the
        // Swift runtime on load, and they cannot be unregistered, so closing
        // it would leave the runtime with dangling pointers.
        _ = handle
        guard let symbol = dlsym(handle, CELLHOST_PLUGIN_ENTRY_SYMBOL) else {
            return fail("no \(CELLHOST_PLUGIN_ENTRY_SYMBOL) symbol")
        }
        let entry = unsafeBitCast(symbol, to: (@convention(c) () -> UnsafePointer<cellhost_plugin_descriptor>?).self)
        guard let descriptor = entry() else { return fail("\(CELLHOST_PLUGIN_ENTRY_SYMBOL) returned NULL") }
        let abi = descriptor.pointee.abi
        record.abi = (abi.major, abi.minor)
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
        if let first = ids[described.id] {
            return fail("duplicate plugin id '\(described.id)' (already loaded from \(first))")
        }
        let context = PluginHostContext(pluginID: described.id)
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
                    record.rejectedClasses.append((name: "?", reason: "register_class: \(error.reason)"))
                } catch {}
            }
            messageClasses += context.pendingMessageClasses
        }
        runtime.pluginContexts[described.id] = context
        return OpenResult(context: context, classes: classes, messageClasses: messageClasses)
    }

    static func dlerrorMessage(_ file: String) -> String {
        guard let error = dlerror() else { return "unknown error" }
        var message = String(cString: error)
        if message.hasPrefix(file + ": ") { message.removeFirst(file.count + 2) }
        return message
    }
}

/// Reads a C descriptor into Swift values, checking it is consistent.
enum DescriptorReader {
    struct Invalid: Error { var reason: String }

    struct Description {
        var id: String
        var version: String
        var description: String?
        var author: String?
        var license: String?
        var classes: [ClassDescription]
        var messageClasses: [(name: String, parent: String?)]
    }

    static let maximumClasses: UInt32 = 1024
    static let maximumMethods: UInt32 = 1024

    static func string(_ pointer: UnsafePointer<CChar>?, _ field: String, required: Bool) throws -> String? {
        guard let pointer else {
            if required { throw Invalid(reason: "\(field) is NULL") }
            return nil
        }
        let length = strnlen(pointer, 4096)
        guard length < 4096 else { throw Invalid(reason: "\(field) is longer than 4095 bytes") }
        let value = String(decoding: UnsafeRawBufferPointer(start: pointer, count: length), as: UTF8.self)
        if required && value.isEmpty { throw Invalid(reason: "\(field) is empty") }
        return value
    }

    static func read(_ descriptor: cellhost_plugin_descriptor) throws -> Description {
        let id = try string(descriptor.id, "id", required: true)!
        guard id.utf8.allSatisfy({ $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-")
                || ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7A) }) else {
            throw Invalid(reason: "id '\(Sanitizer.sanitize(id))' may only contain A-Z a-z 0-9 . _ -")
        }
        guard id != HostClasses.pluginID else { throw Invalid(reason: "id '\(id)' is reserved for the host") }
        let version = try string(descriptor.version, "version", required: true)!
        guard descriptor.class_count <= maximumClasses else { throw Invalid(reason: "class_count \(descriptor.class_count) is above \(maximumClasses)") }
        if descriptor.class_count > 0 && descriptor.classes == nil {
            throw Invalid(reason: "class_count is \(descriptor.class_count) but classes is NULL")
        }
        if descriptor.message_class_count > 0 && descriptor.message_classes == nil {
            throw Invalid(reason: "message_class_count is \(descriptor.message_class_count) but message_classes is NULL")
        }
        guard descriptor.message_class_count <= maximumClasses else { throw Invalid(reason: "message_class_count is above \(maximumClasses)") }
        var classes: [ClassDescription] = []
        for index in 0..<Int(descriptor.class_count) {
            classes.append(try readClass(descriptor.classes[index], index: index))
        }
        var messageClasses: [(String, String?)] = []
        for index in 0..<Int(descriptor.message_class_count) {
            let declaration = descriptor.message_classes[index]
            let name = try string(declaration.name, "message_classes[\(index)].name", required: true)!
            messageClasses.append((name, try string(declaration.parent, "message_classes[\(index)].parent", required: false)))
        }
        return Description(id: id, version: version,
                           description: try string(descriptor.description, "description", required: false).map(Sanitizer.sanitize),
                           author: try string(descriptor.author, "author", required: false).map(Sanitizer.sanitize),
                           license: try string(descriptor.license, "license", required: false).map(Sanitizer.sanitize),
                           classes: classes, messageClasses: messageClasses)
    }

    static func readClass(_ cls: cellhost_class, index: Int = 0) throws -> ClassDescription {
        let field = "classes[\(index)]"
        let name = try string(cls.name, "\(field).name", required: true)!
        guard name.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw Invalid(reason: "class name '\(Sanitizer.sanitize(name))' must be printable ASCII without spaces")
        }
        let superclass = try string(cls.superclass, "\(field).superclass", required: false) ?? "MessageCell"
        var messageClasses: [String] = []
        if let list = cls.message_classes {
            var position = 0
            while let entry = list[position] {
                guard position < 256 else { throw Invalid(reason: "\(field).message_classes has no NULL terminator within 256 entries") }
                messageClasses.append(try string(entry, "\(field).message_classes[\(position)]", required: true)!)
                position += 1
            }
        }
        guard cls.method_count <= maximumMethods else { throw Invalid(reason: "\(field).method_count is above \(maximumMethods)") }
        if cls.method_count > 0 && cls.methods == nil {
            throw Invalid(reason: "\(field).method_count is \(cls.method_count) but methods is NULL")
        }
        guard cls.instance_size <= 1 << 20 else { throw Invalid(reason: "\(field).instance_size is above 1 MiB") }
        var methods: [ClassDescription.MethodDescription] = []
        for position in 0..<Int(cls.method_count) {
            let method = cls.methods[position]
            let selector = try string(method.selector, "\(field).methods[\(position)].selector", required: true)!
            let types = try string(method.types, "\(field).methods[\(position)].types", required: true)!
            let imp = method.imp.map { UInt(bitPattern: unsafeBitCast($0, to: UnsafeRawPointer.self)) } ?? 0
            methods.append(.init(selector: selector, types: types, imp: imp))
        }
        return ClassDescription(name: name, superclass: superclass, messageClasses: messageClasses, rank: cls.rank,
                                instanceSize: Int(cls.instance_size), methods: methods)
    }
}

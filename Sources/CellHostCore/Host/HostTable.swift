import CellHostABI
import Glibc

/// The per-plugin state behind a `cellhost_host` table: who is calling, and
/// where their logs and run-time registrations go.
final class PluginHostContext {
    let pluginID: String
    unowned(unsafe) var runtime: Runtime?
    /// Open while the plugin's `init` runs.
    var registrationOpen = false
    /// The descriptor sets CELLHOST_PLUGIN_REGISTERS_AT_INIT.
    var registrationAllowed = false
    private var pendingClasses: [ClassDescription] = []
    private var pendingMessageClasses: [PluginRecord.MessageClassDeclaration] = []
    private var pendingRejections: [PluginRecord.RejectedClass] = []
    /// The table handed to the plugin; lives as long as this context.
    let table: UnsafeMutablePointer<cellhost_host>

    init(pluginID: String) {
        self.pluginID = pluginID
        table = .allocate(capacity: 1)
        table.initialize(to: HostTable.template)
        table.pointee.host_data = Unmanaged.passUnretained(self).toOpaque()
    }

    deinit { table.deallocate() }

    static func from(_ host: UnsafePointer<cellhost_host>?) -> PluginHostContext? {
        guard let data = host?.pointee.host_data else { return nil }
        return Unmanaged<PluginHostContext>.fromOpaque(data).takeUnretainedValue()
    }

    /// What `init` registered (and what was refused), handed over once.
    func takeRegistrations() -> (classes: [ClassDescription], messageClasses: [PluginRecord.MessageClassDeclaration],
                                 rejected: [PluginRecord.RejectedClass]) {
        defer {
            pendingClasses.removeAll()
            pendingMessageClasses.removeAll()
            pendingRejections.removeAll()
        }
        return (pendingClasses, pendingMessageClasses, pendingRejections)
    }

    /// `register_class`: the class is checked now, so a refusal is the
    /// call's answer (CELLHOST_E_REJECTED) as well as a logged reason.
    func register(_ cls: UnsafePointer<cellhost_class>) -> Int32 {
        guard registrationOpen else { return Int32(CELLHOST_E_TOO_LATE) }
        var name = "?"
        do {
            let copied = try DescriptorReader.copy(cellhost_class.self, from: UnsafeRawPointer(cls), field: "register_class")
            if let given = copied.value.name, strnlen(given, 256) < 256 { name = Sanitizer.sanitize(String(cString: given)) }
            guard registrationAllowed else { return refuse(name, Self.flagMissing) }
            let description = try DescriptorReader.readClass(copied.value, address: UnsafeRawPointer(cls),
                                                             index: pendingClasses.count)
            for method in description.methods {
                try Runtime.check(method, className: description.name)
            }
            pendingClasses.append(description)
            return Int32(CELLHOST_OK)
        } catch let error as DescriptorReader.Invalid {
            return refuse(name, error.reason)
        } catch let rejection as ClassRejection {
            return refuse(name, rejection.reason)
        } catch {
            return refuse(name, "\(error)")
        }
    }

    /// `register_message_class`, checked now like `register`.
    func register(_ declaration: UnsafePointer<cellhost_message_class>) -> Int32 {
        guard registrationOpen else { return Int32(CELLHOST_E_TOO_LATE) }
        do {
            let copied = try DescriptorReader.copy(cellhost_message_class.self, from: UnsafeRawPointer(declaration),
                                                   field: "message_class")
            let read = try DescriptorReader.readMessageClass(copied.value, field: "message_class")
            guard registrationAllowed else {
                return refuse("message class '\(read.name)'", Self.flagMissing, call: "register_message_class")
            }
            pendingMessageClasses.append(read)
            return Int32(CELLHOST_OK)
        } catch let error as DescriptorReader.Invalid {
            return refuse("(message class)", error.reason, call: "register_message_class")
        } catch {
            return refuse("(message class)", "\(error)", call: "register_message_class")
        }
    }

    static let flagMissing = "the descriptor does not set CELLHOST_PLUGIN_REGISTERS_AT_INIT"

    private func refuse(_ name: String, _ reason: String, call: String = "register_class") -> Int32 {
        pendingRejections.append(.init(name: name, reason: "\(call): \(reason)"))
        runtime?.log(plugin: pluginID, level: Int32(CELLHOST_LOG_ERROR), message: "\(name) refused: \(reason)")
        return Int32(CELLHOST_E_REJECTED)
    }
}

/// The functions of the host table (host.h), as C function pointers.
enum HostTable {
    /// Never written after it is made: each plugin context copies it.
    nonisolated(unsafe) static let template: cellhost_host = {
        var table = cellhost_host()
        table.abi = cellhost_version(major: UInt32(CELLHOST_ABI_MAJOR), minor: UInt32(CELLHOST_ABI_MINOR))
        table.struct_size = UInt32(MemoryLayout<cellhost_host>.size)
        table.get_extension = { _, id in
            guard let id else { return nil }
            return HostExtensions.named(id)
        }
        table.object_ivars = { object, cls in
            guard let object = CellObject.from(object), let cls else { return nil }
            return object.ivars(of: UnsafeRawPointer(cls))
        }
        table.object_class_name = { object in CellObject.from(object)?.cls.cName }
        table.instance_of = { host, name in
            guard let context = PluginHostContext.from(host), let name,
                  let runtime = context.runtime, let cls = runtime.classes[String(cString: name)],
                  runtime.mayCall(cls) else { return nil }
            return runtime.conversation.instance(of: cls, runtime: runtime).handle
        }
        table.responds_to = { object, selector in
            guard let object = CellObject.from(object), let selector,
                  object.cls.runtime?.mayCall(object.cls) ?? true else { return false }
            return object.cls.lookup(String(cString: selector)) != nil
        }
        table.send = { object, selector, types, result, arguments in
            guard let receiver = CellObject.from(object), let selector else {
                return Int32(CELLHOST_E_INVALID_ARGUMENT)
            }
            return Dispatcher.send(from: receiver.cls, receiver: receiver, selector: String(cString: selector),
                                   types: types.map { String(cString: $0) }, result: result, arguments: UnsafePointer(arguments))
        }
        table.send_super = { current, object, selector, types, result, arguments in
            guard let receiver = CellObject.from(object), let selector, let current else {
                return Int32(CELLHOST_E_INVALID_ARGUMENT)
            }
            // The named class is found on the receiver's chain (it is the class
            // whose method is running); its superclass starts the look-up.
            let name = String(cString: current)
            var cls: RuntimeClass? = receiver.cls
            while let candidate = cls, candidate.name != name { cls = candidate.superclass }
            guard let found = cls else { return Int32(CELLHOST_E_NO_SUCH_CLASS) }
            return Dispatcher.send(from: found.superclass, receiver: receiver, selector: String(cString: selector),
                                   types: types.map { String(cString: $0) }, result: result, arguments: UnsafePointer(arguments))
        }
        table.register_class = { host, cls in
            guard let context = PluginHostContext.from(host), let cls else { return Int32(CELLHOST_E_INVALID_ARGUMENT) }
            return context.register(cls)
        }
        table.register_message_class = { host, declaration in
            guard let context = PluginHostContext.from(host), let declaration else {
                return Int32(CELLHOST_E_INVALID_ARGUMENT)
            }
            return context.register(declaration)
        }
        return table
    }()
}

/// The host's extensions (`get_extension`): tables made once, valid for the
/// life of the process.
enum HostExtensions {
    nonisolated(unsafe) static let log: UnsafeMutablePointer<cellhost_log_api> = {
        var api = cellhost_log_api()
        api.struct_size = UInt32(MemoryLayout<cellhost_log_api>.size)
        api.log = { host, level, message in
            guard let context = PluginHostContext.from(host), let message else { return }
            let clamped = level < Int32(CELLHOST_LOG_DEBUG) || level > Int32(CELLHOST_LOG_ERROR) ? Int32(CELLHOST_LOG_ERROR) : level
            context.runtime?.log(plugin: context.pluginID, level: clamped, message: String(cString: message))
        }
        return table(api)
    }()

    nonisolated(unsafe) static let message: UnsafeMutablePointer<cellhost_message_api> = {
        var api = cellhost_message_api()
        api.struct_size = UInt32(MemoryLayout<cellhost_message_api>.size)
        api.info = { handle, out in MessageAccess.fill(handle, out) }
        api.string = { handle, path, out in
            MessageAccess.lookup(handle, path) { arena, document, node in
                guard document.kind(node) == .string else { return false }
                if let out { out.pointee = arena.storeSanitized(document, node) }
                return true
            }
        }
        api.number = { handle, path, out in
            MessageAccess.lookup(handle, path) { _, document, node in
                guard let value = document.number(node) else { return false }
                out?.pointee = value
                return true
            }
        }
        api.integer = { handle, path, out in
            MessageAccess.lookup(handle, path) { _, document, node in
                guard let value = document.integer(node) else { return false }
                out?.pointee = value
                return true
            }
        }
        api.boolean = { handle, path, out in
            MessageAccess.lookup(handle, path) { _, document, node in
                guard let value = document.bool(node) else { return false }
                out?.pointee = value
                return true
            }
        }
        api.count = { handle, path, out in
            MessageAccess.lookup(handle, path) { _, document, node in
                let kind = document.kind(node)
                guard kind == .array || kind == .object else { return false }
                out?.pointee = document.count(node)
                return true
            }
        }
        api.numbers = { handle, path, out, capacity, count in
            MessageAccess.lookup(handle, path) { _, document, node in
                MessageAccess.numbers(&document, node, out, capacity, count)
            }
        }
        return table(api)
    }()

    nonisolated(unsafe) static let builder: UnsafeMutablePointer<cellhost_builder_api> = {
        var api = cellhost_builder_api()
        api.struct_size = UInt32(MemoryLayout<cellhost_builder_api>.size)
        api.append = { builder, text, length, style in
            guard let builder, let text, length > 0 else { return }
            BuilderHandle.withCanvas(builder) { canvas in
                canvas.append(UnsafeBufferPointer(start: UnsafeRawPointer(text).assumingMemoryBound(to: UInt8.self),
                                                  count: length),
                              style: Style(rawValue: style & Style.pluginMask))
            }
        }
        api.line_break = { builder in
            guard let builder else { return }
            BuilderHandle.withCanvas(builder) { $0.lineBreak() }
        }
        api.append_row = { builder, cells, count in
            guard let builder, let cells, count > 0 else { return }
            BuilderHandle.withCanvas(builder) { canvas in
                canvas.appendRow(UnsafeBufferPointer(start: cells, count: min(count, 4096)))
            }
        }
        return table(api)
    }()

    nonisolated(unsafe) static let output: UnsafeMutablePointer<cellhost_output_api> = {
        var api = cellhost_output_api()
        api.struct_size = UInt32(MemoryLayout<cellhost_output_api>.size)
        api.info = { host, out in
            guard let out else { return }
            (PluginHostContext.from(host)?.runtime?.output ?? .standard).fill(out)
        }
        return table(api)
    }()

    private static func table<T>(_ value: T) -> UnsafeMutablePointer<T> {
        let pointer = UnsafeMutablePointer<T>.allocate(capacity: 1)
        pointer.initialize(to: value)
        return pointer
    }

    /// The extension named by the C string `id`, or nil.
    static func named(_ id: UnsafePointer<CChar>) -> UnsafeRawPointer? {
        if strcmp(id, CELLHOST_EXT_MESSAGE) == 0 { return UnsafeRawPointer(message) }
        if strcmp(id, CELLHOST_EXT_BUILDER) == 0 { return UnsafeRawPointer(builder) }
        if strcmp(id, CELLHOST_EXT_LOG) == 0 { return UnsafeRawPointer(log) }
        if strcmp(id, CELLHOST_EXT_OUTPUT) == 0 { return UnsafeRawPointer(output) }
        return nil
    }
}

/// `cellhost_builder *` handles point at a canvas.
enum BuilderHandle {
    static func handle(_ canvas: CellCanvas) -> OpaquePointer { OpaquePointer(Unmanaged.passUnretained(canvas).toOpaque()) }

    static func canvas(_ handle: OpaquePointer?) -> CellCanvas? {
        guard let handle else { return nil }
        return Unmanaged<CellCanvas>.fromOpaque(UnsafeRawPointer(handle)).takeUnretainedValue()
    }

    /// Runs `body` on the canvas of `handle` without a retain and release
    /// of it (the builder callbacks: the canvas is an object the owning
    /// thread touches too). The canvas outlives the call: the host holds it
    /// while the plugin runs, so it is used as a guaranteed reference.
    @inline(__always)
    static func withCanvas(_ handle: OpaquePointer, _ body: (CellCanvas) -> Void) {
        Unmanaged<CellCanvas>.fromOpaque(UnsafeRawPointer(handle))._withUnsafeGuaranteedRef(body)
    }
}

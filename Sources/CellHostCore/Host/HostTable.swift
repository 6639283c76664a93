import CellHostABI
import Glibc

/// The per-plugin state behind a `cellhost_host` table: who is calling, and
/// where their logs and run-time registrations go.
final class PluginHostContext {
    let pluginID: String
    unowned(unsafe) var runtime: Runtime?
    /// Open while the plugin's `init` runs.
    var registrationOpen = false
    var pendingClasses: [UnsafePointer<cellhost_class>] = []
    var pendingMessageClasses: [(name: String, parent: String?)] = []
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
}

/// The functions of the host table (host.h), as C function pointers.
enum HostTable {
    /// Never written after it is made: each plugin context copies it.
    nonisolated(unsafe) static let template: cellhost_host = {
        var table = cellhost_host()
        table.abi = cellhost_version(major: UInt32(CELLHOST_ABI_MAJOR), minor: UInt32(CELLHOST_ABI_MINOR))
        table.log = { host, level, message in
            guard let context = PluginHostContext.from(host), let message else { return }
            context.runtime?.log(plugin: context.pluginID, level: level, message: String(cString: message))
        }
        table.message_info = { handle, out in
            guard let message = Message.from(handle), let out else { return }
            MessageAccess.fill(message, out)
        }
        table.message_string = { handle, path, out in
            MessageAccess.lookup(handle, path) { message, node in
                guard message.document.kind(node) == .string else { return false }
                if let out { out.pointee = message.arena.storeSanitized(message.document, node) }
                return true
            }
        }
        table.message_number = { handle, path, out in
            MessageAccess.lookup(handle, path) { message, node in
                guard let value = message.document.number(node) else { return false }
                out?.pointee = value
                return true
            }
        }
        table.message_integer = { handle, path, out in
            MessageAccess.lookup(handle, path) { message, node in
                guard let value = message.document.integer(node) else { return false }
                out?.pointee = value
                return true
            }
        }
        table.message_bool = { handle, path, out in
            MessageAccess.lookup(handle, path) { message, node in
                guard let value = message.document.bool(node) else { return false }
                out?.pointee = value
                return true
            }
        }
        table.message_count = { handle, path, out in
            MessageAccess.lookup(handle, path) { message, node in
                let kind = message.document.kind(node)
                guard kind == .array || kind == .object else { return false }
                out?.pointee = message.document.count(node)
                return true
            }
        }
        table.append = { builder, text, length, style in
            guard let canvas = BuilderHandle.canvas(builder), let text, length > 0 else { return }
            canvas.append(UnsafeBufferPointer(start: UnsafeRawPointer(text).assumingMemoryBound(to: UInt8.self), count: length),
                          style: Style(rawValue: style & Style.pluginMask))
        }
        table.line_break = { builder in BuilderHandle.canvas(builder)?.lineBreak() }
        table.append_row = { builder, cells, count in
            guard let canvas = BuilderHandle.canvas(builder), let cells, count > 0 else { return }
            canvas.appendRow(UnsafeBufferPointer(start: cells, count: min(count, 4096)))
        }
        table.object_ivars = { object in CellObject.from(object)?.ivars }
        table.object_class_name = { object in CellObject.from(object)?.cls.cName }
        table.instance_of = { host, name in
            guard let context = PluginHostContext.from(host), let name,
                  let runtime = context.runtime, let cls = runtime.classes[String(cString: name)] else { return nil }
            return runtime.conversation.instance(of: cls, runtime: runtime).handle
        }
        table.responds_to = { object, selector in
            guard let object = CellObject.from(object), let selector else { return false }
            return object.cls.lookup(String(cString: selector)) != nil
        }
        table.send = { object, selector, types, result, arguments in
            guard let receiver = CellObject.from(object), let selector else {
                return Int32(CELLHOST_E_INVALID_ARGUMENT.rawValue)
            }
            return Dispatcher.send(from: receiver.cls, receiver: receiver, selector: String(cString: selector),
                                   types: types.map { String(cString: $0) }, result: result, arguments: UnsafePointer(arguments))
        }
        table.send_super = { current, object, selector, types, result, arguments in
            guard let receiver = CellObject.from(object), let selector, let current else {
                return Int32(CELLHOST_E_INVALID_ARGUMENT.rawValue)
            }
            // The named class is found on the receiver's chain (it is the class
            // whose method is running); its superclass starts the look-up.
            let name = String(cString: current)
            var cls: RuntimeClass? = receiver.cls
            while let candidate = cls, candidate.name != name { cls = candidate.superclass }
            guard let found = cls else { return Int32(CELLHOST_E_NO_SUCH_CLASS.rawValue) }
            return Dispatcher.send(from: found.superclass, receiver: receiver, selector: String(cString: selector),
                                   types: types.map { String(cString: $0) }, result: result, arguments: UnsafePointer(arguments))
        }
        table.register_class = { host, cls in
            guard let context = PluginHostContext.from(host), let cls else { return Int32(CELLHOST_E_INVALID_ARGUMENT.rawValue) }
            guard context.registrationOpen else { return Int32(CELLHOST_E_TOO_LATE.rawValue) }
            context.pendingClasses.append(cls)
            return Int32(CELLHOST_OK.rawValue)
        }
        table.register_message_class = { host, declaration in
            guard let context = PluginHostContext.from(host), let declaration, let name = declaration.pointee.name else {
                return Int32(CELLHOST_E_INVALID_ARGUMENT.rawValue)
            }
            guard context.registrationOpen else { return Int32(CELLHOST_E_TOO_LATE.rawValue) }
            context.pendingMessageClasses.append((String(cString: name), declaration.pointee.parent.map { String(cString: $0) }))
            return Int32(CELLHOST_OK.rawValue)
        }
        return table
    }()
}

/// `cellhost_builder *` handles point at a canvas.
enum BuilderHandle {
    static func handle(_ canvas: CellCanvas) -> OpaquePointer { OpaquePointer(Unmanaged.passUnretained(canvas).toOpaque()) }

    static func canvas(_ handle: OpaquePointer?) -> CellCanvas? {
        guard let handle else { return nil }
        return Unmanaged<CellCanvas>.fromOpaque(UnsafeRawPointer(handle)).takeUnretainedValue()
    }
}

/// The message accessors of the host table.
enum MessageAccess {
    static func fill(_ message: Message, _ out: UnsafeMutablePointer<cellhost_message_info>) {
        // Fill a whole struct, then copy what fits the caller's (older, smaller) one.
        let size = min(Int(out.pointee.struct_size), MemoryLayout<cellhost_message_info>.size)
        guard size > MemoryLayout<UInt32>.size else { return }
        var info = cellhost_message_info()
        info.struct_size = out.pointee.struct_size
        fill(message, &info)
        withUnsafeBytes(of: &info) { source in
            UnsafeMutableRawPointer(out).copyMemory(from: source.baseAddress!, byteCount: size)
        }
    }

    private static func fill(_ message: Message, _ info: inout cellhost_message_info) {
        let arena = message.arena
        func string(_ value: String) -> cellhost_string {
            var value = value
            return value.withUTF8 { arena.storeSanitized($0) }
        }
        withUnsafeMutablePointer(to: &info) { out in
        out.pointee.direction = message.isOutgoing ? CELLHOST_OUTGOING : CELLHOST_INCOMING
        out.pointee.status = cellhost_status(UInt32(message.status.rawValue))
        out.pointee.has_time = message.time != nil
        out.pointee.time = message.time ?? 0
        out.pointee.type = string(message.type)
        out.pointee.id = string(message.id)
        out.pointee.sender_id = string(message.senderID)
        out.pointee.sender_name = string(message.senderName)
        out.pointee.text = string(message.text ?? "")
        out.pointee.edited = message.isEdited
        }
    }

    static func lookup(_ handle: OpaquePointer?, _ path: UnsafePointer<CChar>?,
                       _ read: (Message, Int) -> Bool) -> cellhost_lookup {
        guard let message = Message.from(handle), let path else { return CELLHOST_MISSING }
        let length = strnlen(path, 256)
        guard length < 256 else { return CELLHOST_MISSING }
        let node = path.withMemoryRebound(to: UInt8.self, capacity: length) {
            message.document.resolve(path: UnsafeBufferPointer(start: $0, count: length))
        }
        guard let node else { return CELLHOST_MISSING }
        if message.document.kind(node) == .null { return CELLHOST_MISSING }
        return read(message, node) ? CELLHOST_FOUND : CELLHOST_WRONG_TYPE
    }
}

@testable import CellKit
import CellHostABI

/// An ABI 2.0 host table over one fake message, for tests that call CellKit
/// the way the host does: its extensions (message, builder, log), instance
/// variables per (object, class), and `send_super`. Strings and numbers are
/// looked up by the key path exactly as the host receives it; every path
/// asked for, every append, log line, extension request and `send_super`
/// is recorded.
enum FakeHost {
    nonisolated(unsafe) static var strings: [String: UnsafeMutablePointer<CChar>] = [:]
    nonisolated(unsafe) static var numbers: [String: Double] = [:]
    /// Arrays for the bulk `numbers` look-up; `nil` elements are non-numbers.
    nonisolated(unsafe) static var arrays: [String: [Double?]] = [:]
    /// The paths the accessors asked for, in order.
    nonisolated(unsafe) static var paths: [String] = []
    /// The capacities the bulk `numbers` look-ups passed, in order.
    nonisolated(unsafe) static var bulkCapacities: [Int] = []
    nonisolated(unsafe) static var infoCalls = 0
    nonisolated(unsafe) static var appends: [Piece] = []
    nonisolated(unsafe) static var logs: [String] = []
    /// The extension ids asked for, in order.
    nonisolated(unsafe) static var extensionRequests: [String] = []
    /// Every `send_super`: the calling class and the selector.
    nonisolated(unsafe) static var superSends: [(className: String, selector: String)] = []
    /// What `send_super` does: writes the superclass's result (if it has
    /// one) and returns the status. Default: no superclass implements it.
    nonisolated(unsafe) static var superclass: (_ selector: String, _ result: UnsafeMutableRawPointer?) -> Int32 = { _, _ in
        Int32(CELLHOST_E_UNRECOGNIZED_SELECTOR)
    }
    /// Instance variable blocks, per object and class address.
    nonisolated(unsafe) static var ivars: [String: UnsafeMutableRawPointer] = [:]
    /// The (object, class) pairs `object_ivars` was asked for, in order.
    nonisolated(unsafe) static var ivarRequests: [(object: UInt, cls: UInt)] = []

    /// Sets up a message with these fields, and forgets everything recorded.
    static func reset(strings: [String: String] = [:], numbers: [String: Double] = [:],
                      arrays: [String: [Double?]] = [:]) {
        for pointer in self.strings.values { pointer.deallocate() }
        self.strings = [:]
        for (path, value) in strings {
            let bytes = Array(value.utf8)
            let pointer = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
            for (index, byte) in bytes.enumerated() { pointer[index] = CChar(bitPattern: byte) }
            pointer[bytes.count] = 0
            self.strings[path] = pointer
        }
        self.numbers = numbers
        self.arrays = arrays
        paths = []
        bulkCapacities = []
        infoCalls = 0
        appends = []
        logs = []
        extensionRequests = []
        superSends = []
        superclass = { _, _ in Int32(CELLHOST_E_UNRECOGNIZED_SELECTOR) }
        ivarRequests = []
    }

    static func hostString(_ path: String) -> cellhost_string {
        guard let pointer = strings[path] else { return cellhost_string(data: nil, length: 0) }
        return cellhost_string(data: UnsafePointer(pointer), length: String(cString: pointer).utf8.count)
    }

    static let messageAPI: UnsafeMutablePointer<cellhost_message_api> = permanent {
        var api = cellhost_message_api()
        api.struct_size = UInt32(MemoryLayout<cellhost_message_api>.size)
        api.info = { _, out in
            guard let out else { return }
            FakeHost.infoCalls += 1
            out.pointee.type = FakeHost.hostString("type")
            out.pointee.id = FakeHost.hostString("id")
            out.pointee.text = FakeHost.hostString("text")
        }
        api.string = { _, path, out in
            guard let path, let out else { return Int32(CELLHOST_MISSING) }
            let key = String(cString: path)
            FakeHost.paths.append(key)
            if FakeHost.numbers[key] != nil { return Int32(CELLHOST_WRONG_TYPE) }
            guard FakeHost.strings[key] != nil else { return Int32(CELLHOST_MISSING) }
            out.pointee = FakeHost.hostString(key)
            return Int32(CELLHOST_FOUND)
        }
        api.number = { _, path, out in
            guard let path, let out else { return Int32(CELLHOST_MISSING) }
            let key = String(cString: path)
            FakeHost.paths.append(key)
            if FakeHost.strings[key] != nil { return Int32(CELLHOST_WRONG_TYPE) }
            guard let value = FakeHost.numbers[key] else { return Int32(CELLHOST_MISSING) }
            out.pointee = value
            return Int32(CELLHOST_FOUND)
        }
        api.integer = { _, _, _ in Int32(CELLHOST_MISSING) }
        api.boolean = { _, _, _ in Int32(CELLHOST_MISSING) }
        api.count = { _, path, out in
            guard let path, let out else { return Int32(CELLHOST_MISSING) }
            let key = String(cString: path)
            FakeHost.paths.append(key)
            if FakeHost.strings[key] != nil || FakeHost.numbers[key] != nil { return Int32(CELLHOST_WRONG_TYPE) }
            guard let array = FakeHost.arrays[key] else { return Int32(CELLHOST_MISSING) }
            out.pointee = array.count
            return Int32(CELLHOST_FOUND)
        }
        api.numbers = { _, path, out, capacity, count in
            guard let path, let count else { return Int32(CELLHOST_MISSING) }
            let key = String(cString: path)
            FakeHost.paths.append(key)
            FakeHost.bulkCapacities.append(capacity)
            if FakeHost.strings[key] != nil || FakeHost.numbers[key] != nil { return Int32(CELLHOST_WRONG_TYPE) }
            guard let array = FakeHost.arrays[key] else { return Int32(CELLHOST_MISSING) }
            let values = array.compactMap { $0 }
            guard values.count == array.count else { return Int32(CELLHOST_WRONG_TYPE) }
            for (index, value) in values.prefix(capacity).enumerated() { out?[index] = value }
            count.pointee = values.count
            return Int32(CELLHOST_FOUND)
        }
        return api
    }

    static let builderAPI: UnsafeMutablePointer<cellhost_builder_api> = permanent {
        var api = cellhost_builder_api()
        api.struct_size = UInt32(MemoryLayout<cellhost_builder_api>.size)
        api.append = { _, text, length, style in
            let bytes = UnsafeRawBufferPointer(start: text, count: length)
            FakeHost.appends.append(Piece(bytes: Array(bytes), style: style))
        }
        api.line_break = { _ in FakeHost.appends.append(Piece(bytes: Array("\n".utf8), style: 0)) }
        api.append_row = { _, _, _ in }
        return api
    }

    static let logAPI: UnsafeMutablePointer<cellhost_log_api> = permanent {
        var api = cellhost_log_api()
        api.struct_size = UInt32(MemoryLayout<cellhost_log_api>.size)
        api.log = { _, _, message in FakeHost.logs.append(message.map { String(cString: $0) } ?? "") }
        return api
    }

    static let table: UnsafeMutablePointer<cellhost_host> = permanent {
        var table = cellhost_host()
        table.abi = cellhost_version(major: UInt32(CELLHOST_ABI_MAJOR), minor: UInt32(CELLHOST_ABI_MINOR))
        table.struct_size = UInt32(MemoryLayout<cellhost_host>.size)
        table.get_extension = { _, id in
            guard let id else { return nil }
            let name = String(cString: id)
            FakeHost.extensionRequests.append(name)
            switch name {
            case CELLHOST_EXT_MESSAGE: return UnsafeRawPointer(FakeHost.messageAPI)
            case CELLHOST_EXT_BUILDER: return UnsafeRawPointer(FakeHost.builderAPI)
            case CELLHOST_EXT_LOG: return UnsafeRawPointer(FakeHost.logAPI)
            default: return nil
            }
        }
        table.object_ivars = { object, cls in
            guard let object, let cls, cls.pointee.instance_size > 0 else { return nil }
            let objectKey = UInt(bitPattern: object), classKey = UInt(bitPattern: cls)
            FakeHost.ivarRequests.append((objectKey, classKey))
            let key = "\(objectKey)/\(classKey)"
            if let block = FakeHost.ivars[key] { return block }
            let size = Int(cls.pointee.instance_size)
            let block = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
            block.initializeMemory(as: UInt8.self, repeating: 0, count: size)
            FakeHost.ivars[key] = block
            return block
        }
        table.send_super = { current, _, selector, _, result, _ in
            let name = selector.map { String(cString: $0) } ?? ""
            FakeHost.superSends.append((current.map { String(cString: $0) } ?? "", name))
            return FakeHost.superclass(name, result)
        }
        return table
    }

    private static func permanent<T>(_ make: () -> T) -> UnsafeMutablePointer<T> {
        let pointer = UnsafeMutablePointer<T>.allocate(capacity: 1)
        pointer.initialize(to: make())
        return pointer
    }

    static var host: Host { Host(UnsafePointer(table)) }

    /// The fake message.
    static var message: Message {
        Message(handle: OpaquePointer(bitPattern: 0x20)!, host: host)
    }

    /// A builder recording into `appends`.
    static func builder() -> CellBuilder {
        CellBuilder(handle: OpaquePointer(bitPattern: 0x30)!, host: host)
    }

    /// Calls `body` with a context for `width` and `messageClass`.
    static func withContext<R>(width: UInt32 = 40, messageClass: String = "text", baseDirectory: String = "/data",
                               _ body: (UnsafePointer<cellhost_context>) -> R) -> R {
        messageClass.withCString { name in
            baseDirectory.withCString { directory in
                var context = cellhost_context()
                context.struct_size = UInt32(MemoryLayout<cellhost_context>.size)
                context.width = width
                context.message_class = name
                context.host = UnsafePointer(table)
                context.base_directory = directory
                return withUnsafePointer(to: &context, body)
            }
        }
    }
}

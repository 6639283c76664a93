@testable import CellKit
import CellHostABI

/// A host table over one fake message, for tests that call CellKit the way
/// the host does. Strings and numbers are looked up by key path; every path
/// asked for and every append is recorded.
enum FakeHost {
    nonisolated(unsafe) static var strings: [String: UnsafeMutablePointer<CChar>] = [:]
    nonisolated(unsafe) static var numbers: [String: Double] = [:]
    /// The paths the accessors asked for, in order.
    nonisolated(unsafe) static var paths: [String] = []
    nonisolated(unsafe) static var infoCalls = 0
    nonisolated(unsafe) static var appends: [Piece] = []
    nonisolated(unsafe) static var logs: [String] = []

    /// Sets up a message with these string and number fields.
    static func reset(strings: [String: String] = [:], numbers: [String: Double] = [:]) {
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
        paths = []
        infoCalls = 0
        appends = []
        logs = []
    }

    static func hostString(_ path: String) -> cellhost_string {
        guard let pointer = strings[path] else { return cellhost_string(data: nil, length: 0) }
        return cellhost_string(data: UnsafePointer(pointer), length: String(cString: pointer).utf8.count)
    }

    static let table: UnsafeMutablePointer<cellhost_host> = {
        var table = cellhost_host()
        table.log = { _, _, message in FakeHost.logs.append(String(cString: message!)) }
        table.message_info = { _, out in
            FakeHost.infoCalls += 1
            out!.pointee.type = FakeHost.hostString("type")
            out!.pointee.id = FakeHost.hostString("id")
            out!.pointee.text = FakeHost.hostString("text")
        }
        table.message_string = { _, path, out in
            let path = String(cString: path!)
            FakeHost.paths.append(path)
            if FakeHost.numbers[path] != nil { return CELLHOST_WRONG_TYPE }
            guard FakeHost.strings[path] != nil else { return CELLHOST_MISSING }
            out!.pointee = FakeHost.hostString(path)
            return CELLHOST_FOUND
        }
        table.message_number = { _, path, out in
            let path = String(cString: path!)
            FakeHost.paths.append(path)
            if FakeHost.strings[path] != nil { return CELLHOST_WRONG_TYPE }
            guard let value = FakeHost.numbers[path] else { return CELLHOST_MISSING }
            out!.pointee = value
            return CELLHOST_FOUND
        }
        table.append = { _, text, length, style in
            let bytes = UnsafeRawBufferPointer(start: text, count: length)
            FakeHost.appends.append(Piece(bytes: Array(bytes), style: style))
        }
        let pointer = UnsafeMutablePointer<cellhost_host>.allocate(capacity: 1)
        pointer.initialize(to: table)
        return pointer
    }()

    /// The fake message.
    static var message: Message {
        Message(handle: OpaquePointer(bitPattern: 0x20)!, table: UnsafePointer(table))
    }

    /// Calls `body` with a context for `width` and `messageClass`.
    static func withContext<R>(width: UInt32 = 40, messageClass: String = "text",
                               _ body: (UnsafePointer<cellhost_context>) -> R) -> R {
        messageClass.withCString { name in
            var context = cellhost_context()
            context.struct_size = UInt32(MemoryLayout<cellhost_context>.size)
            context.width = width
            context.message_class = name
            context.host = UnsafePointer(table)
            return withUnsafePointer(to: &context, body)
        }
    }
}

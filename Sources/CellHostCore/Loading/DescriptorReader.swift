import CellHostABI
import Glibc

/// Reads a C descriptor into Swift values, checking it is consistent.
enum DescriptorReader {
    struct Invalid: Error { var reason: String }

    struct Description {
        var id: String
        var version: String
        var description: String?
        var author: String?
        var license: String?
        /// The descriptor sets CELLHOST_PLUGIN_REGISTERS_AT_INIT.
        var registersAtInit: Bool
        /// The descriptor sets CELLHOST_PLUGIN_THREAD_SAFE.
        var threadSafe: Bool
        var initialize: (@convention(c) (UnsafePointer<cellhost_host>?, UnsafeMutablePointer<UnsafePointer<CChar>?>?) -> Int32)?
        var deinitialize: (@convention(c) (UnsafePointer<cellhost_host>?) -> Void)?
        var extensions: (@convention(c) (UnsafePointer<CChar>?) -> UnsafeRawPointer?)?
        var classes: [ClassDescription]
        var messageClasses: [PluginRecord.MessageClassDeclaration]
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

    /// A struct the plugin describes, copied into a zeroed host-sized value:
    /// only the bytes its `struct_size` covers are read, so fields an older,
    /// smaller struct lacks read as zero / NULL. `sizeOffset` is where
    /// `struct_size` lives (after `abi` in the descriptor).
    static func copy<T>(_ type: T.Type, from pointer: UnsafeRawPointer, sizeOffset: Int = 0,
                        field: String) throws -> (value: T, size: Int) {
        let declared = Int(pointer.loadUnaligned(fromByteOffset: sizeOffset, as: UInt32.self))
        let minimum = sizeOffset + MemoryLayout<UInt32>.size
        guard declared >= minimum else {
            throw Invalid(reason: "\(field).struct_size is \(declared), smaller than the \(minimum) bytes every version has")
        }
        guard declared <= maximumStructSize else {
            throw Invalid(reason: "\(field).struct_size is \(declared), above \(maximumStructSize)")
        }
        let zeroed = UnsafeMutableRawPointer.allocate(byteCount: MemoryLayout<T>.size, alignment: MemoryLayout<T>.alignment)
        defer { zeroed.deallocate() }
        zeroed.initializeMemory(as: UInt8.self, repeating: 0, count: MemoryLayout<T>.size)
        zeroed.copyMemory(from: pointer, byteCount: min(declared, MemoryLayout<T>.size))
        return (zeroed.load(as: T.self), declared)
    }

    /// The elements of a plugin's array of structs, read with the stride of
    /// the first element's `struct_size`; every element must declare the same.
    static func elements<T>(_ type: T.Type, at base: UnsafeRawPointer, count: Int, field: String) throws -> [T] {
        guard count > 0 else { return [] }
        let first = try copy(T.self, from: base, field: "\(field)[0]")
        var values = [first.value]
        for index in 1..<count {
            let element = try copy(T.self, from: base + index * first.size, field: "\(field)[\(index)]")
            guard element.size == first.size else {
                throw Invalid(reason: "\(field)[\(index)].struct_size is \(element.size) but \(field)[0]'s is \(first.size); "
                    + "every element must have the same size")
            }
            values.append(element.value)
        }
        return values
    }

    /// Structs larger than this are refused (a struct_size that is really garbage).
    static let maximumStructSize = 4096

    /// Reads the descriptor at `pointer` (whose ABI version was already accepted).
    static func read(_ pointer: UnsafePointer<cellhost_plugin_descriptor>) throws -> Description {
        let descriptor = try copy(cellhost_plugin_descriptor.self, from: UnsafeRawPointer(pointer),
                                  sizeOffset: MemoryLayout<cellhost_version>.size, field: "descriptor").value
        let id = try string(descriptor.id, "id", required: true) ?? ""
        guard id.utf8.allSatisfy({ $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-")
                || ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7A) }) else {
            throw Invalid(reason: "id '\(Sanitizer.sanitize(id))' may only contain A-Z a-z 0-9 . _ -")
        }
        guard id != HostClasses.pluginID else { throw Invalid(reason: "id '\(id)' is reserved for the host") }
        let version = try string(descriptor.version, "version", required: true) ?? ""
        let knownFlags = UInt32(CELLHOST_PLUGIN_REGISTERS_AT_INIT) | UInt32(CELLHOST_PLUGIN_THREAD_SAFE)
        guard descriptor.flags & ~knownFlags == 0 else {
            throw Invalid(reason: "flags 0x\(String(descriptor.flags, radix: 16)) has bits ABI \(CELLHOST_ABI_MAJOR).\(CELLHOST_ABI_MINOR) does not define")
        }
        guard descriptor.class_count <= maximumClasses else { throw Invalid(reason: "class_count \(descriptor.class_count) is above \(maximumClasses)") }
        guard descriptor.message_class_count <= maximumClasses else { throw Invalid(reason: "message_class_count is above \(maximumClasses)") }
        var classes: [ClassDescription] = []
        if descriptor.class_count > 0 {
            guard let list = descriptor.classes else {
                throw Invalid(reason: "class_count is \(descriptor.class_count) but classes is NULL")
            }
            let base = UnsafeRawPointer(list)
            let first = try copy(cellhost_class.self, from: base, field: "classes[0]")
            for index in 0..<Int(descriptor.class_count) {
                let address = base + index * first.size
                let element = try copy(cellhost_class.self, from: address, field: "classes[\(index)]")
                guard element.size == first.size else {
                    throw Invalid(reason: "classes[\(index)].struct_size is \(element.size) but classes[0]'s is \(first.size); "
                        + "every element must have the same size")
                }
                classes.append(try readClass(element.value, address: address, index: index))
            }
        }
        var messageClasses: [PluginRecord.MessageClassDeclaration] = []
        if descriptor.message_class_count > 0 {
            guard let list = descriptor.message_classes else {
                throw Invalid(reason: "message_class_count is \(descriptor.message_class_count) but message_classes is NULL")
            }
            let declarations = try elements(cellhost_message_class.self, at: UnsafeRawPointer(list),
                                            count: Int(descriptor.message_class_count), field: "message_classes")
            for (index, declaration) in declarations.enumerated() {
                messageClasses.append(try readMessageClass(declaration, field: "message_classes[\(index)]"))
            }
        }
        return Description(id: id, version: version,
                           description: try string(descriptor.description, "description", required: false).map(Sanitizer.sanitize),
                           author: try string(descriptor.author, "author", required: false).map(Sanitizer.sanitize),
                           license: try string(descriptor.license, "license", required: false).map(Sanitizer.sanitize),
                           registersAtInit: descriptor.flags & UInt32(CELLHOST_PLUGIN_REGISTERS_AT_INIT) != 0,
                           threadSafe: descriptor.flags & UInt32(CELLHOST_PLUGIN_THREAD_SAFE) != 0,
                           initialize: descriptor.`init`, deinitialize: descriptor.deinit,
                           extensions: descriptor.get_extension,
                           classes: classes, messageClasses: messageClasses)
    }

    static func readMessageClass(_ declaration: cellhost_message_class, field: String) throws -> PluginRecord.MessageClassDeclaration {
        let name = try string(declaration.name, "\(field).name", required: true) ?? ""
        return .init(name: name, parent: try string(declaration.parent, "\(field).parent", required: false))
    }

    /// Reads one class; `address` is where the plugin keeps the struct (what
    /// it passes to `object_ivars`).
    static func readClass(_ cls: cellhost_class, address: UnsafeRawPointer, index: Int = 0) throws -> ClassDescription {
        let field = "classes[\(index)]"
        let name = try string(cls.name, "\(field).name", required: true) ?? ""
        guard name.utf8.count <= 255, name.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw Invalid(reason: "class name '\(Sanitizer.sanitize(name))' must be at most 255 bytes of printable ASCII without spaces")
        }
        guard cls.flags == 0 else {
            throw Invalid(reason: "\(field).flags is 0x\(String(cls.flags, radix: 16)); ABI \(CELLHOST_ABI_MAJOR).\(CELLHOST_ABI_MINOR) defines no class flags")
        }
        let superclass = try string(cls.superclass, "\(field).superclass", required: false) ?? "MessageCell"
        var messageClasses: [String] = []
        if let list = cls.message_classes {
            var position = 0
            while let entry = list[position] {
                guard position < 256 else { throw Invalid(reason: "\(field).message_classes has no NULL terminator within 256 entries") }
                messageClasses.append(try string(entry, "\(field).message_classes[\(position)]", required: true) ?? "")
                position += 1
            }
        }
        guard cls.method_count <= maximumMethods else { throw Invalid(reason: "\(field).method_count is above \(maximumMethods)") }
        guard cls.instance_size <= 1 << 20 else { throw Invalid(reason: "\(field).instance_size is above 1 MiB") }
        var methods: [ClassDescription.MethodDescription] = []
        if cls.method_count > 0 {
            guard let list = cls.methods else {
                throw Invalid(reason: "\(field).method_count is \(cls.method_count) but methods is NULL")
            }
            let entries = try elements(cellhost_method.self, at: UnsafeRawPointer(list), count: Int(cls.method_count),
                                       field: "\(field).methods")
            for (position, method) in entries.enumerated() {
                let selector = try string(method.selector, "\(field).methods[\(position)].selector", required: true) ?? ""
                let types = try string(method.types, "\(field).methods[\(position)].types", required: true) ?? ""
                let imp = method.imp.map { UInt(bitPattern: unsafeBitCast($0, to: UnsafeRawPointer.self)) } ?? 0
                methods.append(.init(selector: selector, types: types, imp: imp))
            }
        }
        var description = ClassDescription(name: name, superclass: superclass, messageClasses: messageClasses, rank: cls.rank,
                                           instanceSize: Int(cls.instance_size), methods: methods)
        description.address = UInt(bitPattern: address)
        return description
    }
}

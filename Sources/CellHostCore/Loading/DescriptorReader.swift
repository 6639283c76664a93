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
        var messageClasses: [PluginRecord.MessageClassDeclaration] = []
        for index in 0..<Int(descriptor.message_class_count) {
            let declaration = descriptor.message_classes[index]
            let name = try string(declaration.name, "message_classes[\(index)].name", required: true)!
            messageClasses.append(.init(name: name, parent: try string(declaration.parent, "message_classes[\(index)].parent", required: false)))
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

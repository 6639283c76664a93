/// The compact binary form of plugin records used by the plugin cache:
/// reading 100 records this way costs a small fraction of decoding JSON,
/// which matters because a warm `list-plugins` does little else. Every read
/// is bounds-checked (`WireReader`), so a corrupt cache is an error, never
/// a trap.
extension PluginRecord {
    func encode(into writer: inout WireWriter) {
        writer.string(file)
        switch state {
        case .loaded: writer.u8(0); writer.string("")
        case .failed(let reason): writer.u8(1); writer.string(reason)
        }
        for value in [id, version, description, author, license] { writer.optionalString(value) }
        writer.u8(abi == nil ? 0 : 1)
        writer.u32(abi?.major ?? 0)
        writer.u32(abi?.minor ?? 0)
        // The descriptor's flags, one bit each (bit 0 alone in older caches).
        writer.u8((registersAtInit ? 1 : 0) | (threadSafe ? 2 : 0))
        writer.u32(UInt32(classes.count))
        for cls in classes {
            writer.string(cls.name)
            writer.string(cls.superclass)
            writer.u32(UInt32(cls.messageClasses.count))
            for name in cls.messageClasses { writer.string(name) }
            writer.i32(cls.rank)
            writer.u32(UInt32(clamping: cls.instanceSize))
            writer.u32(UInt32(cls.methods.count))
            for method in cls.methods {
                writer.string(method.selector)
                writer.string(method.types)
                writer.u8(method.implemented ? 1 : 0)
            }
        }
        writer.u32(UInt32(rejectedClasses.count))
        for rejected in rejectedClasses {
            writer.string(rejected.name)
            writer.string(rejected.reason)
        }
        writer.u32(UInt32(messageClasses.count))
        for declaration in messageClasses {
            writer.string(declaration.name)
            writer.optionalString(declaration.parent)
        }
    }

    static func decode(_ reader: inout WireReader) throws -> PluginRecord {
        var record = PluginRecord(file: try reader.string(), state: .loaded)
        let failed = try reader.u8() != 0
        let reason = try reader.string()
        if failed { record.state = .failed(reason) }
        record.id = try reader.optionalString()
        record.version = try reader.optionalString()
        record.description = try reader.optionalString()
        record.author = try reader.optionalString()
        record.license = try reader.optionalString()
        let hasABI = try reader.u8() != 0
        let major = try reader.u32(), minor = try reader.u32()
        if hasABI { record.abi = .init(major: major, minor: minor) }
        let flags = try reader.u8()
        record.registersAtInit = flags & 1 != 0
        record.threadSafe = flags & 2 != 0
        let classCount = try reader.count(limit: 1024)
        record.classes.reserveCapacity(classCount)
        for _ in 0..<classCount {
            let name = try reader.string()
            let superclass = try reader.string()
            var messageClasses: [String] = []
            for _ in 0..<(try reader.count(limit: 256)) { messageClasses.append(try reader.string()) }
            let rank = try reader.i32()
            let instanceSize = Int(try reader.u32())
            var methods: [ClassDescription.MethodDescription] = []
            let methodCount = try reader.count(limit: 1024)
            methods.reserveCapacity(methodCount)
            for _ in 0..<methodCount {
                var method = ClassDescription.MethodDescription(selector: try reader.string(), types: try reader.string(), imp: 0)
                method.implemented = try reader.u8() != 0
                methods.append(method)
            }
            record.classes.append(ClassDescription(name: name, superclass: superclass, messageClasses: messageClasses,
                                                   rank: rank, instanceSize: instanceSize, methods: methods))
        }
        for _ in 0..<(try reader.count(limit: 1 << 16)) {
            record.rejectedClasses.append(.init(name: try reader.string(), reason: try reader.string()))
        }
        for _ in 0..<(try reader.count(limit: 1 << 16)) {
            record.messageClasses.append(.init(name: try reader.string(), parent: try reader.optionalString()))
        }
        return record
    }
}

extension FileIdentity {
    func encode(into writer: inout WireWriter) {
        writer.string(path)
        writer.u64(device)
        writer.u64(inode)
        writer.u64(UInt64(bitPattern: size))
        writer.u64(UInt64(bitPattern: modifiedSeconds))
        writer.u64(UInt64(bitPattern: modifiedNanoseconds))
    }

    static func decode(_ reader: inout WireReader) throws -> FileIdentity {
        FileIdentity(path: try reader.string(), device: try reader.u64(), inode: try reader.u64(),
                     size: Int64(bitPattern: try reader.u64()), modifiedSeconds: Int64(bitPattern: try reader.u64()),
                     modifiedNanoseconds: Int64(bitPattern: try reader.u64()))
    }
}

extension WireWriter {
    mutating func optionalString(_ value: String?) {
        u8(value == nil ? 0 : 1)
        string(value ?? "")
    }
}

extension WireReader {
    mutating func optionalString() throws -> String? {
        let present = try u8() != 0
        let value = try string()
        return present ? value : nil
    }

    /// A count that must not exceed `limit`.
    mutating func count(limit: Int) throws -> Int {
        let value = Int(try u32())
        guard value <= limit else { throw WireError() }
        return value
    }
}

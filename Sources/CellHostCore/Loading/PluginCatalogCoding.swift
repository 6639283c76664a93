/// The binary form of a plugin catalog: its name table (`NameTable`), then
/// the records, each string a 32-bit name (0xFFFF_FFFF for none). The
/// plugin cache, the scanner's report lines and a render worker's setup all
/// carry records this way.
///
/// Decoding checks every count against a limit and every name against the
/// table, so bytes that are not a catalog give `WireReader.WireError`,
/// never a trap, and what decodes can be indexed without further checks.
struct PluginCatalogEncoder {
    private let names = NameTable()
    /// For each catalog records were taken from: its names' numbers here
    /// (`UInt32.max` until first used).
    private var sources: [(catalog: PluginCatalog, numbers: [UInt32])] = []
    private var body = WireWriter()
    /// The records appended so far.
    private(set) var count = 0

    static let none = UInt32.max

    init() {}

    /// Appends plugin `index` of `catalog`, with the classes `keepsClass`
    /// accepts (by index in the catalog).
    mutating func append(_ catalog: PluginCatalog, plugin index: Int, keepingClass keepsClass: (Int) -> Bool = { _ in true }) {
        let source: Int
        if let found = sources.firstIndex(where: { $0.catalog === catalog }) {
            source = found
        } else {
            sources.append((catalog, Array(repeating: Self.none, count: catalog.names.count)))
            source = sources.count - 1
        }
        var numbers = sources[source].numbers
        sources[source].numbers = []
        defer { sources[source].numbers = numbers }
        let table = names
        func name(_ name: Name) -> UInt32 {
            if numbers[name.index] == Self.none {
                numbers[name.index] = catalog.names.withBytes(name) { table.intern($0) }.rawValue
            }
            return numbers[name.index]
        }
        func optional(_ value: Name?) -> UInt32 { value.map(name) ?? Self.none }
        let plugin = catalog.plugins[index]
        body.u32(name(plugin.file))
        body.u32(optional(plugin.failure))
        for value in [plugin.id, plugin.version, plugin.description, plugin.author, plugin.license] { body.u32(optional(value)) }
        body.u8(plugin.abi == nil ? 0 : 1)
        body.u32(plugin.abi?.major ?? 0)
        body.u32(plugin.abi?.minor ?? 0)
        body.u8((plugin.registersAtInit ? 1 : 0) | (plugin.threadSafe ? 2 : 0))
        let kept = plugin.classes.filter(keepsClass)
        body.u32(UInt32(kept.count))
        for classIndex in kept {
            let cls = catalog.classes[classIndex]
            body.u32(name(cls.name))
            body.u32(name(cls.superclass))
            body.u32(UInt32(cls.messageClasses.count))
            for messageClass in catalog.classMessageClasses[cls.messageClasses] { body.u32(name(messageClass)) }
            body.i32(cls.rank)
            body.u32(UInt32(clamping: cls.instanceSize))
            body.u32(UInt32(cls.methods.count))
            for method in catalog.methods[cls.methods] {
                body.u32(name(method.selector))
                body.u32(name(method.types))
                body.u8(method.implemented ? 1 : 0)
            }
        }
        body.u32(UInt32(plugin.rejected.count))
        for rejection in catalog.rejections[plugin.rejected] {
            body.u32(name(rejection.name))
            body.u32(name(rejection.reason))
        }
        body.u32(UInt32(plugin.declarations.count))
        for declaration in catalog.declarations[plugin.declarations] {
            body.u32(name(declaration.name))
            body.u32(optional(declaration.parent))
        }
        count += 1
    }

    /// Appends `record` (its IMPs are not written: they mean nothing in another process).
    mutating func append(_ record: PluginRecord) {
        let catalog = PluginCatalog()
        append(catalog, plugin: catalog.add(record))
    }

    /// The catalog of everything appended.
    func encode(into writer: inout WireWriter) {
        names.encode(into: &writer)
        writer.u32(UInt32(count))
        writer.bytes += body.bytes
    }
}

extension PluginCatalog {
    static let maximumPlugins = 1 << 20
    static let maximumClasses = 1024
    static let maximumMethods = 1024
    static let maximumMessageClasses = 256
    static let maximumListed = 1 << 16

    /// A catalog read from bytes `PluginCatalogEncoder` wrote.
    static func decode(_ reader: inout WireReader) throws -> PluginCatalog {
        let names = try NameTable.decode(&reader)
        let nameCount = UInt32(names.count)
        func name() throws -> Name {
            let raw = try reader.u32()
            guard raw < nameCount else { throw WireReader.WireError() }
            return Name(Int(raw))
        }
        func optionalName() throws -> Name? {
            let raw = try reader.u32()
            if raw == PluginCatalogEncoder.none { return nil }
            guard raw < nameCount else { throw WireReader.WireError() }
            return Name(Int(raw))
        }
        var plugins: [Plugin] = []
        var classes: [Class] = []
        var classMessageClasses: [Name] = []
        var methods: [Method] = []
        var rejections: [Rejection] = []
        var declarations: [Declaration] = []
        let pluginCount = try reader.count(limit: maximumPlugins)
        plugins.reserveCapacity(pluginCount)
        for _ in 0..<pluginCount {
            let file = try name()
            let failure = try optionalName()
            let id = try optionalName(), version = try optionalName(), description = try optionalName()
            let author = try optionalName(), license = try optionalName()
            let hasABI = try reader.u8() != 0
            let major = try reader.u32(), minor = try reader.u32()
            let flags = try reader.u8()
            let firstClass = classes.count
            for _ in 0..<(try reader.count(limit: maximumClasses)) {
                let className = try name(), superclass = try name()
                let firstMessageClass = classMessageClasses.count
                for _ in 0..<(try reader.count(limit: maximumMessageClasses)) { classMessageClasses.append(try name()) }
                let rank = try reader.i32()
                let instanceSize = Int(try reader.u32())
                let firstMethod = methods.count
                for _ in 0..<(try reader.count(limit: maximumMethods)) {
                    let selector = try name(), types = try name()
                    methods.append(Method(selector: selector, types: types, implemented: try reader.u8() != 0, imp: 0))
                }
                classes.append(Class(name: className, superclass: superclass,
                                     messageClasses: firstMessageClass..<classMessageClasses.count, rank: rank,
                                     instanceSize: instanceSize, methods: firstMethod..<methods.count, address: 0))
            }
            let firstRejection = rejections.count
            for _ in 0..<(try reader.count(limit: maximumListed)) {
                let rejected = try name()
                rejections.append(Rejection(name: rejected, reason: try name()))
            }
            let firstDeclaration = declarations.count
            for _ in 0..<(try reader.count(limit: maximumListed)) {
                let declared = try name()
                declarations.append(Declaration(name: declared, parent: try optionalName()))
            }
            plugins.append(Plugin(file: file, failure: failure, id: id, version: version, description: description,
                                  author: author, license: license,
                                  abi: hasABI ? PluginRecord.Version(major: major, minor: minor) : nil,
                                  registersAtInit: flags & 1 != 0, threadSafe: flags & 2 != 0,
                                  classes: firstClass..<classes.count, rejected: firstRejection..<rejections.count,
                                  declarations: firstDeclaration..<declarations.count))
        }
        return PluginCatalog(names: names, plugins: plugins, classes: classes, classMessageClasses: classMessageClasses,
                             methods: methods, rejections: rejections, declarations: declarations)
    }
}

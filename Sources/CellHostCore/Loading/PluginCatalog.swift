/// Plugin records with every string a `Name` in one `NameTable`: what the
/// plugin cache holds (`PluginCache`), what the scanner reports and what a
/// render worker is set up with (`PluginCatalogCoding`), and what the host
/// links classes from (`PluginClasses`).
///
/// Reading a catalog costs a few integers per field instead of a string
/// each, and comparing two class names is comparing two integers; a record
/// becomes a `PluginRecord` only when asked for (`record(_:)`), which the
/// plugin listing does and a render does not.
///
/// A catalog is filled once (`add`, or decoding) and only read after that,
/// from any thread.
final class PluginCatalog: @unchecked Sendable {
    struct Plugin {
        var file: Name
        /// Why the plugin failed; nil when it loaded.
        var failure: Name?
        var id: Name?
        var version: Name?
        var description: Name?
        var author: Name?
        var license: Name?
        var abi: PluginRecord.Version?
        var registersAtInit = false
        var threadSafe = false
        /// Its classes in `classes`, rejections in `rejections`, message
        /// classes in `declarations`.
        var classes: Range<Int>
        var rejected: Range<Int>
        var declarations: Range<Int>
    }

    struct Class {
        var name: Name
        var superclass: Name
        /// Its message classes in `classMessageClasses`.
        var messageClasses: Range<Int>
        var rank: Int32
        var instanceSize: Int
        /// Its methods in `methods`.
        var methods: Range<Int>
        /// The class struct's address in this process; 0 when only described.
        var address: UInt
    }

    struct Method {
        var selector: Name
        var types: Name
        var implemented: Bool
        /// The IMP in this process; 0 when only described.
        var imp: UInt
    }

    struct Declaration {
        var name: Name
        var parent: Name?
    }

    struct Rejection {
        var name: Name
        var reason: Name
    }

    let names: NameTable
    private(set) var plugins: [Plugin] = []
    private(set) var classes: [Class] = []
    private(set) var classMessageClasses: [Name] = []
    private(set) var methods: [Method] = []
    private(set) var rejections: [Rejection] = []
    private(set) var declarations: [Declaration] = []

    init(names: NameTable = NameTable()) { self.names = names }

    /// A catalog of parts read from bytes (`PluginCatalogCoding`), already checked.
    init(names: NameTable, plugins: [Plugin], classes: [Class], classMessageClasses: [Name], methods: [Method],
         rejections: [Rejection], declarations: [Declaration]) {
        self.names = names
        self.plugins = plugins
        self.classes = classes
        self.classMessageClasses = classMessageClasses
        self.methods = methods
        self.rejections = rejections
        self.declarations = declarations
    }

    func string(_ name: Name) -> String { names.string(name) }

    func string(_ name: Name?) -> String? { name.map(names.string) }

    // MARK: From and to records

    /// Adds `record` (its IMPs and class addresses included); returns its index.
    @discardableResult
    func add(_ record: PluginRecord) -> Int {
        func intern(_ value: String?) -> Name? { value.map(names.intern) }
        let firstClass = classes.count
        for cls in record.classes {
            let firstMessageClass = classMessageClasses.count
            for messageClass in cls.messageClasses { classMessageClasses.append(names.intern(messageClass)) }
            let firstMethod = methods.count
            for method in cls.methods {
                methods.append(Method(selector: names.intern(method.selector), types: names.intern(method.types),
                                      implemented: method.implemented, imp: method.imp))
            }
            classes.append(Class(name: names.intern(cls.name), superclass: names.intern(cls.superclass),
                                 messageClasses: firstMessageClass..<classMessageClasses.count, rank: cls.rank,
                                 instanceSize: cls.instanceSize, methods: firstMethod..<methods.count, address: cls.address))
        }
        let firstRejection = rejections.count
        for rejected in record.rejectedClasses {
            rejections.append(Rejection(name: names.intern(rejected.name), reason: names.intern(rejected.reason)))
        }
        let firstDeclaration = declarations.count
        for declaration in record.messageClasses {
            declarations.append(Declaration(name: names.intern(declaration.name), parent: intern(declaration.parent)))
        }
        plugins.append(Plugin(file: names.intern(record.file), failure: intern(record.failure), id: intern(record.id),
                              version: intern(record.version), description: intern(record.description),
                              author: intern(record.author), license: intern(record.license), abi: record.abi,
                              registersAtInit: record.registersAtInit, threadSafe: record.threadSafe,
                              classes: firstClass..<classes.count, rejected: firstRejection..<rejections.count,
                              declarations: firstDeclaration..<declarations.count))
        return plugins.count - 1
    }

    /// The record of plugin `index`, its strings made.
    func record(_ index: Int) -> PluginRecord {
        let plugin = plugins[index]
        var record = PluginRecord(file: string(plugin.file), state: plugin.failure.map { .failed(string($0)) } ?? .loaded)
        record.id = string(plugin.id)
        record.version = string(plugin.version)
        record.description = string(plugin.description)
        record.author = string(plugin.author)
        record.license = string(plugin.license)
        record.abi = plugin.abi
        record.registersAtInit = plugin.registersAtInit
        record.threadSafe = plugin.threadSafe
        record.classes = plugin.classes.map(classDescription)
        record.rejectedClasses = rejections[plugin.rejected].map { .init(name: string($0.name), reason: string($0.reason)) }
        record.messageClasses = declarations[plugin.declarations].map { .init(name: string($0.name), parent: string($0.parent)) }
        return record
    }

    /// Class `index` as a description (its IMPs and address when known).
    func classDescription(_ index: Int) -> ClassDescription {
        let cls = classes[index]
        var description = ClassDescription(
            name: string(cls.name), superclass: string(cls.superclass),
            messageClasses: classMessageClasses[cls.messageClasses].map(string), rank: cls.rank,
            instanceSize: cls.instanceSize,
            methods: methods[cls.methods].map { method in
                var described = ClassDescription.MethodDescription(selector: string(method.selector),
                                                                   types: string(method.types), imp: method.imp)
                described.implemented = method.implemented
                return described
            })
        description.address = cls.address
        return description
    }
}

/// What one load found (`PluginLoader.load`): a record per plugin file on
/// the search path, in search-path order, each made from the catalog when
/// first asked for. A render needs only the diagnostics and which plugins
/// loaded; the listing asks for every record.
public final class LoadedPlugins {
    /// One file found: plain integers, so a thousand of them cost nothing
    /// to keep or to free.
    struct Entry {
        /// The file's record in the catalog.
        var plugin: Int
        /// The search-path directory it was found in (by index).
        var directory: Int
    }

    let catalog: PluginCatalog
    /// The search path's directories.
    let directories: [String]
    let entries: [Entry]
    /// Why an entry failed when its record does not say (a duplicate id), by entry.
    let failures: [Int: String]
    /// The classes linking refused, after those the record lists, by entry.
    let rejections: [Int: [PluginRecord.RejectedClass]]
    /// The classes of the loaded plugins, linked on first use.
    let classes: PluginClasses?
    private var made: [PluginRecord]?

    init(catalog: PluginCatalog, directories: [String], entries: [Entry], failures: [Int: String],
         rejections: [Int: [PluginRecord.RejectedClass]], classes: PluginClasses?) {
        self.catalog = catalog
        self.directories = directories
        self.entries = entries
        self.failures = failures
        self.rejections = rejections
        self.classes = classes
    }

    /// Every file's record: loaded or failed, and, when loaded, the classes
    /// accepted into the runtime (those refused are in `rejectedClasses`).
    public var records: [PluginRecord] {
        if let made { return made }
        let records = entries.indices.map(record)
        made = records
        return records
    }

    /// The one-line diagnostics of every record, as `FILE: reason`.
    public var diagnostics: [String] {
        entries.indices.flatMap { index -> [String] in
            let plugin = catalog.plugins[entries[index].plugin]
            guard plugin.failure != nil || !plugin.rejected.isEmpty || failures[index] != nil || rejections[index] != nil else {
                return []
            }
            return record(index).diagnostics
        }
    }

    /// The entries of the plugins that loaded, in the order found.
    var loaded: [Int] {
        entries.indices.filter(isLoaded)
    }

    /// Whether the plugin of entry `index` loaded.
    func isLoaded(_ index: Int) -> Bool {
        let plugin = catalog.plugins[entries[index].plugin]
        return plugin.failure == nil && plugin.id != nil && failures[index] == nil
    }

    /// The plugin id of entry `index`, when it has one.
    func id(of index: Int) -> String? { catalog.string(catalog.plugins[entries[index].plugin].id) }

    /// The directories (as their files' paths name them: no trailing
    /// slash) that hold a plugin that loaded.
    var loadedDirectories: [String] {
        var holds = [Bool](repeating: false, count: directories.count)
        for index in entries.indices where isLoaded(index) { holds[entries[index].directory] = true }
        return directories.indices.filter { holds[$0] }.map { Self.named(directories[$0]) }
    }

    /// A search-path directory as its files' paths name it.
    static func named(_ directory: String) -> String {
        directory.hasSuffix("/") ? String(directory.dropLast()) : directory
    }

    /// The records of the plugins that loaded, in the order found, with the
    /// classes accepted into the runtime only: what a render worker links.
    static func catalogOfLoaded(_ loads: [LoadedPlugins]) -> PluginCatalog {
        var encoder = PluginCatalogEncoder()
        for load in loads {
            for index in load.loaded {
                encoder.append(load.catalog, plugin: load.entries[index].plugin) { load.classes?.isAccepted($0) ?? false }
            }
        }
        var writer = WireWriter()
        encoder.encode(into: &writer)
        var reader = WireReader(writer.bytes)
        // What the encoder wrote always decodes.
        return (try? PluginCatalog.decode(&reader)) ?? PluginCatalog()
    }

    private func record(_ index: Int) -> PluginRecord {
        var record = catalog.record(entries[index].plugin)
        if let failure = failures[index] { record.state = .failed(failure) }
        if let rejected = rejections[index] {
            let names = Set(rejected.map(\.name))
            record.rejectedClasses += rejected
            record.classes.removeAll { names.contains($0.name) }
        }
        return record
    }
}

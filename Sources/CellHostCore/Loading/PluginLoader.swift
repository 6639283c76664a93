import CellHostABI
import Glibc

/// Finds plugin files along a search path, has them described, and links
/// their classes into a runtime.
///
/// Every file gets a record: loaded, or failed with a one-line reason. One
/// bad file never stops the others from loading.
public struct PluginLoader {
    /// How plugin files are described.
    public enum Description {
        /// Each file is opened in this process (its constructors and `init`
        /// run here): what an embedding program gets by default. A plugin
        /// that crashes while loading takes the process with it.
        case inProcess
        /// Files are described by `scanner` in child processes, through
        /// `cache` when there is one (`rescan` ignores what it holds). The
        /// libraries are opened in this process only when one of their
        /// classes is first used.
        case scanner(PluginScanner, cache: PluginCache?, rescan: Bool)
    }

    public let searchPath: PluginSearchPath
    public var description: Description
    /// Accept files that fail `PluginFilePolicy` (`--allow-insecure-plugins`).
    public var allowInsecure: Bool

    public init(searchPath: PluginSearchPath, description: Description = .inProcess, allowInsecure: Bool = false) {
        self.searchPath = searchPath
        self.description = description
        self.allowInsecure = allowInsecure
    }

    /// What loading found: a record per file, and warnings about the cache.
    public struct Result {
        public var records: [PluginRecord]
        public var warnings: [String]
    }

    /// Loads every plugin on the search path into `runtime`. Plugins are found
    /// in search-path order (the first of two with one id wins) and registered
    /// from the last directory to the first, each directory in file-name
    /// order, so on equal rank a plugin from an earlier directory (say
    /// `--plugin-path`) beats one from a later one (the shipped plugins).
    public func load(into runtime: Runtime) -> Result {
        var files: [(file: String, directoryIndex: Int)] = []
        for (directoryIndex, directory) in searchPath.directories.enumerated() {
            for file in PluginSearchPath.candidates(in: directory) { files.append((file, directoryIndex)) }
        }
        var records = files.map { PluginRecord(file: $0.file, state: .loaded) }
        var warnings: [String] = []
        var acceptable: [Int] = []
        // One stat per file: for the policy and for the cache's identity.
        var identities: [FileIdentity?] = Array(repeating: nil, count: files.count)
        var directoryProblems: [Int: String?] = [:]
        for (index, found) in files.enumerated() {
            var info = stat()
            let exists = stat(found.file, &info) == 0
            if exists { identities[index] = FileIdentity(path: found.file, info: info) }
            if !allowInsecure {
                let directoryProblem: String?
                if let known = directoryProblems[found.directoryIndex] {
                    directoryProblem = known
                } else {
                    directoryProblem = PluginFilePolicy.problem(directory: searchPath.directories[found.directoryIndex])
                    directoryProblems[found.directoryIndex] = .some(directoryProblem)
                }
                let fileProblem = exists ? PluginFilePolicy.problem(file: found.file, info: info) : nil
                if let problem = directoryProblem ?? fileProblem {
                    records[index].state = .failed(problem)
                    continue
                }
            }
            acceptable.append(index)
        }
        var plugins: [Int: LazyPlugin] = [:]
        switch description {
        case .inProcess:
            for index in acceptable {
                if let library = PluginLibrary.open(records[index].file, record: &records[index], runtime: runtime) {
                    plugins[index] = LazyPlugin(opened: library)
                }
            }
        case let .scanner(scanner, cache, rescan):
            let described = describe(acceptable.map { records[$0].file }, identities: acceptable.map { identities[$0] },
                                     scanner: scanner, cache: cache, rescan: rescan, warnings: &warnings)
            for (index, (record, identity)) in zip(acceptable, described) {
                records[index] = record
                guard record.isLoaded, let id = record.id else { continue }
                plugins[index] = LazyPlugin(file: record.file, pluginID: id, identity: identity,
                                            context: PluginHostContext(pluginID: id))
            }
        }
        // The first plugin found with an id wins.
        var owners: [String: String] = [:]
        for index in records.indices {
            guard let plugin = plugins[index] else { continue }
            if let first = owners[plugin.pluginID] {
                records[index].state = .failed("duplicate plugin id '\(plugin.pluginID)' (already loaded from \(first))")
                plugins[index] = nil
            } else {
                owners[plugin.pluginID] = records[index].file
                plugin.context.runtime = runtime
                runtime.pluginContexts[plugin.pluginID] = plugin.context
            }
        }
        link(records: &records, plugins: plugins, directoryIndex: { files[$0].directoryIndex }, into: runtime)
        return Result(records: records, warnings: warnings)
    }

    /// Records (and file identities) for `files`, whose identities are
    /// `identities` (taken when they were found), from the cache where it
    /// holds the file as it is now, else from the scanner; writes the cache
    /// back when anything was scanned.
    private func describe(_ files: [String], identities: [FileIdentity?], scanner: PluginScanner, cache: PluginCache?,
                          rescan: Bool, warnings: inout [String]) -> [(PluginRecord, FileIdentity?)] {
        var cached: [String: PluginCache.Entry] = [:]
        if let cache, !rescan {
            let read = cache.load()
            cached = read.entries
            if let warning = read.warning { warnings.append(warning) }
        }
        var results: [(PluginRecord, FileIdentity?)?] = Array(repeating: nil, count: files.count)
        var misses: [Int] = []
        for (index, file) in files.enumerated() {
            if let identity = identities[index], let entry = cached[file], entry.identity == identity {
                results[index] = (entry.record, identity)
            } else {
                misses.append(index)
            }
        }
        if !misses.isEmpty {
            let scanned = scanner.scan(misses.map { files[$0] })
            for (index, record) in zip(misses, scanned) { results[index] = (record, identities[index]) }
            if let cache {
                var entries = cached
                for (index, record) in zip(misses, scanned) {
                    if let identity = identities[index] { entries[files[index]] = .init(identity: identity, record: record) }
                }
                // Entries of files that are gone or changed are dropped.
                let kept = entries.values.filter { FileIdentity(path: $0.identity.path) == $0.identity }
                if let problem = cache.store(kept) { warnings.append(problem) }
            }
        }
        return results.map { $0! }
    }

    /// Links the classes of `records` (described elsewhere; loaded ones only)
    /// into `runtime`, each plugin's library opened when first used: what a
    /// render worker does with the host's records.
    static func link(described records: [PluginRecord], into runtime: Runtime) {
        var records = records.filter { $0.isLoaded && $0.id != nil }
        var plugins: [Int: LazyPlugin] = [:]
        for (index, record) in records.enumerated() {
            let plugin = LazyPlugin(file: record.file, pluginID: record.id!, identity: nil,
                                    context: PluginHostContext(pluginID: record.id!))
            plugin.context.runtime = runtime
            runtime.pluginContexts[plugin.pluginID] = plugin.context
            plugins[index] = plugin
        }
        PluginLoader(searchPath: PluginSearchPath(directories: []))
            .link(records: &records, plugins: plugins, directoryIndex: { _ in 0 }, into: runtime)
    }

    /// Declares message classes and links classes, later directories first.
    private func link(records: inout [PluginRecord], plugins: [Int: LazyPlugin], directoryIndex: (Int) -> Int,
                      into runtime: Runtime) {
        let ordered = plugins.keys.sorted {
            directoryIndex($0) != directoryIndex($1) ? directoryIndex($0) > directoryIndex($1) : $0 < $1
        }
        for index in ordered {
            let id = plugins[index]!.pluginID
            if records[index].threadSafe { runtime.threadSafePlugins.insert(id) }
            for declaration in records[index].messageClasses {
                if let refusal = runtime.registry.declare(declaration.name, parent: declaration.parent, by: id) {
                    runtime.log(plugin: id, level: Int32(CELLHOST_LOG_WARNING), message: refusal)
                }
            }
        }
        var batch: [(description: ClassDescription, pluginID: String)] = []
        var lazy: [String: LazyPlugin] = [:]
        for index in ordered {
            let plugin = plugins[index]!
            for description in records[index].classes { batch.append((description, plugin.pluginID)) }
            if case .pending = plugin.state { lazy[plugin.pluginID] = plugin }
        }
        // Rejections grouped by plugin once, not searched per plugin.
        var rejected: [String: [PluginRecord.RejectedClass]] = [:]
        for (pluginID, rejection) in runtime.link(batch, lazy: lazy) {
            rejected[pluginID, default: []].append(.init(name: rejection.className, reason: rejection.reason))
        }
        guard !rejected.isEmpty else { return }
        for index in ordered {
            guard let classes = rejected[plugins[index]!.pluginID] else { continue }
            let names = Set(classes.map(\.name))
            records[index].rejectedClasses += classes
            records[index].classes.removeAll { names.contains($0.name) }
        }
    }
}

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
        /// A record per file found, in search-path order (made when first read).
        public var records: [PluginRecord] { plugins.records }
        public var warnings: [String]
        /// The same, as loaded.
        public let plugins: LoadedPlugins
    }

    /// A plugin file on the search path, stat'ed once: for the policy and
    /// for the cache's identity.
    private struct FoundFile {
        let candidate: PluginSearchPath.Candidate
        let directoryIndex: Int
        var path: String { candidate.path }
        var identity: FileIdentity? { candidate.status?.identity }
    }

    /// Loads every plugin on the search path into `runtime`. Plugins are found
    /// in search-path order (the first of two with one id wins) and registered
    /// from the last directory to the first, each directory in file-name
    /// order, so on equal rank a plugin from an earlier directory (say
    /// `--plugin-path`) beats one from a later one (the shipped plugins).
    /// Their classes are checked now and linked when first used.
    public func load(into runtime: Runtime) -> Result {
        var files: [FoundFile] = []
        for (directoryIndex, directory) in searchPath.directories.enumerated() {
            for candidate in PluginSearchPath.candidates(in: directory) {
                files.append(FoundFile(candidate: candidate, directoryIndex: directoryIndex))
            }
        }
        let refusals = allowInsecure ? Array(repeating: nil, count: files.count) : refusals(of: files)
        let acceptable = files.indices.filter { refusals[$0] == nil }
        var warnings: [String] = []
        // Each file's record in the catalog, and how its library is opened.
        let catalog: PluginCatalog
        var plugins = [Int](repeating: -1, count: files.count)
        var libraries = [PluginClasses.Library?](repeating: nil, count: files.count)
        switch description {
        case .inProcess:
            catalog = PluginCatalog()
            for index in acceptable {
                var record = PluginRecord(file: files[index].path, state: .loaded)
                if let library = PluginLibrary.open(files[index].path, record: &record, runtime: runtime) {
                    libraries[index] = .opened(LazyPlugin(opened: library))
                }
                plugins[index] = catalog.add(record)
            }
        case let .scanner(scanner, cache, rescan):
            let identities = acceptable.map { files[$0].identity }
            let described = describe(acceptable.map { files[$0].path }, identities: identities,
                                     scanner: scanner, cache: cache, rescan: rescan, warnings: &warnings)
            catalog = described.catalog
            for (index, (plugin, identity)) in zip(acceptable, zip(described.plugins, identities)) {
                plugins[index] = plugin
                if catalog.plugins[plugin].failure == nil { libraries[index] = .onFirstUse(identity) }
            }
        }
        for (index, refusal) in refusals.enumerated() {
            if let refusal { plugins[index] = catalog.add(PluginRecord(file: files[index].path, state: .failed(refusal))) }
        }
        var failures: [Int: String] = [:]
        // The first plugin found with an id wins.
        var owners = [Int32](repeating: -1, count: catalog.names.count)
        var found: [Int] = []
        for index in files.indices {
            guard let library = libraries[index], let id = catalog.plugins[plugins[index]].id else { continue }
            if owners[id.index] >= 0 {
                failures[index] = "duplicate plugin id '\(catalog.string(id))' (already loaded from \(files[Int(owners[id.index])].path))"
                continue
            }
            owners[id.index] = Int32(index)
            if case .opened(let plugin) = library {
                plugin.context.runtime = runtime
                runtime.linking.lock()
                runtime.pluginContexts[plugin.pluginID] = plugin.context
                runtime.linking.unlock()
            }
            found.append(index)
        }
        // Declared and linked from the last directory to the first.
        found.sort { files[$0].directoryIndex != files[$1].directoryIndex
            ? files[$0].directoryIndex > files[$1].directoryIndex : $0 < $1 }
        var rejections: [Int: [PluginRecord.RejectedClass]] = [:]
        var classes: PluginClasses?
        if !found.isEmpty {
            // Each directory as its files' paths name it (`RuntimeClass.directory`).
            let directories = searchPath.directories.map(LoadedPlugins.named)
            var members: [PluginClasses.Member] = []
            members.reserveCapacity(found.count)
            for index in found {
                if let library = libraries[index] {
                    members.append(PluginClasses.Member(plugin: plugins[index], library: library,
                                                        directory: directories[files[index].directoryIndex]))
                }
            }
            let linked = Self.link(catalog, members: members, into: runtime)
            for rejection in linked.rejections {
                rejections[found[rejection.member], default: []].append(
                    .init(name: rejection.rejection.className, reason: rejection.rejection.reason))
            }
            classes = linked.classes
        }
        let entries = files.indices.map { LoadedPlugins.Entry(plugin: plugins[$0], directory: files[$0].directoryIndex) }
        let loaded = LoadedPlugins(catalog: catalog, directories: searchPath.directories, entries: entries, failures: failures,
                                   rejections: rejections, classes: classes)
        return Result(warnings: warnings, plugins: loaded)
    }

    /// Why `PluginFilePolicy` refuses each file, if it does (its directory
    /// checked once).
    private func refusals(of files: [FoundFile]) -> [String?] {
        let user = geteuid()
        var checked = [Bool](repeating: false, count: searchPath.directories.count)
        var directoryProblems = [String?](repeating: nil, count: searchPath.directories.count)
        return files.map { found in
            if !checked[found.directoryIndex] {
                checked[found.directoryIndex] = true
                directoryProblems[found.directoryIndex] = PluginFilePolicy.problem(directory: searchPath.directories[found.directoryIndex],
                                                                                   user: user)
            }
            let directoryProblem = directoryProblems[found.directoryIndex]
            guard let status = found.candidate.status else { return directoryProblem }
            return directoryProblem ?? PluginFilePolicy.problem(file: found.path, owner: status.owner, mode: status.mode, user: user)
        }
    }

    /// The catalog of `files` (whose identities are `identities`, taken
    /// when they were found) and each file's record in it: from the cache
    /// where it holds the file as it is now, else from the scanner; writes
    /// the cache back when anything was scanned.
    private func describe(_ files: [String], identities: [FileIdentity?], scanner: PluginScanner, cache: PluginCache?,
                          rescan: Bool, warnings: inout [String]) -> (catalog: PluginCatalog, plugins: [Int]) {
        var cached: PluginCache.Contents?
        if let cache, !rescan {
            let read = cache.load()
            cached = read.contents
            if let warning = read.warning { warnings.append(warning) }
        }
        let catalog = cached?.catalog ?? PluginCatalog()
        var plugins = [Int](repeating: -1, count: files.count)
        var misses: [Int] = []
        for (index, file) in files.enumerated() {
            if let identity = identities[index], let plugin = cached?.plugin(for: file, identity: identity) {
                plugins[index] = plugin
            } else {
                misses.append(index)
            }
        }
        guard !misses.isEmpty else { return (catalog, plugins) }
        let scanned = scanner.scan(misses.map { files[$0] })
        for (index, record) in zip(misses, scanned) { plugins[index] = catalog.add(record) }
        guard let cache else { return (catalog, plugins) }
        var entries: [PluginCache.Entry] = []
        var replaced = Set<Int>()
        for index in misses {
            if let old = cached?.plugin(for: files[index]) { replaced.insert(old) }
            if let identity = identities[index] { entries.append(.init(plugin: plugins[index], identity: identity)) }
        }
        if let cached {
            for (plugin, stamp) in cached.stamps.enumerated() where !replaced.contains(plugin) {
                entries.append(.init(plugin: plugin, identity: FileIdentity(path: catalog.string(catalog.plugins[plugin].file), stamp: stamp)))
            }
        }
        // Entries of files that are gone or changed are dropped.
        let kept = entries.filter { FileIdentity(path: $0.identity.path) == $0.identity }
        if let problem = cache.store(kept, of: catalog) { warnings.append(problem) }
        return (catalog, plugins)
    }

    /// Links the classes of `catalog` (described elsewhere; loaded plugins
    /// only, in the order given), each plugin's library opened when first
    /// used: what a render worker and a check child do with the host's records.
    static func link(described catalog: PluginCatalog, into runtime: Runtime) {
        let members = catalog.plugins.indices.filter { catalog.plugins[$0].failure == nil && catalog.plugins[$0].id != nil }
        _ = link(catalog, members: members.map { PluginClasses.Member(plugin: $0, library: .onFirstUse(nil)) }, into: runtime)
    }

    /// `link(described:into:)` for records.
    static func link(described records: [PluginRecord], into runtime: Runtime) {
        let catalog = PluginCatalog()
        for record in records { catalog.add(record) }
        link(described: catalog, into: runtime)
    }

    /// Declares the members' message classes, then checks their classes and
    /// hands them to the runtime, to be linked on first use.
    private static func link(_ catalog: PluginCatalog, members: [PluginClasses.Member],
                             into runtime: Runtime) -> (classes: PluginClasses, rejections: [PluginClasses.Rejection]) {
        let classes = PluginClasses(catalog: catalog, members: members, runtime: runtime)
        var declarations: [MessageClassTree.Declaration] = []
        for (index, member) in members.enumerated() {
            let range = catalog.plugins[member.plugin].declarations
            guard !range.isEmpty else { continue }
            let id = classes.pluginID(of: index)
            for declaration in catalog.declarations[range] {
                declarations.append(.init(name: catalog.string(declaration.name), parent: catalog.string(declaration.parent),
                                          declaredBy: id))
            }
        }
        for (declaration, refusal) in zip(declarations, runtime.registry.declare(declarations)) {
            if let refusal { runtime.log(plugin: declaration.declaredBy, level: Int32(CELLHOST_LOG_WARNING), message: refusal) }
        }
        let rejections = classes.resolve()
        runtime.adopt(classes)
        return (classes, rejections)
    }
}

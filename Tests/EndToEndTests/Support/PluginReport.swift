import Foundation

/// The object `cellhost list-plugins --json` prints, field for field.
///
/// Decoding is deliberately strict: every key the contract always prints is
/// non-optional here (arrays included), and only the values the contract
/// shows as nullable are optionals. A host that drops or renames a key fails
/// decoding with the key's name.
struct PluginReport: Decodable {
    /// The host's ABI version, "major.minor".
    let abi: String
    /// Plugin directories in search order.
    let searchPath: [String]
    /// Every plugin file found, in load order (search-path order, then file name).
    let plugins: [PluginEntry]
    /// "<file>: <reason>" for every problem found while loading.
    let diagnostics: [String]
    /// The message-class tree, host and plugin declarations alike.
    let messageClasses: [MessageClassEntry]
    /// The effective registry: one row per message class.
    let registry: [RegistryRow]

    enum CodingKeys: String, CodingKey {
        case abi
        case searchPath = "search_path"
        case plugins
        case diagnostics
        case messageClasses = "message_classes"
        case registry
    }

    // MARK: Look-ups

    /// Entries whose file's last path component is `fileName`.
    func plugins(fileName: String) -> [PluginEntry] {
        plugins.filter { ($0.file as NSString).lastPathComponent == fileName }
    }

    /// The single entry for the file at `path` (compared after resolving symlinks
    /// in the directory part, since the host may print either form).
    func plugin(atPath path: String) -> PluginEntry? {
        let wanted = canonicalPath(path)
        return plugins.first { canonicalPath($0.file) == wanted }
    }

    /// The entries with plugin id `id`.
    func plugins(id: String) -> [PluginEntry] {
        plugins.filter { $0.id == id }
    }

    /// The registry row of `messageClass`.
    func row(_ messageClass: String) -> RegistryRow? {
        registry.first { $0.messageClass == messageClass }
    }

    func messageClass(_ name: String) -> MessageClassEntry? {
        messageClasses.first { $0.name == name }
    }

    /// Diagnostics mentioning `fileName`.
    func diagnostics(mentioning fileName: String) -> [String] {
        diagnostics.filter { $0.contains(fileName) }
    }
}

/// One plugin file and what became of it.
struct PluginEntry: Decodable {
    enum State: String, Decodable {
        case loaded
        case failed
    }

    /// Absolute path of the file.
    let file: String
    let state: State
    /// Why it failed; null when loaded.
    let error: String?
    let id: String?
    let version: String?
    /// The ABI version the plugin was built against, "major.minor".
    let abi: String?
    let description: String?
    let author: String?
    let license: String?
    /// The classes registered from this plugin (descriptor and run time).
    let classes: [ClassEntry]
    /// Classes refused at load time, with the reason.
    let rejectedClasses: [RejectedClass]
    /// The plugin registers classes from `init` (CELLHOST_PLUGIN_REGISTERS_AT_INIT).
    let registersAtInit: Bool
    /// Its classes may be called from several threads at once (CELLHOST_PLUGIN_THREAD_SAFE).
    let threadSafe: Bool

    enum CodingKeys: String, CodingKey {
        case file, state, error, id, version, abi, description, author, license, classes
        case rejectedClasses = "rejected_classes"
        case registersAtInit = "registers_at_init"
        case threadSafe = "thread_safe"
    }

    func `class`(_ name: String) -> ClassEntry? {
        classes.first { $0.name == name }
    }

    func rejectedClass(_ name: String) -> RejectedClass? {
        rejectedClasses.first { $0.name == name }
    }
}

struct ClassEntry: Decodable {
    let name: String
    let superclass: String
    let messageClasses: [String]
    let rank: Int
    let methods: [MethodEntry]

    enum CodingKeys: String, CodingKey {
        case name, superclass, rank, methods
        case messageClasses = "message_classes"
    }
}

struct MethodEntry: Decodable, Equatable {
    let selector: String
    let types: String
}

struct RejectedClass: Decodable {
    let name: String
    let reason: String
}

struct MessageClassEntry: Decodable {
    let name: String
    let parent: String?
    /// A plugin id, or "cellhost" for the host's own classes.
    let declaredBy: String

    enum CodingKeys: String, CodingKey {
        case name, parent
        case declaredBy = "declared_by"
    }
}

struct RegistryRow: Decodable {
    let messageClass: String
    let parent: String?
    /// The class that renders this message class; null when none is registered.
    let winner: Winner?
    /// The other candidates, still listed and usable.
    let shadowed: [Candidate]

    enum CodingKeys: String, CodingKey {
        case messageClass = "message_class"
        case parent, winner, shadowed
    }

    func shadowed(_ className: String) -> Candidate? {
        shadowed.first { $0.className == className }
    }
}

struct Winner: Decodable {
    let className: String
    /// The plugin id, "cellhost" for host classes.
    let plugin: String
    let rank: Int
    /// True when `--renderer` or the config file chose it.
    let override: Bool

    enum CodingKeys: String, CodingKey {
        case className = "class"
        case plugin, rank, override
    }
}

struct Candidate: Decodable {
    let className: String
    let plugin: String
    let rank: Int

    enum CodingKeys: String, CodingKey {
        case className = "class"
        case plugin, rank
    }
}

/// `path` with symlinks resolved (as far as they resolve), for comparing paths
/// the host may print canonicalised.
func canonicalPath(_ path: String) -> String {
    let url = URL(fileURLWithPath: path)
    // Resolve the directory, keep the last component as is: the file itself may
    // be a (dangling or looping) symlink under test.
    let dir = url.deletingLastPathComponent().resolvingSymlinksInPath()
    return dir.appendingPathComponent(url.lastPathComponent).standardizedFileURL.path
}

/// `path` with every symlink resolved, for comparing directories.
func canonicalDirectory(_ path: String) -> String {
    URL(fileURLWithPath: path).resolvingSymlinksInPath().standardizedFileURL.path
}

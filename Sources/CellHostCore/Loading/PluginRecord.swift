/// What the host knows about one plugin file: its metadata and classes when
/// it loaded, or why it did not. Records are plain data: they are made in
/// the scanner process and kept in the plugin cache (`PluginCache`).
public struct PluginRecord: Sendable, Codable {
    public enum State: Sendable, Equatable, Codable {
        case loaded
        case failed(String)
    }

    /// A class the host refused, and why.
    public struct RejectedClass: Sendable, Codable, Equatable {
        public var name: String
        public var reason: String
    }

    /// A message class the plugin declares, with its parent.
    public struct MessageClassDeclaration: Sendable, Codable, Equatable {
        public var name: String
        public var parent: String?
    }

    /// The ABI version a plugin was built against.
    public struct Version: Sendable, Codable, Equatable {
        public var major: UInt32
        public var minor: UInt32
    }

    public var file: String
    public var state: State
    public var id: String?
    public var version: String?
    /// The ABI the plugin was built against, when it could be read.
    public var abi: Version?
    public var description: String?
    public var author: String?
    public var license: String?
    /// The plugin registers classes from `init`
    /// (CELLHOST_PLUGIN_REGISTERS_AT_INIT), so describing it ran its `init`.
    public var registersAtInit = false
    /// Its classes may be called from several threads at once
    /// (CELLHOST_PLUGIN_THREAD_SAFE).
    public var threadSafe = false
    /// Classes accepted into the runtime (after linking; before it, every
    /// class the plugin described).
    public var classes: [ClassDescription] = []
    /// Classes refused, with the reason.
    public var rejectedClasses: [RejectedClass] = []
    /// Message classes the plugin declares (descriptor and `init`).
    public var messageClasses: [MessageClassDeclaration] = []

    init(file: String, state: State) {
        self.file = file
        self.state = state
    }

    public var isLoaded: Bool { state == .loaded }

    /// The reason a failed record failed.
    public var failure: String? {
        if case .failed(let reason) = state { return reason }
        return nil
    }

    /// The one-line diagnostics this record produces, as `FILE: reason`.
    public var diagnostics: [String] {
        var lines: [String] = []
        if let failure { lines.append("\(file): \(failure)") }
        for rejected in rejectedClasses {
            lines.append("\(file): class '\(rejected.name)' rejected: \(rejected.reason)")
        }
        return lines
    }
}

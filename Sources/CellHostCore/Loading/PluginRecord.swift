/// What the host knows about one plugin file: its metadata and classes when
/// it loaded, or why it did not.
public struct PluginRecord: Sendable {
    public enum State: Sendable, Equatable {
        case loaded
        case failed(String)
    }

    public var file: String
    public var state: State
    public var id: String?
    public var version: String?
    /// The ABI the plugin was built against, when it could be read.
    public var abi: (major: UInt32, minor: UInt32)?
    public var description: String?
    public var author: String?
    public var license: String?
    /// Classes accepted into the runtime.
    public var classes: [ClassDescription] = []
    /// Classes refused, with the reason.
    public var rejectedClasses: [(name: String, reason: String)] = []

    init(file: String, state: State) {
        self.file = file
        self.state = state
    }

    public var isLoaded: Bool { state == .loaded }

    /// The one-line diagnostics this record produces, as `FILE: reason`.
    public var diagnostics: [String] {
        var lines: [String] = []
        if case .failed(let reason) = state { lines.append("\(file): \(reason)") }
        for rejected in rejectedClasses {
            lines.append("\(file): class '\(rejected.name)' rejected: \(rejected.reason)")
        }
        return lines
    }
}

/// Where plugin code runs while rendering (`--isolation`).
public enum IsolationMode: String, CaseIterable, Sendable {
    /// Every plugin in the host process: fastest; a plugin that crashes
    /// ends the run (what was rendered before it is still written).
    case none
    /// Plugins installed with the host (beside the executable, or in the
    /// system plugin directories) in the host process; every other plugin in
    /// one supervised worker process.
    case auto
    /// Every plugin in one supervised worker process.
    case shared
    /// Every plugin in a supervised worker process of its own.
    case each
}

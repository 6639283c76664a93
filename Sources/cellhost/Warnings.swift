/// Warnings the command line prints on stderr: the run goes on.
extension CommandLineTool {
    /// The warning for an override naming a message class nothing declares or renders.
    static func unknownMessageClass(_ name: String) -> String {
        "no message class '\(name)' is declared or registered, so this override has no effect"
    }
}

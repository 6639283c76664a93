import CellHostCore

/// Warnings the command line prints on stderr: the run goes on.
extension CommandLineTool {
    /// The warning for an override naming a message class nothing declares or renders.
    static func unknownMessageClass(_ name: String) -> String {
        "no message class '\(name)' is declared or registered, so this override has no effect"
    }

    /// The media message classes the shipped plugins render: when no plugin
    /// does, their messages still render, through fallbacks (the text cell or
    /// `UnknownMessageCell`'s "Unsupported message type"), which is correct
    /// output but almost always a broken installation.
    static let mediaMessageClasses = ["file", "image", "voice"]

    /// The media message classes no plugin class renders: neither a plugin's
    /// candidate nor an override with a plugin's class (the host's own
    /// classes do not count).
    static func mediaClassesWithoutPlugin(_ host: CellHost) -> [String] {
        let registry = host.runtime.registry
        return mediaMessageClasses.filter { messageClass in
            if let forced = registry.overrideClass(for: messageClass), forced.pluginID != "cellhost" { return false }
            return !registry.candidates(for: messageClass).contains { $0.cls.pluginID != "cellhost" }
        }
    }

    /// The one line `render` prints when `missing` is not empty:
    /// `no plugin renders file, image or voice messages; they are shown by
    /// fallbacks (see cellhost list-plugins)`.
    static func missingMediaPlugins(_ missing: [String]) -> String? {
        guard let last = missing.last else { return nil }
        let names = missing.count == 1 ? last : missing.dropLast().joined(separator: ", ") + " or " + last
        return "no plugin renders \(names) messages; they are shown by fallbacks (see cellhost list-plugins)"
    }
}

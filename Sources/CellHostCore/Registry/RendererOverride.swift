/// A `--renderer TYPE=CLASS` override.
public struct RendererOverride: Sendable, Equatable {
    public var messageClass: String
    public var className: String

    /// Parses `TYPE=CLASS`, or returns nil when it is not of that form.
    public init?(argument: String) {
        guard let equals = argument.firstIndex(of: "=") else { return nil }
        messageClass = String(argument[..<equals])
        className = String(argument[argument.index(after: equals)...])
        guard !messageClass.isEmpty, !className.isEmpty else { return nil }
    }

    public init(messageClass: String, className: String) {
        self.messageClass = messageClass
        self.className = className
    }
}

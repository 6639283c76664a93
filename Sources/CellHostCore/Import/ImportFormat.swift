/// The inputs `cellhost render` reads: its own JSON Lines, and the chat
/// exports it imports.
public enum ImportFormat: String, CaseIterable, Sendable {
    case cellhost, telegram, matrix, discord, slack, whatsapp

    /// How the format is named to users (`--verbose`, diagnostics).
    public var title: String {
        switch self {
        case .cellhost: return "CellHost JSON Lines"
        case .telegram: return "Telegram Desktop export (JSON)"
        case .matrix: return "Matrix events (Element export, /messages, /sync or single events)"
        case .discord: return "DiscordChatExporter JSON"
        case .slack: return "Slack export"
        case .whatsapp: return "WhatsApp chat export (text)"
        }
    }

    /// Every format's name, for `--from` and diagnostics.
    public static var names: String { allCases.map(\.rawValue).joined(separator: ", ") }
}

extension ImportFormat {
    /// The importer of the format; nil for CellHost's own JSON Lines, which
    /// the render path reads directly.
    var importer: ChatImporter.Type? {
        switch self {
        case .cellhost: return nil
        case .discord: return DiscordImporter.self
        case .slack: return SlackImporter.self
        case .whatsapp: return WhatsAppImporter.self
        case .matrix: return MatrixImporter.self
        case .telegram: return TelegramImporter.self
        }
    }
}

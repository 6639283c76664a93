extension ImportFormat {
    /// The importer of the format; nil for CellHost's own JSON Lines, which
    /// the render path reads directly.
    var importer: ChatImporter.Type? {
        switch self {
        case .cellhost: return nil
        case .telegram: return TelegramImporter.self
        case .matrix, .discord, .slack, .whatsapp: return nil
        }
    }
}

extension ImportFormat {
    /// The importer of the format; nil for CellHost's own JSON Lines, which
    /// the render path reads directly.
    var importer: ChatImporter.Type? {
        switch self {
        case .cellhost: return nil
        case .matrix: return MatrixImporter.self
        case .telegram, .discord, .slack, .whatsapp: return nil
        }
    }
}

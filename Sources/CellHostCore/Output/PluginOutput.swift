import CellHostABI

/// `--images none|symbols`: whether cells draw picture previews.
public enum ImageMode: String, Sendable, CaseIterable, Codable {
    /// No previews.
    case none
    /// Previews made of characters and colours (preformatted rows).
    case symbols
}

/// What the "cellhost.output" extension (output.h) tells plugins about the
/// run: the format, the colours, and the user's image settings.
public struct PluginOutput: Sendable, Equatable, Codable {
    public var format: String
    /// 0 none, 1 16 colours, 2 256, 3 truecolor (`cellhost_color_depth`).
    public var colors: UInt32
    public var images: ImageMode
    /// The most rows a picture may take; at least 1.
    public var imageRows: Int

    /// The default rows of a picture (`--image-rows`).
    public static let defaultImageRows = 12

    public init(settings: OutputSettings, images: ImageMode = .symbols, imageRows: Int = PluginOutput.defaultImageRows) {
        format = settings.format.rawValue
        // JSON and HTML carry colours at 24 bits (`rows` of each message), whatever the terminal.
        switch settings.format == .json || settings.format == .html ? .trueColor : settings.depth {
        case .none: colors = UInt32(CELLHOST_COLORS_NONE)
        case .ansi16: colors = UInt32(CELLHOST_COLORS_16)
        case .ansi256: colors = UInt32(CELLHOST_COLORS_256)
        case .trueColor: colors = UInt32(CELLHOST_COLORS_TRUECOLOR)
        }
        // A page shows pictures itself (`<img>` from the message's payload):
        // cells are told to draw no preview.
        self.images = settings.format == .html ? .none : images
        self.imageRows = max(1, imageRows)
    }

    /// Plain output, no colours, symbol previews: what a runtime starts with.
    public static let standard = PluginOutput(settings: OutputSettings(format: .plain, depth: .none, width: 80))

    /// Fills a plugin's (possibly older, smaller) `cellhost_output_info`.
    func fill(_ out: UnsafeMutablePointer<cellhost_output_info>) {
        let size = min(Int(out.pointee.struct_size), MemoryLayout<cellhost_output_info>.size)
        guard size > MemoryLayout<UInt32>.size else { return }
        var info = cellhost_output_info()
        info.struct_size = out.pointee.struct_size
        switch format {
        case OutputFormat.ansi.rawValue: info.format = cellhost_output_format(CELLHOST_FORMAT_ANSI)
        case OutputFormat.json.rawValue: info.format = cellhost_output_format(CELLHOST_FORMAT_JSON)
        case OutputFormat.html.rawValue: info.format = cellhost_output_format(CELLHOST_FORMAT_HTML)
        default: info.format = cellhost_output_format(CELLHOST_FORMAT_PLAIN)
        }
        info.colors = colors
        info.images = cellhost_image_mode(images == .symbols ? CELLHOST_IMAGES_SYMBOLS : CELLHOST_IMAGES_NONE)
        info.image_rows = UInt32(clamping: imageRows)
        withUnsafeBytes(of: &info) { source in
            guard let base = source.baseAddress else { return }
            UnsafeMutableRawPointer(out).copyMemory(from: base, byteCount: size)
        }
    }
}

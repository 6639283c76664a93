/// What `--format html` embeds and links (docs/cli.md, "Formats").
public struct HTMLSettings: Sendable, Equatable {
    /// Pictures as `<img>` (`--images symbols`, the default); with
    /// `--images none`, only what the cell writes (name, size, caption).
    public var pictures: Bool
    /// Media files of at most this many bytes are embedded in the page as
    /// `data:` URIs; larger ones are linked.
    public var embedLimit: Int
    /// The absolute directory that links to media files are relative to
    /// (where the page will be): nil means the current directory.
    public var linkBase: String?
    /// The page's `<title>` (escaped when written).
    public var title: String

    /// 2 MiB: a photo from a phone, scaled for sending, fits; a page of a few
    /// hundred of them stays openable.
    public static let defaultEmbedLimit = 2 << 20

    public init(pictures: Bool = true, embedLimit: Int = HTMLSettings.defaultEmbedLimit, linkBase: String? = nil,
                title: String = "CellHost transcript") {
        self.pictures = pictures
        self.embedLimit = max(0, embedLimit)
        self.linkBase = linkBase
        self.title = title
    }
}

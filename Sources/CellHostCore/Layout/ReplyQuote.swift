/// A reply's quote of the message it answers, as the chrome draws it:
/// "↪ sender: preview", where the preview is the first `previewLength`
/// characters of the quoted message's plain text, as UTF-8 in one buffer
/// that each slot reuses, so a quote makes no `String` (only `--format
/// html` asks for them) and the chrome fits the line as it is.
struct ReplyQuote {
    /// The characters of a preview.
    static let previewLength = 120

    /// "↪ ", the sender's name and ": " (without a name, neither), then the preview.
    private(set) var line: [UInt8] = []
    /// Where the sender's name is in `line`.
    private var sender = 0..<0
    /// Where the preview starts in `line`.
    private var previewStart = 0
    /// The quoted message was found: without it, the chrome shows the
    /// id the reply names.
    private(set) var isFound = false

    /// Forgets the quote (a message that quotes nothing, or an id not
    /// found); the bytes stay until the next `start`.
    mutating func clear() {
        isFound = false
    }

    /// Starts a found quote with the quoted sender's name and an empty preview.
    mutating func start(sender name: String) {
        line.removeAll(keepingCapacity: true)
        for byte: UInt8 in [0xE2, 0x86, 0xAA, 0x20] { line.append(byte) } // "↪ "
        var name = name
        name.withUTF8 { line.append(contentsOf: $0) }
        sender = 4..<line.count
        if !name.isEmpty {
            line.append(0x3A) // ": "
            line.append(0x20)
        }
        previewStart = line.count
        isFound = true
    }

    /// Adds to the preview (cut to its length by `endPreview`).
    mutating func appendPreview(_ text: UnsafeBufferPointer<UInt8>) { line.append(contentsOf: text) }

    mutating func appendPreview(_ byte: UInt8) { line.append(byte) }

    mutating func appendPreview(_ text: String) { line += text.utf8 }

    /// Cuts the preview to its first `previewLength` characters.
    mutating func endPreview() {
        CharacterPrefix.cut(&line, from: previewStart, toCharacters: ReplyQuote.previewLength)
    }

    /// The sender and preview as strings, for the HTML page; nil when the
    /// quoted message was not found.
    var strings: (sender: String, preview: String)? {
        guard isFound else { return nil }
        return line.withUnsafeBufferPointer {
            (String(decoding: UnsafeBufferPointer(rebasing: $0[sender]), as: UTF8.self),
             String(decoding: UnsafeBufferPointer(rebasing: $0[previewStart...]), as: UTF8.self))
        }
    }
}

/// A reply's quote of the message it answers, as the chrome draws it: the
/// quoted sender's name and the first `previewLength` characters of the
/// quoted message's plain text, as UTF-8 in one buffer that each slot
/// reuses, so a quote makes no `String` (only `--format html` asks for them).
struct ReplyQuote {
    /// The characters of a preview.
    static let previewLength = 120

    /// The sender's name, then the preview.
    private(set) var bytes: [UInt8] = []
    /// Where the sender's name ends and the preview starts in `bytes`.
    private(set) var senderEnd = 0
    /// The quoted message was found: without it, the chrome shows the
    /// id the reply names.
    private(set) var isFound = false

    /// Forgets the quote (a message that quotes nothing, or an id not found).
    mutating func clear() {
        bytes.removeAll(keepingCapacity: true)
        senderEnd = 0
        isFound = false
    }

    /// Starts a found quote with the quoted sender's name and an empty preview.
    mutating func start(sender: String) {
        clear()
        bytes += sender.utf8
        senderEnd = bytes.count
        isFound = true
    }

    /// Adds to the preview (cut to its length by `endPreview`).
    mutating func appendPreview(_ text: UnsafeBufferPointer<UInt8>) { bytes.append(contentsOf: text) }

    mutating func appendPreview(_ byte: UInt8) { bytes.append(byte) }

    mutating func appendPreview(_ text: String) { bytes += text.utf8 }

    /// Cuts the preview to its first `previewLength` characters.
    mutating func endPreview() {
        CharacterPrefix.cut(&bytes, from: senderEnd, toCharacters: ReplyQuote.previewLength)
    }

    /// Calls `body` with the sender's name and the preview.
    func withParts<Result>(_ body: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        bytes.withUnsafeBufferPointer {
            body(UnsafeBufferPointer(rebasing: $0[..<senderEnd]), UnsafeBufferPointer(rebasing: $0[senderEnd...]))
        }
    }

    /// The sender and preview as strings, for the HTML page; nil when the
    /// quoted message was not found.
    var strings: (sender: String, preview: String)? {
        guard isFound else { return nil }
        return withParts { (String(decoding: $0, as: UTF8.self), String(decoding: $1, as: UTF8.self)) }
    }
}

/// Android's poll, as its export writes it:
///
///     POLL:
///     Where do we eat?
///     OPTION: Pizza (2 votes)
///     OPTION: Sushi (1 vote)
///
/// The votes are counts only (the export does not say who voted, nor
/// whether the poll is closed).
enum WhatsAppPoll {
    /// The poll `body` is, or nil when it is not exactly this shape (then it
    /// is shown as the text it is).
    static func parse(_ body: String) -> ImportedMessage.Poll? {
        var lines = body.split(separator: "\n", omittingEmptySubsequences: false).map { $0.trimmingSpacesSubstring }
        guard let first = lines.first, first.hasPrefix("POLL:") else { return nil }
        lines.removeFirst()
        var poll = ImportedMessage.Poll()
        let inline = first.dropFirst(5).trimmingSpacesSubstring
        if !inline.isEmpty {
            poll.question = String(inline)
        } else {
            guard let question = lines.first, !question.isEmpty, !question.hasPrefix("OPTION:") else { return nil }
            poll.question = String(question)
            lines.removeFirst()
        }
        for line in lines where !line.isEmpty {
            guard line.hasPrefix("OPTION:"), let option = option(line.dropFirst(7).trimmingSpacesSubstring) else { return nil }
            poll.options.append(option)
        }
        return poll.options.isEmpty ? nil : poll
    }

    /// `Pizza (2 votes)`: the text and the count (0 when it has none).
    private static func option(_ text: Substring) -> (text: String, votes: Int64, chosen: Bool)? {
        guard text.hasSuffix(" vote)") || text.hasSuffix(" votes)"), let open = text.lastIndex(of: "(") else {
            return text.isEmpty ? nil : (String(text), 0, false)
        }
        let count = text[text.index(after: open)...].prefix { $0.isASCII && $0.isNumber }
        let label = text[..<open].trimmingSpacesSubstring
        guard !label.isEmpty else { return nil }
        let votes = count.count <= 18 ? Int64(count) ?? 0 : Int64.max
        return (String(label), votes, false)
    }
}

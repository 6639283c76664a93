/// A Telegram `poll` as a CellHost poll: `question`, `closed`,
/// `total_voters` and `answers` (`text`, `voters`, `chosen` — whether the
/// exporter voted for it).
enum TelegramPoll {
    static func poll(_ node: TelegramNode) -> ImportedMessage.Poll {
        var poll = ImportedMessage.Poll()
        poll.question = node["question"].map(TelegramText.plain) ?? ""
        poll.closed = node["closed"]?.bool ?? false
        poll.totalVoters = node["total_voters"]?.count
        if let answers = node["answers"], answers.isArray {
            for answer in answers.elements.prefix(1000) where answer.isObject {
                let text = answer["text"].map(TelegramText.plain) ?? ""
                poll.options.append((text: text, votes: answer["voters"]?.count ?? 0, chosen: answer["chosen"]?.bool ?? false))
            }
        }
        return poll
    }
}

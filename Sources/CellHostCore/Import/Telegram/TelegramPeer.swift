/// Sender ids as CellHost shows them and `--me` matches them.
///
/// Newer exports name a sender `user123`, `channel456` or `chat789`; older
/// ones wrote the bare number, which is a user. Both become the same id
/// (`123` → `user123`), so one person has one id across exports and
/// `personal_information.user_id` (a bare number) names the same person.
/// A negative number (no exporter writes one for a user) is kept as it is.
enum TelegramPeer {
    /// The sender id of a `from_id` or `actor_id` value, or nil.
    static func sender(_ value: TelegramNode?) -> String? {
        guard let value else { return nil }
        switch value.kind {
        case .number:
            return value.integer.map { sender(fromNumber: String($0)) } ?? value.scalarText
        case .string:
            guard let text = value.nonEmptyString else { return nil }
            return isNumber(text) ? sender(fromNumber: text) : text
        default:
            return nil
        }
    }

    /// `user<n>` for a bare user number, the text itself for a negative one.
    static func sender(fromNumber text: String) -> String {
        text.hasPrefix("-") ? text : "user\(text)"
    }

    /// The bare number of a peer id (`channel123` → `123`), or nil when it has none.
    static func bareID(_ peer: String) -> String? {
        let digits = peer.drop { $0.isLetter }
        return isNumber(String(digits)) ? String(digits) : nil
    }

    /// True for an optional minus sign and 1 to 20 decimal digits.
    static func isNumber(_ text: String) -> Bool {
        let body = text.hasPrefix("-") ? text.utf8.dropFirst() : text.utf8[...]
        return !body.isEmpty && body.count <= 20 && body.allSatisfy { $0 &- 0x30 < 10 }
    }

    /// True for the id of a channel (whose posts may carry no author).
    static func isChannel(_ sender: String?) -> Bool { sender?.hasPrefix("channel") == true }
}

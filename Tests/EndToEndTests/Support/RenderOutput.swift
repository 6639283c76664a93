import Foundation

/// One object of `cellhost render --format json` output (one per message,
/// one per line).
struct RenderedMessage: Decodable {
    /// The message's id (null when the input had none).
    let id: String?
    /// The message's type as given (null when missing).
    let type: String?
    /// The class that rendered the message.
    let className: String
    /// The id of the plugin that owns that class ("cellhost" for host classes).
    let plugin: String
    /// How the host got to `className` when the first candidate did not render.
    let fallback: Fallback?
    /// The rendered lines, chrome included.
    let lines: [String]

    enum CodingKeys: String, CodingKey {
        case id, type
        case className = "class"
        case plugin, fallback, lines
    }
}

struct Fallback: Decodable {
    /// The candidates tried, in order, with what each one answered.
    let chain: [FallbackStep]
    let reason: String
}

struct FallbackStep: Decodable {
    enum Result: String, Decodable {
        case declined
        case error
        case unregistered
        case missingType = "missing type"
        case crashed
        case disabled
    }

    /// The message class the candidate was tried as.
    let messageClass: String
    /// nil for an "unregistered" or "missing type" step: no class was tried.
    let className: String?
    let plugin: String?
    let result: Result

    enum CodingKeys: String, CodingKey {
        case messageClass = "message_class"
        case className = "class"
        case plugin, result
    }
}

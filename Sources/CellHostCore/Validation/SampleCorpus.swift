/// The built-in messages `check-plugin` renders with each class, for each
/// message class it registers for: an ordinary message of that class, then
/// the same message damaged in one way each (docs/check-plugin.md lists them).
///
/// The ordinary message follows the shapes of `Examples/conversation.jsonl`
/// for the host's message classes (`text`, `file`, `image`, `voice`,
/// `poll`); any other class gets a generic message with a payload object
/// under its own name, plus common top-level fields (`n`, `count`, `value`,
/// `title`, `url`, `items`), so a cell reading either finds something.
public enum SampleCorpus {
    /// One sample: a stable name and a JSON object.
    public struct Sample: Sendable, Codable, Equatable {
        public var name: String
        public var json: String
    }

    /// The names of the built-in samples, in the order they are rendered.
    public static let names = [
        "ordinary", "empty-fields", "missing-fields", "number-for-string", "object-for-array", "string-for-object",
        "escape-sequences", "bidi-controls", "invalid-utf8", "long-word",
        "huge-number", "negative-number", "int64-overflow", "zero", "huge-array",
    ]

    /// Elements of every array in the `huge-array` sample.
    static let hugeArrayCount = 100_000
    /// Characters of the word in the `long-word` sample.
    static let longWordLength = 10_000

    /// The samples for `messageClass`, in `names` order.
    public static func samples(for messageClass: String) -> [Sample] {
        let ordinary = template(for: messageClass)
        return names.map { name in
            Sample(name: name, json: transform(ordinary, sample: name, messageClass: messageClass).json)
        }
    }

    // MARK: Values

    /// A JSON value that can also hold text that is already JSON (for
    /// escapes no Swift string can carry, such as a lone surrogate).
    indirect enum Value {
        case string(String)
        case raw(String)
        case number(String)
        case object([(String, Value)])
        case array([Value])
        /// An array of `count` copies of one value (serialized once).
        case repeated(Value, Int)

        var json: String {
            switch self {
            case .string(let text): return JSONText.quoted(text)
            case .raw(let text), .number(let text): return text
            case .object(let members):
                return "{" + members.map { JSONText.quoted($0.0) + ":" + $0.1.json }.joined(separator: ",") + "}"
            case .array(let elements): return "[" + elements.map(\.json).joined(separator: ",") + "]"
            case let .repeated(element, count):
                return "[" + Array(repeating: element.json, count: count).joined(separator: ",") + "]"
            }
        }
    }

    /// The ordinary message of `messageClass`.
    static func template(for messageClass: String) -> Value {
        var members: [(String, Value)] = [
            ("id", .string("sample-1")), ("type", .string(messageClass)),
            ("sender", .object([("id", .string("u-sample")), ("name", .string("Sam Sample"))])),
            ("time", .string("2026-11-28T09:14:00Z")),
        ]
        switch messageClass {
        case "text":
            members.append(("text", .string("Are we still on for the coast trip *tomorrow*? 🌊 https://example.org/trip")))
        case "file":
            members.append(("text", .string("📄 itinerary.pdf")))
            members.append(("file", .object([("name", .string("itinerary.pdf")), ("size", .number("1268")),
                                             ("mime", .string("application/pdf")), ("path", .string("media/itinerary.pdf"))])))
        case "image":
            members.append(("text", .string("Mochi is very upset that she's not invited 😾")))
            members.append(("image", .object([("path", .string("media/cat.png")), ("width", .number("64")),
                                              ("height", .number("48"))])))
        case "voice":
            members.append(("text", .string("🎤 Voice message (4.6 s)")))
            members.append(("voice", .object([("path", .string("media/voice-reply.ogg")), ("duration", .number("4.6")),
                                              ("waveform", .array(["86", "255", "98", "76", "82", "178", "128", "52"]
                                                                    .map { .number($0) }))])))
        case "poll":
            members.append(("text", .string("Poll: Where should we have lunch?")))
            let options: [Value] = [("Café Lumière", "2"), ("The Fish Shack", "1"), ("Picnic on the beach", "0")].map {
                .object([("text", .string($0.0)), ("votes", .number($0.1))])
            }
            members.append(("poll", .object([("question", .string("Where should we have lunch?")), ("options", .array(options))])))
        default:
            members.append(("text", .string("A sample \(messageClass) message")))
            members += [("n", .number("1")), ("count", .number("2")), ("value", .number("2.5")),
                        ("title", .string("Sample title")), ("url", .string("https://example.org/sample")),
                        ("items", .array([.string("first"), .string("second")]))]
            members.append((messageClass, .object([
                ("text", .string("Sample text")), ("title", .string("Sample title")), ("name", .string("sample")),
                ("count", .number("2")), ("value", .number("2.5")), ("url", .string("https://example.org/sample")),
                ("items", .array([.object([("text", .string("first")), ("value", .number("1"))])])),
            ])))
        }
        return .object(members)
    }

    /// The message `sample` makes of `ordinary`. The top-level `type` is
    /// kept in every sample, so the message stays of its class.
    static func transform(_ ordinary: Value, sample: String, messageClass: String) -> Value {
        if sample == "missing-fields" { return .object([("type", .string(messageClass))]) }
        guard case .object(let members) = ordinary else { return ordinary }
        return .object(members.map { key, value in key == "type" ? (key, value) : (key, map(value, sample)) })
    }

    private static func map(_ value: Value, _ sample: String) -> Value {
        switch value {
        case .string(let text):
            switch sample {
            case "empty-fields": return .string("")
            case "number-for-string": return .number("42")
            case "escape-sequences":
                return .string(text + " \u{1B}[2J\u{1B}[31mred\u{1B}]0;title\u{07}\u{1B}]52;c;cHduZWQ=\u{07}\u{9B}1m\r\u{08}")
            case "bidi-controls": return .string("\u{202E}" + text + "\u{202C} \u{2066}x\u{2069} \u{200B}\u{061C}")
            case "invalid-utf8": return .raw("\"\\udc80\\ud800 " + String(JSONText.quoted(text).dropFirst().dropLast()) + " \\udfff\"")
            case "long-word": return .string(String(repeating: "a", count: longWordLength) + "👩‍💻")
            default: return value
            }
        case .raw, .repeated: return value
        case .number:
            switch sample {
            case "huge-number": return .number("1e308")
            case "negative-number": return .number("-1")
            case "int64-overflow": return .number("9223372036854775808")
            case "zero": return .number("0")
            default: return value
            }
        case .object(let members):
            switch sample {
            case "empty-fields": return .object([])
            case "string-for-object": return .string("not an object")
            default: return .object(members.map { ($0.0, map($0.1, sample)) })
            }
        case .array(let elements):
            switch sample {
            case "empty-fields": return .array([])
            case "object-for-array": return .object([("0", elements.first.map { map($0, sample) } ?? .number("1"))])
            case "huge-array":
                let element = elements.first ?? .number("0")
                return .repeated(element, hugeArrayCount)
            default: return .array(elements.map { map($0, sample) })
            }
        }
    }
}

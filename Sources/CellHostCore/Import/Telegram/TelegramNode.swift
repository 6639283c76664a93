/// One value of a parsed Telegram message, read forgivingly.
///
/// Every field of an export can hold the wrong type (a hand-edited file, an
/// old exporter, a hostile input): each accessor answers nil instead of
/// trapping, and numbers are converted with checks, so no value can crash
/// the import.
struct TelegramNode {
    let document: JSONDocument
    let index: Int

    /// The value of `key` when this is an object and it has one that is not `null`.
    subscript(_ key: StaticString) -> TelegramNode? {
        guard let member = document.member(index, key), document.kind(member) != .null else { return nil }
        return TelegramNode(document: document, index: member)
    }

    var kind: JSONDocument.Kind { document.kind(index) }
    var isObject: Bool { kind == .object }
    var isArray: Bool { kind == .array }

    /// The string, or nil for any other kind.
    var string: String? { document.string(index) }

    /// The string when it is not empty.
    var nonEmptyString: String? {
        guard let text = string, !text.isEmpty else { return nil }
        return text
    }

    /// A string, or a number spelled as JSON spells it (ids are numbers in
    /// some exports and strings in others).
    var scalarText: String? {
        switch kind {
        case .string: return string
        case .number:
            if let integer = document.integer(index) { return String(integer) }
            return document.number(index).map { String($0) }
        default: return nil
        }
    }

    /// An integer: a JSON integer, or a string of decimal digits.
    var integer: Int64? {
        switch kind {
        case .number: return document.integer(index)
        case .string: return string.flatMap { Int64($0) }
        default: return nil
        }
    }

    /// An integer that is zero or more.
    var count: Int64? {
        guard let value = integer, value >= 0 else { return nil }
        return value
    }

    /// A finite number (or a string holding one).
    var number: Double? {
        let value: Double?
        switch kind {
        case .number: value = document.number(index)
        case .string: value = string.flatMap { $0.utf8.count <= 40 ? Double($0) : nil }
        default: value = nil
        }
        guard let value, value.isFinite else { return nil }
        return value
    }

    var bool: Bool? { document.bool(index) }

    /// The elements of an array (none for anything else).
    var elements: [TelegramNode] {
        document.elements(index).map { TelegramNode(document: document, index: $0) }
    }
}

/// One value of a parsed export object, read the tolerant way importers need:
/// every accessor returns nil (or an empty list) for a missing member or a
/// value of another type, so wrong types in an export never trap.
///
/// Used by the Discord and Slack importers on each captured message.
struct JSONView {
    let document: JSONDocument
    let node: Int

    /// The root of `document`.
    init(_ document: JSONDocument) {
        self.document = document
        self.node = JSONDocument.root
    }

    init(_ document: JSONDocument, node: Int) {
        self.document = document
        self.node = node
    }

    /// The member `key` of an object.
    subscript(key: StaticString) -> JSONView? {
        document.member(node, key).map { JSONView(document, node: $0) }
    }

    var kind: JSONDocument.Kind { document.kind(node) }
    var isObject: Bool { kind == .object }

    /// A string (nil for any other kind).
    var string: String? { document.string(node) }

    /// A string that is not empty.
    var text: String? { string.flatMap { $0.isEmpty ? nil : $0 } }

    /// An integer; also one written as a string of digits (`"42"`), as ids and
    /// sizes sometimes are.
    var integer: Int64? {
        if let value = document.integer(node) { return value }
        guard let text = string, !text.isEmpty, text.utf8.count <= 19,
              text.utf8.allSatisfy({ $0 &- 0x30 < 10 }) else { return nil }
        return Int64(text)
    }

    /// A number (finite), also one written as a decimal string.
    var number: Double? {
        if let value = document.number(node), value.isFinite { return value }
        guard let text = string, text.utf8.count <= 32,
              text.utf8.allSatisfy({ $0 &- 0x30 < 10 || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-") }),
              let value = Double(text), value.isFinite else { return nil }
        return value
    }

    var bool: Bool? { document.bool(node) }

    /// An id: a string, or an integer written as a number.
    var id: String? {
        if let text { return text }
        return document.integer(node).map { String($0) }
    }

    /// The elements of an array (none for any other kind).
    var elements: [JSONView] { document.elements(node).map { JSONView(document, node: $0) } }

    /// The members of an object, as key and value.
    var members: [(key: String, value: JSONView)] {
        var result: [(key: String, value: JSONView)] = []
        document.forEachMember(node) { key, value in
            var bytes: [UInt8] = []
            document.appendString(key, to: &bytes)
            result.append((String(decoding: bytes, as: UTF8.self), JSONView(document, node: value)))
        }
        return result
    }
}

/// Parses one captured export value, repairing invalid string escapes
/// (`\x41`, `\'`) that strict JSON refuses but some exporters write.
enum ExportValueParser {
    /// Parses `bytes` into `document`; on a syntax error, repairs invalid
    /// escapes (`\xNN` → `\u00NN`, any other bad `\c` → `\\c`), if there are
    /// any, and parses again. Returns true when escapes were repaired; throws
    /// when the value is broken otherwise.
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>, into document: inout JSONDocument) throws -> Bool {
        do {
            try document.parse(bytes)
            return false
        } catch {
            guard let repaired = repairEscapes(bytes) else { throw error }
            try repaired.withUnsafeBufferPointer { try document.parse($0) }
            return true
        }
    }

    /// `bytes` with invalid escapes inside strings rewritten; nil when there are none.
    static func repairEscapes(_ bytes: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        InvalidEscapes.repair(bytes)?.bytes
    }
}

/// One parsed Matrix event: typed, never-trapping reads of the fields the
/// importer uses, over a `JSONDocument`.
///
/// Every accessor answers nil (or the empty value) when a field is missing
/// or of the wrong type, so a hostile event can only lose fields, never stop
/// the import. Element's export of an encrypted event may be the pair
/// `{"decrypted":…,"encrypted":…}`: the decrypted event is read then.
struct MatrixEvent {
    let document: JSONDocument
    /// The node of the event object.
    let root: Int

    /// Reads the event at the root of `document`; nil when it is not an object.
    init?(_ document: JSONDocument) {
        guard document.rootKind == .object else { return nil }
        self.document = document
        var root = JSONDocument.root
        if document.member(root, "type") == nil, let decrypted = document.member(root, "decrypted"),
           document.kind(decrypted) == .object {
            root = decrypted
        }
        self.root = root
    }

    /// The event's `type`.
    var type: String? { string(root, "type") }
    var eventID: String? { string(root, "event_id") }
    var sender: String? { string(root, "sender") }
    var stateKey: String? { string(root, "state_key") }
    var isState: Bool { document.member(root, "state_key") != nil }

    /// The `content` object, when it is one.
    var content: Int? { object(root, "content") }

    /// `origin_server_ts` in milliseconds, when it is a number.
    var timestampNode: Int? { document.member(root, "origin_server_ts") }

    /// The time in seconds, or the field's text when it cannot be read as one.
    var time: (seconds: Double?, unreadable: String?) {
        guard let node = timestampNode else { return (nil, nil) }
        if let milliseconds = document.number(node), milliseconds.isFinite,
           let seconds = MessageTime.validated(milliseconds / 1000) {
            return (seconds, nil)
        }
        return (nil, preview(node))
    }

    /// The timestamp in milliseconds for ordering (nil when unreadable).
    var milliseconds: Double? {
        guard let node = timestampNode, let value = document.number(node), value.isFinite else { return nil }
        return value
    }

    /// `content.m.relates_to`.
    var relatesTo: Int? { content.flatMap { object($0, "m.relates_to") } }

    /// `unsigned`.
    var unsigned: Int? { object(root, "unsigned") }

    /// The previous content of a state event: `unsigned.prev_content`, or the
    /// older top-level `prev_content`.
    var previousContent: Int? {
        if let unsigned, let previous = object(unsigned, "prev_content") { return previous }
        return object(root, "prev_content")
    }

    /// True when the server says the event was redacted.
    var isRedacted: Bool {
        guard let unsigned else { return false }
        return document.member(unsigned, "redacted_because") != nil
    }

    // MARK: Reads

    /// The string member `key` of the object `node`.
    func string(_ node: Int, _ key: StaticString) -> String? {
        document.member(node, key).flatMap { document.string($0) }
    }

    /// The object member `key` of the object `node`.
    func object(_ node: Int, _ key: StaticString) -> Int? {
        guard let value = document.member(node, key), document.kind(value) == .object else { return nil }
        return value
    }

    /// The array member `key` of the object `node`.
    func array(_ node: Int, _ key: StaticString) -> Int? {
        guard let value = document.member(node, key), document.kind(value) == .array else { return nil }
        return value
    }

    /// The whole-number member `key` of `node`, clamped to `range`.
    func integer(_ node: Int, _ key: StaticString, in range: ClosedRange<Int64> = 0...Int64.max) -> Int64? {
        guard let value = document.member(node, key) else { return nil }
        if let integer = document.integer(value) { return min(max(integer, range.lowerBound), range.upperBound) }
        guard let number = document.number(value), number.isFinite else { return nil }
        if number <= Double(range.lowerBound) { return range.lowerBound }
        if number >= Double(range.upperBound) { return range.upperBound }
        return Int64(exactly: number.rounded()) ?? range.lowerBound
    }

    /// The numeric member `key` of `node`, when finite.
    func number(_ node: Int, _ key: StaticString) -> Double? {
        guard let value = document.member(node, key), let number = document.number(value), number.isFinite else { return nil }
        return number
    }

    /// The raw JSON text of a container node (to keep `m.new_content` for later).
    func rawBytes(_ node: Int) -> [UInt8] { document.rawBytes(node) }

    /// A short text for a value that could not be read (diagnostics, unreadable times).
    func preview(_ node: Int) -> String {
        if let text = document.string(node) { return String(text.prefix(64)) }
        let bytes = document.rawBytes(node)
        return String(decoding: bytes.prefix(64), as: UTF8.self)
    }
}

extension JSONDocument {
    /// The bytes of the value at `index` as they are in the input (whole
    /// containers and numbers; a string without its quotes).
    func rawBytes(_ index: Int) -> [UInt8] {
        let node = nodes[index]
        let start = Int(node.start)
        let end = Int(node.end)
        guard start >= 0, end >= start, end <= bytes.count else { return [] }
        return Array(bytes[start..<end])
    }
}

import CellHostABI
import Glibc

/// Delivery status of a message.
public enum DeliveryStatus: Int32, Sendable {
    case none = 0, sending, sent, delivered, read, failed
}

/// One message as the host sees it: the parsed JSON plus the fields the chrome
/// needs, read once. Reused for every message of a stream; what plugins get is
/// a `cellhost_message *` pointing at it.
public final class Message {
    /// The parsed object.
    public internal(set) var document = JSONDocument()
    /// The message class (`type`), "" when missing or not a string.
    public internal(set) var type = ""
    /// True when `type` was missing or unusable.
    public internal(set) var typeIsMissing = true
    public internal(set) var id = ""
    /// Where `id`'s bytes are in the document's bytes when it is a string
    /// without escapes (nil otherwise), so the owning thread can remember
    /// the record by them (`RecentRecords.remember(idAt:record:renderedBy:)`)
    /// without reading the `String`'s bytes.
    private(set) var rawID: Range<Int>?
    public internal(set) var senderID = ""
    public internal(set) var senderName = ""
    /// Seconds since the epoch, when the message has a usable time.
    public internal(set) var time: Double?
    /// The `time` field when it is there but could not be read (a short
    /// excerpt), so a run can report it rather than drop it silently.
    public internal(set) var unreadableTime: String?
    public internal(set) var status = DeliveryStatus.none
    public internal(set) var isOutgoing = false
    public internal(set) var isEdited = false
    public internal(set) var replyTo: String?
    /// True for `type` `system`: a line about the conversation (a join, a
    /// rename, a call), laid out centred with no sender or bubble.
    public internal(set) var isSystem = false
    /// A system message's `system.event` (`conversation` starts a new one).
    public internal(set) var systemEvent: String?

    /// The node of `text` (the first, as with `member`), found while loading.
    private(set) var textNode: Int?

    /// The node of `reactions` (the first, as with `member`), found while
    /// loading: the chrome looks for it on every message.
    private(set) var reactionsNode: Int?

    /// NUL-terminated copies of strings handed to plugins, valid until the
    /// message is reset (the end of the call that received it).
    let arena = StringArena()

    // The fields above are written or read for every message; they are
    // declared first so that they share the object's first four cache lines
    // (a render thread writes them into a slot's message that the output
    // thread read a ring ago). The caches below serve `load(_:me:)` alone.

    /// The date of the last timestamp `load(_:me:)` read (most messages of a stream share it).
    private var days = RFC3339.DayCache()
    /// The last values of `type`, `senderID` and `senderName`, and the last sender objects, `load(_:me:)` read.
    private var recent = RecentFields()

    /// The last distinct values of `type`, `senderID` and `senderName`
    /// (`RecentStrings`): a value that comes back makes no new `String`;
    /// and the last distinct `sender` objects with the id and name read
    /// from them (`RecentSenders`), so that a sender that comes back is
    /// not read again.
    struct RecentFields {
        var types = RecentStrings(), senderIDs = RecentStrings(), senderNames = RecentStrings()
        var senders = RecentSenders()
        /// `SmallASCII.layoutHolds`, read once.
        let smallASCII = SmallASCII.layoutHolds
    }

    public init() {}

    /// Parses `bytes` as a message. Throws when they are not a JSON object.
    public func load(_ bytes: UnsafeBufferPointer<UInt8>, me: String?) throws {
        try load(bytes, me: me, days: &days, recent: &recent)
    }

    /// `load(_:me:)` with the date of the last timestamp read kept in
    /// `days`, and the last values of the string fields in `recent`: a
    /// render thread's own (`CallState.days`, `CallState.recent`), shared
    /// by every message it parses, where a message's own would remember
    /// the record that used its slot a ring's length ago (and be cold in
    /// the cache by then).
    func load(_ bytes: UnsafeBufferPointer<UInt8>, me: String?, days: inout RFC3339.DayCache,
              recent: inout RecentFields) throws {
        arena.reset()
        try document.parse(bytes)
        try readFields(of: &document, me: me, days: &days, recent: &recent)
    }

    /// `load(_:me:days:recent:)` of the bytes in `record` (a render
    /// slot's), whose buffer the document takes rather than copying it;
    /// `record` gets the buffer the document held before
    /// (`JSONDocument.parse(taking:)`).
    func load(taking record: inout [UInt8], me: String?, days: inout RFC3339.DayCache,
              recent: inout RecentFields) throws {
        arena.reset()
        try document.parse(taking: &record)
        try readFields(of: &document, me: me, days: &days, recent: &recent)
    }

    /// Reads the fields the host needs from the document just parsed
    /// (`self.document`, lent `inout` only so that it is read in place: a
    /// copy of the stored property would retain and release its three
    /// buffers on every message). Must not touch `self.document` itself.
    /// Throws when it is not an object.
    private func readFields(of document: inout JSONDocument, me: String?, days: inout RFC3339.DayCache,
                            recent: inout RecentFields) throws {
        guard document.kind(JSONDocument.root) == .object else {
            let kind = document.kind(JSONDocument.root)
            throw JSONSyntaxError(offset: 0, reason: "expected a JSON object, found \(kind == .array ? "an array" : "a bare value")")
        }
        let root = JSONDocument.root
        // One pass over the top-level members finds every field the host reads
        // (the first of repeated keys wins, as with `member`).
        var fields = Fields()
        if !fields.read(document.nodes, document.bytes) {
            // An escaped key may spell a field name with other bytes: every
            // key is compared decoded, in order.
            fields = Fields()
            document.forEachMember(root) { key, value in
                for name in Fields.names { fields.take(document, key, value, named: name) }
            }
        }
        textNode = fields.text
        reactionsNode = fields.reactions
        if let node = fields.type, recent.types.assign(document, node, to: &type), !type.isEmpty, type.utf8.count <= 64 {
            typeIsMissing = false
        } else {
            type = ""
            typeIsMissing = true
        }
        // An if-let, not a closure: the closure was not inlined and captured a copy of the document.
        if let node = fields.id {
            if let range = document.rawString(node) {
                id = document.bytes.withUnsafeBufferPointer { RecentStrings.decoded($0, range, small: recent.smallASCII) }
                rawID = range
            } else {
                id = document.string(node) ?? document.integer(node).map(String.init) ?? ""
                rawID = nil
            }
        } else {
            id = ""
            rawID = nil
        }
        if let sender = fields.sender {
            if document.kind(sender) == .object {
                // A sender object seen lately is known from its bytes.
                if let kept = recent.senders.position(document, sender) {
                    recent.senders.assign(kept, id: &senderID, name: &senderName)
                } else {
                    let (idNode, nameNode) = document.members(sender, "id", "name")
                    senderID = idNode.flatMap { recent.senderIDs.string(document, $0) } ?? ""
                    senderName = nameNode.flatMap { recent.senderNames.string(document, $0) } ?? ""
                    recent.senders.remember(document, sender, id: senderID, name: senderName)
                }
            } else {
                senderID = recent.senderIDs.string(document, sender) ?? ""
                senderName = ""
            }
        } else {
            senderID = ""
            senderName = ""
        }
        if senderName.isEmpty { senderName = senderID }
        // Outside years 1–9999, or an impossible date: no time (MessageTime),
        // and the field is kept as unreadable so the run can report it.
        // A plain string (the usual RFC 3339 time) is tried first, then a number.
        time = fields.time.flatMap { node -> Double? in
            if let range = document.rawString(node),
               let zoned = document.bytes.withUnsafeBufferPointer({
                   RFC3339.parse(UnsafeBufferPointer(rebasing: $0[range]), days: &days)
               }) {
                return zoned
            }
            if let seconds = document.number(node) { return MessageTime.validated(seconds) }
            // Zone-less local time, seconds as text, or an escaped spelling.
            return document.string(node).flatMap(ImportTime.parse)
        }.flatMap(MessageTime.validated)
        // The optional strings are set to nil only when they are not nil
        // already: most messages have none, and assigning nil would still
        // release the old value (a call).
        if time == nil, let node = fields.time, document.kind(node) != .null {
            let text = document.string(node) ?? document.number(node).map { "\($0)" } ?? "a value that is not a time"
            unreadableTime = text.count > 40 ? String(text.prefix(40)) + "…" : text
        } else if unreadableTime != nil {
            unreadableTime = nil
        }
        status = fields.status.map(Message.status(document)) ?? .none
        if let direction = fields.direction, document.stringEquals(direction, "outgoing") {
            isOutgoing = true
        } else if let direction = fields.direction, document.stringEquals(direction, "incoming") {
            isOutgoing = false
        } else if let me, !me.isEmpty {
            isOutgoing = senderID == me
        } else {
            isOutgoing = false
        }
        isEdited = fields.edited.flatMap { document.bool($0) } ?? false
        if let node = fields.replyTo {
            replyTo = document.string(node)
        } else if replyTo != nil {
            replyTo = nil
        }
        // The length first: most types are not six bytes, and their
        // comparison with "system" would be a call.
        isSystem = type.utf8.count == 6 && type == "system"
        if isSystem {
            systemEvent = document.member(root, "system").flatMap { document.member($0, "event") }.flatMap { document.string($0) }
        } else if systemEvent != nil {
            systemEvent = nil
        }
    }

    /// The nodes of the top-level fields the host reads.
    private struct Fields {
        var type: Int?, id: Int?, sender: Int?, time: Int?, status: Int?
        var direction: Int?, edited: Int?, replyTo: Int?, text: Int?, reactions: Int?

        /// Notes the members of the root object (`nodes[0]`, an object) of
        /// the tape `nodes` over `bytes`, both read in place, with no bounds
        /// checks but the buffers' own (positions come from the tape, which
        /// the parser built). False, with the fields partly noted, when a
        /// key has escapes (only a decoded comparison can tell it apart).
        /// Takes the tape and the bytes rather than the document: a closure
        /// over the document would retain and release its three buffers.
        mutating func read(_ nodes: JSONDocument.Nodes, _ bytes: [UInt8]) -> Bool {
            nodes.withUnsafeBufferPointer { nodes in
                bytes.withUnsafeBufferPointer { all in
                    guard let base = all.baseAddress, !nodes.isEmpty else { return true }
                    var cursor = 1
                    for _ in 0..<Int(nodes[0].count) {
                        let key = nodes[cursor]
                        if key.escaped { return false }
                        take(base, all.count, key, cursor &+ 1)
                        let value = nodes[cursor &+ 1]
                        cursor = value.kind == .array || value.kind == .object ? Int(value.next) : cursor &+ 2
                    }
                    return true
                }
            }
        }

        /// Notes the member whose plain key is `key`: `value` if the key
        /// names a field not seen yet. The key's length picks the
        /// candidates, then its bytes are compared as one integer
        /// (`KeyWord`, masked to that length), not byte by byte.
        @inline(__always)
        private mutating func take(_ base: UnsafePointer<UInt8>, _ count: Int, _ key: JSONDocument.Node, _ value: Int) {
            let start = Int(key.start)
            func set(_ slot: inout Int?) { if slot == nil { slot = value } }
            switch key.end &- key.start {
            case 2:
                if KeyWord.of(base, start, 2, count: count) == KeyWord.id { set(&id) }
            case 4:
                switch KeyWord.of(base, start, 4, count: count) {
                case KeyWord.type: set(&type)
                case KeyWord.time: set(&time)
                case KeyWord.text: set(&text)
                default: break
                }
            case 6:
                switch KeyWord.of(base, start, 6, count: count) {
                case KeyWord.sender: set(&sender)
                case KeyWord.status: set(&status)
                case KeyWord.edited: set(&edited)
                default: break
                }
            case 8:
                if KeyWord.of(base, start, 8, count: count) == KeyWord.replyTo { set(&replyTo) }
            case 9:
                switch KeyWord.of(base, start, 9, count: count) {
                case KeyWord.directio where base[start &+ 8] == UInt8(ascii: "n"): set(&direction)
                case KeyWord.reaction where base[start &+ 8] == UInt8(ascii: "s"): set(&reactions)
                default: break
                }
            default: break
            }
        }

        static let names: [StaticString] = ["id", "type", "time", "text", "sender", "status", "edited", "reply_to", "direction",
                                            "reactions"]

        /// Notes the member `key` (escaped or not) if it is `name`, a
        /// field not seen yet.
        mutating func take(_ document: JSONDocument, _ key: Int, _ value: Int, named name: StaticString) {
            guard document.keyEquals(key, name) else { return }
            switch name.description {
            case "id": if id == nil { id = value }
            case "type": if type == nil { type = value }
            case "time": if time == nil { time = value }
            case "text": if text == nil { text = value }
            case "sender": if sender == nil { sender = value }
            case "status": if status == nil { status = value }
            case "edited": if edited == nil { edited = value }
            case "reply_to": if replyTo == nil { replyTo = value }
            case "reactions": if reactions == nil { reactions = value }
            default: if direction == nil { direction = value }
            }
        }
    }

    private static func status(_ document: JSONDocument) -> (Int) -> DeliveryStatus {
        return { node in
            if document.stringEquals(node, "read") { return .read }
            if document.stringEquals(node, "delivered") { return .delivered }
            if document.stringEquals(node, "sent") { return .sent }
            if document.stringEquals(node, "sending") { return .sending }
            if document.stringEquals(node, "failed") { return .failed }
            return .none
        }
    }

    /// Gives back buffers a large message grew (the parsed bytes and tape,
    /// the strings handed to plugins), so a reused `Message` does not pin
    /// the memory of the largest message it ever held.
    func releaseLargeBuffers() {
        arena.reset()
        if document.bytes.capacity > Message.keptBytes || document.nodes.capacity > Message.keptBytes / 16 {
            document = JSONDocument()
            textNode = nil
            reactionsNode = nil
        }
    }

    private static let keptBytes = 1 << 20

    /// The message body, decoded, or nil.
    public var text: String? { textNode.flatMap { document.string($0) } }

    var handle: OpaquePointer { OpaquePointer(Unmanaged.passUnretained(self).toOpaque()) }

    static func from(_ handle: OpaquePointer?) -> Message? {
        guard let handle else { return nil }
        return Unmanaged<Message>.fromOpaque(UnsafeRawPointer(handle)).takeUnretainedValue()
    }
}

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
    public internal(set) var senderID = ""
    public internal(set) var senderName = ""
    /// Seconds since the epoch, when the message has a usable time.
    public internal(set) var time: Double?
    public internal(set) var status = DeliveryStatus.none
    public internal(set) var isOutgoing = false
    public internal(set) var isEdited = false
    public internal(set) var replyTo: String?

    /// NUL-terminated copies of strings handed to plugins, valid until the
    /// message is reset (the end of the call that received it).
    let arena = StringArena()

    public init() {}

    /// Parses `bytes` as a message. Throws when they are not a JSON object.
    public func load(_ bytes: UnsafeBufferPointer<UInt8>, me: String?) throws {
        arena.reset()
        try document.parse(bytes)
        guard document.kind(JSONDocument.root) == .object else {
            let kind = document.kind(JSONDocument.root)
            throw JSONSyntaxError(offset: 0, reason: "expected a JSON object, found \(kind == .array ? "an array" : "a bare value")")
        }
        let root = JSONDocument.root
        // One local copy: each access to the stored property would retain its arrays.
        let document = self.document
        func stringField(_ key: StaticString) -> String? {
            document.member(root, key).flatMap { document.string($0) }
        }
        if let node = document.member(root, "type"), let value = document.string(node), !value.isEmpty, value.utf8.count <= 64 {
            type = value
            typeIsMissing = false
        } else {
            type = ""
            typeIsMissing = true
        }
        id = stringField("id") ?? document.member(root, "id").flatMap { document.integer($0) }.map(String.init) ?? ""
        if let sender = document.member(root, "sender") {
            if document.kind(sender) == .object {
                senderID = document.member(sender, "id").flatMap { document.string($0) } ?? ""
                senderName = document.member(sender, "name").flatMap { document.string($0) } ?? ""
            } else {
                senderID = document.string(sender) ?? ""
                senderName = ""
            }
        } else {
            senderID = ""
            senderName = ""
        }
        if senderName.isEmpty { senderName = senderID }
        time = document.member(root, "time").flatMap { node -> Double? in
            if let seconds = document.number(node) { return seconds.isFinite ? seconds : nil }
            if let range = document.rawString(node) {
                return document.bytes.withUnsafeBufferPointer { RFC3339.parse(UnsafeBufferPointer(rebasing: $0[range])) }
            }
            return document.string(node).flatMap(RFC3339.parse)
        }
        status = document.member(root, "status").map(Message.status(document)) ?? .none
        if let direction = document.member(root, "direction"), document.stringEquals(direction, "outgoing") {
            isOutgoing = true
        } else if let direction = document.member(root, "direction"), document.stringEquals(direction, "incoming") {
            isOutgoing = false
        } else if let me, !me.isEmpty {
            isOutgoing = senderID == me
        } else {
            isOutgoing = false
        }
        isEdited = document.member(root, "edited").flatMap { document.bool($0) } ?? false
        replyTo = stringField("reply_to")
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

    /// The message body, decoded, or nil.
    public var text: String? {
        let document = self.document
        return document.member(JSONDocument.root, "text").flatMap { document.string($0) }
    }

    var handle: OpaquePointer { OpaquePointer(Unmanaged.passUnretained(self).toOpaque()) }

    static func from(_ handle: OpaquePointer?) -> Message? {
        guard let handle else { return nil }
        return Unmanaged<Message>.fromOpaque(UnsafeRawPointer(handle)).takeUnretainedValue()
    }
}

import CellHostABI
import Glibc

/// The message accessors of the host table (message.h).
///
/// A media cell makes half a dozen of these calls a message, a poll one or
/// two per option, so each reads the message in place: the message is
/// borrowed from its handle (the host holds it for the call that handed
/// the handle out) and its document is reached through its storage, where
/// a read of the stored property would copy the document and retain and
/// release its four buffers.
enum MessageAccess {
    /// `info`: fills `out` with the common fields, as far as the caller's
    /// (possibly older, smaller) struct reaches.
    static func fill(_ handle: OpaquePointer?, _ out: UnsafeMutablePointer<cellhost_message_info>?) {
        guard let handle, let out else { return }
        // Fill a whole struct, then copy what fits the caller's one.
        let size = min(Int(out.pointee.struct_size), MemoryLayout<cellhost_message_info>.size)
        guard size > MemoryLayout<UInt32>.size else { return }
        var info = cellhost_message_info()
        info.struct_size = out.pointee.struct_size
        borrowed(handle)._withUnsafeGuaranteedRef { message in fill(message, &info) }
        withUnsafeBytes(of: &info) { source in
            UnsafeMutableRawPointer(out).copyMemory(from: source.baseAddress!, byteCount: size)
        }
    }

    private static func fill(_ message: Message, _ info: inout cellhost_message_info) {
        let arena = message.arena
        func string(_ value: String) -> cellhost_string {
            var value = value
            return value.withUTF8 { arena.storeSanitized($0) }
        }
        info.direction = cellhost_direction(message.isOutgoing ? CELLHOST_OUTGOING : CELLHOST_INCOMING)
        info.status = cellhost_status(message.status.rawValue)
        info.has_time = message.time != nil
        info.time = message.time ?? 0
        info.type = string(message.type)
        info.id = string(message.id)
        info.sender_id = string(message.senderID)
        info.sender_name = string(message.senderName)
        info.text = text(of: message, &message.document) ?? string(message.text ?? "")
        info.edited = message.isEdited
    }

    /// The body text as `info` hands it over (`message.text`, sanitized),
    /// stored straight from the document when that gives the same bytes: a
    /// string without escapes whose bytes need no sanitizing (and so are
    /// valid UTF-8, which decoding would copy unchanged). Nil otherwise.
    private static func text(of message: Message, _ document: inout JSONDocument) -> cellhost_string? {
        guard let node = message.textNode, let range = document.rawString(node) else { return nil }
        return document.bytes.withUnsafeBufferPointer { bytes in
            message.arena.storeIfSafe(UnsafeBufferPointer(rebasing: bytes[range]))
        }
    }

    /// Resolves `path` in the message `handle` points at and hands the
    /// node to `read`, with the message's arena (for strings) and its
    /// document, both read in place. Inlined into each accessor, so that
    /// `read` is too.
    @inline(__always)
    static func lookup(_ handle: OpaquePointer?, _ path: UnsafePointer<CChar>?,
                       _ read: (StringArena, inout JSONDocument, Int) -> Bool) -> cellhost_lookup {
        guard let handle, let path else { return cellhost_lookup(CELLHOST_MISSING) }
        return borrowed(handle)._withUnsafeGuaranteedRef { message in
            lookup(path, textNode: message.textNode, message.arena, &message.document, read)
        }
    }

    @inline(__always)
    private static func lookup(_ path: UnsafePointer<CChar>, textNode: Int?, _ arena: StringArena,
                               _ document: inout JSONDocument,
                               _ read: (StringArena, inout JSONDocument, Int) -> Bool) -> cellhost_lookup {
        // `text`, which nearly every cell reads, was found while loading.
        // Another path is measured as it is read (a path of 256 bytes or
        // more is missing), not by a `strnlen` first.
        let node: Int?
        if isText(path) {
            node = textNode
        } else {
            node = document.resolve(cString: UnsafeRawPointer(path).assumingMemoryBound(to: UInt8.self))
        }
        guard let node else { return cellhost_lookup(CELLHOST_MISSING) }
        if document.kind(node) == .null { return cellhost_lookup(CELLHOST_MISSING) }
        return cellhost_lookup(read(arena, &document, node) ? CELLHOST_FOUND : CELLHOST_WRONG_TYPE)
    }

    /// True when the C string `path` is `text`: read a byte at a time up
    /// to its NUL, so nothing past a shorter path's end is read.
    @inline(__always)
    static func isText(_ path: UnsafePointer<CChar>) -> Bool {
        path[0] == 0x74 && path[1] == 0x65 && path[2] == 0x78 && path[3] == 0x74 && path[4] == 0
    }

    /// The message behind a handle, unretained: used only during the call
    /// that received the handle, while the host holds the message.
    private static func borrowed(_ handle: OpaquePointer) -> Unmanaged<Message> {
        Unmanaged<Message>.fromOpaque(UnsafeRawPointer(handle))
    }

    /// `numbers`: every element of an array of numbers, checked before
    /// anything is written.
    static func numbers(_ document: inout JSONDocument, _ node: Int, _ out: UnsafeMutablePointer<Double>?,
                        _ capacity: Int, _ count: UnsafeMutablePointer<Int>?) -> Bool {
        guard let total = document.numberElements(node, into: out, capacity: capacity) else { return false }
        count?.pointee = total
        return true
    }
}

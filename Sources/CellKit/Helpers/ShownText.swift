/// A piece of text a media cell shows: bytes the host handed over (valid
/// only during the call that received the message), a literal, or a string
/// of the cell's own (a notice, a detected type). The shipped media cells
/// read a message's strings as bytes and append them as bytes; this carries
/// whichever kind a field ends up as, without making a `String` of bytes.
///
/// Inlinable, so that a plugin's calls are specialized and inlined: a
/// generic call into CellKit would look its metadata up at run time.
public enum ShownText {
    case bytes(UnsafeBufferPointer<UInt8>)
    case literal(StaticString)
    case string(String)

    /// Calls `body` with the UTF-8 of the text.
    @inlinable
    public func withUTF8<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        switch self {
        case .bytes(let bytes): return body(bytes)
        case .literal(let literal):
            return body(UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
        case .string(var string): return string.withUTF8(body)
        }
    }

    /// The UTF-8 length.
    @inlinable
    public var utf8Count: Int { withUTF8 { $0.count } }

    /// The text as a `String`.
    @inlinable
    public var string: String {
        if case .string(let string) = self { return string }
        return withUTF8 { String(decoding: $0, as: UTF8.self) }
    }
}

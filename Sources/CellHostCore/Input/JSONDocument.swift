/// A parsed JSON value held as a flat tape of nodes over the input bytes.
///
/// Parsing validates the syntax and records where each value is; nothing is
/// decoded or copied until asked for. One document is reused for every line,
/// so reading a stream allocates nothing per message once warmed up.
public struct JSONDocument {
    /// The kinds of nodes on the tape.
    public enum Kind: UInt8, Sendable {
        case null, boolFalse, boolTrue, number, string, array, object
    }

    struct Node {
        var kind: Kind
        /// Strings: the content has a backslash escape.
        var escaped: Bool
        /// Byte range: strings, the content between the quotes; numbers, the literal.
        var start: Int32
        var end: Int32
        /// Containers: the index just past the last descendant; member count in `count`.
        var next: Int32
        var count: Int32
    }

    /// The bytes of the current value (one line or one array element).
    public internal(set) var bytes: [UInt8] = []
    var nodes: [Node] = []
    /// Lazily built element positions of arrays, for O(1) indexed look-ups.
    var arrayIndex = ArrayIndex()

    public init() {}

    /// The root node's kind, or nil before the first successful parse.
    public var rootKind: Kind? { nodes.first?.kind }
}

/// Why a line is not a JSON object.
public struct JSONSyntaxError: Error, Equatable, CustomStringConvertible {
    /// Byte offset (0-based) in the line.
    public var offset: Int
    public var reason: String
    public var description: String { "\(reason) at column \(offset + 1)" }
}

extension JSONDocument {
    /// How deep arrays and objects may nest; deeper input is refused rather
    /// than risking the stack or quadratic work.
    public static let maximumDepth = 64

    /// Parses `input` as one JSON value (with surrounding whitespace).
    public mutating func parse(_ input: UnsafeBufferPointer<UInt8>) throws {
        // Offsets are stored as Int32: refuse what they cannot address.
        guard input.count < Int(Int32.max) else { throw JSONSyntaxError(offset: 0, reason: "value of 2 GiB or more") }
        bytes.removeAll(keepingCapacity: true)
        bytes.append(contentsOf: input)
        nodes.removeAll(keepingCapacity: true)
        // A copy of this document may still use the old index: never clear a shared one.
        if isKnownUniquelyReferenced(&arrayIndex) { arrayIndex.reset() } else { arrayIndex = ArrayIndex() }
        try bytes.withUnsafeBufferPointer { buffer in
            var parser = TapeParser(bytes: buffer)
            parser.skipWhitespace()
            guard parser.position < buffer.count else { throw JSONSyntaxError(offset: 0, reason: "empty value") }
            try parser.parseValue(into: &nodes, depth: 0)
            parser.skipWhitespace()
            if parser.position < buffer.count {
                throw JSONSyntaxError(offset: parser.position, reason: "unexpected data after the JSON value")
            }
        }
    }
}

private struct TapeParser {
    let bytes: UnsafeBufferPointer<UInt8>
    var position = 0

    init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    @inline(__always)
    mutating func skipWhitespace() {
        while position < bytes.count {
            let byte = bytes[position]
            guard byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 else { return }
            position += 1
        }
    }

    func fail(_ reason: String, at offset: Int? = nil) -> JSONSyntaxError {
        JSONSyntaxError(offset: offset ?? position, reason: reason)
    }

    mutating func parseValue(into nodes: inout [JSONDocument.Node], depth: Int) throws {
        guard position < bytes.count else { throw fail("unexpected end of line") }
        let byte = bytes[position]
        switch byte {
        case UInt8(ascii: "{"):
            guard depth < JSONDocument.maximumDepth else { throw fail("nesting deeper than \(JSONDocument.maximumDepth) levels") }
            try parseObject(into: &nodes, depth: depth)
        case UInt8(ascii: "["):
            guard depth < JSONDocument.maximumDepth else { throw fail("nesting deeper than \(JSONDocument.maximumDepth) levels") }
            try parseArray(into: &nodes, depth: depth)
        case UInt8(ascii: "\""):
            try parseString(into: &nodes)
        case UInt8(ascii: "t"): try literal("true", .boolTrue, into: &nodes)
        case UInt8(ascii: "f"): try literal("false", .boolFalse, into: &nodes)
        case UInt8(ascii: "n"): try literal("null", .null, into: &nodes)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            try parseNumber(into: &nodes)
        case UInt8(ascii: "N"), UInt8(ascii: "I"):
            throw fail("NaN and Infinity are not JSON numbers")
        default:
            throw fail(byte >= 0x21 && byte < 0x7F
                       ? "unexpected character '\(Character(Unicode.Scalar(byte)))'"
                       : "unexpected byte 0x\(String(byte, radix: 16, uppercase: true))")
        }
    }

    mutating func literal(_ word: StaticString, _ kind: JSONDocument.Kind, into nodes: inout [JSONDocument.Node]) throws {
        let count = word.utf8CodeUnitCount
        guard position + count <= bytes.count else { throw fail("invalid literal") }
        let expected = word.utf8Start
        for index in 0..<count where bytes[position + index] != expected[index] {
            throw fail("invalid literal")
        }
        nodes.append(.init(kind: kind, escaped: false, start: Int32(position), end: Int32(position + count), next: 0, count: 0))
        position += count
    }

    mutating func parseNumber(into nodes: inout [JSONDocument.Node]) throws {
        let start = position
        if bytes[position] == UInt8(ascii: "-") { position += 1 }
        guard position < bytes.count, isDigit(bytes[position]) else {
            if position < bytes.count, bytes[position] == UInt8(ascii: "I") { throw fail("NaN and Infinity are not JSON numbers") }
            throw fail("invalid number", at: start)
        }
        if bytes[position] == UInt8(ascii: "0") {
            position += 1
        } else {
            while position < bytes.count, isDigit(bytes[position]) { position += 1 }
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            position += 1
            guard position < bytes.count, isDigit(bytes[position]) else { throw fail("invalid number", at: start) }
            while position < bytes.count, isDigit(bytes[position]) { position += 1 }
        }
        if position < bytes.count, bytes[position] | 0x20 == UInt8(ascii: "e") {
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") { position += 1 }
            guard position < bytes.count, isDigit(bytes[position]) else { throw fail("invalid number", at: start) }
            while position < bytes.count, isDigit(bytes[position]) { position += 1 }
        }
        nodes.append(.init(kind: .number, escaped: false, start: Int32(start), end: Int32(position), next: 0, count: 0))
    }

    @inline(__always)
    func isDigit(_ byte: UInt8) -> Bool { byte &- 0x30 < 10 }

    /// The high bit of each byte of `word` that equals `byte` is set (the
    /// lowest such bit exactly; bits above a match may be set spuriously).
    @inline(__always)
    static func bytesEqual(_ word: UInt64, _ byte: UInt8) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let x = word ^ (ones &* UInt64(byte))
        return (x &- ones) & ~x & 0x8080_8080_8080_8080
    }

    /// Strings keep their raw bytes; escapes are checked here and decoded on
    /// demand. Invalid UTF-8 and raw control characters are accepted: they are
    /// repaired or made visible when the text is shown, so no message is lost.
    mutating func parseString(into nodes: inout [JSONDocument.Node]) throws {
        let open = position
        position += 1
        let start = position
        var escaped = false
        while position < bytes.count {
            // Eight bytes at a time up to the next quote or backslash.
            if let base = bytes.baseAddress {
                while position + 8 <= bytes.count {
                    let word = UInt64(littleEndian: UnsafeRawPointer(base + position).loadUnaligned(as: UInt64.self))
                    let stops = Self.bytesEqual(word, 0x22) | Self.bytesEqual(word, 0x5C)
                    if stops != 0 {
                        position += stops.trailingZeroBitCount >> 3
                        break
                    }
                    position += 8
                }
                if position >= bytes.count { break }
            }
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                nodes.append(.init(kind: .string, escaped: escaped, start: Int32(start), end: Int32(position), next: 0, count: 0))
                position += 1
                return
            }
            if byte == UInt8(ascii: "\\") {
                escaped = true
                guard position + 1 < bytes.count else { break }
                switch bytes[position + 1] {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
                     UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    position += 2
                case UInt8(ascii: "u"):
                    guard position + 6 <= bytes.count else { throw fail("truncated \\u escape") }
                    for index in 2..<6 where hexValue(bytes[position + index]) == nil {
                        throw fail("invalid \\u escape")
                    }
                    position += 6
                default:
                    throw fail("invalid escape sequence")
                }
                continue
            }
            position += 1
        }
        throw fail("unterminated string", at: open)
    }

    mutating func parseArray(into nodes: inout [JSONDocument.Node], depth: Int) throws {
        let index = nodes.count
        nodes.append(.init(kind: .array, escaped: false, start: Int32(position), end: 0, next: 0, count: 0))
        position += 1
        skipWhitespace()
        var count: Int32 = 0
        if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
            position += 1
        } else {
            while true {
                skipWhitespace()
                try parseValue(into: &nodes, depth: depth + 1)
                count += 1
                skipWhitespace()
                guard position < bytes.count else { throw fail("unterminated array") }
                if bytes[position] == UInt8(ascii: ",") { position += 1; continue }
                if bytes[position] == UInt8(ascii: "]") { position += 1; break }
                throw fail("expected ',' or ']' in array")
            }
        }
        nodes[index].count = count
        nodes[index].end = Int32(position)
        nodes[index].next = Int32(nodes.count)
    }

    mutating func parseObject(into nodes: inout [JSONDocument.Node], depth: Int) throws {
        let index = nodes.count
        nodes.append(.init(kind: .object, escaped: false, start: Int32(position), end: 0, next: 0, count: 0))
        position += 1
        skipWhitespace()
        var count: Int32 = 0
        if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
            position += 1
        } else {
            while true {
                skipWhitespace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else {
                    throw fail("expected a string key in object")
                }
                try parseString(into: &nodes)
                skipWhitespace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else { throw fail("expected ':' after key") }
                position += 1
                skipWhitespace()
                try parseValue(into: &nodes, depth: depth + 1)
                count += 1
                skipWhitespace()
                guard position < bytes.count else { throw fail("unterminated object") }
                if bytes[position] == UInt8(ascii: ",") { position += 1; continue }
                if bytes[position] == UInt8(ascii: "}") { position += 1; break }
                throw fail("expected ',' or '}' in object")
            }
        }
        nodes[index].count = count
        nodes[index].end = Int32(position)
        nodes[index].next = Int32(nodes.count)
    }
}

@inline(__always)
func hexValue(_ byte: UInt8) -> UInt32? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt32(byte - UInt8(ascii: "0"))
    case UInt8(ascii: "a")...UInt8(ascii: "f"): return UInt32(byte - UInt8(ascii: "a") + 10)
    case UInt8(ascii: "A")...UInt8(ascii: "F"): return UInt32(byte - UInt8(ascii: "A") + 10)
    default: return nil
    }
}

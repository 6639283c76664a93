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
    /// Where `parse` writes the tape before it moves it into `nodes`.
    private var tape = TapeBuffer()

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
        // A copy of this document may still use the old index and tape: never reuse shared ones.
        if isKnownUniquelyReferenced(&arrayIndex) { arrayIndex.reset() } else { arrayIndex = ArrayIndex() }
        if !isKnownUniquelyReferenced(&tape) { tape = TapeBuffer() }
        let tape = self.tape
        let count = try bytes.withUnsafeBufferPointer { buffer -> Int in
            var parser = TapeParser(bytes: buffer, tape: tape)
            parser.skipWhitespace()
            guard parser.position < buffer.count else { throw JSONSyntaxError(offset: 0, reason: "empty value") }
            try parser.parseValue(depth: 0)
            parser.skipWhitespace()
            if parser.position < buffer.count {
                throw JSONSyntaxError(offset: parser.position, reason: "unexpected data after the JSON value")
            }
            return parser.count
        }
        nodes.append(contentsOf: UnsafeBufferPointer(start: tape.base, count: count))
        tape.shrink(to: Self.keptTapeNodes)
    }

    /// Nodes the tape keeps room for between values (a larger value's
    /// room is given back).
    static let keptTapeNodes = 1 << 16
}

/// Parses one JSON value into a `TapeBuffer`: containers first (their
/// member count and end filled in when they close), then their contents.
private struct TapeParser {
    let bytes: UnsafeBufferPointer<UInt8>
    let tape: TapeBuffer
    var position = 0
    /// Nodes written so far.
    private(set) var count = 0
    private var nodes: UnsafeMutablePointer<JSONDocument.Node>
    private var capacity: Int

    init(bytes: UnsafeBufferPointer<UInt8>, tape: TapeBuffer) {
        self.bytes = bytes
        self.tape = tape
        nodes = tape.base
        capacity = tape.capacity
    }

    @inline(__always)
    mutating func append(_ kind: JSONDocument.Kind, escaped: Bool = false, start: Int, end: Int) {
        if count == capacity {
            tape.grow(keeping: count)
            nodes = tape.base
            capacity = tape.capacity
        }
        (nodes + count).initialize(to: .init(kind: kind, escaped: escaped, start: Int32(truncatingIfNeeded: start),
                                             end: Int32(truncatingIfNeeded: end), next: 0, count: 0))
        count += 1
    }

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

    mutating func parseValue(depth: Int) throws {
        guard position < bytes.count else { throw fail("unexpected end of line") }
        let byte = bytes[position]
        switch byte {
        case UInt8(ascii: "\""):
            try parseString()
        case UInt8(ascii: "{"):
            guard depth < JSONDocument.maximumDepth else { throw fail("nesting deeper than \(JSONDocument.maximumDepth) levels") }
            try parseObject(depth: depth)
        case UInt8(ascii: "["):
            guard depth < JSONDocument.maximumDepth else { throw fail("nesting deeper than \(JSONDocument.maximumDepth) levels") }
            try parseArray(depth: depth)
        case UInt8(ascii: "t"): try literal("true", .boolTrue)
        case UInt8(ascii: "f"): try literal("false", .boolFalse)
        case UInt8(ascii: "n"): try literal("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            try parseNumber()
        case UInt8(ascii: "N"), UInt8(ascii: "I"):
            throw fail("NaN and Infinity are not JSON numbers")
        default:
            throw fail(byte >= 0x21 && byte < 0x7F
                       ? "unexpected character '\(Character(Unicode.Scalar(byte)))'"
                       : "unexpected byte 0x\(String(byte, radix: 16, uppercase: true))")
        }
    }

    mutating func literal(_ word: StaticString, _ kind: JSONDocument.Kind) throws {
        let length = word.utf8CodeUnitCount
        guard position + length <= bytes.count else { throw fail("invalid literal") }
        let expected = word.utf8Start
        for index in 0..<length where bytes[position + index] != expected[index] {
            throw fail("invalid literal")
        }
        append(kind, start: position, end: position + length)
        position += length
    }

    mutating func parseNumber() throws {
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
        append(.number, start: start, end: position)
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
    mutating func parseString() throws {
        let open = position
        position += 1
        let start = position
        var escaped = false
        guard let base = bytes.baseAddress else { throw fail("unterminated string", at: open) }
        let end = bytes.count
        while position < end {
            // Eight bytes at a time up to the next quote or backslash.
            while position + 8 <= end {
                let word = UInt64(littleEndian: UnsafeRawPointer(base + position).loadUnaligned(as: UInt64.self))
                let stops = Self.bytesEqual(word, 0x22) | Self.bytesEqual(word, 0x5C)
                if stops != 0 {
                    position += stops.trailingZeroBitCount >> 3
                    break
                }
                position += 8
            }
            if position >= end { break }
            let byte = base[position]
            if byte == UInt8(ascii: "\"") {
                append(.string, escaped: escaped, start: start, end: position)
                position += 1
                return
            }
            if byte == UInt8(ascii: "\\") {
                escaped = true
                guard position + 1 < end else { break }
                switch base[position + 1] {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
                     UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    position += 2
                case UInt8(ascii: "u"):
                    guard position + 6 <= end else { throw fail("truncated \\u escape") }
                    for index in 2..<6 where hexValue(base[position + index]) == nil {
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

    /// Fills in a container's member count, end and the node after it.
    @inline(__always)
    private func close(_ index: Int, count members: Int32) {
        nodes[index].count = members
        nodes[index].end = Int32(truncatingIfNeeded: position)
        nodes[index].next = Int32(truncatingIfNeeded: count)
    }

    mutating func parseArray(depth: Int) throws {
        let index = count
        append(.array, start: position, end: 0)
        position += 1
        skipWhitespace()
        var members: Int32 = 0
        if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
            position += 1
        } else {
            while true {
                skipWhitespace()
                try parseValue(depth: depth + 1)
                members += 1
                skipWhitespace()
                guard position < bytes.count else { throw fail("unterminated array") }
                if bytes[position] == UInt8(ascii: ",") { position += 1; continue }
                if bytes[position] == UInt8(ascii: "]") { position += 1; break }
                throw fail("expected ',' or ']' in array")
            }
        }
        close(index, count: members)
    }

    mutating func parseObject(depth: Int) throws {
        let index = count
        append(.object, start: position, end: 0)
        position += 1
        skipWhitespace()
        var members: Int32 = 0
        if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
            position += 1
        } else {
            while true {
                skipWhitespace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else {
                    throw fail("expected a string key in object")
                }
                try parseString()
                skipWhitespace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else { throw fail("expected ':' after key") }
                position += 1
                skipWhitespace()
                try parseValue(depth: depth + 1)
                members += 1
                skipWhitespace()
                guard position < bytes.count else { throw fail("unterminated object") }
                if bytes[position] == UInt8(ascii: ",") { position += 1; continue }
                if bytes[position] == UInt8(ascii: "}") { position += 1; break }
                throw fail("expected ',' or '}' in object")
            }
        }
        close(index, count: members)
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

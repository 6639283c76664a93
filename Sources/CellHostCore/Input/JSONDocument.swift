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
    /// The tape of the current value, where the parser wrote it.
    private(set) var nodes = Nodes()
    /// Lazily built element positions of arrays, for O(1) indexed look-ups.
    var arrayIndex = ArrayIndex()

    public init() {}

    /// The root node's kind, or nil before the first successful parse.
    public var rootKind: Kind? { nodes.isEmpty ? nil : nodes[0].kind }

    /// The nodes of the last value parsed, read in the `TapeBuffer` the
    /// parser wrote them to (not copied out of it, as a `[Node]` would be).
    struct Nodes {
        /// Shared by copies of the document; `parse` writes only to a buffer
        /// no copy holds.
        fileprivate var tape = TapeBuffer()
        /// Nodes of the current value (0 before a parse, or after one that failed).
        fileprivate(set) var count = 0

        var isEmpty: Bool { count == 0 }
        /// Room for nodes, for `Message.releaseLargeBuffers`.
        var capacity: Int { tape.capacity }

        /// The node at `index`, which must be below `count` (indexes come
        /// from the tape itself, never from input).
        subscript(index: Int) -> Node {
            precondition(index >= 0 && index < count, "JSON tape index out of range")
            return tape.base[index]
        }

        /// Calls `body` with the nodes in place (no bounds checks but the
        /// buffer's own), the tape kept alive meanwhile.
        func withUnsafeBufferPointer<R>(_ body: (UnsafeBufferPointer<Node>) throws -> R) rethrows -> R {
            try withExtendedLifetime(tape) { try body(UnsafeBufferPointer(start: tape.base, count: count)) }
        }

        /// Every node, as an array (for tests).
        var all: [Node] { Array(UnsafeBufferPointer(start: tape.base, count: count)) }
    }
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
        try parseBytes()
    }

    /// `parse(_:)` of the bytes in `input`, whose buffer becomes `bytes`
    /// as it is (a render slot's record, read once more where the slot's
    /// reply-quote ring keeps it); `input` gets the buffer `bytes` had.
    /// An exchange: no copy, and no reference counting (sharing the buffer
    /// instead retained it and released the one before, atomic writes to
    /// buffers that another thread filled).
    public mutating func parse(taking input: inout [UInt8]) throws {
        guard input.count < Int(Int32.max) else { throw JSONSyntaxError(offset: 0, reason: "value of 2 GiB or more") }
        swap(&bytes, &input)
        try parseBytes()
    }

    /// Parses `bytes` onto the tape.
    private mutating func parseBytes() throws {
        nodes.count = 0
        // A copy of this document may still use the old index and tape: never reuse shared ones.
        if isKnownUniquelyReferenced(&arrayIndex) { arrayIndex.reset() } else { arrayIndex = ArrayIndex() }
        if !isKnownUniquelyReferenced(&nodes.tape) { nodes.tape = TapeBuffer() }
        // Room a larger value before this one made the tape grow is given back.
        nodes.tape.shrink(to: Self.keptTapeNodes)
        // A value of n bytes has at most n nodes (each starts at a byte of
        // its own): with room for them all, the parse checks for room never
        // (`TapeParser.RoomMade`). Room for half of `reservedBytes` at
        // least, so that a tape grows about once, not at each longer value.
        let needed = bytes.count &+ 2
        if nodes.tape.capacity < needed, bytes.count <= Self.reservedBytes {
            nodes.tape.grow(keeping: 0, room: max(needed, Self.reservedBytes / 2))
        }
        // Unretained (a call through it would retain it): `nodes.tape` holds it until the parse is over.
        unowned(unsafe) let tape = nodes.tape
        nodes.count = try bytes.withUnsafeBufferPointer { buffer -> Int in
            var parser = TapeParser(bytes: buffer, tape: tape)
            parser.skipWhitespace()
            guard parser.position < buffer.count else { throw JSONSyntaxError(offset: 0, reason: "empty value") }
            try parser.parse()
            let after = parser.skipWhitespace()
            if after < buffer.count {
                throw JSONSyntaxError(offset: after, reason: "unexpected data after the JSON value")
            }
            return parser.count
        }
    }

    /// Nodes the tape keeps room for when the next value starts (a larger
    /// value's room is given back then).
    static let keptTapeNodes = 1 << 16

    /// Values up to this long get room on the tape for as many nodes as
    /// they have bytes before the parse starts (`TapeParser.RoomMade`),
    /// at most 20 KiB of tape; a longer value makes room as it goes.
    static let reservedBytes = 1024
}

/// Parses one JSON value into a `TapeBuffer`: containers first (their
/// member count and end filled in when they close), then their contents.
///
/// One loop over the bytes with the open containers on a stack of its own
/// (at most `JSONDocument.maximumDepth`), not a call per value: the
/// position and the tape's end stay in registers.
struct TapeParser {
    let bytes: UnsafeBufferPointer<UInt8>
    /// Unretained: the document being parsed holds it for the parser's life.
    unowned(unsafe) let tape: TapeBuffer
    /// Where parsing stopped (after the value, once `parse` returned).
    private(set) var position = 0
    /// Nodes written.
    private(set) var count = 0

    init(bytes: UnsafeBufferPointer<UInt8>, tape: TapeBuffer) {
        self.bytes = bytes
        self.tape = tape
    }

    @inline(__always)
    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    /// The first position from `position` that is not whitespace.
    @inline(__always)
    static func skipWhitespace(_ base: UnsafePointer<UInt8>, _ position: Int, _ end: Int) -> Int {
        // Compact JSON has none: one compare passes over anything above a
        // space, and the loop's whitespace set (a 64-bit mask the parse
        // loop kept in a register) is out of line (16.8 M → 15.9 M).
        guard position < end, base[position] <= 0x20 else { return position }
        return skipWhitespaceRun(base, position, end)
    }

    /// `skipWhitespace` from a byte up to a space, out of line.
    @inline(never)
    static func skipWhitespaceRun(_ base: UnsafePointer<UInt8>, _ position: Int, _ end: Int) -> Int {
        var position = position
        while position < end, isWhitespace(base[position]) { position += 1 }
        return position
    }

    /// Skips whitespace from `position` (before or after the value);
    /// returns where it ends.
    @discardableResult
    mutating func skipWhitespace() -> Int {
        guard let base = bytes.baseAddress else { return position }
        position = Self.skipWhitespace(base, position, bytes.count)
        return position
    }

    /// The error for `reason` at `offset`, made out of line: the parse
    /// loop passes a small code, not a string whose parts it kept in a
    /// register throughout.
    @inline(never)
    static func fail(_ reason: Failure, at offset: Int) -> JSONSyntaxError {
        JSONSyntaxError(offset: offset, reason: reason.description)
    }

    /// The error for an unexpected `byte` at `offset`.
    @inline(never)
    static func unexpected(_ byte: UInt8, at offset: Int) -> JSONSyntaxError {
        JSONSyntaxError(offset: offset, reason: byte >= 0x21 && byte < 0x7F
                            ? "unexpected character '\(Character(Unicode.Scalar(byte)))'"
                            : "unexpected byte 0x\(String(byte, radix: 16, uppercase: true))")
    }

    /// Why a value is not JSON.
    enum Failure: UInt8, CustomStringConvertible {
        case end, depth, notANumber, unterminatedObject, unterminatedArray, objectSeparator, arraySeparator
        case key, colon, literal, number, truncatedEscape, invalidUnicodeEscape, invalidEscape, unterminatedString

        var description: String {
            switch self {
            case .end: return "unexpected end of line"
            case .depth: return "nesting deeper than \(JSONDocument.maximumDepth) levels"
            case .notANumber: return "NaN and Infinity are not JSON numbers"
            case .unterminatedObject: return "unterminated object"
            case .unterminatedArray: return "unterminated array"
            case .objectSeparator: return "expected ',' or '}' in object"
            case .arraySeparator: return "expected ',' or ']' in array"
            case .key: return "expected a string key in object"
            case .colon: return "expected ':' after key"
            case .literal: return "invalid literal"
            case .number: return "invalid number"
            case .truncatedEscape: return "truncated \\u escape"
            case .invalidUnicodeEscape: return "invalid \\u escape"
            case .invalidEscape: return "invalid escape sequence"
            case .unterminatedString: return "unterminated string"
            }
        }
    }

    /// Parses one value from `position` (not whitespace, not the end).
    /// Inlined where the document parses: a call of its own cost some 40
    /// instructions a value.
    @inline(__always)
    mutating func parse() throws {
        guard let base = bytes.baseAddress else { throw Self.fail(.end, at: position) }
        // The tape goes in unretained (a `TapeBuffer` argument was retained and released).
        if bytes.count &+ 2 <= tape.capacity {
            (position, count) = try Self.value(base, from: position, end: bytes.count, into: Writer(tape: tape),
                                               stack: tape.stack, room: RoomMade.self)
        } else {
            (position, count) = try Self.value(base, from: position, end: bytes.count, into: Writer(tape: tape),
                                               stack: tape.stack, room: RoomChecked.self)
        }
    }

    /// The loop of `parse()`, static so that it does not keep the parser
    /// in a register beside its own state: the value from `start` to
    /// `tape`, with `stack` for the open containers. Returns the position
    /// after the value and the nodes written.
    ///
    /// Specialized for a tape with room for a node per byte of the value
    /// (`RoomMade`, every value up to `JSONDocument.reservedBytes`), which
    /// checks for room never: without the check's two registers (the
    /// tape's capacity and the tape itself), the loop's state stayed in
    /// registers rather than being stored and reloaded every turn
    /// (parsing the 10⁴ `real` records alone: 17.9 M → 16.8 M instructions).
    /// Out of line, as it was without the attribute: how it is compiled
    /// into its caller changes which of its values stay in registers.
    @inline(never)
    private static func value<Room: TapeRoom>(_ base: UnsafePointer<UInt8>, from start: Int, end: Int, into tape: Writer,
                                              stack: UnsafeMutablePointer<(node: Int32, members: Int32)>,
                                              room: Room.Type) throws -> (position: Int, count: Int) {
        var tape = tape
        // The open containers: their node, and the members seen so far
        // (the innermost's are counted in `members`, and whether it is an
        // object is `inObject`, so the loop keeps them in registers).
        var depth = 0
        var members: Int32 = 0
        var inObject = false
        // Offsets stay below `end`, at most `Int32.max` (`parse`): `&+` does not overflow.
        var p = start
        value: while true {
            // Each turn appends at most two nodes (a value and the next
            // key, or a container and its first key): room is made once
            // here, unless it was made for the whole value beforehand.
            if Room.checked { tape.reserveTwo() }
            // A value starts at `p`, after any whitespace.
            guard p < end else { throw Self.fail(.end, at: p) }
            let byte = base[p]
            switch byte {
            case UInt8(ascii: "\""):
                // The first sixteen bytes are looked at inline: a short
                // plain string ends there (`shortStringEnd`); a longer one
                // is scanned on from its seventeenth byte, not from its
                // first again (17.9 M → 17.8 M), an escaped one from its
                // first backslash.
                var from = p &+ 1
                if p &+ 17 <= end {
                    if let offset = Self.firstStop(base + from) {
                        let close = from &+ offset
                        if base[close] == UInt8(ascii: "\"") {
                            tape.append(.string, escaped: false, start: from, end: close)
                            p = close &+ 1
                            break
                        }
                        from = close
                    } else if p &+ 33 <= end, let offset = Self.firstStop(base + (from &+ 16)) {
                        // Sixteen more inline: a string of 16 to 31 bytes
                        // (a path, a file or person's name) without the
                        // call (parsing the 10⁴ `real` records:
                        // 13.5 M → 13.0 M).
                        let close = from &+ 16 &+ offset
                        if base[close] == UInt8(ascii: "\"") {
                            tape.append(.string, escaped: false, start: from, end: close)
                            p = close &+ 1
                            break
                        }
                        from = close
                    } else {
                        from &+= 16
                    }
                }
                let (after, escaped) = try Self.string(base, p, end, from: from)
                tape.append(.string, escaped: escaped, start: p &+ 1, end: after &- 1)
                p = after
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                guard depth < JSONDocument.maximumDepth else {
                    throw Self.fail(.depth, at: p)
                }
                let isObject = byte == UInt8(ascii: "{")
                let node = tape.count
                tape.append(isObject ? .object : .array, escaped: false, start: p, end: 0)
                p = Self.skipWhitespace(base, p &+ 1, end)
                if p < end, base[p] == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                    // Empty: closed at once, never open on the stack.
                    tape.close(node, members: 0, end: p &+ 1)
                    p &+= 1
                } else {
                    if depth > 0 { stack[depth &- 1].members = members }
                    stack[depth] = (node: Int32(truncatingIfNeeded: node), members: 0)
                    depth &+= 1
                    members = 0
                    inObject = isObject
                    if isObject { p = try Self.memberKey(base, p, end, &tape) }
                    continue value
                }
            case UInt8(ascii: "t"):
                p = try Self.literal("true", base, p, end)
                tape.append(.boolTrue, escaped: false, start: p - 4, end: p)
            case UInt8(ascii: "f"):
                p = try Self.literal("false", base, p, end)
                tape.append(.boolFalse, escaped: false, start: p - 5, end: p)
            case UInt8(ascii: "n"):
                p = try Self.literal("null", base, p, end)
                tape.append(.null, escaped: false, start: p - 4, end: p)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                let start = p
                p = try Self.number(base, p, end)
                tape.append(.number, escaped: false, start: start, end: p)
            case UInt8(ascii: "N"), UInt8(ascii: "I"):
                throw Self.fail(.notANumber, at: p)
            case 0x20, 0x0A, 0x0D, 0x09:
                // Whitespace after a colon or after a comma in an array:
                // `plainKey` and the array's comma leave it to the value (a
                // check for it after every key cost more than this case,
                // parsing the 10⁴ `real` records: 14.1 M → 13.6 M).
                p = Self.skipWhitespaceRun(base, p, end)
                continue value
            default:
                throw Self.unexpected(byte, at: p)
            }
            // After a value: the next member or element, or the ends of containers.
            while depth > 0 {
                members &+= 1
                // The common case, compact JSON in an object: `,"` right
                // after the value, one 16-bit compare for what took two
                // whitespace skips, two end checks and two byte compares.
                // In an array, a comma right after the value: the next
                // element's whitespace, if any, is the value's to skip
                // (parsing the 10⁴ `real` records: 11.2 M → 11.0 M).
                if inObject {
                    if p &+ 1 < end,
                       UInt16(littleEndian: UnsafeRawPointer(base + p).loadUnaligned(as: UInt16.self)) == Self.commaQuote {
                        p = try Self.memberKey(base, p &+ 1, end, &tape)
                        continue value
                    }
                } else if p < end, base[p] == UInt8(ascii: ",") {
                    p &+= 1
                    continue value
                }
                p = Self.skipWhitespace(base, p, end)
                guard p < end else { throw Self.fail(inObject ? .unterminatedObject : .unterminatedArray, at: p) }
                if base[p] == UInt8(ascii: ",") {
                    p = Self.skipWhitespace(base, p &+ 1, end)
                    if inObject { p = try Self.memberKey(base, p, end, &tape) }
                    continue value
                }
                guard base[p] == (inObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) else {
                    throw Self.fail(inObject ? .objectSeparator : .arraySeparator, at: p)
                }
                depth &-= 1
                tape.close(Int(stack[depth].node), members: members, end: p &+ 1)
                p &+= 1
                if depth > 0 {
                    members = stack[depth &- 1].members
                    inObject = tape.kind(Int(stack[depth &- 1].node)) == .object
                }
            }
            return (p, tape.count)
        }
    }

    /// Whether the parse loop makes room on the tape as it goes
    /// (`RoomChecked`) or all it may need was made before (`RoomMade`):
    /// the loop is specialized for each.
    protocol TapeRoom { static var checked: Bool { get } }
    enum RoomChecked: TapeRoom { static var checked: Bool { true } }
    enum RoomMade: TapeRoom { static var checked: Bool { false } }

    /// `,"` read as a little-endian 16-bit word.
    static let commaQuote: UInt16 = 0x222C

    /// Appends nodes to a `TapeBuffer`, with room made for them beforehand
    /// (`reserveTwo`).
    struct Writer {
        /// Unretained, as the parser's own.
        unowned(unsafe) let tape: TapeBuffer
        var nodes: UnsafeMutablePointer<JSONDocument.Node>
        var capacity: Int
        var count = 0

        init(tape: TapeBuffer) {
            self.tape = tape
            nodes = tape.base
            capacity = tape.capacity
        }

        /// Makes room for two more nodes.
        @inline(__always)
        mutating func reserveTwo() {
            if capacity &- count < 2 { grow() }
        }

        /// Makes the tape larger.
        private mutating func grow() {
            tape.grow(keeping: count, room: 2)
            nodes = tape.base
            capacity = tape.capacity
        }

        /// Appends a node, in room `reserveTwo` made.
        @inline(__always)
        mutating func append(_ kind: JSONDocument.Kind, escaped: Bool, start: Int, end: Int) {
            (nodes + count).initialize(to: .init(kind: kind, escaped: escaped, start: Int32(truncatingIfNeeded: start),
                                                 end: Int32(truncatingIfNeeded: end), next: 0, count: 0))
            count &+= 1
        }

        @inline(__always)
        func kind(_ node: Int) -> JSONDocument.Kind { nodes[node].kind }

        /// Fills in a container's member count, end and the node after it.
        @inline(__always)
        func close(_ node: Int, members: Int32, end: Int) {
            nodes[node].count = members
            nodes[node].end = Int32(truncatingIfNeeded: end)
            nodes[node].next = Int32(truncatingIfNeeded: count)
        }
    }

    /// The closing quote of the string whose opening quote is at `open`
    /// when its content is at most fifteen bytes with no backslash (found
    /// in one `firstStop`); nil for any other string, which `string` reads.
    /// Most keys and many values (ids, types, names) are such strings: this
    /// small check is inlined where `string` is called.
    @inline(__always)
    static func shortStringEnd(_ base: UnsafePointer<UInt8>, _ open: Int, _ end: Int) -> Int? {
        guard open &+ 17 <= end, let offset = firstStop(base + (open &+ 1)) else { return nil }
        let close = open &+ 1 &+ offset
        return base[close] == UInt8(ascii: "\"") ? close : nil
    }

    /// The offset of the first quote or backslash among the sixteen bytes
    /// at `start`, or nil: two SSE2 compares (`SIMD16`), where the bytes of
    /// a 64-bit word took eight instructions each for half as many.
    @inline(__always)
    static func firstStop(_ start: UnsafePointer<UInt8>) -> Int? {
        stops(start).firstTrueLane
    }

    /// The lanes of the sixteen bytes at `start` that are a quote or a backslash.
    @inline(__always)
    static func stops(_ start: UnsafePointer<UInt8>) -> SIMDMask<SIMD16<Int8>> {
        let bytes = UnsafeRawPointer(start).loadUnaligned(as: SIMD16<UInt8>.self)
        // Integer literals: with `UInt8(ascii:)` the compares were not
        // vectorized (a loop over the lanes, through memory).
        let quote = SIMD16<UInt8>(repeating: 0x22), backslash = SIMD16<UInt8>(repeating: 0x5C)
        return (bytes .== quote) .| (bytes .== backslash)
    }

    /// The position of the first quote or backslash from `from` on, below
    /// `end`, or nil: sixteen bytes at a time, and the last few of the
    /// buffer (a record's last string ends a byte or two before its end)
    /// by one load of its last sixteen with the lanes before `from` masked
    /// off, rather than eight bytes and then one at a time. A buffer under
    /// sixteen bytes is read byte by byte.
    @inline(__always)
    static func nextStop(_ base: UnsafePointer<UInt8>, _ from: Int, _ end: Int) -> Int? {
        var p = from
        while p &+ 16 <= end {
            if let offset = firstStop(base + p) { return p &+ offset }
            p &+= 16
        }
        guard p < end else { return nil }
        if end >= 16 {
            let window = end &- 16
            let lanes = SIMD16<UInt8>(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)
            let kept = lanes .>= SIMD16<UInt8>(repeating: UInt8(truncatingIfNeeded: p &- window))
            return (stops(base + window) .& kept).firstTrueLane.map { window &+ $0 }
        }
        while p < end, base[p] != UInt8(ascii: "\""), base[p] != UInt8(ascii: "\\") { p &+= 1 }
        return p < end ? p : nil
    }

    /// The common member: a short plain key (`shortStringEnd`) at `p` and
    /// the colon right after it. Appends the key and returns the position
    /// after the colon, where the value starts or whitespace before it
    /// (which the parse loop skips); nil for any other member (nothing
    /// appended), which `key` reads.
    @inline(__always)
    static func plainKey(_ base: UnsafePointer<UInt8>, _ p: Int, _ end: Int, _ tape: inout Writer) -> Int? {
        guard p < end, base[p] == UInt8(ascii: "\""), let close = shortStringEnd(base, p, end), close &+ 1 < end,
              base[close &+ 1] == UInt8(ascii: ":") else { return nil }
        tape.append(.string, escaped: false, start: p &+ 1, end: close)
        return close &+ 2
    }

    /// A member's key and colon, from `p` (after whitespace): appends the
    /// key and returns where its value starts (after whitespace).
    @inline(__always)
    static func memberKey(_ base: UnsafePointer<UInt8>, _ p: Int, _ end: Int, _ tape: inout Writer) throws -> Int {
        if let value = plainKey(base, p, end, &tape) { return value }
        let (value, close, escaped) = try key(base, p, end)
        tape.append(.string, escaped: escaped, start: p &+ 1, end: close)
        return value
    }

    /// Any member's key and colon, from `p` (after whitespace): where its
    /// value starts (after whitespace), the key's closing quote and whether
    /// the key has escapes. Out of line, with the tape left to the caller:
    /// a tape passed `inout` to a call was kept in memory, its end stored
    /// and reloaded at every node, not only around the call (14.4 M →
    /// 14.1 M in the parse, with `number` above).
    static func key(_ base: UnsafePointer<UInt8>, _ p: Int, _ end: Int) throws -> (value: Int, close: Int, escaped: Bool) {
        guard p < end, base[p] == UInt8(ascii: "\"") else { throw fail(.key, at: p) }
        let (after, escaped) = try string(base, p, end)
        let colon = skipWhitespace(base, after, end)
        guard colon < end, base[colon] == UInt8(ascii: ":") else { throw fail(.colon, at: colon) }
        return (skipWhitespace(base, colon &+ 1, end), after &- 1, escaped)
    }

    /// The literal `word` at `p`: returns the position after it.
    @inline(__always)
    static func literal(_ word: StaticString, _ base: UnsafePointer<UInt8>, _ p: Int, _ end: Int) throws -> Int {
        let length = word.utf8CodeUnitCount
        guard p + length <= end else { throw fail(.literal, at: p) }
        let expected = word.utf8Start
        for index in 0..<length where base[p + index] != expected[index] {
            throw fail(.literal, at: p)
        }
        return p + length
    }

    @inline(__always)
    static func isDigit(_ byte: UInt8) -> Bool { byte &- 0x30 < 10 }

    /// The number at `start`: returns the position after it. A plain
    /// integer that does not start with 0 (array elements such as a
    /// waveform's, sizes, counts) is read here, inlined in the loop; any
    /// other number by `fullNumber`, from its start again.
    ///
    /// The digits after the first are found among the next eight bytes at
    /// once (when eight are there): each byte XOR "0" must be 0 to 9, and
    /// adding 0x76 sets the high bit of one above 9 (a byte from 0x80 has
    /// it already; the carry out of such a byte changes only bytes after
    /// it, so the first byte that is not a digit is found right). A loop
    /// per digit cost about ten instructions a digit and mispredicted at
    /// each number's end (with `key` below, parsing the 10⁴ `real`
    /// records: 14.4 M → 14.1 M).
    @inline(__always)
    static func number(_ base: UnsafePointer<UInt8>, _ start: Int, _ end: Int) throws -> Int {
        if base[start] &- UInt8(ascii: "1") < 9 {
            var p = start &+ 1
            if p &+ 8 <= end {
                let word = UInt64(littleEndian: UnsafeRawPointer(base + p).loadUnaligned(as: UInt64.self))
                    ^ 0x3030_3030_3030_3030
                let others = ((word &+ 0x7676_7676_7676_7676) | word) & 0x8080_8080_8080_8080
                p &+= others.trailingZeroBitCount &>> 3
                // Eight digits: the rest one at a time.
                if others == 0 { while p < end, isDigit(base[p]) { p &+= 1 } }
            } else {
                while p < end, isDigit(base[p]) { p &+= 1 }
            }
            if p == end || (base[p] != UInt8(ascii: ".") && base[p] | 0x20 != UInt8(ascii: "e")) { return p }
        }
        return try fullNumber(base, start, end)
    }

    /// Any number at `start` (`number`): returns the position after it.
    static func fullNumber(_ base: UnsafePointer<UInt8>, _ start: Int, _ end: Int) throws -> Int {
        var p = start
        if base[p] == UInt8(ascii: "-") { p += 1 }
        guard p < end, isDigit(base[p]) else {
            if p < end, base[p] == UInt8(ascii: "I") { throw fail(.notANumber, at: p) }
            throw fail(.number, at: start)
        }
        if base[p] == UInt8(ascii: "0") {
            p += 1
        } else {
            while p < end, isDigit(base[p]) { p += 1 }
        }
        if p < end, base[p] == UInt8(ascii: ".") {
            p += 1
            guard p < end, isDigit(base[p]) else { throw fail(.number, at: start) }
            while p < end, isDigit(base[p]) { p += 1 }
        }
        if p < end, base[p] | 0x20 == UInt8(ascii: "e") {
            p += 1
            if p < end, base[p] == UInt8(ascii: "+") || base[p] == UInt8(ascii: "-") { p += 1 }
            guard p < end, isDigit(base[p]) else { throw fail(.number, at: start) }
            while p < end, isDigit(base[p]) { p += 1 }
        }
        return p
    }

    /// The string whose opening quote is at `open`: the position after its
    /// closing quote, and whether it has escapes. Escapes are checked here and
    /// decoded on demand. Invalid UTF-8 and raw control characters are
    /// accepted: they are repaired or made visible when the text is shown,
    /// so no message is lost.
    @inline(__always)
    static func string(_ base: UnsafePointer<UInt8>, _ open: Int, _ end: Int) throws -> (after: Int, escaped: Bool) {
        try string(base, open, end, from: open &+ 1)
    }

    /// `string` when the bytes from after the opening quote at `open` up
    /// to `from` are known to hold no quote or backslash.
    @inline(__always)
    static func string(_ base: UnsafePointer<UInt8>, _ open: Int, _ end: Int, from: Int) throws
        -> (after: Int, escaped: Bool) {
        var p = from
        var escaped = false
        while let stop = nextStop(base, p, end) {
            p = stop
            if base[p] == UInt8(ascii: "\"") { return (p + 1, escaped) }
            // A backslash.
            escaped = true
            guard p + 1 < end else { break }
            switch base[p + 1] {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
                 UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                p += 2
            case UInt8(ascii: "u"):
                guard p + 6 <= end else { throw fail(.truncatedEscape, at: p) }
                for index in 2..<6 where hexValue(base[p + index]) == nil {
                    throw fail(.invalidUnicodeEscape, at: p)
                }
                p += 6
            default:
                throw fail(.invalidEscape, at: p)
            }
        }
        throw fail(.unterminatedString, at: open)
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

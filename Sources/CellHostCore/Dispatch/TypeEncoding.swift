import Synchronization
/// One type in an Objective-C style type encoding, as plugin methods declare
/// them (`i@:r^{cellhost_message}…`).
///
/// The host parses each method's encoding once, at load time, to build the
/// libffi call interface for it; a string it cannot parse rejects the class.
public indirect enum EncodedType: Equatable, Sendable {
    case void, bool
    case char, unsignedChar, short, unsignedShort, int, unsignedInt
    case long, unsignedLong, longLong, unsignedLongLong
    case float, double
    /// `*`: a C string.
    case cString
    /// `@`: a `cellhost_object *`.
    case object
    /// `:`: a `cellhost_sel`.
    case selector
    /// `^T`: a pointer.
    case pointer(EncodedType)
    /// `{name}`: a struct whose fields are not given; only valid behind `^`.
    case opaqueStruct(String)
    /// `{name=T…}`: a struct with its fields, passable by value.
    case structure(String, [EncodedType])

    /// True for the types libffi passes in a register or on the stack as a
    /// scalar or pointer.
    var isPassableByValue: Bool {
        switch self {
        case .void, .opaqueStruct: return false
        case .structure(_, let fields): return !fields.isEmpty && fields.allSatisfy(\.isPassableByValue)
        default: return true
        }
    }
}

/// Why a type encoding could not be parsed.
public struct TypeEncodingError: Error, Equatable, CustomStringConvertible {
    /// The whole encoding as found.
    public var encoding: String
    /// Byte offset of the problem.
    public var offset: Int
    /// What is wrong there.
    public var reason: String

    public var description: String {
        "malformed type encoding '\(encoding)': \(reason) at offset \(offset)"
    }
}

/// A parsed method type encoding: the return type and every argument,
/// starting with `self` (`@`) and `_cmd` (`:`).
public struct MethodTypeEncoding: Equatable, Sendable {
    public var returnType: EncodedType
    /// All arguments, including `self` and `_cmd`.
    public var arguments: [EncodedType]
    /// The encoding with Objective-C stack-offset digits removed: the form
    /// compared with the encodings required of well-known selectors.
    public var canonical: String

    /// Parses `encoding`, requiring `@` and `:` as the first two arguments,
    /// as every IMP receives `self` and `_cmd`.
    public init(parsing encoding: String) throws {
        var parser = EncodingParser(encoding)
        guard !parser.atEnd else { throw parser.error("empty encoding") }
        returnType = try parser.parseType(allowVoid: true)
        var args: [EncodedType] = []
        while !parser.atEnd {
            let start = parser.offset
            let type = try parser.parseType(allowVoid: false)
            guard type.isPassableByValue else {
                throw TypeEncodingError(encoding: encoding, offset: start,
                                        reason: "a struct without fields cannot be passed by value (use ^{name})")
            }
            args.append(type)
        }
        guard args.count >= 2, args[0] == .object, args[1] == .selector else {
            throw parser.error("arguments must begin with '@' (self) and ':' (_cmd)", at: 0)
        }
        guard args.count <= 32 else { throw parser.error("more than 30 arguments", at: 0) }
        if case .opaqueStruct = returnType {
            throw parser.error("a struct without fields cannot be returned by value", at: 0)
        }
        arguments = args
        canonical = parser.canonical
    }

    /// The canonical form of an encoding string, or nil when it does not parse.
    public static func canonicalForm(of encoding: String) -> String? {
        (try? parsed(encoding))?.canonical
    }

    /// Encodings parsed so far in this process, by string: every plugin's
    /// `renderMessage:context:into:` has the same one, and parsing it costs
    /// tens of thousands of instructions. Bounded (count and length), as
    /// `send` passes strings a plugin chose at render time.
    private static let parsedEncodings = Mutex<[String: MethodTypeEncoding]>([:])
    static let maximumCachedEncodings = 4096
    static let maximumCachedEncodingLength = 512

    /// `MethodTypeEncoding(parsing:)`, remembered for the life of the process
    /// (thread-safe). Errors are not remembered.
    static func parsed(_ encoding: String) throws -> MethodTypeEncoding {
        if let known = parsedEncodings.withLock({ $0[encoding] }) { return known }
        let parsed = try MethodTypeEncoding(parsing: encoding)
        if encoding.utf8.count <= maximumCachedEncodingLength {
            parsedEncodings.withLock { cache in
                if cache.count < maximumCachedEncodings { cache[encoding] = parsed }
            }
        }
        return parsed
    }
}

/// A recursive-descent parser over the bytes of one encoding.
private struct EncodingParser {
    let text: String
    let bytes: [UInt8]
    var offset = 0
    /// The encoding as parsed so far, without stack-offset digits.
    var canonical = ""
    /// Types being parsed, one inside the other (pointees, struct fields).
    var depth = 0
    /// Deeper nesting is refused: the parser recurses once per level, and a
    /// `types` string `send` receives at render time has no length limit.
    static let maximumDepth = 64

    init(_ text: String) {
        self.text = text
        self.bytes = Array(text.utf8)
    }

    var atEnd: Bool { offset >= bytes.count }

    func error(_ reason: String, at position: Int? = nil) -> TypeEncodingError {
        TypeEncodingError(encoding: text, offset: position ?? offset, reason: reason)
    }

    mutating func take() -> UInt8 {
        let byte = bytes[offset]
        offset += 1
        canonical.unicodeScalars.append(Unicode.Scalar(byte))
        return byte
    }

    /// Skips the decimal stack offsets the Objective-C runtime writes after each type.
    mutating func skipDigits() {
        while offset < bytes.count, bytes[offset] >= UInt8(ascii: "0"), bytes[offset] <= UInt8(ascii: "9") {
            offset += 1
        }
    }

    mutating func parseType(allowVoid: Bool, topLevel: Bool = true) throws -> EncodedType {
        guard depth < EncodingParser.maximumDepth else {
            throw error("types nested more than \(EncodingParser.maximumDepth) deep")
        }
        depth += 1
        defer { depth -= 1 }
        // Qualifier: `r` (const) does not change how a value is passed.
        while offset < bytes.count, bytes[offset] == UInt8(ascii: "r") { _ = take() }
        guard offset < bytes.count else { throw error("unexpected end of encoding, a type is missing") }
        let start = offset
        let letter = take()
        let type: EncodedType
        switch letter {
        case UInt8(ascii: "v"):
            guard allowVoid else { throw error("'v' (void) is only valid as a return type or behind '^'", at: start) }
            type = .void
        case UInt8(ascii: "B"): type = .bool
        case UInt8(ascii: "c"): type = .char
        case UInt8(ascii: "C"): type = .unsignedChar
        case UInt8(ascii: "s"): type = .short
        case UInt8(ascii: "S"): type = .unsignedShort
        case UInt8(ascii: "i"): type = .int
        case UInt8(ascii: "I"): type = .unsignedInt
        case UInt8(ascii: "l"): type = .long
        case UInt8(ascii: "L"): type = .unsignedLong
        case UInt8(ascii: "q"): type = .longLong
        case UInt8(ascii: "Q"): type = .unsignedLongLong
        case UInt8(ascii: "f"): type = .float
        case UInt8(ascii: "d"): type = .double
        case UInt8(ascii: "*"): type = .cString
        case UInt8(ascii: "@"): type = .object
        case UInt8(ascii: ":"): type = .selector
        case UInt8(ascii: "^"):
            guard offset < bytes.count else { throw error("'^' at the end: the pointee type is missing", at: start) }
            type = .pointer(try parseType(allowVoid: true, topLevel: false))
        case UInt8(ascii: "{"):
            type = try parseStruct(start: start)
        default:
            let shown = letter >= 0x21 && letter < 0x7F ? "'\(Character(Unicode.Scalar(letter)))'" : "byte 0x\(String(letter, radix: 16))"
            throw error("unknown type \(shown)", at: start)
        }
        if topLevel { skipDigits() }
        return type
    }

    mutating func parseStruct(start: Int) throws -> EncodedType {
        var name = ""
        while offset < bytes.count {
            let byte = bytes[offset]
            if byte == UInt8(ascii: "}") || byte == UInt8(ascii: "=") { break }
            guard byte == UInt8(ascii: "_") || byte == UInt8(ascii: "?")
                    || (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A) else {
                throw error("invalid character in struct name", at: offset)
            }
            name.unicodeScalars.append(Unicode.Scalar(take()))
        }
        guard offset < bytes.count else { throw error("unterminated '{'", at: start) }
        guard !name.isEmpty else { throw error("struct without a name", at: start) }
        if take() == UInt8(ascii: "}") { return .opaqueStruct(name) }
        var fields: [EncodedType] = []
        while true {
            guard offset < bytes.count else { throw error("unterminated '{'", at: start) }
            if bytes[offset] == UInt8(ascii: "}") { _ = take(); break }
            let fieldStart = offset
            let field = try parseType(allowVoid: false, topLevel: false)
            guard field.isPassableByValue else {
                throw error("a struct field must have a size", at: fieldStart)
            }
            fields.append(field)
        }
        guard !fields.isEmpty else { throw error("struct '\(name)' has '=' but no fields", at: start) }
        return .structure(name, fields)
    }
}

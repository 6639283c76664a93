import XCTest
@testable import CellHostCore

/// The tape parser (one loop, its own stack of open containers) builds the
/// same tape, and fails with the same reason at the same offset, as the
/// plain recursive descent written out here: on random JSON, and on random
/// cuts and byte changes of it.
final class JSONParserReferenceTests: XCTestCase {
    /// The nodes `input` parses to, or the error, by the parser under test.
    private static func parsed(_ input: [UInt8]) -> Result<[JSONDocument.Node], JSONSyntaxError> {
        var document = JSONDocument()
        do {
            try input.withUnsafeBufferPointer { try document.parse($0) }
            return .success(document.nodes.all)
        } catch let error as JSONSyntaxError {
            return .failure(error)
        } catch {
            XCTFail("unexpected error \(error)")
            return .failure(JSONSyntaxError(offset: -1, reason: "\(error)"))
        }
    }

    /// The same by the reference.
    private static func referenced(_ input: [UInt8]) -> Result<[JSONDocument.Node], JSONSyntaxError> {
        input.withUnsafeBufferPointer { buffer in
            var nodes: [JSONDocument.Node] = []
            var parser = ReferenceParser(bytes: buffer)
            do {
                parser.skipWhitespace()
                guard parser.position < buffer.count else { throw JSONSyntaxError(offset: 0, reason: "empty value") }
                try parser.parseValue(into: &nodes, depth: 0)
                parser.skipWhitespace()
                if parser.position < buffer.count {
                    throw JSONSyntaxError(offset: parser.position, reason: "unexpected data after the JSON value")
                }
                return .success(nodes)
            } catch let error as JSONSyntaxError {
                return .failure(error)
            } catch {
                return .failure(JSONSyntaxError(offset: -2, reason: "\(error)"))
            }
        }
    }

    private static func describe(_ result: Result<[JSONDocument.Node], JSONSyntaxError>) -> String {
        switch result {
        case let .success(nodes):
            return nodes.map { "\($0.kind) \($0.escaped) \($0.start) \($0.end) \($0.next) \($0.count)" }.joined(separator: "; ")
        case let .failure(error):
            return "error \(error.offset): \(error.reason)"
        }
    }

    /// Random JSON: objects, arrays, strings with escapes, numbers,
    /// literals, whitespace, nesting up to `depth`.
    private static func randomValue(_ generator: inout SystemRandomNumberGenerator, depth: Int) -> String {
        let space = [" ", "", "", "\n", "\t", "  "].randomElement(using: &generator)!
        switch Int.random(in: 0..<(depth > 0 ? 9 : 6), using: &generator) {
        case 0: return space + ["true", "false", "null"].randomElement(using: &generator)!
        case 1: return space + ["0", "-12", "3.25", "1e9", "-0.5E-3", "42", "255"].randomElement(using: &generator)!
        case 2, 3:
            let parts = ["a", "word", "\\\"", "\\\\", "\\n", "\\u00e9", "é", "日本", "😀", " ", "\\/", "12345678"]
            return space + "\"" + (0..<Int.random(in: 0...6, using: &generator)).map { _ in parts.randomElement(using: &generator)! }.joined() + "\""
        case 4: return space + "[]"
        case 5: return space + "{}"
        case 6, 7:
            let members = (0..<Int.random(in: 1...5, using: &generator)).map { _ in
                "\"" + ["id", "type", "text", "k\\u0041", "a b"].randomElement(using: &generator)! + "\"" + space + ":" + randomValue(&generator, depth: depth - 1)
            }
            return space + "{" + members.joined(separator: ",") + space + "}"
        default:
            let elements = (0..<Int.random(in: 1...5, using: &generator)).map { _ in randomValue(&generator, depth: depth - 1) }
            return space + "[" + elements.joined(separator: ",") + space + "]"
        }
    }

    func test_randomJSON_parsesToTheReferenceTape() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<3000 {
            let input = Array(Self.randomValue(&generator, depth: 4).utf8)
            let result = Self.describe(Self.parsed(input)), reference = Self.describe(Self.referenced(input))
            XCTAssertEqual(result, reference, String(decoding: input, as: UTF8.self))
            if result != reference { return }
        }
    }

    func test_damagedJSON_failsLikeTheReference() {
        var generator = SystemRandomNumberGenerator()
        let damage: [UInt8] = Array("{}[]\",:\\ 0-eE.tfnuxNI".utf8) + [0x00, 0xFF, 0x0A]
        for _ in 0..<6000 {
            var input = Array(Self.randomValue(&generator, depth: 4).utf8)
            switch Int.random(in: 0..<3, using: &generator) {
            case 0: input = Array(input.prefix(Int.random(in: 0...input.count, using: &generator)))
            case 1: if !input.isEmpty { input[Int.random(in: 0..<input.count, using: &generator)] = damage.randomElement(using: &generator)! }
            default: input.insert(damage.randomElement(using: &generator)!, at: Int.random(in: 0...input.count, using: &generator))
            }
            let result = Self.describe(Self.parsed(input)), reference = Self.describe(Self.referenced(input))
            XCTAssertEqual(result, reference, input.map { String($0, radix: 16) }.joined(separator: " "))
            if result != reference { return }
        }
    }

    /// Strings and keys around the sixteen-byte fast paths (`shortStringEnd`,
    /// `plainKey`, `string`'s `firstStop`): every content length up to 18
    /// bytes and around 32, with an escape or a stray quote at each place,
    /// spaces around the colon or not, and the input cut at every byte.
    func test_shortStringsAndKeys_parseLikeTheReference() {
        var inputs: [String] = []
        for length in Array(0...18) + Array(30...34) {
            let plain = String(repeating: "k", count: length)
            var contents = [plain]
            for position in 0..<length {
                var characters = Array(plain)
                characters[position] = "\\"
                contents.append(String(characters))
                contents.append(String(characters) + "n")
                characters[position] = "\""
                contents.append(String(characters))
            }
            for content in contents {
                inputs.append("\"\(content)\"")
                inputs.append("[\"\(content)\",1]")
                inputs.append("{\"\(content)\":1}")
                inputs.append("{\"\(content)\": \"\(content)\"}")
                inputs.append("{\"a\":1,\"\(content)\" :2}")
                inputs.append("{\"a\":1,\"\(content)\":\"\(content)\"}")
            }
        }
        for text in inputs {
            let input = Array(text.utf8)
            for cut in 0...input.count {
                let part = Array(input.prefix(cut))
                let result = Self.describe(Self.parsed(part)), reference = Self.describe(Self.referenced(part))
                XCTAssertEqual(result, reference, String(decoding: part, as: UTF8.self))
                if result != reference { return }
            }
        }
    }

    /// `TapeParser.nextStop` (sixteen bytes at a time, the buffer's last
    /// few by one load of its last sixteen with the lanes before the start
    /// masked off) finds the same quote or backslash as a byte loop: a stop
    /// at every place of buffers of 0 to 40 bytes, scanned from every
    /// offset, among fillers with multi-byte and invalid UTF-8, control
    /// bytes and the stops' bytes with the high bit set.
    func test_nextStop_findsWhatAByteLoopFinds() {
        let fillers: [[UInt8]] = [Array("abcdefgh".utf8), Array("é日本😀".utf8), [0x00, 0x1F, 0x7F, 0xFF, 0xA2, 0xDC, 0x80, 0xC3]]
        for length in 0...40 {
            for filler in fillers {
                let plain = (0..<length).map { filler[$0 % filler.count] }
                var buffers = [plain]
                for position in 0..<length {
                    for stop: UInt8 in [0x22, 0x5C] {
                        var buffer = plain
                        buffer[position] = stop
                        buffers.append(buffer)
                        if position + 3 < length {
                            buffer[position + 3] = stop == 0x22 ? 0x5C : 0x22
                            buffers.append(buffer)
                        }
                    }
                }
                for buffer in buffers {
                    buffer.withUnsafeBufferPointer { bytes in
                        // A base address even for the empty buffer.
                        let base = bytes.baseAddress ?? UnsafePointer(bitPattern: 16)!
                        for from in 0...length {
                            let expected = (from..<length).first { bytes[$0] == 0x22 || bytes[$0] == 0x5C }
                            XCTAssertEqual(TapeParser.nextStop(base, from, length), expected, "\(buffer) from \(from)")
                        }
                    }
                }
            }
        }
    }

    /// Strings that end the input, the case the last-sixteen-bytes load
    /// reads: every content length up to 40 with non-ASCII characters, an
    /// escape or a stray quote at each place, as the whole input, the last
    /// element, the last member, or that and a space, cut at each of the
    /// last 20 bytes.
    func test_stringsAtTheEndOfTheInput_parseLikeTheReference() {
        let characters: [Character] = ["k", "é", "日", "😀"]
        for length in 0...40 {
            let plain = (0..<length).map { characters[$0 % characters.count] }
            var contents = [String(plain)]
            for position in 0..<length {
                var changed = plain
                changed[position] = "\\"
                contents.append(String(changed))
                changed[position] = "\""
                contents.append(String(changed))
            }
            for content in contents {
                for text in ["\"\(content)\"", "[\"\(content)\"]", "{\"a\":\"\(content)\"}", "{\"a\":\"\(content)\"} "] {
                    let input = Array(text.utf8)
                    for cut in max(0, input.count - 20)...input.count {
                        let part = Array(input.prefix(cut))
                        let result = Self.describe(Self.parsed(part)), reference = Self.describe(Self.referenced(part))
                        XCTAssertEqual(result, reference, String(decoding: part, as: UTF8.self))
                        if result != reference { return }
                    }
                }
            }
        }
    }

    /// Values longer than `JSONDocument.reservedBytes` take the parse loop
    /// that makes room on the tape as it goes (`TapeParser.RoomChecked`),
    /// shorter ones the loop whose room was made beforehand: both give the
    /// reference's tape and errors, on random values of either length,
    /// whole and damaged, parsed by one reused document (whose tape a long
    /// value grew, and whose next value may be short) and by a new one.
    func test_longAndShortValues_parseLikeTheReference() {
        var generator = SystemRandomNumberGenerator()
        var reused = JSONDocument()
        let damage: [UInt8] = Array("{}[]\",:\\ 0-eE.tfn".utf8) + [0x00, 0xFF, 0x0A]
        var long = 0
        for round in 0..<600 {
            // Two to forty random values in an array: from a few bytes to a few KiB.
            let count = Int.random(in: 2...40, using: &generator)
            var input = Array(("[" + (0..<count).map { _ in Self.randomValue(&generator, depth: 3) }.joined(separator: ",") + "]").utf8)
            if round % 3 == 1, !input.isEmpty {
                input[Int.random(in: 0..<input.count, using: &generator)] = damage.randomElement(using: &generator)!
            } else if round % 3 == 2 {
                input = Array(input.prefix(Int.random(in: 0...input.count, using: &generator)))
            }
            if input.count > JSONDocument.reservedBytes { long += 1 }
            let reference = Self.describe(Self.referenced(input))
            XCTAssertEqual(Self.describe(Self.parsed(input)), reference, String(decoding: input, as: UTF8.self))
            let again: Result<[JSONDocument.Node], JSONSyntaxError>
            do {
                try input.withUnsafeBufferPointer { try reused.parse($0) }
                again = .success(reused.nodes.all)
            } catch let error as JSONSyntaxError {
                again = .failure(error)
            } catch {
                again = .failure(JSONSyntaxError(offset: -1, reason: "\(error)"))
            }
            XCTAssertEqual(Self.describe(again), reference, String(decoding: input, as: UTF8.self))
            if Self.describe(again) != reference { return }
        }
        XCTAssertGreaterThan(long, 50, "too few values over reservedBytes to test the checked loop")
    }

    /// Numbers, literals and containers, one byte each where JSON allows
    /// it, so that a value has nearly a node per byte (the bound the room
    /// made beforehand relies on), at lengths around `reservedBytes`.
    func test_denseValues_parseLikeTheReference() {
        for length in [1, 2, 3, 511, 512, 1000, 1021, 1022, 1023, 1024, 1025, 3000] {
            for element in ["0", "[]", "{}", "\"\"", "[0]", "{\"\":0}"] {
                var text = "["
                while text.utf8.count + element.utf8.count + 1 < length { text += (text.count > 1 ? "," : "") + element }
                for input in [Array((text + "]").utf8), Array(text.utf8), Array(("[" + text + "]").utf8)] {
                    XCTAssertEqual(Self.describe(Self.parsed(input)), Self.describe(Self.referenced(input)), "\(length) \(element)")
                }
            }
        }
    }

    /// Numbers around the eight-byte digit scan (`TapeParser.number`):
    /// one to twelve digits, from every first digit and a minus, followed
    /// by each byte that can end a number or make it another one (a
    /// fraction, an exponent, stray bytes, invalid UTF-8), with padding
    /// after them or none, so that each ends at every distance from the
    /// end of the input, and cut at each of the last twelve bytes.
    func test_numbers_parseLikeTheReference() {
        let followers: [[UInt8]] = [[], Array(",1".utf8), Array("]".utf8), Array(".5".utf8), Array(".".utf8), Array("e3".utf8),
                                    Array("E+1".utf8), Array("x".utf8), Array(" ".utf8), Array("-".utf8), Array("0".utf8),
                                    [0x00], [0xFF], [0x2F], [0x3A], [0xB0], [0xC0]]
        for digits in 1...12 {
            for first in Array("0123456789-".utf8) {
                let literal = [first] + (1..<digits).map { UInt8(ascii: "0") + UInt8(($0 * 7 + digits) % 10) }
                for follower in followers {
                    for padding in 0...9 {
                        let input = Array("[".utf8) + literal + follower + Array(repeating: UInt8(ascii: " "), count: padding)
                            + Array("]".utf8)
                        for cut in max(0, input.count - 12)...input.count {
                            let part = Array(input.prefix(cut))
                            let result = Self.describe(Self.parsed(part)), reference = Self.describe(Self.referenced(part))
                            XCTAssertEqual(result, reference, part.map { String($0, radix: 16) }.joined(separator: " "))
                            if result != reference { return }
                        }
                    }
                }
            }
        }
    }

    func test_nestingPastTheLimit_failsLikeTheReference() {
        for depth in [63, 64, 65, 100] {
            for open in ["[", "{\"a\":"] {
                let input = Array((String(repeating: open, count: depth) + "1").utf8)
                XCTAssertEqual(Self.describe(Self.parsed(input)), Self.describe(Self.referenced(input)), "\(depth) \(open)")
            }
        }
    }
}

/// The recursive-descent tape parser CellHost used before its parser became
/// one loop: the reference the tests above compare with.
struct ReferenceParser {
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


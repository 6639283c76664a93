import CellHostABI
import Glibc
import XCTest
@testable import CellHostCore

/// The fast paths behind the message API's look-ups, each compared with the
/// general way of getting the same answer: numbers without `strtod`, key
/// paths resumed after the last path's shared segments (`PathMemo`),
/// printable ASCII stored without the sanitizer's look, and `info`'s text
/// stored straight from the document.
final class MessageLookupFastPathTests: XCTestCase {
    // MARK: Numbers

    /// `strtod` of a literal, as `number` read every non-integer before.
    private func strtodValue(_ literal: String) -> Double { strtod(literal, nil) }

    private func number(_ literal: String) -> Double {
        var literal = literal
        return literal.withUTF8 { JSONDocument.number($0) }
    }

    private func shortDecimal(_ literal: String) -> Double? {
        var literal = literal
        return literal.withUTF8 { JSONDocument.shortDecimal($0) }
    }

    /// The answer `number` gave before the short-decimal path: an integer
    /// below 2^53 exactly, anything else from `strtod`.
    private func referenceNumber(_ literal: String) -> Double {
        var literal = literal
        if let integer = literal.withUTF8({ JSONDocument.integer($0) }), integer.magnitude < (1 << 53) {
            return Double(integer)
        }
        return strtodValue(literal)
    }

    func test_shortDecimals_areWhatStrtodGives_bitForBit() {
        let literals = ["62.7", "0.1", "0.2", "0.3", "-0.5", "1e5", "1E+5", "1e-5", "2.5e-3", "-0.0e1", "0.0", "-0.0",
                        "9007199254740992.5", "900719925474099.3", "9.007199254740993", "1e22", "1e23", "1e-22", "1e-23",
                        "123456789.123456789", "0.000000000000000000001", "4.35", "17.9e0", "1.7976931348623157e308",
                        "5e-324", "100000000000000000000000", "3.0", "12345678901234567", "1234567890123456.7"]
        for literal in literals {
            XCTAssertEqual(number(literal).bitPattern, referenceNumber(literal).bitPattern, literal)
            if let fast = shortDecimal(literal) {
                XCTAssertEqual(fast.bitPattern, strtodValue(literal).bitPattern, literal)
            }
        }
        XCTAssertNotNil(shortDecimal("62.7"), "a short decimal takes the fast path")
        XCTAssertNil(shortDecimal("1e23"), "10^23 is not exact: strtod")
    }

    func test_randomDecimals_areWhatStrtodGives_bitForBit() {
        var generator = SystemRandomNumberGenerator()
        func digits(_ count: Int) -> String {
            String((0..<count).map { _ in Character(String(Int.random(in: 0...9, using: &generator))) })
        }
        var fast = 0
        for _ in 0..<20_000 {
            var literal = Bool.random(using: &generator) ? "-" : ""
            let whole = digits(Int.random(in: 1...12, using: &generator))
            literal += whole.count > 1 && whole.first == "0" ? "1" + whole.dropFirst() : whole
            if Bool.random(using: &generator) { literal += "." + digits(Int.random(in: 1...12, using: &generator)) }
            if Int.random(in: 0..<4, using: &generator) == 0 {
                literal += ["e", "E"].randomElement(using: &generator)! + ["", "+", "-"].randomElement(using: &generator)!
                    + String(Int.random(in: 0...30, using: &generator))
            }
            XCTAssertEqual(number(literal).bitPattern, referenceNumber(literal).bitPattern, literal)
            if let value = shortDecimal(literal) {
                fast += 1
                XCTAssertEqual(value.bitPattern, strtodValue(literal).bitPattern, literal)
            }
        }
        XCTAssertGreaterThan(fast, 1_000, "the fast path is taken")
    }

    /// The bulk read of an array of numbers (short integers in one pass)
    /// gives what `number` gives for each element.
    func test_numberElements_areWhatNumberReadsForEachElement() throws {
        var generator = SystemRandomNumberGenerator()
        let literals = ["0", "-0", "7", "-7", "123456789012345", "-123456789012345", "1234567890123456",
                        "9007199254740993", "-9223372036854775808", "18446744073709551616", "0.5", "-2.25e3", "1e400",
                        "62.7", "3.0", "-0.0", "1E2"]
        for _ in 0..<300 {
            let elements = (0..<Int.random(in: 0...80, using: &generator)).map { _ in
                Bool.random(using: &generator) ? literals.randomElement(using: &generator)!
                    : String(Int.random(in: -100_000...100_000, using: &generator))
            }
            let document = try parseJSON("[" + elements.joined(separator: ",") + "]")
            let capacity = Int.random(in: 0...90, using: &generator)
            var out = [Double](repeating: .nan, count: capacity)
            let total = out.withUnsafeMutableBufferPointer {
                document.numberElements(JSONDocument.root, into: $0.baseAddress, capacity: capacity)
            }
            XCTAssertEqual(total, elements.count)
            let expected = document.elements(JSONDocument.root).prefix(capacity).map { document.number($0)! }
            XCTAssertEqual(out.prefix(expected.count).map(\.bitPattern), expected.map(\.bitPattern), "\(elements)")
        }
    }

    /// `shortDigits` (a literal of up to three digits, unrolled) gives
    /// what `shortInteger` gives, bit for bit, and gives it for every
    /// literal of one to three digits: every byte value at each place of
    /// literals of one and two bytes, and literals of three bytes over
    /// digits, their neighbours in ASCII and bytes with the high bit set,
    /// after other bytes. Empty and longer literals are left to the
    /// general reads.
    func test_shortDigits_areWhatShortIntegerGives_exhaustively() {
        let edges: [UInt8] = Array(0x2D...0x3A) + [0x00, 0x20, 0x2B, 0x45, 0x65, 0x5D, 0x7F, 0x80, 0xB0, 0xB9, 0xF0, 0xFA, 0xFF]
        var literals: [[UInt8]] = (0...255).map { [UInt8($0)] }
        for a in 0...255 { for b in 0...255 { literals.append([UInt8(a), UInt8(b)]) } }
        for a in edges { for b in edges { for c in edges { literals.append([a, b, c]) } } }
        for digits in 0..<1000 { literals.append(Array(String(digits).utf8)) }
        for digits in 0..<100 { literals.append(Array(("00" + String(digits)).suffix(3).utf8)) }
        for literal in literals {
            for prefix: [UInt8] in [[0x5B, 0x5B, 0x5B, 0x5B], [0x2C, 0x31, 0x32, 0x33], [0xFF, 0xFF, 0xFF, 0xFF], [0x30, 0x30, 0x30, 0x30]] {
                let buffer = prefix + literal + [0x5D]
                buffer.withUnsafeBufferPointer { buffer in
                    let base = buffer.baseAddress!
                    let start = prefix.count, end = prefix.count + literal.count
                    let fast = JSONDocument.shortDigits(base, start, end)
                    let general = JSONDocument.shortInteger(base, start, end)
                    if let fast {
                        XCTAssertEqual(fast.bitPattern, general?.bitPattern, "\(literal) after \(prefix)")
                    } else if literal.allSatisfy({ $0 &- 0x30 < 10 }) {
                        XCTFail("\(literal) not read")
                    }
                }
            }
        }
        XCTAssertNil(Array("[]".utf8).withUnsafeBufferPointer { JSONDocument.shortDigits($0.baseAddress!, 1, 1) })
        XCTAssertNil(Array("[1234]".utf8).withUnsafeBufferPointer { JSONDocument.shortDigits($0.baseAddress!, 1, 5) })
    }

    // MARK: Key paths

    /// `path` resolved from the root, segment by segment, as `resolve`
    /// did before it remembered paths.
    private func referenceResolve(_ document: JSONDocument, _ path: String) -> Int? {
        var segments: [[UInt8]] = [[]]
        var bytes = Array(path.utf8)[...]
        while let byte = bytes.popFirst() {
            if byte == UInt8(ascii: "\\") {
                guard let next = bytes.popFirst() else { return nil }
                segments[segments.count - 1].append(next)
            } else if byte == UInt8(ascii: ".") {
                segments.append([])
            } else {
                segments[segments.count - 1].append(byte)
            }
        }
        var current = JSONDocument.root
        for segment in segments {
            guard !segment.isEmpty else { return nil }
            let next: Int?
            if document.kind(current) == .array {
                guard segment.count <= 9, segment.allSatisfy({ $0 &- 0x30 < 10 }),
                      let position = Int(String(decoding: segment, as: UTF8.self)) else { return nil }
                next = document.element(current, position)
            } else {
                next = segment.withUnsafeBufferPointer { document.member(current, $0) }
            }
            guard let next else { return nil }
            current = next
        }
        return current
    }

    func test_pathsResolvedOneAfterAnother_answerAsFromTheRoot() throws {
        var generator = SystemRandomNumberGenerator()
        // Keys that share prefixes, have dots and backslashes (escaped in
        // paths), repeat, or come escaped in the JSON.
        let document = try parseJSON(#"""
        {"id":"m","type":"poll","a":{"b":1,"bc":{"d":[10,{"e":"x"},[7,8]]},"b.c":2,"b\\c":3},
         "poll":{"options":[{"text":"one","votes":1},{"text":"two","votes":2},{"t\u0065xt":"three","votes":3},
          {"text":"four"},5,6,7,8,9,{"text":"ten","votes":10}],"question":"q"},"a":"second a","\u0070oll":"escaped"}
        """#)
        let paths = ["a", "a.b", "a.bc", "a.bc.d", "a.bc.d.0", "a.bc.d.1", "a.bc.d.1.e", "a.bc.d.2.1", "a.bc.d.3",
                     #"a.b\.c"#, #"a.b\\c"#, #"a.b\"#, "a.", ".a", "a..b", "poll", "poll.question", "poll.options",
                     "poll.options.0.text", "poll.options.0.votes", "poll.options.1.text", "poll.options.2.text",
                     "poll.options.3.votes", "poll.options.4", "poll.options.9.text", "poll.options.10.text",
                     "poll.options.01.text", "poll.options.x", "poll.nope.text", "type", "id", "", "pol", "polls.x"]
        for _ in 0..<5_000 {
            let path = paths.randomElement(using: &generator)!
            XCTAssertEqual(document.resolve(path), referenceResolve(document, path), path)
        }
    }

    /// The message API's C-string paths (`resolve(cString:)`, measured
    /// while the memo reads them a word at a time) resolve as from the
    /// root, one after another, mixed with Swift-string paths; each is
    /// placed so that it ends at every offset of a page before one that
    /// is not readable (a word read across the page end would crash).
    /// A path of 256 bytes or more resolves to nothing, one of 255 does.
    func test_cStringPaths_resolveAsFromTheRoot_andReadNoPageTheyDoNotReach() throws {
        let long = String(repeating: "k", count: 250)
        let document = try parseJSON(#"""
        {"id":"m","a":{"b":1,"bc":{"d":[10,{"e":"x"},[7,8]]},"b.c":2,"b\\c":3},"file":{"name":"n","path":"p","size":4},
         "poll":{"options":[{"text":"one","votes":1},{"text":"two","votes":2},3,4,5,6,7,8,9,{"text":"ten"}]},
         "\#(long)":{"abcd":5,"abcde":6}}
        """#)
        let paths = ["a", "a.b", "a.bc", "a.bc.d", "a.bc.d.0", "a.bc.d.1.e", "a.bc.d.2.1", #"a.b\.c"#, #"a.b\\c"#,
                     #"a.b\"#, "a.", ".a", "a..b", "", "file.name", "file.path", "file.size", "file", "files.name",
                     "poll.options.0.text", "poll.options.1.votes", "poll.options.9.text", "poll.options.10",
                     long + ".abcd", long + ".abcde", long + ".abcd" + "x", long + ".abcdef", long + ".ab"]
        XCTAssertEqual((long + ".abcd").utf8.count, 255)
        let (page, pageSize) = try pageBeforeAnUnreadableOne()
        var generator = SystemRandomNumberGenerator()
        for round in 0..<6_000 {
            let path = paths.randomElement(using: &generator)!
            let expected = path.utf8.count < 256 ? referenceResolve(document, path) : nil
            if round % 5 == 0 {
                XCTAssertEqual(document.resolve(path), referenceResolve(document, path), path)
                continue
            }
            // The NUL at one of the page's last 24 bytes, or anywhere.
            let bytes = Array(path.utf8) + [0]
            let end = round % 3 == 0 ? Int.random(in: bytes.count...pageSize, using: &generator)
                : pageSize - Int.random(in: 0..<min(24, pageSize - bytes.count + 1), using: &generator)
            let start = end - bytes.count
            for (offset, byte) in bytes.enumerated() { page[start + offset] = byte }
            XCTAssertEqual(document.resolve(cString: UnsafePointer(page + start)), expected, "\(path) at \(start)")
        }
        // Too long: 256 bytes and more, also with a key that would match.
        for length in [256, 257, 300, 4000] {
            let bytes = Array(String(repeating: "a", count: length).utf8) + [0]
            let start = pageSize - bytes.count
            for (offset, byte) in bytes.enumerated() { page[start + offset] = byte }
            XCTAssertNil(document.resolve(cString: UnsafePointer(page + start)), "\(length)")
            XCTAssertEqual(document.resolve("a.b"), referenceResolve(document, "a.b"))
        }
    }

    /// A path handed over as a buffer (`resolve(path:)`, Swift callers)
    /// is read only within it: each is placed to end at the last byte of
    /// a page before one that is not readable (a word read past its end,
    /// as the memo's padded copy allows, would crash), and resolves as
    /// from the root.
    func test_bufferPaths_resolveAsFromTheRoot_andReadNothingPastTheirEnd() throws {
        let document = try parseJSON(#"""
        {"id":"m","a":{"b":1,"bc":{"d":[10,{"e":"x"},[7,8]]},"b.c":2,"b\\c":3},"file":{"name":"n","path":"p","size":4}}
        """#)
        let paths = ["a", "a.b", "a.bc", "a.bc.d.1.e", "a.bc.d.2.1", #"a.b\.c"#, #"a.b\\c"#, #"a.b\"#, "a.", ".a",
                     "file.name", "file.path", "file.size", "files.name", "id", "i", "abcdefghij.k"]
        let (page, pageSize) = try pageBeforeAnUnreadableOne()
        for _ in 0..<3 {
            for path in paths {
                let bytes = Array(path.utf8)
                let start = pageSize - bytes.count
                for (offset, byte) in bytes.enumerated() { page[start + offset] = byte }
                let found = document.resolve(path: UnsafeBufferPointer(start: page + start, count: bytes.count))
                XCTAssertEqual(found, referenceResolve(document, path), path)
            }
        }
    }

    /// A writable page followed by one that cannot be read, so a read past
    /// the first page's end crashes; both are unmapped after the test.
    private func pageBeforeAnUnreadableOne() throws -> (page: UnsafeMutablePointer<UInt8>, size: Int) {
        let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
        let mapped: UnsafeMutableRawPointer? = mmap(nil, 2 * pageSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
        let pages = try XCTUnwrap(mapped == MAP_FAILED ? nil : mapped, "mmap")
        addTeardownBlock { munmap(pages, 2 * pageSize) }
        XCTAssertEqual(mprotect(pages + pageSize, pageSize, PROT_NONE), 0)
        return (pages.assumingMemoryBound(to: UInt8.self), pageSize)
    }

    func test_aPathAfterTheNextParse_doesNotResumeInTheOldDocument() throws {
        var document = try parseJSON(#"{"x":1,"file":{"name":"a","size":1}}"#)
        XCTAssertEqual(document.resolve("file.name").flatMap { document.string($0) }, "a")
        var json = #"{"file":{"size":2,"name":"b"}}"#
        try json.withUTF8 { try document.parse($0) }
        XCTAssertEqual(document.resolve("file.name").flatMap { document.string($0) }, "b")
        XCTAssertEqual(document.resolve("file.size").flatMap { document.integer($0) }, 2)
    }

    func test_member_withAnEscapedKeyBeforeAPlainOne_isTheFirst() throws {
        let document = try parseJSON(#"{"x":0,"\u0061b":1,"ab":2,"c":{"ab":3}}"#)
        XCTAssertEqual(document.resolve("ab").flatMap { document.integer($0) }, 1)
        XCTAssertEqual(document.resolve("c.ab").flatMap { document.integer($0) }, 3)
        XCTAssertEqual(document.member(JSONDocument.root, "x").flatMap { document.integer($0) }, 0)
    }

    /// `member` and `members` (keys of other lengths passed over, one of
    /// the same length compared from its first byte) find the first member
    /// whose key has the same bytes, as a byte-by-byte comparison does:
    /// keys of 0 to 20 bytes and the same keys changed at each byte, in
    /// objects where the key looked for comes last (near the end of the
    /// input, where fewer than eight bytes are left to load) or not at all;
    /// also as a padded path's segment (a key of up to eight bytes
    /// compared as one word).
    func test_member_findsTheKeyAByteComparisonFinds() throws {
        for length in 0...20 {
            let key = (0..<length).map { UInt8(ascii: "a") + UInt8($0 % 26) }
            var variants = [key]
            for position in 0..<length {
                var changed = key
                changed[position] = UInt8(ascii: "Z")
                variants.append(changed)
            }
            variants.append(key + [UInt8(ascii: "x")])
            if length > 0 { variants.append(Array(key.dropLast())) }
            for order in variants.indices {
                // Every variant, the one at `order` moved last.
                var members = variants
                members.append(members.remove(at: order))
                let text = "{" + members.enumerated().map { "\"\(String(decoding: $1, as: UTF8.self))\":\($0)" }.joined(separator: ",") + "}"
                let document = try parseJSON(text)
                for wanted in variants + [Array("zz".utf8)] {
                    var expected: Int?
                    document.forEachMember(JSONDocument.root) { keyNode, value in
                        let node = document.nodes[keyNode]
                        if expected == nil, Array(document.bytes[Int(node.start)..<Int(node.end)]) == wanted { expected = value }
                    }
                    XCTAssertEqual(wanted.withUnsafeBufferPointer { document.member(JSONDocument.root, $0) }, expected, text)
                    // As a segment of a padded path (compared as one word when short).
                    for padding: UInt8 in [0x22, 0x00, 0x78] {
                        let path = wanted + [UInt8](repeating: padding, count: 8)
                        let found = path.withUnsafeBufferPointer {
                            document.member(JSONDocument.root, UnsafeBufferPointer(rebasing: $0[0..<wanted.count]), padded: true)
                        }
                        XCTAssertEqual(found, expected, "\(text) padded with \(padding)")
                    }
                }
            }
        }
        let document = try parseJSON(#"{"identity":1,"id":2,"nam":3,"name":4}"#)
        XCTAssertTrue(document.members(JSONDocument.root, "id", "name") == (4, 8))
        XCTAssertTrue(document.members(JSONDocument.root, "name", "identity") == (8, 2))
    }

    /// `separatorOrEscape` (eight bytes at a time) finds the first '.' or
    /// backslash that a byte loop finds, from every start, in paths of 0
    /// to 40 bytes over letters, dots, backslashes and bytes that differ
    /// from them by one bit or carry, with other bytes past the path's end.
    func test_separatorOrEscape_isTheFirstAByteLoopFinds() {
        var generator = SystemRandomNumberGenerator()
        let alphabet: [UInt8] = [0x2E, 0x5C, 0x61, 0x2F, 0x2D, 0x5D, 0x5B, 0x6E, 0x1C, 0xAE, 0xDC, 0x00, 0xFF, 0x01]
        for _ in 0..<3_000 {
            let count = Int.random(in: 0...40, using: &generator)
            let bytes = (0..<(count + 8)).map { _ in alphabet.randomElement(using: &generator)! }
            bytes.withUnsafeBufferPointer { buffer in
                for start in 0...count {
                    let expected = (start..<count).first { bytes[$0] == 0x2E || bytes[$0] == 0x5C } ?? count
                    XCTAssertEqual(PathMemo.separatorOrEscape(buffer.baseAddress!, from: start, count: count), expected,
                                   "\(bytes) from \(start) of \(count)")
                }
            }
        }
    }

    func test_sharedPrefix_isTheFirstDifference() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let a = (0..<Int.random(in: 0...40, using: &generator)).map { _ in UInt8.random(in: 0x61...0x63, using: &generator) }
            var b = a
            if !b.isEmpty, Bool.random(using: &generator) { b[Int.random(in: 0..<b.count, using: &generator)] = 0x64 }
            let expected = zip(a, b).prefix { $0 == $1 }.count
            let shared = a.withUnsafeBufferPointer { a in
                b.withUnsafeBufferPointer { b in PathMemo.sharedPrefix(a.baseAddress ?? UnsafePointer(bitPattern: 8)!,
                                                                      b.baseAddress ?? UnsafePointer(bitPattern: 8)!,
                                                                      min(a.count, b.count)) }
            }
            XCTAssertEqual(shared, expected, "\(a) \(b)")
        }
    }

    // MARK: Stored strings

    func test_storedStrings_areWhatSanitizingGives_alsoAcrossChunks() {
        let arena = StringArena()
        let inputs: [[UInt8]] = [[], Array("plain".utf8), Array("tab\there".utf8), Array("é and 日本".utf8), [0xFF, 0x41],
                                 Array("esc \u{1B}[31mred".utf8), Array(repeating: UInt8(ascii: "a"), count: 20_000),
                                 Array("line\nbreak".utf8)]
        for round in 0..<3 {
            var kept: [(UnsafePointer<CChar>, Int, [UInt8])] = []
            for input in inputs + inputs {
                let stored = input.withUnsafeBufferPointer { arena.storeSanitized($0) }
                var expected: [UInt8] = []
                _ = input.withUnsafeBufferPointer { Sanitizer.sanitize($0, into: &expected, keepingNewlines: true) }
                kept.append((stored.data, stored.length, expected))
            }
            // Every string is still there (a new chunk never moves the old ones).
            for (data, length, expected) in kept {
                let bytes = UnsafeRawPointer(data).assumingMemoryBound(to: UInt8.self)
                XCTAssertEqual(Array(UnsafeBufferPointer(start: bytes, count: length)), expected, "round \(round)")
                XCTAssertEqual(bytes[length], 0)
                XCTAssertEqual(arena.holdsSanitized(UnsafeBufferPointer(start: bytes, count: length)),
                               length > 0 && !expected.contains(0x0A))
            }
            arena.reset()
        }
    }

    // MARK: info's text

    func test_infoText_isTheDecodedTextSanitized_forEverySpelling() throws {
        let runtime = Runtime()
        let table = runtime.hostTable(for: HostClasses.pluginID)
        let api = try XCTUnwrap(table.pointee.get_extension(table, CELLHOST_EXT_MESSAGE))
            .assumingMemoryBound(to: cellhost_message_api.self).pointee
        let records: [[UInt8]] = [
            Array(#"{"type":"file","text":"plain caption"}"#.utf8),
            Array(#"{"type":"file","text":"📎 trip-photos.zip"}"#.utf8),
            Array(#"{"type":"file","text":"esc\u001b[31m and \u00e9"}"#.utf8),
            Array(#"{"type":"file","text":"bell"#.utf8) + [0x07] + Array(#" and tab"#.utf8) + [0x09] + Array(#""}"#.utf8),
            Array(#"{"type":"file","text":"bad "#.utf8) + [0xFF, 0xC3] + Array(#" utf8"}"#.utf8),
            Array(#"{"type":"file","text":"cut "#.utf8) + [0xE2, 0x82] + Array(#""}"#.utf8),
            Array(#"{"type":"file","text":""}"#.utf8),
            Array(#"{"type":"file","text":12}"#.utf8),
            Array(#"{"type":"file"}"#.utf8),
            Array(#"{"type":"file","text":"line\nbreak\u202e"}"#.utf8),
        ]
        let message = Message()
        for record in records {
            try record.withUnsafeBufferPointer { try message.load($0, me: nil) }
            var info = cellhost_message_info()
            info.struct_size = UInt32(MemoryLayout<cellhost_message_info>.size)
            withExtendedLifetime(message) { api.info(message.handle, &info) }
            var expected: [UInt8] = []
            var text = message.text ?? ""
            _ = text.withUTF8 { Sanitizer.sanitize($0, into: &expected, keepingNewlines: true) }
            let got = UnsafeBufferPointer(start: UnsafeRawPointer(info.text.data).assumingMemoryBound(to: UInt8.self),
                                          count: info.text.length)
            XCTAssertEqual(Array(got), expected, String(decoding: record, as: UTF8.self))
        }
    }
}

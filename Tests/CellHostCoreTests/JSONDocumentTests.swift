import XCTest
@testable import CellHostCore

/// `JSONDocument`: the tape parser messages are read with.
final class JSONDocumentTests: XCTestCase {
    private let root = JSONDocument.root

    /// The decoded string at `path` of `json`.
    private func string(_ json: String, _ path: String, file: StaticString = #filePath, line: UInt = #line) throws -> String? {
        let document = try parseJSON(json)
        guard let node = document.resolve(path) else { return nil }
        return document.string(node)
    }

    private func firstElement(_ json: String) throws -> (JSONDocument, Int) {
        let document = try parseJSON(json)
        return (document, try XCTUnwrap(document.element(root, 0)))
    }

    private func assertRejected(_ json: String, reasonContains fragment: String, offset: Int? = nil,
                                file: StaticString = #filePath, line: UInt = #line) {
        guard let error = jsonError(json) else {
            return XCTFail("'\(json)' was accepted", file: file, line: line)
        }
        XCTAssertTrue(error.reason.contains(fragment), "reason '\(error.reason)' should mention '\(fragment)'", file: file, line: line)
        if let offset { XCTAssertEqual(error.offset, offset, "offset", file: file, line: line) }
    }

    // MARK: Structure

    func test_object_membersAreFoundByKey() throws {
        let document = try parseJSON(#"{"a":1,"b":"two","c":true,"d":null}"#)
        XCTAssertEqual(document.rootKind, .object)
        XCTAssertEqual(document.count(root), 4)
        XCTAssertEqual(document.member(root, "a").flatMap { document.integer($0) }, 1)
        XCTAssertEqual(document.member(root, "b").flatMap { document.string($0) }, "two")
        XCTAssertEqual(document.member(root, "c").flatMap { document.bool($0) }, true)
        XCTAssertEqual(document.member(root, "d").map { document.kind($0) }, .null)
        XCTAssertNil(document.member(root, "e"))
    }

    func test_member_skipsOverNestedValuesOfEarlierMembers() throws {
        let document = try parseJSON(#"{"skip":{"x":[1,{"y":2}],"z":"zz"},"target":"found"}"#)
        XCTAssertEqual(document.member(root, "target").flatMap { document.string($0) }, "found")
    }

    func test_member_withRepeatedKey_isTheFirst() throws {
        let document = try parseJSON(#"{"k":"first","k":"second"}"#)
        XCTAssertEqual(document.member(root, "k").flatMap { document.string($0) }, "first")
    }

    func test_member_matchesEscapedKeys() throws {
        let document = try parseJSON(#"{"t\u0079pe":"image"}"#)
        XCTAssertEqual(document.member(root, "type").flatMap { document.string($0) }, "image")
    }

    func test_member_ofANonObject_isNil() throws {
        let document = try parseJSON("[1]")
        XCTAssertNil(document.member(root, "a"))
    }

    func test_array_elementsAreFoundByPosition() throws {
        let document = try parseJSON(#"[10,[20,21],{"k":30},"forty"]"#)
        XCTAssertEqual(document.count(root), 4)
        XCTAssertEqual(document.element(root, 0).flatMap { document.integer($0) }, 10)
        XCTAssertEqual(document.element(root, 1).map { document.kind($0) }, .array)
        XCTAssertEqual(document.element(root, 3).flatMap { document.string($0) }, "forty")
        XCTAssertNil(document.element(root, 4))
        XCTAssertNil(document.element(root, -1))
        XCTAssertEqual(document.elements(root).count, 4)
        XCTAssertEqual(document.elements(root).last.flatMap { document.string($0) }, "forty")
    }

    func test_emptyContainers_haveNoElements() throws {
        let document = try parseJSON(#"{"a":[],"o":{}}"#)
        let array = try XCTUnwrap(document.member(root, "a"))
        XCTAssertEqual(document.count(array), 0)
        XCTAssertEqual(document.elements(array), [])
        XCTAssertEqual(document.count(try XCTUnwrap(document.member(root, "o"))), 0)
    }

    func test_resolve_followsKeysAndArrayIndices() throws {
        XCTAssertEqual(try string(#"{"a":{"b":[{"c":"deep"}]}}"#, "a.b.0.c"), "deep")
        XCTAssertEqual(try string(#"{"poll":{"options":[{"text":"x"},{"text":"y"}]}}"#, "poll.options.1.text"), "y")
    }

    func test_resolve_ofMissingPath_isNil() throws {
        let document = try parseJSON(#"{"a":{"b":[1]}}"#)
        XCTAssertNil(document.resolve("a.x"))
        XCTAssertNil(document.resolve("a.b.1"))
        XCTAssertNil(document.resolve("a.b.first"))
        XCTAssertNil(document.resolve("a..b"))
        XCTAssertNil(document.resolve(""))
        XCTAssertNil(document.resolve("a.b.0.c"))
    }

    func test_resolve_digitsOnAnObject_areAKey() throws {
        XCTAssertEqual(try string(#"{"0":"zero"}"#, "0"), "zero")
    }

    func test_whitespaceAroundTheValue_isAllowed() throws {
        XCTAssertEqual(try parseJSON(" \t\r\n{ \"a\" : [ 1 , 2 ] }\n ").rootKind, .object)
    }

    func test_document_isReusable_forTheNextParse() throws {
        var document = JSONDocument()
        var first = #"{"a":"one"}"#
        try first.withUTF8 { try document.parse($0) }
        var second = #"["two"]"#
        try second.withUTF8 { try document.parse($0) }
        XCTAssertEqual(document.rootKind, .array)
        XCTAssertEqual(document.element(root, 0).flatMap { document.string($0) }, "two")
    }

    // MARK: Strings

    func test_simpleEscapes_areDecoded() throws {
        XCTAssertEqual(try string(#"{"s":"q\" b\\ s\/ n\n t\t r\r b\b f\f"}"#, "s"), "q\" b\\ s/ n\n t\t r\r b\u{8} f\u{C}")
    }

    func test_unicodeEscape_isDecoded() throws {
        XCTAssertEqual(try string(#"{"s":"caf\u00e9 \u65E5"}"#, "s"), "café 日")
    }

    func test_surrogatePairEscape_isOneScalar() throws {
        XCTAssertEqual(try string(#"{"s":"\ud83d\ude00"}"#, "s"), "😀")
    }

    func test_loneHighSurrogate_isReplacementCharacter() throws {
        XCTAssertEqual(try string(#"{"s":"a\ud83db"}"#, "s"), "a\u{FFFD}b")
    }

    func test_highSurrogateFollowedByNonSurrogateEscape_keepsTheFollowingCharacter() throws {
        XCTAssertEqual(try string(#"{"s":"\ud83d\u0041"}"#, "s"), "\u{FFFD}A")
    }

    func test_loneLowSurrogate_isReplacementCharacter() throws {
        XCTAssertEqual(try string(#"{"s":"\ude00x"}"#, "s"), "\u{FFFD}x")
    }

    func test_highSurrogateAtTheEnd_isReplacementCharacter() throws {
        XCTAssertEqual(try string(#"{"s":"x\ud83d"}"#, "s"), "x\u{FFFD}")
    }

    func test_invalidUTF8InAString_isReplacementCharacter() throws {
        let bytes: [UInt8] = Array(#"{"s":"a"#.utf8) + [0xFF, 0xC3] + Array(#"b"}"#.utf8)
        let document = try parseJSON(bytes: bytes)
        let node = try XCTUnwrap(document.member(root, "s"))
        XCTAssertEqual(document.string(node), "a\u{FFFD}\u{FFFD}b")
        var decoded: [UInt8] = []
        document.appendString(node, to: &decoded)
        XCTAssertEqual(String(decoding: decoded, as: UTF8.self), "a\u{FFFD}\u{FFFD}b")
    }

    func test_invalidUTF8InAnEscapedString_isReplacementCharacter() throws {
        let bytes: [UInt8] = Array(#"{"s":"\n"#.utf8) + [0xED, 0xA0, 0x80] + Array(#"z"}"#.utf8)
        let document = try parseJSON(bytes: bytes)
        let text = try XCTUnwrap(document.member(root, "s").flatMap { document.string($0) })
        XCTAssertTrue(text.hasPrefix("\n"))
        XCTAssertTrue(text.hasSuffix("z"))
        XCTAssertTrue(text.unicodeScalars.contains("\u{FFFD}"))
        XCTAssertFalse(text.unicodeScalars.contains { (0xD800..<0xE000).contains($0.value) })
    }

    func test_rawControlCharacterInAString_isKept() throws {
        XCTAssertEqual(try string("{\"s\":\"a\u{1B}b\"}", "s"), "a\u{1B}b")
    }

    func test_stringEquals_comparesUnescapedStrings() throws {
        let document = try parseJSON(#"{"a":"read","b":"re\u0061d"}"#)
        XCTAssertTrue(document.stringEquals(try XCTUnwrap(document.member(root, "a")), "read"))
        XCTAssertFalse(document.stringEquals(try XCTUnwrap(document.member(root, "a")), "rea"))
    }

    func test_string_ofANonString_isNil() throws {
        let (document, node) = try firstElement("[42]")
        XCTAssertNil(document.string(node))
    }

    // MARK: Numbers

    func test_integer_ofIntegers() throws {
        let document = try parseJSON("[0,-7,9223372036854775807]")
        XCTAssertEqual(document.elements(root).map { document.integer($0) }, [0, -7, Int64.max])
    }

    func test_integer_withAFractionOfZeros_isAnInteger() throws {
        let document = try parseJSON("[3.0,-4.000]")
        XCTAssertEqual(document.elements(root).map { document.integer($0) }, [3, -4])
    }

    func test_integer_ofAFractionOrExponent_isNil() throws {
        let document = try parseJSON("[1.5,1e2,3.0e0]")
        XCTAssertEqual(document.elements(root).map { document.integer($0) }, [nil, nil, nil])
    }

    func test_integer_beyondInt64_isNil() throws {
        let (document, node) = try firstElement("[9223372036854775808]")
        XCTAssertNil(document.integer(node))
        XCTAssertEqual(document.number(node), 9223372036854775808.0)
    }

    func test_number_ofFractionsAndExponents() throws {
        let document = try parseJSON("[1.5,-2.25e2,1E-3,0.1]")
        XCTAssertEqual(document.elements(root).map { document.number($0) }, [1.5, -225, 0.001, 0.1])
    }

    func test_number_ofAnInteger_isExact() throws {
        let (document, node) = try firstElement("[9007199254740991]")
        XCTAssertEqual(document.number(node), 9007199254740991)
    }

    func test_number_ofAnOverflowingLiteral_isInfinity() throws {
        let document = try parseJSON("[1e400,-1e400]")
        XCTAssertEqual(document.elements(root).map { document.number($0) }, [.infinity, -.infinity])
        XCTAssertEqual(document.elements(root).map { document.integer($0) }, [nil, nil])
    }

    func test_negativeZero_isZero() throws {
        let (document, node) = try firstElement("[-0]")
        XCTAssertEqual(document.integer(node), 0)
        XCTAssertEqual(document.number(node), 0)
    }

    func test_number_ofANonNumber_isNil() throws {
        let (document, node) = try firstElement(#"["1"]"#)
        XCTAssertNil(document.number(node))
        XCTAssertNil(document.integer(node))
    }

    func test_bool_ofLiterals() throws {
        let document = try parseJSON("[true,false,null]")
        XCTAssertEqual(document.elements(root).map { document.bool($0) }, [true, false, nil])
    }

    // MARK: Errors

    func test_emptyInput_isRejected() {
        assertRejected("", reasonContains: "empty", offset: 0)
        assertRejected("  \n ", reasonContains: "empty")
    }

    func test_trailingData_isRejected() {
        assertRejected(#"{"a":1} x"#, reasonContains: "after the JSON value", offset: 8)
        assertRejected("{}{}", reasonContains: "after the JSON value", offset: 2)
    }

    func test_unterminatedString_isRejectedAtItsOpeningQuote() {
        assertRejected(#"{"a":"abc"#, reasonContains: "unterminated string", offset: 5)
    }

    func test_unterminatedObjectAndArray_areRejected() {
        assertRejected(#"{"a":1"#, reasonContains: "unterminated object")
        assertRejected("[1,2", reasonContains: "unterminated array")
        assertRejected("{", reasonContains: "expected a string key")
    }

    func test_NaN_isRejected() {
        assertRejected(#"{"a":NaN}"#, reasonContains: "NaN and Infinity")
    }

    func test_Infinity_isRejected() {
        assertRejected(#"{"a":Infinity}"#, reasonContains: "NaN and Infinity")
        assertRejected(#"{"a":-Infinity}"#, reasonContains: "NaN and Infinity")
    }

    func test_malformedNumbers_areRejected() {
        assertRejected("[-]", reasonContains: "invalid number")
        assertRejected("[1.]", reasonContains: "invalid number")
        assertRejected("[1e]", reasonContains: "invalid number")
        assertRejected("[.5]", reasonContains: "unexpected character '.'")
        assertRejected("[01]", reasonContains: "expected ',' or ']'")
        assertRejected("[+1]", reasonContains: "unexpected character '+'")
    }

    func test_nestingToTheMaximumDepth_isAccepted() throws {
        let depth = JSONDocument.maximumDepth
        let json = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        XCTAssertEqual(try parseJSON(json).rootKind, .array)
    }

    func test_nestingDeeperThanTheMaximumDepth_isRejected() {
        let depth = JSONDocument.maximumDepth + 1
        assertRejected(String(repeating: "[", count: depth) + String(repeating: "]", count: depth), reasonContains: "nesting deeper")
        assertRejected(String(repeating: #"{"a":"#, count: depth) + "1" + String(repeating: "}", count: depth),
                       reasonContains: "nesting deeper")
    }

    func test_hugeNesting_isRejectedWithoutExhaustingTheStack() {
        assertRejected(String(repeating: "[", count: 1_000_000), reasonContains: "nesting deeper")
    }

    func test_badEscape_isRejected() {
        assertRejected(#"{"a":"\x"}"#, reasonContains: "invalid escape")
        assertRejected(#"{"a":"\u12G4"}"#, reasonContains: "invalid \\u escape")
        assertRejected(#"{"a":"\u12"#, reasonContains: "truncated \\u escape")
    }

    func test_badLiterals_areRejected() {
        assertRejected("[tru]", reasonContains: "invalid literal")
        assertRejected("[nul", reasonContains: "invalid literal")
    }

    func test_missingColonOrComma_isRejected() {
        assertRejected(#"{"a" 1}"#, reasonContains: "expected ':'")
        assertRejected(#"{"a":1 "b":2}"#, reasonContains: "expected ',' or '}'")
        assertRejected(#"{1:2}"#, reasonContains: "expected a string key")
    }

    func test_trailingCommas_areRejected() {
        XCTAssertNotNil(jsonError("[1,]"))
        XCTAssertNotNil(jsonError(#"{"a":1,}"#))
    }

    func test_errorDescription_givesAOneBasedColumn() {
        XCTAssertEqual(jsonError("[1,x]")?.description, "unexpected character 'x' at column 4")
    }
}

import CellHostABI
import XCTest
@testable import CellHostCore

/// `MethodTypeEncoding(parsing:)`: the Objective-C style encodings plugin
/// methods declare (selectors.h).
final class TypeEncodingTests: XCTestCase {

    private func parse(_ encoding: String, file: StaticString = #filePath, line: UInt = #line) -> MethodTypeEncoding? {
        do {
            return try MethodTypeEncoding(parsing: encoding)
        } catch {
            XCTFail("'\(encoding)' was rejected: \(error)", file: file, line: line)
            return nil
        }
    }

    /// The one argument after self and _cmd of "v@:X", and the return type of "X@:".
    private func assertLetter(_ letter: String, is expected: EncodedType, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(parse("v@:" + letter, file: file, line: line)?.arguments, [.object, .selector, expected],
                       "as an argument", file: file, line: line)
        XCTAssertEqual(parse(letter + "@:", file: file, line: line)?.returnType, expected, "as the return type",
                       file: file, line: line)
    }

    private func rejection(_ encoding: String, file: StaticString = #filePath, line: UInt = #line) -> TypeEncodingError? {
        do {
            let parsed = try MethodTypeEncoding(parsing: encoding)
            XCTFail("'\(encoding)' was accepted as \(parsed)", file: file, line: line)
        } catch let error as TypeEncodingError {
            XCTAssertEqual(error.encoding, encoding, "the error quotes the whole encoding", file: file, line: line)
            return error
        } catch {
            XCTFail("unexpected error \(error)", file: file, line: line)
        }
        return nil
    }

    private func assertRejected(_ encoding: String, reasonContains fragment: String, offset: Int,
                                file: StaticString = #filePath, line: UInt = #line) {
        guard let error = rejection(encoding, file: file, line: line) else { return }
        XCTAssertTrue(error.reason.contains(fragment), "reason '\(error.reason)' should mention '\(fragment)'",
                      file: file, line: line)
        XCTAssertEqual(error.offset, offset, "offset of the problem in '\(encoding)'", file: file, line: line)
    }

    // MARK: Letters

    func test_v_isVoid_asReturnType() {
        XCTAssertEqual(parse("v@:")?.returnType, .void)
        XCTAssertEqual(parse("v@:")?.arguments, [.object, .selector])
    }

    func test_B_isBool() { assertLetter("B", is: .bool) }
    func test_c_isChar() { assertLetter("c", is: .char) }
    func test_C_isUnsignedChar() { assertLetter("C", is: .unsignedChar) }
    func test_s_isShort() { assertLetter("s", is: .short) }
    func test_S_isUnsignedShort() { assertLetter("S", is: .unsignedShort) }
    func test_i_isInt() { assertLetter("i", is: .int) }
    func test_I_isUnsignedInt() { assertLetter("I", is: .unsignedInt) }
    func test_l_isLong() { assertLetter("l", is: .long) }
    func test_L_isUnsignedLong() { assertLetter("L", is: .unsignedLong) }
    func test_q_isLongLong() { assertLetter("q", is: .longLong) }
    func test_Q_isUnsignedLongLong() { assertLetter("Q", is: .unsignedLongLong) }
    func test_f_isFloat() { assertLetter("f", is: .float) }
    func test_d_isDouble() { assertLetter("d", is: .double) }
    func test_star_isCString() { assertLetter("*", is: .cString) }
    func test_at_isObject() { assertLetter("@", is: .object) }
    func test_colon_isSelector() { assertLetter(":", is: .selector) }

    func test_caret_isPointerToTheFollowingType() {
        assertLetter("^i", is: .pointer(.int))
        assertLetter("^^c", is: .pointer(.pointer(.char)))
    }

    func test_caretV_isPointerToVoid() {
        assertLetter("^v", is: .pointer(.void))
    }

    func test_opaqueStruct_isAcceptedBehindAPointer() {
        assertLetter("^{cellhost_message}", is: .pointer(.opaqueStruct("cellhost_message")))
    }

    func test_structWithFields_isAcceptedByValue() {
        assertLetter("{pt=ii}", is: .structure("pt", [.int, .int]))
        assertLetter("{outer={inner=cd}^v}", is: .structure("outer", [.structure("inner", [.char, .double]), .pointer(.void)]))
    }

    func test_r_constQualifier_doesNotChangeTheType() {
        assertLetter("r^{cellhost_context}", is: .pointer(.opaqueStruct("cellhost_context")))
        assertLetter("r*", is: .cString)
    }

    func test_r_constQualifier_isKeptInCanonicalForm() {
        XCTAssertEqual(parse("v@:r^{cellhost_context}")?.canonical, "v@:r^{cellhost_context}")
    }

    func test_requiredEncodingsOfWellKnownSelectors_parse() {
        for selector in WellKnownSelector.allCases {
            XCTAssertEqual(parse(selector.requiredEncoding)?.canonical, selector.requiredEncoding, selector.rawValue)
        }
    }

    func test_renderEncoding_hasFiveArguments() {
        XCTAssertEqual(parse(CELLHOST_TYPES_RENDER)?.arguments, [
            .object, .selector,
            .pointer(.opaqueStruct("cellhost_message")),
            .pointer(.opaqueStruct("cellhost_context")),
            .pointer(.opaqueStruct("cellhost_builder")),
        ])
        XCTAssertEqual(parse(CELLHOST_TYPES_RENDER)?.returnType, .int)
    }

    // MARK: Stack offsets

    func test_stackOffsetDigits_areIgnoredInCanonical() {
        XCTAssertEqual(parse("i24@0:8")?.canonical, "i@:")
        XCTAssertEqual(parse("i24@0:8")?.arguments, [.object, .selector])
    }

    func test_stackOffsetDigits_afterEveryArgument_areIgnored() {
        XCTAssertEqual(parse("v32@0:8r^{cellhost_context}16d24")?.canonical, "v@:r^{cellhost_context}d")
    }

    func test_requiredRenderEncoding_withStackOffsets_hasTheRequiredCanonicalForm() {
        let withOffsets = "i40@0:8r^{cellhost_message}16r^{cellhost_context}24^{cellhost_builder}32"
        XCTAssertEqual(parse(withOffsets)?.canonical, CELLHOST_TYPES_RENDER)
        XCTAssertEqual(MethodTypeEncoding.canonicalForm(of: withOffsets), CELLHOST_TYPES_RENDER)
    }

    func test_canonicalForm_ofMalformedEncoding_isNil() {
        XCTAssertNil(MethodTypeEncoding.canonicalForm(of: "i@:x"))
    }

    // MARK: Rejections

    func test_emptyEncoding_isRejected() {
        assertRejected("", reasonContains: "empty", offset: 0)
    }

    func test_encodingWithoutSelf_isRejected() {
        assertRejected("i", reasonContains: "'@' (self)", offset: 0)
    }

    func test_encodingWithoutCmd_isRejected() {
        assertRejected("i@", reasonContains: "':' (_cmd)", offset: 0)
    }

    func test_encodingWithSelfAndCmdSwapped_isRejected() {
        assertRejected("i:@", reasonContains: "'@' (self)", offset: 0)
    }

    func test_danglingPointer_isRejected() {
        assertRejected("i@:^", reasonContains: "pointee type is missing", offset: 3)
    }

    func test_unterminatedStruct_isRejected() {
        assertRejected("i@:{name", reasonContains: "unterminated", offset: 3)
    }

    func test_unterminatedStructWithFields_isRejected() {
        assertRejected("i@:{pt=ii", reasonContains: "unterminated", offset: 3)
    }

    func test_structWithoutName_isRejected() {
        assertRejected("i@:{}", reasonContains: "without a name", offset: 3)
    }

    func test_structWithEqualsButNoFields_isRejected() {
        assertRejected("i@:{pt=}", reasonContains: "no fields", offset: 3)
    }

    func test_invalidCharacterInStructName_isRejected() {
        assertRejected("i@:{p t=i}", reasonContains: "struct name", offset: 5)
    }

    func test_unknownLetter_isRejected() {
        assertRejected("i@:x", reasonContains: "unknown type 'x'", offset: 3)
    }

    func test_unprintableByte_isRejectedAndNamedInHex() {
        assertRejected("i@:\u{1}", reasonContains: "0x1", offset: 3)
    }

    func test_voidArgument_isRejected() {
        assertRejected("i@:v", reasonContains: "'v' (void)", offset: 3)
    }

    func test_voidStructField_isRejected() {
        assertRejected("i@:{pt=v}", reasonContains: "'v' (void)", offset: 7)
    }

    func test_opaqueStructByValue_isRejected() {
        assertRejected("i@:{opaque}", reasonContains: "struct without fields", offset: 3)
    }

    func test_opaqueStructReturn_isRejected() {
        assertRejected("{x}@:", reasonContains: "returned by value", offset: 0)
    }

    func test_constQualifierWithoutType_isRejected() {
        assertRejected("i@:r", reasonContains: "a type is missing", offset: 4)
    }

    func test_moreThanThirtyArguments_isRejected() {
        assertRejected("v@:" + String(repeating: "i", count: 31), reasonContains: "more than 30", offset: 0)
    }

    func test_thirtyArguments_areAccepted() {
        XCTAssertEqual(parse("v@:" + String(repeating: "i", count: 30))?.arguments.count, 32)
    }

    func test_errorDescription_namesEncodingReasonAndOffset() {
        let error = rejection("i@:x")
        XCTAssertEqual(error?.description, "malformed type encoding 'i@:x': unknown type 'x' at offset 3")
    }
}

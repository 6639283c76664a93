import CellHostABI
import XCTest
@testable import CellHostCore

// IMPs called through libffi. Each receives self and _cmd first, as a plugin's does.

private let impTextCountScale: @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, UnsafePointer<CChar>?, Int32, Double) -> Double = {
    _, _, text, count, scale in
    Double(text.map { String(cString: $0).utf8.count } ?? -1000) + Double(count) * scale
}
private let impSubtract: @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, Int32, Int32) -> Int32 = { _, _, a, b in a - b }
private let impNegative: @convention(c) (OpaquePointer?, UnsafePointer<CChar>?) -> Int32 = { _, _ in -123_456 }
private let impIsPositive: @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, Int32) -> Bool = { _, _, value in value > 0 }
private let impIncrementByte: @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, UInt8) -> UInt8 = { _, _, value in value &+ 1 }
private let impMultiplyFloats: @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, Float, Float) -> Float = { _, _, a, b in a * b }
private let impAddInt64: @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, Int64, Int64) -> Int64 = { _, _, a, b in a &+ b }
private let impSelectorLength: @convention(c) (OpaquePointer?, UnsafePointer<CChar>?) -> Int32 = { _, cmd in
    Int32(cmd.map { String(cString: $0).utf8.count } ?? -1)
}
private let impReceiverLowBits: @convention(c) (OpaquePointer?, UnsafePointer<CChar>?) -> Int32 = { object, _ in
    Int32(truncatingIfNeeded: Int(bitPattern: object) & 0xFFFF)
}
/// Takes {pt=ii} by value (cellhost_version has the same layout: two 32-bit integers).
private let impPointSum: @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, cellhost_version) -> Int32 = { _, _, point in
    Int32(bitPattern: point.major) * 100 + Int32(bitPattern: point.minor)
}
/// Returns {pt=II} by value.
private let impMakePoint: @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, UInt32, UInt32) -> cellhost_version = { _, _, a, b in
    cellhost_version(major: a, minor: b)
}
/// Takes a 40-byte struct (passed in memory) by value.
private let impContextSummary: @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, cellhost_context) -> UInt32 = { _, _, context in
    context.width * 1000 + context.flags * 10 + UInt32(context.message_class.map { String(cString: $0).utf8.count } ?? 0)
}
/// Returns a 40-byte struct (through a hidden pointer).
private let impMakeContext: @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, UInt32) -> cellhost_context = { _, _, width in
    cellhost_context(struct_size: 40, width: width, flags: 7, reserved: 0, message_class: nil, host: nil, base_directory: nil)
}
/// A struct with a pointer and a size_t, returned in two registers.
private let impMakeString: @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, UnsafePointer<CChar>?) -> cellhost_string = { _, _, text in
    cellhost_string(data: text, length: text.map { String(cString: $0).utf8.count } ?? 0)
}
/// Every integer and floating-point letter in one call.
private let impSumAll: @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, Int8, UInt8, Int16, UInt16, Int32, UInt32,
                                       Int, UInt, Int64, UInt64, Float, Double, Bool) -> Double = {
    _, _, c, C, s, S, i, I, l, L, q, Q, f, d, B in
    Double(c) + Double(C) + Double(s) + Double(S) + Double(i) + Double(I) + Double(l) + Double(L)
        + Double(q) + Double(Q) + Double(f) + d + (B ? 0.5 : 0)
}

/// `CallInterface`: the libffi call interface prepared once per method encoding.
final class CallInterfaceTests: XCTestCase {

    private func interface(_ types: String) throws -> CallInterface {
        try CallInterface(encoding: MethodTypeEncoding(parsing: types))
    }

    // MARK: Sizes

    func test_returnStorage_isAtLeastEightBytes_forEveryReturnType() throws {
        for types in ["v@:", "B@:", "c@:", "C@:", "s@:", "S@:", "i@:", "I@:", "l@:", "q@:", "f@:", "d@:",
                      "*@:", "@@:", ":@:", "^v@:", "{pt=ii}@:"] {
            XCTAssertGreaterThanOrEqual(try interface(types).returnStorageSize, 8, types)
        }
    }

    func test_returnSize_matchesTheReturnType() throws {
        let expected: [(String, Int)] = [
            ("B@:", 1), ("c@:", 1), ("C@:", 1), ("s@:", 2), ("S@:", 2), ("i@:", 4), ("I@:", 4),
            ("l@:", 8), ("L@:", 8), ("q@:", 8), ("Q@:", 8), ("f@:", 4), ("d@:", 8),
            ("*@:", 8), ("@@:", 8), (":@:", 8), ("^{cellhost_message}@:", 8),
            ("{pt=ii}@:", 8), ("{pt=cd}@:", 16), ("{s=*Q}@:", 16),
        ]
        for (types, size) in expected {
            XCTAssertEqual(try interface(types).returnSize, size, types)
        }
    }

    func test_returnStorage_holdsLargeStructReturns() throws {
        let large = try interface("{ctx=IIII**}@:I")
        XCTAssertEqual(large.returnSize, 32)
        XCTAssertGreaterThanOrEqual(large.returnStorageSize, 32)
    }

    func test_interface_keepsTheEncodingItWasPreparedFrom() throws {
        XCTAssertEqual(try interface("i24@0:8i16").encoding.canonical, "i@:i")
    }

    // MARK: Calls

    func test_call_passesCStringInt32AndDouble_andReturnsDouble() throws {
        let arguments = ArgumentList.receiverAndSelector()
        "hello".withCString { text in
            arguments.add(Optional(text)).add(Int32(3)).add(0.5)
            XCTAssertEqual(try? callThroughFFI("d@:*id", impTextCountScale, arguments, returning: Double.self), 6.5)
        }
    }

    func test_call_returnsInt32() throws {
        let arguments = ArgumentList.receiverAndSelector().add(Int32(10)).add(Int32(52))
        XCTAssertEqual(try callThroughFFI("i@:ii", impSubtract, arguments, returning: Int32.self), -42)
    }

    func test_call_returnsNegativeInt32() throws {
        XCTAssertEqual(try callThroughFFI("i@:", impNegative, ArgumentList.receiverAndSelector(), returning: Int32.self), -123_456)
    }

    func test_call_returnsBool() throws {
        XCTAssertEqual(try callThroughFFI("B@:i", impIsPositive, ArgumentList.receiverAndSelector().add(Int32(5)),
                                          returning: UInt8.self), 1)
        XCTAssertEqual(try callThroughFFI("B@:i", impIsPositive, ArgumentList.receiverAndSelector().add(Int32(-5)),
                                          returning: UInt8.self), 0)
    }

    func test_call_passesAndReturnsUInt8() throws {
        XCTAssertEqual(try callThroughFFI("C@:C", impIncrementByte, ArgumentList.receiverAndSelector().add(UInt8(254)),
                                          returning: UInt8.self), 255)
        XCTAssertEqual(try callThroughFFI("C@:C", impIncrementByte, ArgumentList.receiverAndSelector().add(UInt8(255)),
                                          returning: UInt8.self), 0)
    }

    func test_call_passesAndReturnsFloat() throws {
        let arguments = ArgumentList.receiverAndSelector().add(Float(1.5)).add(Float(-4))
        XCTAssertEqual(try callThroughFFI("f@:ff", impMultiplyFloats, arguments, returning: Float.self), -6)
    }

    func test_call_passesAndReturnsInt64() throws {
        let arguments = ArgumentList.receiverAndSelector().add(Int64(1) << 40).add(Int64(-(1 << 33)))
        XCTAssertEqual(try callThroughFFI("q@:qq", impAddInt64, arguments, returning: Int64.self), (1 << 40) - (1 << 33))
    }

    func test_call_passesTheSelectorAsCmd() throws {
        let selector = "renderMessage:context:into:"
        try selector.withCString { cmd in
            XCTAssertEqual(try callThroughFFI("i@:", impSelectorLength, ArgumentList.receiverAndSelector(cmd), returning: Int32.self),
                           Int32(selector.utf8.count))
        }
    }

    func test_call_passesTheReceiverAsSelf() throws {
        let arguments = ArgumentList()
        arguments.add(OpaquePointer(bitPattern: 0x5A5A0)).add(UnsafePointer<CChar>?.none)
        XCTAssertEqual(try callThroughFFI("i@:", impReceiverLowBits, arguments, returning: Int32.self), 0xA5A0)
    }

    func test_call_passesStructByValue() throws {
        let arguments = ArgumentList.receiverAndSelector().add(cellhost_version(major: 7, minor: 42))
        XCTAssertEqual(try callThroughFFI("i@:{pt=ii}", impPointSum, arguments, returning: Int32.self), 742)
    }

    func test_call_returnsStructByValue() throws {
        let arguments = ArgumentList.receiverAndSelector().add(UInt32(3)).add(UInt32(9))
        let point = try callThroughFFI("{pt=II}@:II", impMakePoint, arguments, returning: cellhost_version.self)
        XCTAssertEqual(point.major, 3)
        XCTAssertEqual(point.minor, 9)
    }

    func test_call_passesLargeStructByValueInMemory() throws {
        try "voice".withCString { name in
            let context = cellhost_context(struct_size: 40, width: 41, flags: 2, reserved: 0, message_class: name, host: nil, base_directory: nil)
            let arguments = ArgumentList.receiverAndSelector().add(context)
            XCTAssertEqual(try callThroughFFI("I@:{cellhost_context=IIII***}", impContextSummary, arguments, returning: UInt32.self),
                           41_000 + 20 + 5)
        }
    }

    func test_call_returnsLargeStructThroughHiddenPointer() throws {
        let arguments = ArgumentList.receiverAndSelector().add(UInt32(77))
        let context = try callThroughFFI("{cellhost_context=IIII***}@:I", impMakeContext, arguments, returning: cellhost_context.self)
        XCTAssertEqual(context.width, 77)
        XCTAssertEqual(context.flags, 7)
        XCTAssertEqual(context.struct_size, 40)
    }

    func test_call_returnsTwoRegisterStruct() throws {
        try "héllo".withCString { text in
            let arguments = ArgumentList.receiverAndSelector().add(Optional(text))
            let string = try callThroughFFI("{cellhost_string=*Q}@:*", impMakeString, arguments, returning: cellhost_string.self)
            XCTAssertEqual(string.length, 6)
            XCTAssertEqual(string.data, text)
        }
    }

    func test_call_passesEveryScalarLetter() throws {
        let arguments = ArgumentList.receiverAndSelector()
            .add(Int8(-1)).add(UInt8(200)).add(Int16(-300)).add(UInt16(60_000)).add(Int32(-70_000)).add(UInt32(4_000_000_000))
            .add(Int(-5_000_000_000)).add(UInt(6_000_000_000)).add(Int64(-7)).add(UInt64(8)).add(Float(0.25)).add(Double(0.125))
            .add(true)
        let expected = -1.0 + 200 - 300 + 60_000 - 70_000 + 4_000_000_000 - 5_000_000_000 + 6_000_000_000 - 7 + 8 + 0.25 + 0.125 + 0.5
        XCTAssertEqual(try callThroughFFI("d@:cCsSiIlLqQfdB", impSumAll, arguments, returning: Double.self), expected)
    }
}

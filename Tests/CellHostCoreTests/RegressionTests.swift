import CellHostABI
import Foundation
import XCTest
@testable import CellHostCore

/// Regressions: each test pins a bug this suite found in CellHostCore (fixed
/// since), with a note on where it was and why it happened.
final class RegressionTests: XCTestCase {

    // InputReader.swift, ArrayScanner.scan: `case UInt8(ascii: ","), UInt8(ascii: "]") where depth == 0:`
    // — in Swift a `where` clause binds to the LAST pattern only, so a ',' at
    // ANY depth ends the element. Every array file whose objects have two
    // members is cut into broken records.
    func test_arrayFile_commaInsideANestedObject_doesNotSplitTheElement() throws {
        let result = try readInput(#"[{"a":1,"b":2}, [3,4]]"#)
        XCTAssertEqual(result.texts, [#"{"a":1,"b":2}"#, "[3,4]"])
        XCTAssertTrue(result.problems.isEmpty, "\(result.problems)")
    }

    // ConfigFile.swift, parse: `text.split(separator: "\n")` splits on the
    // Character "\n", but in a Swift String "\r\n" is ONE Character, so a file
    // with CRLF line endings is a single "line" ("cfg:1: unterminated section
    // header"). The code clearly means to accept CRLF (it trims "\r").
    func test_configFile_withCRLFLineEndings_isParsed() {
        XCTAssertNoThrow(try ConfigFile.parse("[renderers]\r\nimage = A\r\n", path: "cfg"))
        let config = try? ConfigFile.parse("[renderers]\r\nimage = A\r\nvoice = B\r\n", path: "cfg")
        XCTAssertEqual(config?.renderers.map { "\($0.messageClass)=\($0.className)" }, ["image=A", "voice=B"])
    }

    // CallInterface.swift, init: `returnSize = Int(returnType.pointee.size)`;
    // libffi's ffi_type_void has size 1, so a void method reports a 1-byte
    // return value, and Dispatcher.send (`if let result, interface.returnSize > 0`)
    // copies one byte of uninitialised storage into the caller's `ret` for a
    // method that returns nothing — a 1-byte overrun of a zero-size buffer.
    func test_voidReturn_hasReturnSizeZero() throws {
        XCTAssertEqual(try CallInterface(encoding: MethodTypeEncoding(parsing: "v@:")).returnSize, 0)
    }

    // JSONQuery.swift, integer(_:): accumulates the magnitude as a positive
    // Int64 and negates at the end, so -9223372036854775808 (Int64.min, which
    // fits int64_t as host.h promises) overflows and answers nil (WRONG_TYPE
    // through message_integer).
    func test_integer_ofInt64Min_isInt64Min() throws {
        let document = try parseJSON("[-9223372036854775808]")
        XCTAssertEqual(document.element(JSONDocument.root, 0).flatMap { document.integer($0) }, Int64.min)
    }

    // LineEncoder.swift `out.flushIfFull()` + OutputBuffer.flush: with
    // `OutputBuffer(fd: -1)` — what CellHost.renderLines uses — a message whose
    // output reaches 64 KiB is "flushed" to fd -1: write fails, `failed` is set
    // and the bytes are discarded (flush's `defer { bytes.removeAll }`).
    // renderLines then returns no lines at all, and every later render on the
    // same buffer is dropped too. A message is silently lost.
    func test_renderLines_ofAMessageOfMoreThan64KiB_returnsAllItsLines() throws {
        let text = String(repeating: "word ", count: 16_000)   // 80 000 bytes
        // Limits raised above the 1000-row default: this is about the buffer, not the cap.
        let lines = try CellHost().renderLines(#"{"type":"text","text":""# + text + #""}"#, width: 80,
                                               limits: OutputLimits(rows: 100_000, bytes: 1 << 20))
        XCTAssertGreaterThan(lines.count, 1_000)
        XCTAssertEqual(contentLines(lines).joined(separator: " ").split(separator: " ").count, 16_000)
    }

    // host.h says of message_info: "The caller sets out->struct_size = sizeof
    // *out first; the host fills what fits." HostTable.swift MessageAccess.fill
    // instead returns without filling anything when struct_size is smaller than
    // the host's struct — so a plugin built against 1.0 gets nothing from a
    // host whose 1.x struct grew (exactly the case the minor-version rule is for).
    func test_messageInfo_withASmallerStruct_fillsWhatFits() throws {
        let runtime = Runtime()
        let table = runtime.hostTable(for: HostClasses.pluginID)
        let message = Message()
        var json = #"{"type":"image","id":"m-1","text":"cat","edited":true}"#
        try json.withUTF8 { try message.load($0, me: nil) }
        var info = cellhost_message_info()
        // A plugin compiled before `text` was appended.
        info.struct_size = UInt32(MemoryLayout<cellhost_message_info>.offset(of: \cellhost_message_info.text)!)
        let api = try XCTUnwrap(table.pointee.get_extension(table, CELLHOST_EXT_MESSAGE))
            .assumingMemoryBound(to: cellhost_message_api.self)
        withExtendedLifetime(message) { api.pointee.info(message.handle, &info) }
        XCTAssertEqual(info.type.data.map { String(cString: $0) }, "image")
        XCTAssertTrue(info.edited)
        XCTAssertNil(info.text.data, "the field beyond struct_size is not written")
    }

    // OutputFormat.swift, resolve: `--color always` with NO_COLOR set gives no
    // colour (the code explicitly lets NO_COLOR win). The product design calls plain
    // the *default* with NO_COLOR, and no-color.org says "command-line
    // arguments should override $NO_COLOR". If keeping NO_COLOR on top is a
    // deliberate decision, delete this test and document it in docs/.
    func test_colorAlways_overridesNO_COLOR() {
        let settings = OutputSettings.resolve(format: nil, color: .always, width: nil,
                                              environment: ["NO_COLOR": "1", "TERM": "xterm-256color"],
                                              isTerminal: true, terminalWidth: nil)
        XCTAssertEqual(settings.format, .ansi)
        XCTAssertEqual(settings.depth, .ansi256)
    }
}

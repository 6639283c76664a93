import CellHostABI
import XCTest
@testable import CellHostCore

/// The message accessors of the host table (message.h): typed look-ups by key
/// path with explicit FOUND / MISSING / WRONG_TYPE answers.
final class MessageAccessTests: XCTestCase {
    private var runtime: Runtime!
    private var table: UnsafePointer<cellhost_host>!
    private var message: Message!

    override func setUpWithError() throws {
        try super.setUpWithError()
        runtime = Runtime()
        table = runtime.hostTable(for: HostClasses.pluginID)
        message = Message()
        var json = #"""
        {"id":"m-17","type":"file","sender":{"id":"u-bob","name":"Bob"},"time":"2026-11-29T10:02:00Z",
         "status":"read","text":"the report","edited":true,"direction":"outgoing",
         "file":{"name":"r\u00e9sum\u00e9.pdf","size":2048,"ratio":0.5,"big":3.0,"shared":false,"tags":["a","b","c"],"none":null}}
        """#
        try json.withUTF8 { try message.load($0, me: nil) }
    }

    override func tearDown() {
        message = nil
        table = nil
        runtime = nil
        super.tearDown()
    }

    func test_messageString_found_isDecodedAndNULTerminated() {
        var out = cellhost_string()
        XCTAssertEqual(table.pointee.message_string(message.handle, "file.name", &out), CELLHOST_FOUND)
        XCTAssertEqual(out.length, "résumé.pdf".utf8.count)
        XCTAssertEqual(out.data.map { String(cString: $0) }, "résumé.pdf")
    }

    func test_messageString_ofANumber_isWrongType_andLeavesOutUntouched() {
        var out = cellhost_string(data: nil, length: 99)
        XCTAssertEqual(table.pointee.message_string(message.handle, "file.size", &out), CELLHOST_WRONG_TYPE)
        XCTAssertEqual(out.length, 99)
    }

    func test_missingPath_andNull_areMissing() {
        var out = cellhost_string()
        XCTAssertEqual(table.pointee.message_string(message.handle, "file.nope", &out), CELLHOST_MISSING)
        XCTAssertEqual(table.pointee.message_string(message.handle, "file.none", &out), CELLHOST_MISSING)
        XCTAssertEqual(table.pointee.message_string(message.handle, "", &out), CELLHOST_MISSING)
        XCTAssertEqual(table.pointee.message_string(nil, "file.name", &out), CELLHOST_MISSING)
    }

    func test_pathOf256BytesOrMore_isMissing() {
        var out = cellhost_string()
        XCTAssertEqual(table.pointee.message_string(message.handle, String(repeating: "a", count: 300), &out), CELLHOST_MISSING)
    }

    func test_messageNumber_acceptsAnyNumber() {
        var value = 0.0
        XCTAssertEqual(table.pointee.message_number(message.handle, "file.ratio", &value), CELLHOST_FOUND)
        XCTAssertEqual(value, 0.5)
        XCTAssertEqual(table.pointee.message_number(message.handle, "file.size", &value), CELLHOST_FOUND)
        XCTAssertEqual(value, 2048)
        XCTAssertEqual(table.pointee.message_number(message.handle, "file.name", &value), CELLHOST_WRONG_TYPE)
    }

    func test_messageInteger_acceptsOnlyWholeNumbers() {
        var value: Int64 = -1
        XCTAssertEqual(table.pointee.message_integer(message.handle, "file.size", &value), CELLHOST_FOUND)
        XCTAssertEqual(value, 2048)
        XCTAssertEqual(table.pointee.message_integer(message.handle, "file.big", &value), CELLHOST_FOUND)
        XCTAssertEqual(value, 3)
        XCTAssertEqual(table.pointee.message_integer(message.handle, "file.ratio", &value), CELLHOST_WRONG_TYPE)
        XCTAssertEqual(value, 3, "untouched on WRONG_TYPE")
    }

    func test_messageBool() {
        var value = true
        XCTAssertEqual(table.pointee.message_bool(message.handle, "file.shared", &value), CELLHOST_FOUND)
        XCTAssertFalse(value)
        XCTAssertEqual(table.pointee.message_bool(message.handle, "file.size", &value), CELLHOST_WRONG_TYPE)
    }

    func test_messageCount_ofArraysAndObjects() {
        var count = 0
        XCTAssertEqual(table.pointee.message_count(message.handle, "file.tags", &count), CELLHOST_FOUND)
        XCTAssertEqual(count, 3)
        XCTAssertEqual(table.pointee.message_count(message.handle, "file", &count), CELLHOST_FOUND)
        XCTAssertEqual(count, 7)
        XCTAssertEqual(table.pointee.message_count(message.handle, "file.name", &count), CELLHOST_WRONG_TYPE)
    }

    func test_arrayElements_areReachedByIndex() {
        var out = cellhost_string()
        XCTAssertEqual(table.pointee.message_string(message.handle, "file.tags.2", &out), CELLHOST_FOUND)
        XCTAssertEqual(out.data.map { String(cString: $0) }, "c")
        XCTAssertEqual(table.pointee.message_string(message.handle, "file.tags.3", &out), CELLHOST_MISSING)
    }

    func test_nilOutParameter_stillAnswers() {
        XCTAssertEqual(table.pointee.message_string(message.handle, "file.name", nil), CELLHOST_FOUND)
        XCTAssertEqual(table.pointee.message_integer(message.handle, "file.size", nil), CELLHOST_FOUND)
    }

    func test_messageInfo_fillsTheCommonFields() {
        var info = cellhost_message_info()
        info.struct_size = UInt32(MemoryLayout<cellhost_message_info>.size)
        table.pointee.message_info(message.handle, &info)
        func text(_ string: cellhost_string) -> String? { string.data.map { String(cString: $0) } }
        XCTAssertEqual(text(info.type), "file")
        XCTAssertEqual(text(info.id), "m-17")
        XCTAssertEqual(text(info.sender_id), "u-bob")
        XCTAssertEqual(text(info.sender_name), "Bob")
        XCTAssertEqual(text(info.text), "the report")
        XCTAssertEqual(info.text.length, 10)
        XCTAssertEqual(info.direction, CELLHOST_OUTGOING)
        XCTAssertEqual(info.status, CELLHOST_STATUS_READ)
        XCTAssertTrue(info.has_time)
        XCTAssertEqual(info.time, 1_795_946_520)
        XCTAssertTrue(info.edited)
    }

    func test_messageInfo_absentStrings_areEmptyNotNull() throws {
        let bare = Message()
        var json = #"{"type":"text"}"#
        try json.withUTF8 { try bare.load($0, me: nil) }
        var info = cellhost_message_info()
        info.struct_size = UInt32(MemoryLayout<cellhost_message_info>.size)
        withExtendedLifetime(bare) { table.pointee.message_info(bare.handle, &info) }
        XCTAssertNotNil(info.id.data)
        XCTAssertEqual(info.id.length, 0)
        XCTAssertNotNil(info.text.data)
        XCTAssertFalse(info.has_time)
        XCTAssertEqual(info.direction, CELLHOST_INCOMING)
    }
}

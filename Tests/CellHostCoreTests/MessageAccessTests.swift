import CellHostABI
import XCTest
@testable import CellHostCore

/// The message accessors of the host table (message.h): typed look-ups by key
/// path with explicit FOUND / MISSING / WRONG_TYPE answers.
final class MessageAccessTests: XCTestCase {
    private var runtime: Runtime!
    private var table: UnsafePointer<cellhost_host>!
    /// The "cellhost.message" extension, as a plugin gets it.
    private var api: cellhost_message_api!
    private var message: Message!

    override func setUpWithError() throws {
        try super.setUpWithError()
        runtime = Runtime()
        table = runtime.hostTable(for: HostClasses.pluginID)
        let found = table.pointee.get_extension(table, CELLHOST_EXT_MESSAGE)
        api = try XCTUnwrap(found).assumingMemoryBound(to: cellhost_message_api.self).pointee
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
        api = nil
        runtime = nil
        super.tearDown()
    }

    func test_messageString_found_isDecodedAndNULTerminated() {
        var out = cellhost_string()
        XCTAssertEqual(api.string(message.handle, "file.name", &out), cellhost_lookup(CELLHOST_FOUND))
        XCTAssertEqual(out.length, "résumé.pdf".utf8.count)
        XCTAssertEqual(out.data.map { String(cString: $0) }, "résumé.pdf")
    }

    func test_messageString_ofANumber_isWrongType_andLeavesOutUntouched() {
        var out = cellhost_string(data: nil, length: 99)
        XCTAssertEqual(api.string(message.handle, "file.size", &out), cellhost_lookup(CELLHOST_WRONG_TYPE))
        XCTAssertEqual(out.length, 99)
    }

    func test_missingPath_andNull_areMissing() {
        var out = cellhost_string()
        XCTAssertEqual(api.string(message.handle, "file.nope", &out), cellhost_lookup(CELLHOST_MISSING))
        XCTAssertEqual(api.string(message.handle, "file.none", &out), cellhost_lookup(CELLHOST_MISSING))
        XCTAssertEqual(api.string(message.handle, "", &out), cellhost_lookup(CELLHOST_MISSING))
        XCTAssertEqual(api.string(nil, "file.name", &out), cellhost_lookup(CELLHOST_MISSING))
    }

    /// `text` is answered from the node found while loading: the same
    /// answers as any other path, for every spelling and type of the field.
    func test_textPath_answersAsTheFirstTextMember_forEveryKindOfValue() throws {
        func answer(_ record: String) throws -> (cellhost_lookup, String?) {
            var json = record
            try json.withUTF8 { try message.load($0, me: nil) }
            var out = cellhost_string()
            let found = api.string(message.handle, "text", &out)
            return (found, found == cellhost_lookup(CELLHOST_FOUND) ? out.data.map { String(cString: $0) } : nil)
        }
        let found = cellhost_lookup(CELLHOST_FOUND), missing = cellhost_lookup(CELLHOST_MISSING)
        let wrongType = cellhost_lookup(CELLHOST_WRONG_TYPE)
        XCTAssertTrue(try answer(#"{"text":"first","text":"second"}"#) == (found, "first"))
        XCTAssertTrue(try answer(#"{"t\u0065xt":"escaped key"}"#) == (found, "escaped key"))
        XCTAssertTrue(try answer(#"{"text":null}"#) == (missing, nil))
        XCTAssertTrue(try answer(#"{"text":5}"#) == (wrongType, nil))
        XCTAssertTrue(try answer(#"{"type":"text"}"#) == (missing, nil))
        XCTAssertTrue(try answer(#"{"text":"bell\u0007"}"#) == (found, "bell\u{2407}"))
        // Another four-byte path is still resolved.
        var out = cellhost_string()
        XCTAssertEqual(api.string(message.handle, "type", &out), missing)
    }

    func test_pathOf256BytesOrMore_isMissing() {
        var out = cellhost_string()
        XCTAssertEqual(api.string(message.handle, String(repeating: "a", count: 300), &out), cellhost_lookup(CELLHOST_MISSING))
    }

    func test_messageNumber_acceptsAnyNumber() {
        var value = 0.0
        XCTAssertEqual(api.number(message.handle, "file.ratio", &value), cellhost_lookup(CELLHOST_FOUND))
        XCTAssertEqual(value, 0.5)
        XCTAssertEqual(api.number(message.handle, "file.size", &value), cellhost_lookup(CELLHOST_FOUND))
        XCTAssertEqual(value, 2048)
        XCTAssertEqual(api.number(message.handle, "file.name", &value), cellhost_lookup(CELLHOST_WRONG_TYPE))
    }

    func test_messageInteger_acceptsOnlyWholeNumbers() {
        var value: Int64 = -1
        XCTAssertEqual(api.integer(message.handle, "file.size", &value), cellhost_lookup(CELLHOST_FOUND))
        XCTAssertEqual(value, 2048)
        XCTAssertEqual(api.integer(message.handle, "file.big", &value), cellhost_lookup(CELLHOST_FOUND))
        XCTAssertEqual(value, 3)
        XCTAssertEqual(api.integer(message.handle, "file.ratio", &value), cellhost_lookup(CELLHOST_WRONG_TYPE))
        XCTAssertEqual(value, 3, "untouched on WRONG_TYPE")
    }

    func test_messageBool() {
        var value = true
        XCTAssertEqual(api.boolean(message.handle, "file.shared", &value), cellhost_lookup(CELLHOST_FOUND))
        XCTAssertFalse(value)
        XCTAssertEqual(api.boolean(message.handle, "file.size", &value), cellhost_lookup(CELLHOST_WRONG_TYPE))
    }

    func test_messageCount_ofArraysAndObjects() {
        var count = 0
        XCTAssertEqual(api.count(message.handle, "file.tags", &count), cellhost_lookup(CELLHOST_FOUND))
        XCTAssertEqual(count, 3)
        XCTAssertEqual(api.count(message.handle, "file", &count), cellhost_lookup(CELLHOST_FOUND))
        XCTAssertEqual(count, 7)
        XCTAssertEqual(api.count(message.handle, "file.name", &count), cellhost_lookup(CELLHOST_WRONG_TYPE))
    }

    func test_arrayElements_areReachedByIndex() {
        var out = cellhost_string()
        XCTAssertEqual(api.string(message.handle, "file.tags.2", &out), cellhost_lookup(CELLHOST_FOUND))
        XCTAssertEqual(out.data.map { String(cString: $0) }, "c")
        XCTAssertEqual(api.string(message.handle, "file.tags.3", &out), cellhost_lookup(CELLHOST_MISSING))
    }

    func test_nilOutParameter_stillAnswers() {
        XCTAssertEqual(api.string(message.handle, "file.name", nil), cellhost_lookup(CELLHOST_FOUND))
        XCTAssertEqual(api.integer(message.handle, "file.size", nil), cellhost_lookup(CELLHOST_FOUND))
    }

    func test_messageInfo_fillsTheCommonFields() {
        var info = cellhost_message_info()
        info.struct_size = UInt32(MemoryLayout<cellhost_message_info>.size)
        api.info(message.handle, &info)
        func text(_ string: cellhost_string) -> String? { string.data.map { String(cString: $0) } }
        XCTAssertEqual(text(info.type), "file")
        XCTAssertEqual(text(info.id), "m-17")
        XCTAssertEqual(text(info.sender_id), "u-bob")
        XCTAssertEqual(text(info.sender_name), "Bob")
        XCTAssertEqual(text(info.text), "the report")
        XCTAssertEqual(info.text.length, 10)
        XCTAssertEqual(info.direction, cellhost_direction(CELLHOST_OUTGOING))
        XCTAssertEqual(info.status, cellhost_status(CELLHOST_STATUS_READ))
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
        withExtendedLifetime(bare) { api.info(bare.handle, &info) }
        XCTAssertNotNil(info.id.data)
        XCTAssertEqual(info.id.length, 0)
        XCTAssertNotNil(info.text.data)
        XCTAssertFalse(info.has_time)
        XCTAssertEqual(info.direction, cellhost_direction(CELLHOST_INCOMING))
    }

    // MARK: ABI 2.0 additions

    func test_extensionsAreReachableByID_andUnknownIDsAreNULL() {
        for id in [CELLHOST_EXT_MESSAGE, CELLHOST_EXT_BUILDER, CELLHOST_EXT_LOG] {
            XCTAssertNotNil(table.pointee.get_extension(table, id), id)
        }
        XCTAssertNil(table.pointee.get_extension(table, "cellhost.no-such-extension"))
        XCTAssertNil(table.pointee.get_extension(table, nil))
    }

    func test_keyPath_backslashEscapesADotInAKey() throws {
        let matrix = Message()
        var json = #"{"type":"text","content":{"m.relates_to":{"rel_type":"m.replace"},"m":{"relates_to":"wrong"},"a\\b":"slash"}}"#
        try json.withUTF8 { try matrix.load($0, me: nil) }
        var out = cellhost_string()
        withExtendedLifetime(matrix) {
            XCTAssertEqual(api.string(matrix.handle, #"content.m\.relates_to.rel_type"#, &out), cellhost_lookup(CELLHOST_FOUND))
            XCTAssertEqual(out.data.map { String(cString: $0) }, "m.replace")
            XCTAssertEqual(api.string(matrix.handle, #"content.a\\b"#, &out), cellhost_lookup(CELLHOST_FOUND))
            XCTAssertEqual(out.data.map { String(cString: $0) }, "slash")
            XCTAssertEqual(api.string(matrix.handle, "content.m.relates_to", &out), cellhost_lookup(CELLHOST_FOUND))
            XCTAssertEqual(out.data.map { String(cString: $0) }, "wrong")
            XCTAssertEqual(api.string(matrix.handle, #"content.m\"#, &out), cellhost_lookup(CELLHOST_MISSING))
        }
    }

    func test_numbers_readsAWholeArrayInOneCall_cappedAtTheCapacity() throws {
        let voice = Message()
        var json = #"{"type":"voice","voice":{"waveform":[0.5,1,0,0.25],"mixed":[1,"x"],"empty":[],"nested":[1,[2,3],4],"first":[[5],6],"after":[7,8]}}"#
        try json.withUTF8 { try voice.load($0, me: nil) }
        var values = [Double](repeating: -1, count: 3)
        var count = 0
        withExtendedLifetime(voice) {
            XCTAssertEqual(api.numbers(voice.handle, "voice.waveform", &values, 3, &count), cellhost_lookup(CELLHOST_FOUND))
            XCTAssertEqual(values, [0.5, 1, 0])
            XCTAssertEqual(count, 4)
            XCTAssertEqual(api.numbers(voice.handle, "voice.empty", nil, 0, &count), cellhost_lookup(CELLHOST_FOUND))
            XCTAssertEqual(count, 0)
            values = [-1, -1, -1]
            XCTAssertEqual(api.numbers(voice.handle, "voice.mixed", &values, 3, &count), cellhost_lookup(CELLHOST_WRONG_TYPE))
            XCTAssertEqual(values, [-1, -1, -1], "nothing is written when an element is not a number")
            // A nested array is not a number, whatever it holds; the array after it is read on its own.
            XCTAssertEqual(api.numbers(voice.handle, "voice.nested", &values, 3, &count), cellhost_lookup(CELLHOST_WRONG_TYPE))
            XCTAssertEqual(api.numbers(voice.handle, "voice.first", &values, 3, &count), cellhost_lookup(CELLHOST_WRONG_TYPE))
            XCTAssertEqual(values, [-1, -1, -1])
            XCTAssertEqual(api.numbers(voice.handle, "voice.after", &values, 3, &count), cellhost_lookup(CELLHOST_FOUND))
            XCTAssertEqual(Array(values.prefix(2)), [7, 8])
            XCTAssertEqual(count, 2)
            XCTAssertEqual(api.numbers(voice.handle, "type", &values, 3, &count), cellhost_lookup(CELLHOST_WRONG_TYPE))
            XCTAssertEqual(api.numbers(voice.handle, "voice.none", &values, 3, &count), cellhost_lookup(CELLHOST_MISSING))
        }
    }

    func test_messageInfo_olderSmallerStruct_isFilledOnlyAsFarAsItReaches() {
        // A plugin built when the struct ended after `edited` (offset of `time`):
        // the host must not write past it.
        let size = MemoryLayout<cellhost_message_info>.offset(of: \.time) ?? 0
        let storage = UnsafeMutableRawPointer.allocate(byteCount: MemoryLayout<cellhost_message_info>.size, alignment: 16)
        defer { storage.deallocate() }
        storage.initializeMemory(as: UInt8.self, repeating: 0xAB, count: MemoryLayout<cellhost_message_info>.size)
        storage.storeBytes(of: UInt32(size), as: UInt32.self)
        api.info(message.handle, storage.assumingMemoryBound(to: cellhost_message_info.self))
        let bytes = UnsafeRawBufferPointer(start: storage, count: MemoryLayout<cellhost_message_info>.size)
        XCTAssertTrue(bytes[size...].allSatisfy { $0 == 0xAB }, "bytes past struct_size were written")
        let info = storage.load(as: cellhost_message_info.self)
        XCTAssertEqual(info.direction, cellhost_direction(CELLHOST_OUTGOING))
        XCTAssertTrue(info.edited)
    }
}

/// The "cellhost.output" extension (output.h): the run's output settings.
final class OutputExtensionTests: XCTestCase {
    func test_outputInfo_reportsTheRunsFormatColoursAndImageSettings() throws {
        let runtime = Runtime()
        runtime.output = PluginOutput(settings: OutputSettings(format: .ansi, depth: .ansi256, width: 80),
                                      images: .none, imageRows: 7)
        let table = runtime.hostTable(for: HostClasses.pluginID)
        let api = try XCTUnwrap(table.pointee.get_extension(table, CELLHOST_EXT_OUTPUT))
            .assumingMemoryBound(to: cellhost_output_api.self)
        var info = cellhost_output_info()
        info.struct_size = UInt32(MemoryLayout<cellhost_output_info>.size)
        api.pointee.info(table, &info)
        XCTAssertEqual(info.format, cellhost_output_format(CELLHOST_FORMAT_ANSI))
        XCTAssertEqual(info.colors, cellhost_color_depth(CELLHOST_COLORS_256))
        XCTAssertEqual(info.images, cellhost_image_mode(CELLHOST_IMAGES_NONE))
        XCTAssertEqual(info.image_rows, 7)
    }

    func test_outputInfo_olderSmallerStruct_isFilledOnlyAsFarAsItReaches() throws {
        let runtime = Runtime()
        runtime.output = PluginOutput(settings: OutputSettings(format: .json, depth: .trueColor, width: 80))
        let table = runtime.hostTable(for: HostClasses.pluginID)
        let api = try XCTUnwrap(table.pointee.get_extension(table, CELLHOST_EXT_OUTPUT))
            .assumingMemoryBound(to: cellhost_output_api.self)
        let size = MemoryLayout<cellhost_output_info>.offset(of: \.images) ?? 0
        let storage = UnsafeMutableRawPointer.allocate(byteCount: MemoryLayout<cellhost_output_info>.size, alignment: 8)
        defer { storage.deallocate() }
        storage.initializeMemory(as: UInt8.self, repeating: 0xAB, count: MemoryLayout<cellhost_output_info>.size)
        storage.storeBytes(of: UInt32(size), as: UInt32.self)
        api.pointee.info(table, storage.assumingMemoryBound(to: cellhost_output_info.self))
        let info = storage.load(as: cellhost_output_info.self)
        XCTAssertEqual(info.format, cellhost_output_format(CELLHOST_FORMAT_JSON))
        XCTAssertEqual(info.colors, cellhost_color_depth(CELLHOST_COLORS_TRUECOLOR))
        let bytes = UnsafeRawBufferPointer(start: storage, count: MemoryLayout<cellhost_output_info>.size)
        XCTAssertTrue(bytes[size...].allSatisfy { $0 == 0xAB }, "bytes past struct_size were written")
    }
}

import CellHostABI
import XCTest
@testable import CellHostCore

/// The frames between the host and its render workers, and the plugin
/// cache's record encoding: what one side writes the other reads back, and
/// bytes cut short or corrupted are an error, never a trap.
final class WorkerWireTests: XCTestCase {
    func sampleReply() -> RenderReply {
        var reply = RenderReply(sequence: 42)
        reply.renderedStep = 1
        reply.attempts = [.init(step: 0, result: "declined", detail: nil), .init(step: 1, result: "error", detail: "why")]
        reply.logs = [.init(plugin: "p", level: 3, message: "log")]
        reply.bytes = Array("hello world".utf8)
        reply.items = [.text(start: 0, end: 5, style: .strong), .lineBreak, .text(start: 6, end: 11, style: []), .row(start: 0, count: 2)]
        reply.cells = [cellhost_block_cell(codepoint: 0x2580, fg: 1, bg: 2, flags: 0),
                       cellhost_block_cell(codepoint: 0x2584, fg: 3, bg: 4, flags: 0)]
        reply.droppedLines = 7
        return reply
    }

    func encoded(_ reply: RenderReply) -> [UInt8] {
        var writer = WireWriter()
        reply.encode(into: &writer)
        return writer.bytes
    }

    func test_renderReply_roundTrips() throws {
        var reader = WireReader(encoded(sampleReply()))
        let decoded = try RenderReply.decode(&reader)
        XCTAssertEqual(decoded.sequence, 42)
        XCTAssertEqual(decoded.renderedStep, 1)
        XCTAssertEqual(decoded.attempts.map(\.result), ["declined", "error"])
        XCTAssertEqual(decoded.attempts.map(\.detail), [nil, "why"])
        XCTAssertEqual(decoded.logs.map(\.message), ["log"])
        XCTAssertEqual(decoded.bytes, Array("hello world".utf8))
        XCTAssertEqual(decoded.items.count, 4)
        XCTAssertEqual(decoded.cells.map(\.codepoint), [0x2580, 0x2584])
        XCTAssertEqual(decoded.droppedLines, 7)
    }

    func test_renderReply_cutShortAnywhere_isAnError() {
        let bytes = encoded(sampleReply())
        for length in 0..<bytes.count {
            var reader = WireReader(Array(bytes[..<length]))
            XCTAssertThrowsError(try RenderReply.decode(&reader), "cut at \(length)")
        }
    }

    func test_renderReply_withRangesOutsideItsContent_isAnError() {
        var reply = sampleReply()
        reply.items = [.text(start: 3, end: 400, style: [])]
        var reader = WireReader(encoded(reply))
        XCTAssertThrowsError(try RenderReply.decode(&reader))
        reply.items = [.row(start: 1, count: 5)]
        reader = WireReader(encoded(reply))
        XCTAssertThrowsError(try RenderReply.decode(&reader))
    }

    func test_renderReply_everyByteFlipped_neverTraps() {
        let bytes = encoded(sampleReply())
        for index in bytes.indices {
            for flip: UInt8 in [0x01, 0x80, 0xFF] {
                var corrupt = bytes
                corrupt[index] ^= flip
                var reader = WireReader(corrupt)
                if let decoded = try? RenderReply.decode(&reader) {
                    // Whatever decodes is safe to append: ranges were checked.
                    CellCanvas().appendContent(of: decoded)
                }
            }
        }
    }

    func test_renderRequest_roundTrips() throws {
        let request = RenderRequest(plainText: true, sequence: 9, width: 70, flags: 3,
                                    steps: [("A", "text"), ("B", "file")], record: Array(#"{"type":"text"}"#.utf8),
                                    baseDirectory: "/srv/chats")
        var writer = WireWriter()
        request.encode(into: &writer)
        var reader = WireReader(writer.bytes)
        let decoded = try RenderRequest.decode(&reader)
        XCTAssertTrue(decoded.plainText)
        XCTAssertEqual(decoded.sequence, 9)
        XCTAssertEqual(decoded.steps.map(\.className), ["A", "B"])
        XCTAssertEqual(decoded.steps.map(\.messageClass), ["text", "file"])
        XCTAssertEqual(decoded.record, request.record)
        XCTAssertEqual(decoded.baseDirectory, "/srv/chats")
    }

    func test_pluginRecord_binaryCoding_roundTrips() throws {
        var record = PluginRecord(file: "/p/x.so", state: .failed("killed by SIGSEGV while loading"))
        record.id = "x"
        record.abi = .init(major: 1, minor: 0)
        record.classes = [ClassDescription(name: "C", superclass: "MessageCell", messageClasses: ["text"], rank: -3,
                                           instanceSize: 16, methods: [.init(selector: "s", types: "v@:", imp: 1)])]
        record.rejectedClasses = [.init(name: "D", reason: "r")]
        record.messageClasses = [.init(name: "poll", parent: nil), .init(name: "quiz", parent: "poll")]
        var encoder = PluginCatalogEncoder()
        encoder.append(record)
        var writer = WireWriter()
        encoder.encode(into: &writer)
        var reader = WireReader(writer.bytes)
        let catalog = try PluginCatalog.decode(&reader)
        XCTAssertEqual(reader.offset, writer.bytes.count)
        let decoded = catalog.record(0)
        XCTAssertEqual(decoded.failure, "killed by SIGSEGV while loading")
        XCTAssertEqual(decoded.id, "x")
        XCTAssertNil(decoded.version)
        XCTAssertEqual(decoded.abi, .init(major: 1, minor: 0))
        XCTAssertEqual(decoded.classes.first?.rank, -3)
        XCTAssertEqual(decoded.classes.first?.methods.first?.implemented, true)
        XCTAssertEqual(decoded.classes.first?.methods.first?.imp, 0, "IMPs are never cached")
        XCTAssertEqual(decoded.rejectedClasses, record.rejectedClasses)
        XCTAssertEqual(decoded.messageClasses, record.messageClasses)
        for length in 0..<writer.bytes.count {
            var cut = WireReader(Array(writer.bytes[..<length]))
            XCTAssertThrowsError(try PluginCatalog.decode(&cut), "cut at \(length)")
        }
    }

    func test_workerSetup_roundTrips_andCutShortIsAnError() throws {
        var record = PluginRecord(file: "/p/cell.so", state: .loaded)
        record.id = "test.cell"
        record.classes = [ClassDescription(name: "Cell", superclass: "MessageCell", messageClasses: ["text"], rank: 5,
                                           instanceSize: 8, methods: [.init(selector: "renderMessage:context:into:",
                                                                            types: "i@:", imp: 1)])]
        var output = PluginOutput.standard
        output.format = "ansi"
        output.colors = 3
        output.images = .none
        output.imageRows = 7
        let plugins = PluginCatalog()
        plugins.add(record)
        let setup = WorkerSetup(plugins: plugins, me: "u-1", dispatch: "ffi", memoryLimit: 1 << 30,
                                maximumRows: 100, maximumBytes: 4096, output: output)
        var writer = WireWriter()
        setup.encode(into: &writer)
        var reader = WireReader(writer.bytes)
        let decoded = try WorkerSetup.decode(&reader)
        XCTAssertEqual(decoded.plugins.plugins.indices.map { decoded.plugins.record($0).id }, ["test.cell"])
        XCTAssertEqual(decoded.plugins.record(0).classes.first?.methods.first?.implemented, true)
        XCTAssertEqual(decoded.me, "u-1")
        XCTAssertEqual(decoded.dispatch, "ffi")
        XCTAssertEqual(decoded.memoryLimit, 1 << 30)
        XCTAssertEqual(decoded.maximumRows, 100)
        XCTAssertEqual(decoded.maximumBytes, 4096)
        XCTAssertEqual(decoded.output, output)
        for length in 0..<writer.bytes.count {
            var cut = WireReader(Array(writer.bytes[..<length]))
            XCTAssertThrowsError(try WorkerSetup.decode(&cut), "cut at \(length)")
        }
    }

    func test_scannerReportLine_roundTripsARecord_andRefusesGarbage() throws {
        var record = PluginRecord(file: "/p/ünïcode.so", state: .failed("init failed: no (status 3)"))
        record.id = "test.line"
        record.messageClasses = [.init(name: "poll", parent: nil)]
        let line = PluginScanner.encodeRecord(record)
        XCTAssertFalse(line.utf8.contains(UInt8(ascii: "\n")), "one record is one line")
        let decoded = try XCTUnwrap(PluginScanner.decodeRecord(Array(line.utf8)))
        XCTAssertEqual(decoded.file, record.file)
        XCTAssertEqual(decoded.failure, "init failed: no (status 3)")
        XCTAssertEqual(decoded.id, "test.line")
        XCTAssertEqual(decoded.messageClasses, record.messageClasses)
        for garbage in ["", "0", "zz", String(line.dropLast(2)), line + "00", #"{"file":"/p/x.so"}"#] {
            XCTAssertNil(PluginScanner.decodeRecord(Array(garbage.utf8)), garbage)
        }
    }
}

@testable import CellKit
import CellHostABI
import XCTest

/// A renderer with state: counts its renders and records its hooks.
struct CountingRenderer: MessageCellRenderer {
    static let plugin = PluginInfo(id: "test.counting", version: "1")
    static let className = "CountingCell"
    static let messageClasses = ["text"]
    nonisolated(unsafe) static var events: [String] = []

    var renders = 0
    /// Makes the value large enough to be stored indirectly in existentials.
    var padding: (Int, Int, Int, Int) = (0, 0, 0, 0)

    init() { Self.events.append("init") }

    mutating func render(_ message: Message, into cell: inout CellBuilder, context: RenderContext) -> RenderOutcome {
        renders += 1
        cell.append("\(renders)")
        return .rendered
    }

    mutating func conversationWillBegin() { Self.events.append("begin \(renders)") }
    mutating func conversationDidEnd() { Self.events.append("end \(renders)") }
}

/// A renderer without stored properties.
struct StatelessRenderer: MessageCellRenderer {
    static let plugin = PluginInfo(id: "test.stateless", version: "1")
    static let className = "StatelessCell"
    static let messageClasses = ["text"]
    nonisolated(unsafe) static var events: [String] = []

    init() { Self.events.append("init") }

    mutating func render(_ message: Message, into cell: inout CellBuilder, context: RenderContext) -> RenderOutcome {
        cell.append(message.text, style: .strong)
        return message.text == "fail" ? .error("no good") : .rendered
    }

    func plainText(for message: Message) -> String? { message.text.isEmpty ? nil : "summary" }
    mutating func conversationDidEnd() { Self.events.append("end") }
}

final class RuntimeTests: XCTestCase {
    private let first = OpaquePointer(bitPattern: 0x100)
    private let second = OpaquePointer(bitPattern: 0x200)
    private let builder = OpaquePointer(bitPattern: 0x300)!

    private func render(_ cls: SlotClass, _ object: OpaquePointer?) -> (Int32, [String]) {
        FakeHost.appends = []
        let result = FakeHost.withContext { cls.render(object, FakeHost.message.handle, $0, builder, FakeHost.table) }
        return (result, FakeHost.appends.map { String(decoding: $0.bytes, as: UTF8.self) })
    }

    func test_eachHostObjectKeepsItsOwnValue() {
        FakeHost.reset(strings: ["text": "hi"])
        CountingRenderer.events = []
        let cls = RendererClass<CountingRenderer>(className: PermanentCString.make("CountingCell"), name: "CountingCell")
        cls.conversationWillBegin(first)
        XCTAssertEqual(render(cls, first).1, ["1"])
        XCTAssertEqual(render(cls, first).1, ["2"])
        XCTAssertEqual(render(cls, second).1, ["1"], "another object starts from init()")
        XCTAssertEqual(render(cls, first).1, ["3"])
        XCTAssertEqual(render(cls, second).1, ["2"])
        cls.conversationDidEnd(first)
        XCTAssertEqual(CountingRenderer.events, ["init", "begin 0", "init", "end 3"])
        XCTAssertEqual(render(cls, first).1, ["1"], "dropped after conversationDidEnd")
        XCTAssertEqual(render(cls, second).1, ["3"], "the other object is untouched")
        cls.conversationWillBegin(second)
        XCTAssertEqual(render(cls, second).1, ["1"], "fresh in conversationWillBegin")
        cls.removeAll()
        XCTAssertEqual(render(cls, second).1, ["1"])
    }

    func test_manyObjectsGrowTheTable() {
        FakeHost.reset(strings: ["text": "hi"])
        let cls = RendererClass<CountingRenderer>(className: PermanentCString.make("CountingCell"), name: "CountingCell")
        let objects = (1...20).map { OpaquePointer(bitPattern: $0 * 16) }
        for round in 1...3 {
            for object in objects { XCTAssertEqual(render(cls, object).1, ["\(round)"]) }
        }
        for object in objects.prefix(10) { cls.conversationDidEnd(object) }
        for object in objects.prefix(10) { XCTAssertEqual(render(cls, object).1, ["1"]) }
        for object in objects.suffix(10) { XCTAssertEqual(render(cls, object).1, ["4"]) }
    }

    func test_statelessRenderersShareOneValue() {
        FakeHost.reset(strings: ["text": "hello"])
        StatelessRenderer.events = []
        let cls = RendererClass<StatelessRenderer>(className: PermanentCString.make("StatelessCell"), name: "StatelessCell")
        XCTAssertEqual(render(cls, first).0, ResultCode.rendered)
        XCTAssertEqual(render(cls, second).1, ["hello"])
        XCTAssertEqual(StatelessRenderer.events, ["init"], "one value, made on first use")
        cls.conversationWillBegin(first)
        cls.conversationDidEnd(first)
        cls.conversationDidEnd(second)
        XCTAssertEqual(StatelessRenderer.events, ["init", "init", "end", "end"], "every object's hook runs")
    }

    func test_errorsAreLoggedWithTheMessageID() {
        FakeHost.reset(strings: ["text": "fail", "id": "m-7"])
        let cls = RendererClass<StatelessRenderer>(className: PermanentCString.make("StatelessCell"), name: "StatelessCell")
        XCTAssertEqual(render(cls, first).0, ResultCode.error)
        XCTAssertEqual(FakeHost.logs, ["StatelessCell: message m-7: no good"])
    }

    func test_plainTextAppendsTheSummary() {
        FakeHost.reset(strings: ["text": "hello"])
        let cls = RendererClass<StatelessRenderer>(className: PermanentCString.make("StatelessCell"), name: "StatelessCell")
        XCTAssertTrue(cls.plainText(first, FakeHost.message.handle, builder, FakeHost.table))
        XCTAssertEqual(FakeHost.appends, [Piece(bytes: Array("summary".utf8), style: 0)])
        FakeHost.reset(strings: [:])
        XCTAssertFalse(cls.plainText(first, FakeHost.message.handle, builder, FakeHost.table),
                       "nil asks for the superclass's summary")
        XCTAssertEqual(FakeHost.appends, [])
    }

    func test_renderTokensNest() {
        let outer = Runtime.beginRender()
        let inner = Runtime.beginRender()
        XCTAssertTrue(Runtime.isRendering(outer))
        XCTAssertTrue(Runtime.isRendering(inner))
        Runtime.endRender(inner)
        XCTAssertFalse(Runtime.isRendering(inner))
        XCTAssertTrue(Runtime.isRendering(outer))
        Runtime.endRender(outer)
        XCTAssertFalse(Runtime.isRendering(outer))
    }
}

final class MessageAccessTests: XCTestCase {
    func test_textReadsOnlyTheTextField() {
        FakeHost.reset(strings: ["text": "body", "type": "file"])
        XCTAssertEqual(FakeHost.message.text, "body")
        XCTAssertEqual(FakeHost.paths, ["text"])
        XCTAssertEqual(FakeHost.infoCalls, 0)
        XCTAssertEqual(FakeHost.message.type, "file")
        XCTAssertEqual(FakeHost.infoCalls, 1)
        XCTAssertEqual(FakeHost.message.withTextUTF8 { Array($0) }, Array("body".utf8))
        FakeHost.reset()
        XCTAssertEqual(FakeHost.message.text, "")
        XCTAssertEqual(FakeHost.message.withTextUTF8 { $0.count }, 0)
    }

    func test_withUTF8() {
        FakeHost.reset(strings: ["file.name": "a.pdf"], numbers: ["file.size": 3])
        XCTAssertEqual(FakeHost.message.withUTF8("file.name") { String(decoding: $0, as: UTF8.self) }, "a.pdf")
        XCTAssertNil(FakeHost.message.withUTF8("file.size") { _ in XCTFail("not a string") })
        XCTAssertNil(FakeHost.message.withUTF8("file.path") { _ in XCTFail("missing") })
    }

    func test_elementPaths() {
        FakeHost.reset(strings: ["list.2": "two"], numbers: ["voice.waveform.31": 7, "a.-1": 1])
        XCTAssertEqual(FakeHost.message.number("voice.waveform", index: 31), 7)
        XCTAssertEqual(FakeHost.message.string("list", index: 2), "two")
        XCTAssertNil(FakeHost.message.string("voice.waveform", index: 31), "wrong type")
        XCTAssertEqual(FakeHost.message.number("a", index: -1), 1)
        XCTAssertNil(FakeHost.message.number("voice.waveform", index: Int.max))
        XCTAssertEqual(FakeHost.paths, ["voice.waveform.31", "list.2", "voice.waveform.31", "a.-1",
                                        "voice.waveform.\(Int.max)"])
    }

    func test_numbersAtIndices() {
        FakeHost.reset(strings: ["w.1": "x"], numbers: ["w.0": 1, "w.2": 3, "w.10": 11])
        XCTAssertEqual(FakeHost.message.numbers("w", at: [0, 1, 2, 3, 10, 0]), [1, 3, 11, 1],
                       "missing and non-numbers are skipped")
        XCTAssertEqual(FakeHost.paths, ["w.0", "w.1", "w.2", "w.3", "w.10", "w.0"])
        XCTAssertEqual(FakeHost.message.numbers("w", at: []), [])
    }

    func test_decimalTextMatchesInterpolation() {
        var values = [0, 1, 9, 10, 99, 100, 12345, -1, -10, Int.max, Int.min, Int.min + 1]
        var random = SplitMix64(seed: 3)
        for _ in 0..<1000 { values.append(Int(truncatingIfNeeded: random.next()) >> Int(random.next() % 63)) }
        for value in values {
            let text = DecimalText.string { DecimalText.write(value, into: $0) }
            XCTAssertEqual(text, "\(value)")
        }
        for value in 0..<100 {
            XCTAssertEqual(DecimalText.string { DecimalText.writeTwoDigits(value, into: $0) },
                           value < 10 ? "0\(value)" : "\(value)")
        }
    }

    func test_appendUTF8() {
        FakeHost.reset()
        var cell = CellBuilder(handle: OpaquePointer(bitPattern: 0x30)!, table: UnsafePointer(FakeHost.table))
        XCTAssertTrue(cell.isEmpty)
        cell.append(utf8: UnsafeBufferPointer(start: nil, count: 0))
        XCTAssertTrue(cell.isEmpty, "no bytes, no append")
        Array("héllo".utf8).withUnsafeBufferPointer { cell.append(utf8: $0, style: .link) }
        cell.append("", style: .strong)
        cell.append("x")
        XCTAssertFalse(cell.isEmpty)
        XCTAssertEqual(FakeHost.appends, [Piece(bytes: Array("héllo".utf8), style: Style.link.rawValue),
                                          Piece(bytes: Array("x".utf8), style: 0)])
    }
}

@testable import CellKit
import CellHostABI
import XCTest

// MARK: Renderers under test

/// A renderer with state and no optional protocols: counts its renders.
struct CountingRenderer: MessageCellRenderer {
    static let plugin = PluginInfo(id: "test.counting", version: "1")
    static let className = "CountingCell"
    static let messageClasses = ["text"]

    var renders = 0
    /// Makes the value large enough to be stored indirectly in existentials.
    var padding: (Int, Int, Int, Int) = (0, 0, 0, 0)

    init() {}

    mutating func render(_ message: Message, into cell: inout CellBuilder, context: RenderContext) -> RenderOutcome {
        renders += 1
        cell.append("\(renders)")
        return .rendered
    }
}

/// A stateful subclass of `CountingCell`, counting in hundreds, that draws
/// its superclass's content first.
struct HundredsRenderer: MessageCellRenderer {
    static let plugin = PluginInfo(id: "test.counting", version: "1")
    static let className = "HundredsCell"
    static let superclassName = "CountingCell"
    static let messageClasses = ["text"]

    var renders = 0

    init() {}

    mutating func render(_ message: Message, into cell: inout CellBuilder, context: RenderContext) -> RenderOutcome {
        renders += 100
        cell.append("\(renders)")
        return .rendered
    }
}

/// A renderer without stored properties and without optional protocols.
struct PlainRenderer: MessageCellRenderer {
    static let plugin = PluginInfo(id: "test.plain", version: "1")
    static let className = "PlainCell"
    static let messageClasses = ["text"]
    init() {}

    mutating func render(_ message: Message, into cell: inout CellBuilder, context: RenderContext) -> RenderOutcome {
        cell.append(message.text, style: .strong)
        return message.text == "fail" ? .error("no good") : .rendered
    }
}

/// Adopts every optional protocol, and records what it is asked.
struct ObservingRenderer: MessageCellRenderer, RenderPrechecking, PlainTextSummarizing, ConversationObserving {
    static let plugin = PluginInfo(id: "test.observing", version: "1")
    static let className = "ObservingCell"
    static let superclassName = "BaseCell"
    static let messageClasses = ["text"]
    nonisolated(unsafe) static var events: [String] = []

    var renders = 0

    init() { Self.events.append("init") }

    mutating func render(_ message: Message, into cell: inout CellBuilder, context: RenderContext) -> RenderOutcome {
        renders += 1
        cell.append("\(renders)")
        return .rendered
    }

    func canRender(_ message: Message, context: RenderContext) -> Bool {
        Self.events.append("canRender, super says \(context.canRenderSuper(message))")
        return message.text != "no"
    }

    func plainText(for message: Message, context: RenderContext) -> String? {
        message.text.isEmpty ? nil : "summary of \(context.messageClass) in \(context.baseDirectory)"
    }

    mutating func conversationWillBegin() { Self.events.append("begin \(renders)") }
    mutating func conversationDidEnd() { Self.events.append("end \(renders)") }
}

/// Numbered cells for the many-classes test: `Cell0` … `Cell19`, each a type
/// of its own that renders its number.
protocol CellNumber { static var number: Int { get } }
struct NumberedRenderer<N: CellNumber>: MessageCellRenderer {
    static var plugin: PluginInfo { PluginInfo(id: "test.many", version: "1") }
    static var className: String { "Cell\(N.number)" }
    static var messageClasses: [String] { ["n\(N.number)"] }
    static var samples: [String] { [#"{"type":"n\#(N.number)"}"#] }
    var renders = 0
    init() {}

    mutating func render(_ message: Message, into cell: inout CellBuilder, context: RenderContext) -> RenderOutcome {
        renders += 1
        cell.append("\(N.number)#\(renders)")
        return .rendered
    }
}
enum N0: CellNumber { static let number = 0 }
enum N1: CellNumber { static let number = 1 }
enum N2: CellNumber { static let number = 2 }
enum N3: CellNumber { static let number = 3 }
enum N4: CellNumber { static let number = 4 }
enum N5: CellNumber { static let number = 5 }
enum N6: CellNumber { static let number = 6 }
enum N7: CellNumber { static let number = 7 }
enum N8: CellNumber { static let number = 8 }
enum N9: CellNumber { static let number = 9 }
enum N10: CellNumber { static let number = 10 }
enum N11: CellNumber { static let number = 11 }
enum N12: CellNumber { static let number = 12 }
enum N13: CellNumber { static let number = 13 }
enum N14: CellNumber { static let number = 14 }
enum N15: CellNumber { static let number = 15 }
enum N16: CellNumber { static let number = 16 }
enum N17: CellNumber { static let number = 17 }
enum N18: CellNumber { static let number = 18 }
enum N19: CellNumber { static let number = 19 }

let twentyCells: [any MessageCellRenderer.Type] = [
    NumberedRenderer<N0>.self, NumberedRenderer<N1>.self, NumberedRenderer<N2>.self, NumberedRenderer<N3>.self,
    NumberedRenderer<N4>.self, NumberedRenderer<N5>.self, NumberedRenderer<N6>.self, NumberedRenderer<N7>.self,
    NumberedRenderer<N8>.self, NumberedRenderer<N9>.self, NumberedRenderer<N10>.self, NumberedRenderer<N11>.self,
    NumberedRenderer<N12>.self, NumberedRenderer<N13>.self, NumberedRenderer<N14>.self, NumberedRenderer<N15>.self,
    NumberedRenderer<N16>.self, NumberedRenderer<N17>.self, NumberedRenderer<N18>.self, NumberedRenderer<N19>.self,
]

// MARK: Export

final class ExportTests: XCTestCase {
    private let first = OpaquePointer(bitPattern: 0x100)
    private let second = OpaquePointer(bitPattern: 0x200)

    override func setUp() {
        FakeHost.reset(strings: ["text": "hello"])
    }

    func test_twentyClassesEachRunTheirOwnType() {
        let plugin = ExportedPlugin(twentyCells)
        XCTAssertEqual(plugin.classCount, 20)
        for number in 0..<20 {
            guard let cls = plugin.cls("Cell\(number)") else { return XCTFail("Cell\(number) missing") }
            XCTAssertEqual(cls.render(first).text, "\(number)#1")
        }
        // Each kept its own count, in its own instance variables.
        XCTAssertEqual(plugin.cls("Cell19")?.render(first).text, "19#2")
        XCTAssertEqual(plugin.cls("Cell3")?.render(first).text, "3#2")
    }

    func test_everyClassHasItsOwnIMPs() {
        let plugin = ExportedPlugin(twentyCells)
        let imps = (0..<20).compactMap { plugin.cls("Cell\($0)")?.method(CELLHOST_SEL_RENDER)?.imp }
            .map { unsafeBitCast($0, to: UnsafeRawPointer.self) }
        XCTAssertEqual(Set(imps).count, 20)
    }

    /// The first render methods of a plugin get plain C function IMPs, the
    /// rest libffi closures; both run their own class (the test above).
    func test_atMostEightRenderIMPsAreStaticFunctions_theRestClosures() {
        let plugin = ExportedPlugin(twentyCells)
        let imps = (0..<20).compactMap { plugin.cls("Cell\($0)")?.method(CELLHOST_SEL_RENDER)?.imp }
        XCTAssertEqual(imps.count, 20)
        let staticCount = imps.filter { StaticIMPs.isStatic($0) }.count
        XCTAssertLessThanOrEqual(staticCount, StaticIMPs.slotCount)
        XCTAssertGreaterThanOrEqual(imps.count - staticCount, 20 - StaticIMPs.slotCount)
        for number in 0..<20 {
            XCTAssertEqual(plugin.cls("Cell\(number)")?.render(first).text.hasPrefix("\(number)#"), true)
        }
    }

    func test_aRendererWithoutOptionalProtocolsRegistersOnlyRender() {
        let plugin = ExportedPlugin([PlainRenderer.self])
        XCTAssertEqual(plugin.cls("PlainCell")?.selectors, [CELLHOST_SEL_RENDER])
    }

    func test_eachAdoptedProtocolRegistersItsSelectors() {
        let plugin = ExportedPlugin([ObservingRenderer.self])
        XCTAssertEqual(plugin.cls("ObservingCell")?.selectors,
                       [CELLHOST_SEL_RENDER, CELLHOST_SEL_CAN_RENDER, CELLHOST_SEL_PLAIN_TEXT,
                        CELLHOST_SEL_WILL_BEGIN, CELLHOST_SEL_DID_END])
    }

    func test_methodsCarryTheEncodingsOfSelectorsH() {
        let plugin = ExportedPlugin([ObservingRenderer.self])
        let expected = [CELLHOST_SEL_RENDER: CELLHOST_TYPES_RENDER, CELLHOST_SEL_CAN_RENDER: CELLHOST_TYPES_CAN_RENDER,
                        CELLHOST_SEL_PLAIN_TEXT: CELLHOST_TYPES_PLAIN_TEXT,
                        CELLHOST_SEL_WILL_BEGIN: CELLHOST_TYPES_CONVERSATION,
                        CELLHOST_SEL_DID_END: CELLHOST_TYPES_CONVERSATION]
        for (selector, types) in expected {
            XCTAssertEqual(plugin.cls("ObservingCell")?.method(selector).map { String(cString: $0.types) }, types)
            XCTAssertEqual(plugin.cls("ObservingCell")?.method(selector)?.struct_size,
                           UInt32(MemoryLayout<cellhost_method>.size))
        }
    }

    func test_aStatefulRendererRegistersDidEndToReleaseItsState() {
        let plugin = ExportedPlugin([CountingRenderer.self])
        XCTAssertEqual(plugin.cls("CountingCell")?.selectors, [CELLHOST_SEL_RENDER, CELLHOST_SEL_DID_END])
    }

    func test_descriptorAndClassesCarryTheirStructSizes() {
        let plugin = ExportedPlugin([PlainRenderer.self])
        XCTAssertEqual(plugin.descriptor.pointee.struct_size, UInt32(MemoryLayout<cellhost_plugin_descriptor>.size))
        XCTAssertEqual(plugin.descriptor.pointee.abi.major, UInt32(CELLHOST_ABI_MAJOR))
        XCTAssertEqual(plugin.cls("PlainCell")?.pointer.pointee.struct_size, UInt32(MemoryLayout<cellhost_class>.size))
    }

    func test_samplesOfEveryTypeAreThePluginsSamplesExtension() throws {
        let plugin = ExportedPlugin(Array(twentyCells.prefix(3)))
        let raw = try XCTUnwrap(plugin.pluginExtension(CELLHOST_EXT_SAMPLES))
        let samples = raw.assumingMemoryBound(to: cellhost_samples.self).pointee
        XCTAssertEqual(samples.struct_size, UInt32(MemoryLayout<cellhost_samples>.size))
        XCTAssertEqual((0..<Int(samples.count)).map { String(cString: samples.messages[$0]!) },
                       [#"{"type":"n0"}"#, #"{"type":"n1"}"#, #"{"type":"n2"}"#])
        XCTAssertNil(plugin.pluginExtension("cellhost.other"))
    }

    func test_withoutSamplesThereIsNoPluginExtension() {
        let plugin = ExportedPlugin([PlainRenderer.self])
        XCTAssertNil(plugin.descriptor.pointee.get_extension)
    }
}

// MARK: Dispatch and state

final class DispatchTests: XCTestCase {
    private let first = OpaquePointer(bitPattern: 0x1100)
    private let second = OpaquePointer(bitPattern: 0x1200)

    override func setUp() {
        FakeHost.reset(strings: ["text": "hello"])
        ObservingRenderer.events = []
    }

    func test_statefulClassesAskForOnePointerOfInstanceVariables() {
        let plugin = ExportedPlugin([CountingRenderer.self, PlainRenderer.self])
        XCTAssertEqual(plugin.cls("CountingCell")?.instanceSize, UInt32(MemoryLayout<UnsafeRawPointer>.size))
        XCTAssertEqual(plugin.cls("PlainCell")?.instanceSize, 0, "a stateless type keeps nothing per instance")
    }

    func test_eachHostInstanceKeepsItsOwnValue() throws {
        let cls = try XCTUnwrap(ExportedPlugin([CountingRenderer.self]).cls("CountingCell"))
        XCTAssertEqual(cls.render(first).text, "1")
        XCTAssertEqual(cls.render(first).text, "2")
        XCTAssertEqual(cls.render(second).text, "1", "another instance starts from init()")
        XCTAssertEqual(cls.render(first).text, "3")
        XCTAssertNotNil(cls.ivarSlot(first), "the value lives in the instance's variables")
    }

    func test_eachClassOfAChainUsesItsOwnInstanceVariables() throws {
        let plugin = ExportedPlugin([CountingRenderer.self, HundredsRenderer.self])
        let base = try XCTUnwrap(plugin.cls("CountingCell"))
        let sub = try XCTUnwrap(plugin.cls("HundredsCell"))
        // One instance of the subclass runs both classes' methods, as an
        // inherited method and its override do.
        XCTAssertEqual(sub.render(first).text, "100")
        XCTAssertEqual(base.render(first).text, "1")
        XCTAssertEqual(sub.render(first).text, "200")
        XCTAssertEqual(base.render(first).text, "2")
        let classesAsked = Set(FakeHost.ivarRequests.map(\.cls))
        XCTAssertEqual(classesAsked, [UInt(bitPattern: base.pointer), UInt(bitPattern: sub.pointer)])
        XCTAssertNotEqual(base.ivarSlot(first), sub.ivarSlot(first))
    }

    func test_didEndReleasesTheValueAndForwardsToTheSuperclass() throws {
        let cls = try XCTUnwrap(ExportedPlugin([CountingRenderer.self]).cls("CountingCell"))
        XCTAssertEqual(cls.render(first).text, "1")
        XCTAssertNotNil(cls.ivarSlot(first))
        var superHook = 0
        FakeHost.superclass = { selector, _ in
            superHook += 1
            return Int32(CELLHOST_OK)
        }
        cls.conversation(CELLHOST_SEL_DID_END, first)
        XCTAssertNil(cls.ivarSlot(first), "the box is released and the slot cleared")
        XCTAssertEqual(FakeHost.superSends.map(\.className), ["CountingCell"])
        XCTAssertEqual(FakeHost.superSends.map(\.selector), [CELLHOST_SEL_DID_END])
        XCTAssertEqual(superHook, 1, "the superclass's conversationDidEnd: ran")
        XCTAssertEqual(cls.render(first).text, "1", "a new value after the end")
    }

    func test_conversationHooksRunTheSuperclassFirstAtBeginAndLastAtEnd() throws {
        let cls = try XCTUnwrap(ExportedPlugin([ObservingRenderer.self]).cls("ObservingCell"))
        FakeHost.superclass = { selector, _ in
            ObservingRenderer.events.append("super \(selector)")
            return Int32(CELLHOST_OK)
        }
        cls.conversation(CELLHOST_SEL_WILL_BEGIN, first)
        XCTAssertEqual(cls.render(first).text, "1")
        cls.conversation(CELLHOST_SEL_DID_END, first)
        XCTAssertEqual(ObservingRenderer.events,
                       ["super conversationWillBegin:", "init", "begin 0", "end 1", "super conversationDidEnd:"])
    }

    func test_canRenderAsksTheRendererAndCanAskTheSuperclass() throws {
        let cls = try XCTUnwrap(ExportedPlugin([ObservingRenderer.self]).cls("ObservingCell"))
        FakeHost.superclass = { selector, result in
            result?.storeBytes(of: false, as: Bool.self)
            return Int32(CELLHOST_OK)
        }
        XCTAssertEqual(cls.canRender(first), true)
        FakeHost.reset(strings: ["text": "no"])
        XCTAssertEqual(cls.canRender(first), false)
        XCTAssertEqual(ObservingRenderer.events.filter { $0.hasPrefix("canRender") },
                       ["canRender, super says false", "canRender, super says true"])
        XCTAssertEqual(FakeHost.superSends.map(\.selector), [CELLHOST_SEL_CAN_RENDER])
    }

    func test_plainTextGetsTheContext() throws {
        let cls = try XCTUnwrap(ExportedPlugin([ObservingRenderer.self]).cls("ObservingCell"))
        XCTAssertEqual(cls.plainText(first).result, ResultCode.rendered)
        XCTAssertEqual(FakeHost.appends.map { String(decoding: $0.bytes, as: UTF8.self) }, ["summary of text in /data"])
    }

    func test_plainTextWithoutASummaryDeclinesForTheSuperclasssSummary() throws {
        let cls = try XCTUnwrap(ExportedPlugin([ObservingRenderer.self]).cls("ObservingCell"))
        FakeHost.reset(strings: [:])
        XCTAssertEqual(cls.plainText(first).result, ResultCode.declined)
        XCTAssertEqual(FakeHost.appends, [], "nothing appended")
        XCTAssertTrue(FakeHost.superSends.isEmpty, "the host, not CellKit, asks the superclass")
    }

    func test_statelessRenderersShareOneValueAndAskForNoIvars() throws {
        let cls = try XCTUnwrap(ExportedPlugin([PlainRenderer.self]).cls("PlainCell"))
        XCTAssertEqual(cls.render(first).result, ResultCode.rendered)
        XCTAssertEqual(cls.render(second).text, "hello")
        XCTAssertTrue(FakeHost.ivarRequests.isEmpty)
    }

    func test_errorsAreLoggedWithTheMessageID() throws {
        let cls = try XCTUnwrap(ExportedPlugin([PlainRenderer.self]).cls("PlainCell"))
        FakeHost.reset(strings: ["text": "fail", "id": "m-7"])
        XCTAssertEqual(cls.render(first).result, ResultCode.error)
        XCTAssertEqual(FakeHost.logs, ["PlainCell: message m-7: no good"])
    }

    func test_callTokensNest() {
        let outer = Runtime.beginCall()
        let inner = Runtime.beginCall()
        XCTAssertTrue(Runtime.isActive(outer))
        XCTAssertTrue(Runtime.isActive(inner))
        Runtime.endCall(inner)
        XCTAssertFalse(Runtime.isActive(inner))
        XCTAssertTrue(Runtime.isActive(outer))
        Runtime.endCall(outer)
        XCTAssertFalse(Runtime.isActive(outer))
    }

    /// A `CStringCache` gives back a kept `String` only for the same
    /// pointer with the same bytes: a buffer rewritten in place, or another
    /// buffer, reads as its own text, however many strings came between.
    func test_stringCacheReadsEachTextAsItIsNow() {
        var cache = CStringCache()
        let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: 16)
        defer { buffer.deallocate() }
        func write(_ text: String) {
            let bytes = Array(text.utf8CString)
            for (index, byte) in bytes.enumerated() { buffer[index] = byte }
        }
        write("voice")
        XCTAssertEqual(cache.string(buffer), "voice")
        XCTAssertEqual(cache.string(buffer), "voice")
        write("file")
        XCTAssertEqual(cache.string(buffer), "file", "same pointer, other bytes")
        write("files")
        XCTAssertEqual(cache.string(buffer), "files", "a longer text at the same pointer")
        write("")
        XCTAssertEqual(cache.string(buffer), "")
        let others = (0..<(CStringCache.capacity + 3)).map { PermanentCString.make("class-\($0)") }
        for _ in 0..<2 {
            for (index, other) in others.enumerated() { XCTAssertEqual(cache.string(other), "class-\(index)") }
        }
        write("voice")
        XCTAssertEqual(cache.string(buffer), "voice")
        XCTAssertEqual(cache.string(others[0]), "class-0")
    }

    func test_extensionsAreFetchedOncePerHostTable() throws {
        let cls = try XCTUnwrap(ExportedPlugin([PlainRenderer.self]).cls("PlainCell"))
        Runtime.forgetExtensions()
        for _ in 0..<5 { _ = cls.render(first) }
        XCTAssertEqual(FakeHost.extensionRequests.sorted(),
                       [CELLHOST_EXT_BUILDER, CELLHOST_EXT_LOG, CELLHOST_EXT_MESSAGE, CELLHOST_EXT_OUTPUT])
    }

    func test_contextCarriesTheBaseDirectory() {
        let context = FakeHost.withContext(baseDirectory: "/home/ann/chats") { RenderContext($0, host: FakeHost.host) }
        XCTAssertEqual(context.baseDirectory, "/home/ann/chats")
        XCTAssertEqual(context.messageClass, "text")
        let older = FakeHost.withContext(baseDirectory: "/x") { raw -> RenderContext in
            var copy = raw.pointee
            copy.struct_size = UInt32(MemoryLayout<cellhost_context>.offset(of: \.base_directory)!)
            return RenderContext(&copy, host: FakeHost.host)
        }
        XCTAssertEqual(older.baseDirectory, "", "a field past struct_size is not read")
    }

    /// A thread's reused context, updated in place call after call
    /// (`RenderContext.update`), reads each C context as a fresh
    /// `RenderContext` does: texts rewritten in place at the same
    /// pointers, other pointers, empty, non-ASCII and invalid UTF-8 texts,
    /// flags, widths, and fields past `struct_size`.
    func test_reusedContextReadsEachCallAsAFreshContextDoes() {
        let cache = UnsafeMutablePointer<ThreadCache>.allocate(capacity: 1)
        cache.initialize(to: ThreadCache())
        defer {
            cache.pointee.freeOwnedMemory()
            cache.deinitialize(count: 1)
            cache.deallocate()
        }
        let name = UnsafeMutablePointer<CChar>.allocate(capacity: 32)
        let directory = UnsafeMutablePointer<CChar>.allocate(capacity: 32)
        defer {
            name.deallocate()
            directory.deallocate()
        }
        func write(_ bytes: [UInt8], to buffer: UnsafeMutablePointer<CChar>) {
            for (index, byte) in (bytes + [0]).enumerated() { buffer[index] = CChar(bitPattern: byte) }
        }
        let other = PermanentCString.make("image")
        let token = Runtime.beginCall()
        defer { Runtime.endCall(token) }
        var reused = RenderContext(width: 1, messageClass: "", host: FakeHost.host)
        let calls: [(name: [UInt8], directory: [UInt8], width: UInt32, flags: Int, size: Int?, otherName: Bool)] = [
            (Array("text".utf8), Array("/data".utf8), 40, 0, nil, false),
            (Array("text".utf8), Array("/data".utf8), 12, CELLHOST_CONTEXT_COLOR, nil, false),
            (Array("file".utf8), Array("/data".utf8), 0, CELLHOST_CONTEXT_OUTGOING | CELLHOST_CONTEXT_JSON, nil, false),
            (Array("file".utf8), Array("/home/ann/a much longer directory".utf8.prefix(31)), 80, 0, nil, false),
            (Array("file".utf8), Array("/data".utf8), 80, 0, nil, true),
            ([], [], 5, 0, nil, false),
            (Array("héllo".utf8), Array("/tmp/é".utf8), 7, CELLHOST_CONTEXT_COLOR, nil, false),
            ([0x66, 0xFF, 0xC3], [0x2F, 0xE2, 0x82], 9, 0, nil, false),
            (Array("voice".utf8), Array("/x".utf8), 3, 0, MemoryLayout<cellhost_context>.offset(of: \.base_directory), false),
            (Array("voice".utf8), Array("/x".utf8), 3, 0, MemoryLayout<cellhost_context>.offset(of: \.message_class), false),
            (Array("voice".utf8), Array("/x".utf8), 3, 0, nil, false),
        ]
        for (index, call) in calls.enumerated() {
            write(call.name, to: name)
            write(call.directory, to: directory)
            var raw = cellhost_context()
            raw.struct_size = UInt32(call.size ?? MemoryLayout<cellhost_context>.size)
            raw.width = call.width
            raw.flags = UInt32(call.flags)
            raw.message_class = call.otherName ? other : UnsafePointer(name)
            raw.host = UnsafePointer(FakeHost.table)
            raw.base_directory = UnsafePointer(directory)
            withUnsafePointer(to: &raw) { raw in
                let superCall = RenderContext.SuperCall(className: other, object: nil, context: raw, builder: nil,
                                                        token: token)
                reused.update(from: raw, host: FakeHost.host, superCall: superCall, cache: cache)
                let fresh = RenderContext(raw, host: FakeHost.host, cache: nil)
                XCTAssertEqual(reused.messageClass, fresh.messageClass, "call \(index)")
                XCTAssertEqual(reused.baseDirectory, fresh.baseDirectory, "call \(index)")
                XCTAssertEqual(reused.width, fresh.width, "call \(index)")
                XCTAssertEqual(reused.isColor, fresh.isColor, "call \(index)")
                XCTAssertEqual(reused.isOutgoing, fresh.isOutgoing, "call \(index)")
                XCTAssertEqual(reused.isJSON, fresh.isJSON, "call \(index)")
                XCTAssertEqual(reused.superCall?.token, token, "call \(index)")
            }
        }
    }

    /// The reused context goes to one call at a time: a nested call on the
    /// thread (`send_super`) gets none and makes its own.
    func test_reusedContextIsLentToOneCallAtATime() {
        var cache = ThreadCache()
        defer { cache.freeOwnedMemory() }
        let first = cache.claimReusedContext(host: FakeHost.host)
        XCTAssertNotNil(first)
        XCTAssertNil(cache.claimReusedContext(host: FakeHost.host), "lent to an outer call")
        cache.returnReusedContext()
        XCTAssertEqual(cache.claimReusedContext(host: FakeHost.host), first, "made once, then reused")
        cache.returnReusedContext()
    }
}

// MARK: Messages

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

    /// The type and text bytes are `info.type` and `info.text`, from one
    /// host call; missing fields are empty.
    func test_withTypeAndTextUTF8() {
        FakeHost.reset(strings: ["text": "📎 Café *a*", "type": "sticker", "id": "m-1"])
        let (type, text) = FakeHost.message.withTypeAndTextUTF8 { (Array($0), Array($1)) }
        XCTAssertEqual(FakeHost.infoCalls, 1)
        let info = FakeHost.message.info
        XCTAssertEqual(type, Array(info.type.utf8))
        XCTAssertEqual(text, Array(info.text.utf8))
        XCTAssertEqual(type, Array("sticker".utf8))
        FakeHost.reset(strings: ["id": "m-2"])
        XCTAssertEqual(FakeHost.message.withTypeAndTextUTF8 { [$0.count, $1.count] }, [0, 0])
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

    func test_numbers_readsAnArrayOfUpTo64InOneBulkCall_andALongerOneInASecondSizedToIt() {
        let long = (0..<1000).map { Double($0) }
        let full = (0..<64).map { Double($0) / 2 }
        FakeHost.reset(arrays: ["voice.waveform": [1, 2.5, 3], "full": full, "w": long])
        XCTAssertEqual(FakeHost.message.numbers("voice.waveform"), [1, 2.5, 3])
        XCTAssertEqual(FakeHost.message.numbers("full"), full)
        XCTAssertEqual(FakeHost.message.numbers("w"), long)
        XCTAssertEqual(FakeHost.paths, ["voice.waveform", "full", "w", "w"], "no separate length look-up")
        XCTAssertEqual(FakeHost.bulkCapacities, [64, 64, 64, 1000], "a small buffer first; the whole array when longer")
    }

    /// `withNumbers` reads what `numbers` reads, without an array; `utf8`
    /// what `string` reads, without a `String`.
    func test_withNumbersAndUTF8_readWhatTheirArrayAndStringFormsRead() {
        let long = (0..<1000).map { Double($0) }
        FakeHost.reset(strings: ["s": "x é", "empty": ""],
                       arrays: ["short": [1, 2.5, 3], "long": long.map { $0 }, "mixed": [1, nil], "none": []])
        for path in ["short", "long", "mixed", "none", "s", "absent"] {
            var read: [Double]?
            FakeHost.message.withNumbers(path) { read = $0.map(Array.init) }
            XCTAssertEqual(read, FakeHost.message.numbers(path), path)
        }
        for path in ["s", "empty", "short", "absent"] {
            XCTAssertEqual(FakeHost.message.utf8(path).map { String(decoding: $0, as: UTF8.self) },
                           FakeHost.message.string(path), path)
        }
    }

    func test_numbersTellsMissingFromWrongType() {
        FakeHost.reset(strings: ["s": "x"], arrays: ["mixed": [1, nil, 3], "empty": []])
        XCTAssertEqual(FakeHost.message.lookupNumbers("mixed"), .wrongType)
        XCTAssertEqual(FakeHost.message.lookupNumbers("s"), .wrongType)
        XCTAssertEqual(FakeHost.message.lookupNumbers("absent"), .missing)
        XCTAssertEqual(FakeHost.message.lookupNumbers("empty"), .found([]))
    }

    func test_escapedKeyEscapesDotsAndBackslashes() {
        XCTAssertEqual(Message.escapedKey("m.relates_to"), #"m\.relates_to"#)
        XCTAssertEqual(Message.escapedKey(#"a\b"#), #"a\\b"#)
        XCTAssertEqual(Message.escapedKey("plain"), "plain")
        XCTAssertEqual(Message.escapedKey("é.✨"), #"é\.✨"#)
        XCTAssertEqual(Message.escapedKey(""), "")
        XCTAssertEqual(Array(Message.escapedKey("a.\u{301}b").utf8), Array("a\\.\u{301}b".utf8),
                       "a dot before a combining mark too")
    }

    func test_escapedKeysReachTheHostAsOneKey() {
        let path = "content." + Message.escapedKey("m.relates_to") + ".event_id"
        FakeHost.reset(strings: [path: "$ev1"])
        XCTAssertEqual(FakeHost.message.string(path), "$ev1")
        XCTAssertEqual(FakeHost.paths, [#"content.m\.relates_to.event_id"#])
        XCTAssertEqual(KeyPathReader.keys(of: path), ["content", "m.relates_to", "event_id"])
        XCTAssertEqual(KeyPathReader.keys(of: Message.escapedKey(#"a\b.c"#) + ".d"), [#"a\b.c"#, "d"])
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
        var cell = FakeHost.builder()
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

/// The key-path rule of message.h, as the host reads paths: '.' separates
/// keys, and a backslash makes the next character part of the key.
enum KeyPathReader {
    static func keys(of path: String) -> [String] {
        var keys: [String] = []
        var key = ""
        var escaped = false
        for character in path {
            if escaped {
                key.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == "." {
                keys.append(key)
                key = ""
            } else {
                key.append(character)
            }
        }
        keys.append(key)
        return keys
    }
}

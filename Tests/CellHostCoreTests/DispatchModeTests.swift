import CellHostABI
import XCTest
@testable import CellHostCore

// Probe IMPs whose results depend on every argument, so that a path passing
// anything differently gives a different answer.

private func bits(_ pointer: OpaquePointer?) -> Int32 { Int32(truncatingIfNeeded: Int(bitPattern: pointer) >> 4 & 0xFF) }

private func selectorIs(_ cmd: UnsafePointer<CChar>?, _ selector: WellKnownSelector) -> Bool {
    cmd.map { String(cString: $0) } == selector.rawValue
}

private let probeRender: Dispatcher.RenderIMP = { object, cmd, message, context, builder in
    guard selectorIs(cmd, .render), let context else { return -1 }
    return Int32(context.pointee.width) * 1_000_000 + bits(object) * 10_000 + bits(message) * 100 + bits(builder) % 100
}
private let probeCanRender: Dispatcher.CanRenderIMP = { _, cmd, message, context in
    guard selectorIs(cmd, .canRender), let context else { return false }
    return context.pointee.width > 40 && message != nil
}
private let probeRows: Dispatcher.RowsIMP = { object, cmd, message, width in
    guard selectorIs(cmd, .rows) else { return -1 }
    return Int32(width) * 1000 + bits(message) + bits(object)
}
private let probePlainText: Dispatcher.PlainTextIMP = { _, cmd, message, builder in
    guard selectorIs(cmd, .plainText) else { return -1 }
    return bits(message) * 1000 + bits(builder)
}
private var conversationWidths: [UInt32] = []
private let probeConversation: Dispatcher.ConversationIMP = { _, cmd, context in
    guard selectorIs(cmd, .conversationWillBegin) || selectorIs(cmd, .conversationDidEnd), let context else { return }
    conversationWidths.append(context.pointee.width)
}

/// The direct typed fast path and the libffi path give identical results.
final class DispatchModeTests: XCTestCase {
    private let receiver = OpaquePointer(bitPattern: 0x1230)
    private let message = OpaquePointer(bitPattern: 0x4560)
    private let builder = OpaquePointer(bitPattern: 0x7890)

    private func probeClass() throws -> RuntimeClass {
        let runtime = Runtime()
        let rejections = link(runtime, [classDescription("Probe", methods: [
            methodDescription(WellKnownSelector.render.rawValue, CELLHOST_TYPES_RENDER, probeRender),
            methodDescription(WellKnownSelector.canRender.rawValue, CELLHOST_TYPES_CAN_RENDER, probeCanRender),
            methodDescription(WellKnownSelector.rows.rawValue, CELLHOST_TYPES_ROWS, probeRows),
            methodDescription(WellKnownSelector.plainText.rawValue, CELLHOST_TYPES_PLAIN_TEXT, probePlainText),
            methodDescription(WellKnownSelector.conversationWillBegin.rawValue, CELLHOST_TYPES_CONVERSATION, probeConversation),
        ])])
        XCTAssertEqual(rejections.map(\.description), [])
        // Keep the runtime alive as long as the class: classes hold it unowned.
        retainedRuntimes.append(runtime)
        return try XCTUnwrap(runtime.classes["Probe"])
    }
    private var retainedRuntimes: [Runtime] = []

    private func withContext<T>(width: UInt32, _ body: (UnsafePointer<cellhost_context>) -> T) -> T {
        "voice".withCString { name in
            var context = cellhost_context(struct_size: UInt32(MemoryLayout<cellhost_context>.size), width: width,
                                           flags: 0, reserved: 0, message_class: name, host: nil)
            return withUnsafePointer(to: &context) { body($0) }
        }
    }

    private func method(_ selector: WellKnownSelector) throws -> Method {
        try XCTUnwrap(probeClass().lookup(selector))
    }

    func test_wellKnownMethods_areMarkedForTheDirectPath() throws {
        let cls = try probeClass()
        for selector in [WellKnownSelector.render, .canRender, .rows, .plainText, .conversationWillBegin] {
            XCTAssertEqual(cls.lookup(selector)?.wellKnown, selector)
        }
    }

    func test_render_directAndFFI_giveTheSameResult() throws {
        let render = try method(.render)
        for width: UInt32 in [1, 37, 80] {
            let direct = withContext(width: width) {
                Dispatcher(mode: .direct).render(render, receiver: receiver, message: message, context: $0, builder: builder)
            }
            let ffi = withContext(width: width) {
                Dispatcher(mode: .ffi).render(render, receiver: receiver, message: message, context: $0, builder: builder)
            }
            XCTAssertEqual(direct, ffi)
            XCTAssertEqual(direct, Int32(width) * 1_000_000 + 0x23 * 10_000 + 0x56 * 100 + 0x89 % 100)
        }
    }

    func test_canRender_directAndFFI_giveTheSameResult() throws {
        let canRender = try method(.canRender)
        for width: UInt32 in [30, 50] {
            let direct = withContext(width: width) {
                Dispatcher(mode: .direct).canRender(canRender, receiver: receiver, message: message, context: $0)
            }
            let ffi = withContext(width: width) {
                Dispatcher(mode: .ffi).canRender(canRender, receiver: receiver, message: message, context: $0)
            }
            XCTAssertEqual(direct, ffi, "width \(width)")
            XCTAssertEqual(direct, width > 40)
        }
    }

    func test_rows_directAndFFI_giveTheSameResult() throws {
        let rows = try method(.rows)
        let direct = Dispatcher(mode: .direct).rows(rows, receiver: receiver, message: message, width: 33)
        let ffi = Dispatcher(mode: .ffi).rows(rows, receiver: receiver, message: message, width: 33)
        XCTAssertEqual(direct, ffi)
        XCTAssertEqual(direct, 33_000 + 0x56 + 0x23)
    }

    func test_plainText_directAndFFI_giveTheSameResult() throws {
        let plainText = try method(.plainText)
        let direct = Dispatcher(mode: .direct).plainText(plainText, receiver: receiver, message: message, builder: builder)
        let ffi = Dispatcher(mode: .ffi).plainText(plainText, receiver: receiver, message: message, builder: builder)
        XCTAssertEqual(direct, ffi)
        XCTAssertEqual(direct, 0x56 * 1000 + 0x89)
    }

    func test_conversation_directAndFFI_passTheSameContext() throws {
        let begin = try method(.conversationWillBegin)
        conversationWidths = []
        withContext(width: 12) { Dispatcher(mode: .direct).conversation(begin, receiver: receiver, context: $0) }
        withContext(width: 13) { Dispatcher(mode: .ffi).conversation(begin, receiver: receiver, context: $0) }
        XCTAssertEqual(conversationWidths, [12, 13])
    }

    func test_inheritedMessageCellRows_directAndFFI_giveTheSameCount() throws {
        func rows(_ mode: Dispatcher.Mode) throws -> Int32 {
            let runtime = Runtime(dispatcher: Dispatcher(mode: mode))
            // A subclass that changes nothing: rows and render are MessageCell's.
            link(runtime, [classDescription("BareSubclass")])
            let bare = try XCTUnwrap(runtime.classes["BareSubclass"])
            let loaded = Message()
            var json = #"{"type":"text","text":"alpha beta gamma delta"}"#
            try json.withUTF8 { try loaded.load($0, me: nil) }
            let object = runtime.conversation.instance(of: bare, runtime: runtime)
            let method = try XCTUnwrap(bare.lookup(.rows))
            XCTAssertTrue(method.owner === runtime.messageCell)
            return runtime.dispatcher.rows(method, receiver: object.handle, message: loaded.handle, width: 10)
        }
        XCTAssertEqual(try rows(.direct), 3)
        XCTAssertEqual(try rows(.ffi), 3)
    }

    func test_fromEnvironment_choosesTheMode() {
        XCTAssertEqual(Dispatcher.fromEnvironment(["CELLHOST_DISPATCH": "ffi"]).mode, .ffi)
        XCTAssertEqual(Dispatcher.fromEnvironment(["CELLHOST_DISPATCH": "direct"]).mode, .direct)
        XCTAssertEqual(Dispatcher.fromEnvironment([:]).mode, .direct)
        XCTAssertEqual(Dispatcher.fromEnvironment(["CELLHOST_DISPATCH": "bogus"]).mode, .direct)
    }

    // MARK: Whole renders

    private static let conversation = [
        #"{"id":"m1","type":"text","sender":{"id":"u1","name":"Ann"},"time":"2026-11-29T10:00:00Z","text":"Hello there, this is a longer line that wraps"}"#,
        #"{"id":"m2","type":"file","sender":{"id":"u2","name":"Bob"},"time":"2026-11-29T10:01:00Z","file":{"name":"a.pdf"}}"#,
        #"{"id":"m3","type":"text","sender":{"id":"u1","name":"Ann"},"time":"2026-11-29T10:02:00Z","text":"replying","reply_to":"m2","status":"read"}"#,
        #"{"id":"m4","type":"voice","sender":"u2","text":"voice note"}"#,
        #"{"id":"m5","type":"poll","sender":"u2","text":"Lunch?"}"#,
        #"{"id":"m6","sender":"u2","text":"no type"}"#,
    ]

    private func renderConversation(_ mode: Dispatcher.Mode, format: OutputFormat) throws -> [UInt8] {
        let host = CellHost(dispatch: mode)
        try host.register(InProcessCell(className: "VoiceInProcess", messageClasses: ["voice"]) { context in
            context.append("🎤 \(context.text ?? "") at width \(context.width)", style: .accent)
            return .rendered
        })
        try host.register(InProcessCell(className: "DecliningFile", messageClasses: ["file"]) { _ in .declined })
        let output = OutputBuffer(fd: -1)
        let session = RenderSession(host: host, settings: OutputSettings(format: format, depth: .trueColor, width: 50),
                                    me: "u1", output: output)
        for (index, line) in Self.conversation.enumerated() {
            var line = line
            try line.withUTF8 { try session.render($0, line: index + 1) }
        }
        let bytes = output.bytes
        host.runtime.endConversation()
        return bytes
    }

    func test_wholeRender_directAndFFI_produceIdenticalBytes() throws {
        for format in OutputFormat.allCases {
            let direct = try renderConversation(.direct, format: format)
            let ffi = try renderConversation(.ffi, format: format)
            XCTAssertFalse(direct.isEmpty)
            XCTAssertEqual(direct, ffi, "format \(format)")
        }
    }
}

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
private let probePlainText: Dispatcher.PlainTextIMP = { _, cmd, message, context, builder in
    guard selectorIs(cmd, .plainText), let context else { return -1 }
    return Int32(context.pointee.width) * 1_000_000 + bits(message) * 1000 + bits(builder)
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
                                           flags: 0, reserved: 0, message_class: name, host: nil, base_directory: nil)
            return withUnsafePointer(to: &context) { body($0) }
        }
    }

    private func method(_ selector: WellKnownSelector) throws -> Method {
        try XCTUnwrap(probeClass().lookup(selector))
    }

    func test_wellKnownMethods_areMarkedForTheDirectPath() throws {
        let cls = try probeClass()
        for selector in [WellKnownSelector.render, .canRender, .plainText, .conversationWillBegin] {
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

    func test_plainText_directAndFFI_giveTheSameResult() throws {
        let plainText = try method(.plainText)
        let direct = withContext(width: 7) {
            Dispatcher(mode: .direct).plainText(plainText, receiver: receiver, message: message, context: $0, builder: builder)
        }
        let ffi = withContext(width: 7) {
            Dispatcher(mode: .ffi).plainText(plainText, receiver: receiver, message: message, context: $0, builder: builder)
        }
        XCTAssertEqual(direct, ffi)
        XCTAssertEqual(direct, 7_000_000 + 0x56 * 1000 + 0x89)
    }

    func test_conversation_directAndFFI_passTheSameContext() throws {
        let begin = try method(.conversationWillBegin)
        conversationWidths = []
        withContext(width: 12) { Dispatcher(mode: .direct).conversation(begin, receiver: receiver, context: $0) }
        withContext(width: 13) { Dispatcher(mode: .ffi).conversation(begin, receiver: receiver, context: $0) }
        XCTAssertEqual(conversationWidths, [12, 13])
    }
}

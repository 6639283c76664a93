@testable import CellKit
import CellHostABI

/// The C signatures of the well-known selectors' IMPs, as the host calls them.
typealias RenderIMP = @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, OpaquePointer?,
                                      UnsafePointer<cellhost_context>?, OpaquePointer?) -> Int32
typealias CanRenderIMP = @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, OpaquePointer?,
                                         UnsafePointer<cellhost_context>?) -> Bool
typealias ConversationIMP = @convention(c) (OpaquePointer?, UnsafePointer<CChar>?,
                                            UnsafePointer<cellhost_context>?) -> Void

/// A descriptor built by CellKit, read back the way the host reads it.
struct ExportedPlugin {
    let descriptor: UnsafeMutablePointer<cellhost_plugin_descriptor>

    init(plugin: PluginInfo = PluginInfo(id: "test.plugin", version: "1"), _ cells: [any MessageCellRenderer.Type]) {
        descriptor = DescriptorBuilder.build(plugin: plugin, cells: cells)
    }

    var classCount: Int { Int(descriptor.pointee.class_count) }

    /// The class named `name`.
    func cls(_ name: String) -> ExportedClass? {
        guard let classes = descriptor.pointee.classes else { return nil }
        for index in 0..<classCount where String(cString: classes[index].name) == name {
            return ExportedClass(pointer: classes + index)
        }
        return nil
    }

    /// The plugin's `get_extension(id)`.
    func pluginExtension(_ id: String) -> UnsafeRawPointer? {
        descriptor.pointee.get_extension?(id)
    }
}

/// One exported class and its methods.
struct ExportedClass {
    let pointer: UnsafePointer<cellhost_class>

    var name: String { String(cString: pointer.pointee.name) }
    var instanceSize: UInt32 { pointer.pointee.instance_size }

    /// The selectors in the method list, in order.
    var selectors: [String] {
        (0..<Int(pointer.pointee.method_count)).map { String(cString: pointer.pointee.methods[$0].selector) }
    }

    func method(_ selector: String) -> cellhost_method? {
        (0..<Int(pointer.pointee.method_count)).lazy.map { pointer.pointee.methods[$0] }
            .first { String(cString: $0.selector) == selector }
    }

    /// Calls `renderMessage:context:into:` on `object` and returns the result
    /// and the text appended.
    func render(_ object: OpaquePointer?, width: UInt32 = 40) -> (result: Int32, text: String) {
        guard let imp = method(CELLHOST_SEL_RENDER)?.imp else { return (-1, "") }
        FakeHost.appends = []
        let result = FakeHost.withContext(width: width) {
            unsafeBitCast(imp, to: RenderIMP.self)(object, CELLHOST_SEL_RENDER, FakeHost.message.handle, $0,
                                                   OpaquePointer(bitPattern: 0x30))
        }
        return (result, FakeHost.appends.map { String(decoding: $0.bytes, as: UTF8.self) }.joined())
    }

    /// Calls `plainTextForMessage:context:into:` on `object`.
    func plainText(_ object: OpaquePointer?) -> (result: Int32, text: String) {
        guard let imp = method(CELLHOST_SEL_PLAIN_TEXT)?.imp else { return (-1, "") }
        FakeHost.appends = []
        let result = FakeHost.withContext {
            unsafeBitCast(imp, to: RenderIMP.self)(object, CELLHOST_SEL_PLAIN_TEXT, FakeHost.message.handle, $0,
                                                   OpaquePointer(bitPattern: 0x30))
        }
        return (result, FakeHost.appends.map { String(decoding: $0.bytes, as: UTF8.self) }.joined())
    }

    /// Calls `canRenderMessage:context:` on `object`.
    func canRender(_ object: OpaquePointer?) -> Bool? {
        guard let imp = method(CELLHOST_SEL_CAN_RENDER)?.imp else { return nil }
        return FakeHost.withContext {
            unsafeBitCast(imp, to: CanRenderIMP.self)(object, CELLHOST_SEL_CAN_RENDER, FakeHost.message.handle, $0)
        }
    }

    /// Sends `conversationWillBegin:` or `conversationDidEnd:` to `object`;
    /// false when the class does not implement it.
    @discardableResult
    func conversation(_ selector: String, _ object: OpaquePointer?) -> Bool {
        guard let imp = method(selector)?.imp else { return false }
        FakeHost.withContext(width: 0, messageClass: "") {
            unsafeBitCast(imp, to: ConversationIMP.self)(object, selector, $0)
        }
        return true
    }

    /// The pointer CellKit keeps in `object`'s instance variables of this class.
    func ivarSlot(_ object: OpaquePointer?) -> UnsafeRawPointer? {
        guard let object else { return nil }
        let key = "\(UInt(bitPattern: object))/\(UInt(bitPattern: pointer))"
        return FakeHost.ivars[key].flatMap { $0.load(as: UnsafeRawPointer?.self) }
    }
}

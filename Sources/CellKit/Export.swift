internal import CellHostABI

/// Builds the plugin descriptor for one or more renderer types and returns
/// it for the entry symbol. The plugin's id, version and so on come from
/// the first type's `plugin`.
///
/// A Swift plugin is one renderer type plus this one line:
///
/// ```swift
/// @_cdecl("cellhost_plugin_entry")
/// public func cellhostPluginEntry() -> UnsafeRawPointer? { CellKit.export(GifCell.self) }
/// ```
///
/// The descriptor is built on the first call and never freed (it must stay
/// valid until the plugin is unloaded); later calls return the same pointer
/// whatever they are given. At most `maximumClassCount` types are exported;
/// any beyond are skipped with a warning logged at `init`.
///
/// - Returns: a `const cellhost_plugin_descriptor *`, or `nil` (the host
///   then reports the plugin as not loaded) when no type is given.
public func export(_ types: any MessageCellRenderer.Type...) -> UnsafeRawPointer? {
    if let descriptor = Runtime.descriptor { return UnsafeRawPointer(descriptor) }
    guard let first = types.first else { return nil }
    return export(plugin: first.plugin, cells: types)
}

/// Builds the plugin descriptor from explicit plugin information, the cell
/// types to register (in this order), and an optional set-up step.
///
/// - Parameters:
///   - plugin: The plugin's id, version, description, author and license.
///   - cells: The renderer types, registered in this order; at most
///     `maximumClassCount`.
///   - setUp: Runs once from the plugin's `init`, after CellKit has kept the
///     host table and before any class is used. Throwing fails the plugin:
///     the host reports it as not loaded, with the error's description as
///     the reason (`FILE: init failed: <reason>`).
/// - Returns: a `const cellhost_plugin_descriptor *` for the entry symbol.
public func export(plugin: PluginInfo, cells: [any MessageCellRenderer.Type],
                   setUp: ((Host) throws -> Void)? = nil) -> UnsafeRawPointer? {
    if let descriptor = Runtime.descriptor { return UnsafeRawPointer(descriptor) }
    Runtime.setUp = setUp
    Runtime.descriptor = DescriptorBuilder.build(plugin: plugin, cells: cells)
    return Runtime.descriptor.map { UnsafeRawPointer($0) }
}

/// The most cell classes one plugin can export (the trampoline pool size).
public let maximumClassCount = Trampolines.capacity

/// Turns Swift values into the C descriptor, classes and method lists.
/// Everything is allocated once and never freed.
enum DescriptorBuilder {
    static func build(plugin: PluginInfo,
                      cells: [any MessageCellRenderer.Type]) -> UnsafeMutablePointer<cellhost_plugin_descriptor> {
        let exported = Array(cells.prefix(Trampolines.capacity))
        if cells.count > Trampolines.capacity {
            let skipped = cells.dropFirst(Trampolines.capacity).map { $0.className }
            Runtime.pendingWarnings.append(
                "CellKit exports at most \(Trampolines.capacity) classes per plugin; "
                + "not registered: \(skipped.joined(separator: ", "))")
        }

        Runtime.slots = exported.map { makeSlotClass($0) }

        let classes = UnsafeMutablePointer<cellhost_class>.allocate(capacity: max(1, exported.count))
        for (slot, type) in exported.enumerated() {
            (classes + slot).initialize(to: makeClass(type, slot: slot, name: Runtime.slots[slot].className))
        }

        var declared: [(name: String, parent: String?)] = []
        for type in exported {
            for entry in type.declaredMessageClasses where !declared.contains(where: { $0.name == entry.name }) {
                declared.append(entry)
            }
        }
        let messageClasses = UnsafeMutablePointer<cellhost_message_class>.allocate(capacity: max(1, declared.count))
        for (index, entry) in declared.enumerated() {
            var messageClass = cellhost_message_class()
            messageClass.name = PermanentCString.make(entry.name)
            messageClass.parent = PermanentCString.makeOptional(entry.parent)
            (messageClasses + index).initialize(to: messageClass)
        }

        var descriptor = cellhost_plugin_descriptor()
        descriptor.abi = cellhost_version(major: UInt32(CELLHOST_ABI_MAJOR), minor: UInt32(CELLHOST_ABI_MINOR))
        descriptor.id = PermanentCString.make(plugin.id)
        descriptor.version = PermanentCString.make(plugin.version)
        descriptor.description = PermanentCString.makeOptional(plugin.description)
        descriptor.author = PermanentCString.makeOptional(plugin.author)
        descriptor.license = PermanentCString.makeOptional(plugin.license)
        descriptor.`init` = pluginInit
        descriptor.deinit = pluginDeinit
        descriptor.classes = UnsafePointer(classes)
        descriptor.class_count = UInt32(exported.count)
        descriptor.message_classes = declared.isEmpty ? nil : UnsafePointer(messageClasses)
        descriptor.message_class_count = UInt32(declared.count)

        let result = UnsafeMutablePointer<cellhost_plugin_descriptor>.allocate(capacity: 1)
        result.initialize(to: descriptor)
        return result
    }

    /// The slot class running the methods of `type` (opened from the
    /// existential here, once, so calls need no existential).
    private static func makeSlotClass<R: MessageCellRenderer>(_ type: R.Type) -> SlotClass {
        RendererClass<R>(className: PermanentCString.make(type.className), name: type.className)
    }

    /// One class with the five CellKit methods, bound to trampoline `slot`.
    private static func makeClass(_ type: any MessageCellRenderer.Type, slot: Int,
                                  name: UnsafePointer<CChar>) -> cellhost_class {
        let methods: [cellhost_method] = [
            method(Dispatch.renderSelector, Dispatch.renderTypes,
                   unsafeBitCast(Trampolines.render[slot], to: cellhost_imp.self)),
            method(Dispatch.canRenderSelector, Dispatch.canRenderTypes,
                   unsafeBitCast(Trampolines.canRender[slot], to: cellhost_imp.self)),
            method(Dispatch.plainTextSelector, Dispatch.plainTextTypes,
                   unsafeBitCast(Trampolines.plainText[slot], to: cellhost_imp.self)),
            method(Dispatch.willBeginSelector, Dispatch.conversationTypes,
                   unsafeBitCast(Trampolines.willBegin[slot], to: cellhost_imp.self)),
            method(Dispatch.didEndSelector, Dispatch.conversationTypes,
                   unsafeBitCast(Trampolines.didEnd[slot], to: cellhost_imp.self)),
        ]
        let methodList = UnsafeMutablePointer<cellhost_method>.allocate(capacity: methods.count)
        methodList.initialize(from: methods, count: methods.count)

        var cls = cellhost_class()
        cls.name = name
        cls.superclass = PermanentCString.make(type.superclassName)
        cls.message_classes = PermanentCString.array(type.messageClasses)
        cls.rank = type.rank
        cls.flags = 0
        cls.methods = UnsafePointer(methodList)
        cls.method_count = UInt32(methods.count)
        cls.instance_size = 0
        return cls
    }

    private static func method(_ selector: UnsafePointer<CChar>, _ types: UnsafePointer<CChar>,
                               _ imp: cellhost_imp) -> cellhost_method {
        var method = cellhost_method()
        method.selector = selector
        method.types = types
        method.imp = imp
        return method
    }
}

/// The descriptor's `init`: keep the host table, log export problems, run `setUp`.
private let pluginInit: @convention(c) (UnsafePointer<cellhost_host>?,
                                        UnsafeMutablePointer<UnsafePointer<CChar>?>?) -> Int32 = { table, reason in
    guard let table else {
        reason?.pointee = staticReason
        return 1
    }
    Runtime.host = table
    let host = Host(table)
    for warning in Runtime.pendingWarnings {
        host.log(.warning, warning)
    }
    Runtime.pendingWarnings = []
    guard let setUp = Runtime.setUp else { return 0 }
    do {
        try setUp(host)
        return 0
    } catch {
        Runtime.failureReason?.deallocate()
        let text = PermanentCString.make(String(describing: error))
        Runtime.failureReason = UnsafeMutablePointer(mutating: text)
        reason?.pointee = text
        Runtime.host = nil
        return 1
    }
}

/// The descriptor's `deinit`: forget the host and every renderer value.
private let pluginDeinit: @convention(c) () -> Void = {
    for slot in Runtime.slots { slot.removeAll() }
    Runtime.host = nil
}

private let staticReason = PermanentCString.make("CellKit: no host table")

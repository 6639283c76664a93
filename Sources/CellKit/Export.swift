internal import CellHostABI

/// Builds the plugin descriptor for one or more renderer types and returns
/// it for the entry symbol. The plugin's id, version and so on come from
/// the first type's `plugin`.
///
/// A Swift plugin is one renderer type plus this one line:
///
/// ```swift
/// @c(cellhost_plugin_entry)
/// public func cellhostPluginEntry() -> UnsafeRawPointer? { CellKit.export(GifCell.self) }
/// ```
///
/// The descriptor is built on the first call and never freed (it must stay
/// valid until the plugin is unloaded); later calls return the same pointer
/// whatever they are given. Any number of types may be exported.
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
///   - cells: The renderer types, registered in this order.
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

/// Turns Swift values into the C descriptor, classes and method lists.
/// Everything is allocated once and never freed.
enum DescriptorBuilder {
    /// One class ready to be described: its runtime and its method list.
    struct Exported {
        let runtime: AnyClassRuntime
        /// Called with the class's final address in the descriptor.
        let place: (UnsafePointer<cellhost_class>) -> Void
        let cls: cellhost_class
    }

    static func build(plugin: PluginInfo,
                      cells: [any MessageCellRenderer.Type]) -> UnsafeMutablePointer<cellhost_plugin_descriptor> {
        var exported: [Exported] = []
        for type in cells {
            if let entry = makeClass(type) {
                exported.append(entry)
            } else {
                Runtime.pendingWarnings.append(
                    "CellKit could not make the methods of \(type.className) (libffi closures unavailable); "
                    + "the class is not registered")
            }
        }

        let classes = UnsafeMutablePointer<cellhost_class>.allocate(capacity: max(1, exported.count))
        for (index, entry) in exported.enumerated() {
            (classes + index).initialize(to: entry.cls)
            entry.place(classes + index)
            Runtime.classes.append(entry.runtime)
        }

        var declared: [(name: String, parent: String?)] = []
        for type in cells {
            for entry in type.declaredMessageClasses where !declared.contains(where: { $0.name == entry.name }) {
                declared.append(entry)
            }
        }
        let messageClasses = UnsafeMutablePointer<cellhost_message_class>.allocate(capacity: max(1, declared.count))
        for (index, entry) in declared.enumerated() {
            var messageClass = cellhost_message_class()
            messageClass.struct_size = UInt32(MemoryLayout<cellhost_message_class>.size)
            messageClass.name = PermanentCString.make(entry.name)
            messageClass.parent = PermanentCString.makeOptional(entry.parent)
            (messageClasses + index).initialize(to: messageClass)
        }

        Runtime.samples = makeSamples(cells.flatMap { $0.samples })

        var descriptor = cellhost_plugin_descriptor()
        descriptor.abi = cellhost_version(major: UInt32(CELLHOST_ABI_MAJOR), minor: UInt32(CELLHOST_ABI_MINOR))
        descriptor.struct_size = UInt32(MemoryLayout<cellhost_plugin_descriptor>.size)
        descriptor.flags = threadSafeFlag(plugin: plugin, cells: cells)
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
        descriptor.get_extension = Runtime.samples == nil ? nil : pluginGetExtension

        let result = UnsafeMutablePointer<cellhost_plugin_descriptor>.allocate(capacity: 1)
        result.initialize(to: descriptor)
        return result
    }

    /// CELLHOST_PLUGIN_THREAD_SAFE when the plugin declares it and every
    /// exported type is stateless (a shared value may be used by several
    /// threads; per-instance values may not), else 0 and a warning.
    private static func threadSafeFlag(plugin: PluginInfo, cells: [any MessageCellRenderer.Type]) -> UInt32 {
        guard plugin.threadSafe else { return 0 }
        let stateful = cells.filter { !isStateless($0) }.map { $0.className }
        guard stateful.isEmpty else {
            Runtime.pendingWarnings.append(
                "PluginInfo.threadSafe is ignored: \(stateful.joined(separator: ", ")) "
                + "\(stateful.count == 1 ? "has" : "have") stored properties; the host calls the plugin from one thread")
            return 0
        }
        return UInt32(CELLHOST_PLUGIN_THREAD_SAFE)
    }

    private static func isStateless<R: MessageCellRenderer>(_ type: R.Type) -> Bool { ClassRuntime<R>.isStateless }

    /// The class of `type` (opened from the existential here, once, so calls
    /// need no existential), or `nil` when an IMP could not be made.
    private static func makeClass<R: MessageCellRenderer>(_ type: R.Type) -> Exported? {
        let runtime = ClassRuntime<R>(className: PermanentCString.make(type.className), name: type.className)
        guard let methods = makeMethods(bindings(of: type, runtime)) else { return nil }

        var cls = cellhost_class()
        cls.struct_size = UInt32(MemoryLayout<cellhost_class>.size)
        cls.flags = 0
        cls.name = runtime.className
        cls.superclass = PermanentCString.make(type.superclassName)
        cls.message_classes = PermanentCString.array(type.messageClasses)
        cls.rank = type.rank
        cls.methods = UnsafePointer(methods.baseAddress)
        cls.method_count = UInt32(methods.count)
        cls.instance_size = ClassRuntime<R>.instanceSize
        return Exported(runtime: runtime, place: { runtime.classStruct = $0 }, cls: cls)
    }

    /// The methods `R` implements: render always; the optional selectors
    /// only for the protocols `R` adopts; `conversationDidEnd:` also for a
    /// type with state, to release it.
    static func bindings<R: MessageCellRenderer>(of type: R.Type, _ runtime: ClassRuntime<R>) -> [MethodBinding] {
        var bindings: [MethodBinding] = [RenderMethod(runtime)]
        if let checking = type as? any RenderPrechecking.Type, let binding = canRender(checking, runtime) {
            bindings.append(binding)
        }
        if let summarizing = type as? any PlainTextSummarizing.Type, let binding = plainText(summarizing, runtime) {
            bindings.append(binding)
        }
        if let observing = type as? any ConversationObserving.Type {
            bindings += conversation(observing, runtime)
        } else if !ClassRuntime<R>.isStateless {
            bindings.append(DidEndMethod(runtime, hook: nil))
        }
        return bindings
    }

    // Each of these is called with `P` == `R`, opened from the protocol's
    // existential metatype; the cast of the runtime is what tells the
    // compiler so.

    private static func canRender<P: RenderPrechecking>(_ type: P.Type, _ runtime: AnyObject) -> MethodBinding? {
        (runtime as? ClassRuntime<P>).map { CanRenderMethod($0) }
    }

    private static func plainText<P: PlainTextSummarizing>(_ type: P.Type, _ runtime: AnyObject) -> MethodBinding? {
        (runtime as? ClassRuntime<P>).map { PlainTextMethod($0) }
    }

    private static func conversation<P: ConversationObserving>(_ type: P.Type, _ runtime: AnyObject) -> [MethodBinding] {
        guard let runtime = runtime as? ClassRuntime<P> else { return [] }
        return [WillBeginMethod(runtime), DidEndMethod(runtime, hook: { $0.conversationDidEnd() })]
    }

    /// The method list of `bindings`, each with its own closure IMP; `nil`
    /// when a closure could not be made.
    private static func makeMethods(_ bindings: [MethodBinding]) -> UnsafeMutableBufferPointer<cellhost_method>? {
        var methods: [cellhost_method] = []
        for binding in bindings {
            guard let imp = Closures.makeIMP(for: binding) else { return nil }
            var method = cellhost_method()
            method.struct_size = UInt32(MemoryLayout<cellhost_method>.size)
            method.selector = binding.selector.name
            method.types = binding.selector.types
            method.imp = imp
            methods.append(method)
        }
        let list = UnsafeMutableBufferPointer<cellhost_method>.allocate(capacity: methods.count)
        _ = list.initialize(from: methods)
        return list
    }

    /// The `cellhost.samples` extension for `messages`, or `nil` for none.
    private static func makeSamples(_ messages: [String]) -> UnsafeMutablePointer<cellhost_samples>? {
        guard !messages.isEmpty else { return nil }
        var samples = cellhost_samples()
        samples.struct_size = UInt32(MemoryLayout<cellhost_samples>.size)
        samples.count = UInt32(clamping: messages.count)
        samples.messages = UnsafePointer(PermanentCString.array(messages))
        let result = UnsafeMutablePointer<cellhost_samples>.allocate(capacity: 1)
        result.initialize(to: samples)
        return result
    }
}

/// The descriptor's `init`: keep the host table, log export problems, run `setUp`.
private let pluginInit: @convention(c) (UnsafePointer<cellhost_host>?,
                                        UnsafeMutablePointer<UnsafePointer<CChar>?>?) -> Int32 = { table, reason in
    guard let table, HostTable.isUsable(table) else {
        reason?.pointee = unusableHostReason
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

/// The descriptor's `deinit`: forget the host and every shared renderer
/// value. (Each instance's value was released at its `conversationDidEnd:`.)
private let pluginDeinit: @convention(c) (UnsafePointer<cellhost_host>?) -> Void = { _ in
    for cls in Runtime.classes { cls.removeAll() }
    Runtime.host = nil
}

/// The descriptor's `get_extension`: the samples, when there are any.
private let pluginGetExtension: @convention(c) (UnsafePointer<CChar>?) -> UnsafeRawPointer? = { id in
    guard let id, let samples = Runtime.samples, String(cString: id) == CELLHOST_EXT_SAMPLES else { return nil }
    return UnsafeRawPointer(samples)
}

private let unusableHostReason = PermanentCString.make(
    "CellKit needs a host table of ABI \(CELLHOST_ABI_MAJOR).\(CELLHOST_ABI_MINOR) or a later \(CELLHOST_ABI_MAJOR).x")

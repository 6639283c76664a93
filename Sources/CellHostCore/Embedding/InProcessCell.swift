import CellHostABI

/// A cell class implemented by the embedding program itself, with no `.so`:
/// registered and dispatched exactly like a plugin's class.
public struct InProcessCell {
    /// What a render closure returns.
    public enum Outcome { case rendered, declined, error }

    /// What a render closure can read and write.
    public struct Context {
        let message: Message
        let canvas: CellCanvas
        /// Columns available for content.
        public let width: Int
        /// The absolute directory relative media paths resolve against.
        public let baseDirectory: String
        /// The message's type, id, sender and text.
        public var type: String { message.type }
        public var id: String { message.id }
        public var senderName: String { message.senderName }
        public var text: String? { message.text }
        /// The string at a key path ("file.name"), or nil.
        public func string(_ path: String) -> String? {
            message.document.resolve(path).flatMap { message.document.string($0) }
        }
        /// The number at a key path, or nil.
        public func number(_ path: String) -> Double? {
            message.document.resolve(path).flatMap { message.document.number($0) }
        }
        /// Appends text in a style (sanitized and wrapped by the host).
        public func append(_ text: String, style: Style = []) { canvas.append(text, style: style) }
        /// Ends the current line.
        public func lineBreak() { canvas.lineBreak() }
    }

    public var className: String
    public var superclass: String
    public var messageClasses: [String]
    public var rank: Int32
    public var render: (Context) -> Outcome

    public init(className: String, superclass: String = "MessageCell", messageClasses: [String], rank: Int32 = 0,
                render: @escaping (Context) -> Outcome) {
        self.className = className
        self.superclass = superclass
        self.messageClasses = messageClasses
        self.rank = rank
        self.render = render
    }

    /// The one IMP every in-process class shares: it finds the closure of the
    /// nearest in-process class on the receiver's chain.
    static let trampoline: Dispatcher.RenderIMP = { object, _, message, context, builder in
        guard let object = CellObject.from(object), let message = Message.from(message),
              let canvas = BuilderHandle.canvas(builder), let context,
              let host = object.cls.runtime?.diagnostics as? CellHost else { return Int32(CELLHOST_ERROR) }
        var cls: RuntimeClass? = object.cls
        while let current = cls, host.inProcessCells[current.name] == nil { cls = current.superclass }
        guard let name = cls?.name, let cell = host.inProcessCells[name] else { return Int32(CELLHOST_ERROR) }
        switch cell.render(Context(message: message, canvas: canvas, width: Int(context.pointee.width),
                                 baseDirectory: context.pointee.base_directory.map { String(cString: $0) } ?? "/")) {
        case .rendered: return Int32(CELLHOST_RENDERED)
        case .declined: return Int32(CELLHOST_DECLINED)
        case .error: return Int32(CELLHOST_ERROR)
        }
    }
}

extension CellHost {
    /// Registers a cell class implemented in this program for its message
    /// classes, as `registerClass:forMessageClass:` would.
    public func register(_ cell: InProcessCell) throws {
        let description = ClassDescription(
            name: cell.className, superclass: cell.superclass, messageClasses: cell.messageClasses, rank: cell.rank,
            instanceSize: 0,
            methods: [.init(selector: WellKnownSelector.render.rawValue, types: CELLHOST_TYPES_RENDER,
                            imp: HostClasses.address(InProcessCell.trampoline))])
        inProcessCells[cell.className] = cell
        if let rejection = runtime.link([(description, HostClasses.pluginID)]).first {
            inProcessCells[cell.className] = nil
            throw CellHostError.invalidClass(rejection.rejection.description)
        }
    }
}

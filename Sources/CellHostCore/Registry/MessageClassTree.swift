/// The tree of message classes: a message whose class has no renderer is
/// offered to its parent's renderers (`voice` → `file`), and every chain ends
/// at `UnknownMessageCell`.
public struct MessageClassTree: Sendable {
    public struct Declaration: Sendable, Equatable {
        public var name: String
        public var parent: String?
        /// The id of the plugin that declared it ("cellhost" for the host).
        public var declaredBy: String
    }

    /// Declarations in the order they were made.
    public private(set) var declarations: [Declaration] = []
    /// Where each declaration is, by name: open addressing over `ByteHash`
    /// of the name's bytes, -1 marking a free slot (a `String` key costs
    /// several hundred instructions a look-up, and a thousand plugins
    /// declare a thousand message classes).
    private var slots: [Int32] = []

    /// The host's own classes.
    public static let builtIn: MessageClassTree = {
        var tree = MessageClassTree()
        for (name, parent) in [("text", nil), ("file", nil), ("image", "file"), ("voice", "file"),
                               ("video", "file"), ("sticker", "image"), ("poll", nil),
                               ("system", "text")] as [(String, String?)] {
            _ = tree.declare(name, parent: parent, by: "cellhost")
        }
        return tree
    }()

    /// Declares a class. Re-declaring with the same parent is harmless; with
    /// another parent, or a parent that would make a cycle, it is refused
    /// with the reason.
    public mutating func declare(_ name: String, parent: String?, by plugin: String) -> String? {
        guard !name.isEmpty, name.utf8.count <= 64 else { return "invalid message class name '\(name)'" }
        if let parent, parent == name || ancestors(of: parent).contains(name) {
            return "message class '\(name)' with parent '\(parent)' would make a cycle"
        }
        if let index = index(of: name) {
            let existing = declarations[index]
            if existing.parent == parent { return nil }
            return "message class '\(name)' is already declared by \(existing.declaredBy) with parent '\(existing.parent ?? "none")'"
        }
        declarations.append(Declaration(name: name, parent: parent, declaredBy: plugin))
        if declarations.count * 2 > slots.count {
            slots = Array(repeating: -1, count: max(16, slots.count * 2))
            for index in declarations.indices { place(index) }
        } else {
            place(declarations.count - 1)
        }
        return nil
    }

    /// The parent of a class; nil for roots and undeclared classes.
    public func parent(of name: String) -> String? {
        index(of: name).flatMap { declarations[$0].parent }
    }

    /// The parent, grandparent, … of a class, nearest first.
    public func ancestors(of name: String) -> [String] {
        var result: [String] = []
        var current = parent(of: name)
        while let next = current, !result.contains(next), result.count < 32 {
            result.append(next)
            current = parent(of: next)
        }
        return result
    }

    public func isDeclared(_ name: String) -> Bool { index(of: name) != nil }

    private func index(of name: String) -> Int? {
        guard !slots.isEmpty else { return nil }
        let mask = slots.count - 1
        var slot = Self.hash(name) & mask
        while slots[slot] >= 0 {
            let index = Int(slots[slot])
            if declarations[index].name == name { return index }
            slot = (slot + 1) & mask
        }
        return nil
    }

    private mutating func place(_ index: Int) {
        let mask = slots.count - 1
        var slot = Self.hash(declarations[index].name) & mask
        while slots[slot] >= 0 { slot = (slot + 1) & mask }
        slots[slot] = Int32(index)
    }

    private static func hash(_ name: String) -> Int {
        var name = name
        return name.withUTF8 { Int(truncatingIfNeeded: ByteHash.hash(UnsafeRawBufferPointer($0))) }
    }
}

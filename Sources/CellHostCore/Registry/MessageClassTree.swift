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
    private var byName: [String: Int] = [:]

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
        if let index = byName[name] {
            let existing = declarations[index]
            if existing.parent == parent { return nil }
            return "message class '\(name)' is already declared by \(existing.declaredBy) with parent '\(existing.parent ?? "none")'"
        }
        byName[name] = declarations.count
        declarations.append(Declaration(name: name, parent: parent, declaredBy: plugin))
        return nil
    }

    /// The parent of a class; nil for roots and undeclared classes.
    public func parent(of name: String) -> String? {
        byName[name].flatMap { declarations[$0].parent }
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

    public func isDeclared(_ name: String) -> Bool { byName[name] != nil }
}

// A CellKit plugin for MixedSubclassTests (Tests/EndToEndTests): Swift
// classes in a chain with C classes of another plugin
// (Fixtures/mixed_c_cells.c). Every class keeps its own state (CellKit
// keeps it in the class's own instance variables), and every render calls
// super, so the rendered text shows each class's count and whether its
// conversationWillBegin: ran.
//
//     SwiftBaseCell : MessageCell     C's COnSwiftCell subclasses it   (mixa)
//     SwiftOnCCell  : CBaseCell (C)                                    (mixb)
//
// Built as a target without a product: `swift build` makes its objects and
// the test links them into its own plugin directory, so no extra plugin sits
// beside `cellhost` for every other run to load.
import CellKit

/// The base of the C class `COnSwiftCell`: counts its renders.
struct SwiftBaseCell: MessageCellRenderer, ConversationObserving {
    static let plugin = PluginInfo(id: "test.mixed.swift", version: "1.0.0")
    static let className = "SwiftBaseCell"
    static let messageClasses: [String] = []
    static let declaredMessageClasses: [(name: String, parent: String?)] = [("mixa", "text"), ("mixb", "text")]

    var renders = 0
    var began = false

    init() {}

    mutating func conversationWillBegin() { began = true }

    mutating func render(_ message: Message, into cell: inout CellBuilder, context: RenderContext) -> RenderOutcome {
        renders += 1
        cell.append("swift-base#\(renders)" + (began ? " began" : ""))
        return .rendered
    }
}

/// A subclass of the C class `CBaseCell`: the C content, then its own count.
struct SwiftOnCCell: MessageCellRenderer, ConversationObserving {
    static let plugin = PluginInfo(id: "test.mixed.swift", version: "1.0.0")
    static let className = "SwiftOnCCell"
    static let superclassName = "CBaseCell"
    static let messageClasses = ["mixb"]

    var renders = 0
    var began = false

    init() {}

    mutating func conversationWillBegin() { began = true }

    mutating func render(_ message: Message, into cell: inout CellBuilder, context: RenderContext) -> RenderOutcome {
        renders += 1
        let inherited = context.renderSuper(message)
        guard inherited == .rendered else { return inherited }
        cell.append(" swift-sub#\(renders)" + (began ? " began" : ""))
        return .rendered
    }
}

@c(cellhost_plugin_entry)
public func cellhostPluginEntry() -> UnsafeRawPointer? {
    CellKit.export(SwiftBaseCell.self, SwiftOnCCell.self)
}

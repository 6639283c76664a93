import CellHostABI
import Glibc

/// Interned selector strings. Every selector a method is called with points at
/// one NUL-terminated copy that lives for the process, so plugins may keep
/// `_cmd` and compare it.
final class SelectorTable {
    private var interned: [String: UnsafePointer<CChar>] = [:]

    /// The interned C string for `name`.
    func intern(_ name: String) -> UnsafePointer<CChar> {
        if let existing = interned[name] { return existing }
        let copy = UnsafePointer(strdup(name)!)
        interned[name] = copy
        return copy
    }
}

/// The selectors with roles in rendering, and the encodings the host requires
/// of them (selectors.h).
public enum WellKnownSelector: String, CaseIterable, Sendable {
    case render = "renderMessage:context:into:"
    case canRender = "canRenderMessage:context:"
    case conversationWillBegin = "conversationWillBegin:"
    case conversationDidEnd = "conversationDidEnd:"
    case plainText = "plainTextForMessage:context:into:"

    /// The exact encoding the host requires of an implementation.
    public var requiredEncoding: String {
        switch self {
        case .render: return CELLHOST_TYPES_RENDER
        case .canRender: return CELLHOST_TYPES_CAN_RENDER
        case .conversationWillBegin, .conversationDidEnd: return CELLHOST_TYPES_CONVERSATION
        case .plainText: return CELLHOST_TYPES_PLAIN_TEXT
        }
    }
}

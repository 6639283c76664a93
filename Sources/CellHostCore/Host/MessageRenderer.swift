import CellHostABI

/// One candidate that did not render a message, for the fallback report.
public struct FallbackAttempt: Sendable, Equatable {
    /// The message class the candidate was tried as.
    public var messageClass: String
    /// The class tried; nil when the message class had no renderer at all.
    public var className: String?
    public var pluginID: String?
    /// "unregistered", "declined", "error" or "missing type".
    public var result: String
    /// For errors: what the plugin logged, when it did.
    public var detail: String? = nil
}

/// The path a message took to the cell that rendered it.
public struct Fallback: Sendable, Equatable {
    public var attempts: [FallbackAttempt]
    /// Why the first choice did not render, in words.
    public var reason: String
}

/// Who rendered a message, and how it got there.
public struct RenderOutcome {
    public var cls: RuntimeClass
    /// The message class it was rendered as.
    public var messageClass: String
    /// nil when the first candidate for the message's own class rendered it.
    public var fallback: Fallback?
}

/// Walks the registry's chain for a message: asks each candidate in turn
/// (`canRenderMessage:context:`, then `renderMessage:context:into:`) until one
/// renders, rolling back what a declining or failing candidate appended.
struct MessageRenderer {
    let runtime: Runtime

    func render(_ message: Message, into canvas: CellCanvas, width: Int, flags: UInt32) -> RenderOutcome {
        let chain = runtime.registry.chain(for: message.type)
        var attempts: [FallbackAttempt] = []
        if message.typeIsMissing {
            attempts.append(FallbackAttempt(messageClass: "", className: nil, pluginID: nil, result: "missing type"))
        } else if chain.isUnregistered {
            attempts.append(FallbackAttempt(messageClass: message.type, className: nil, pluginID: nil, result: "unregistered"))
        }
        let builder = BuilderHandle.handle(canvas)
        for step in chain.steps {
            if let reason = step.cls.ensureBound() {
                var failed = attempt(step, "error")
                failed.detail = reason
                attempts.append(failed)
                continue
            }
            let object = runtime.conversation.instance(of: step.cls, runtime: runtime)
            let mark = canvas.mark
            if let check = step.cls.lookup(.canRender) {
                let accepted = runtime.withContext(for: check.owner, width: width, messageClass: step.messageClass, flags: flags) {
                    runtime.dispatcher.canRender(check, receiver: object.handle, message: message.handle, context: $0)
                }
                if !accepted {
                    attempts.append(attempt(step, "declined"))
                    continue
                }
            }
            guard let method = step.cls.lookup(.render) else { continue }
            if !runtime.lastError.isEmpty { runtime.lastError[method.owner.pluginID] = nil }
            let result = runtime.withContext(for: method.owner, width: width, messageClass: step.messageClass, flags: flags) {
                runtime.dispatcher.render(method, receiver: object.handle, message: message.handle, context: $0, builder: builder)
            }
            if result == Int32(CELLHOST_RENDERED.rawValue) {
                let fallback = attempts.isEmpty ? nil : Fallback(attempts: attempts, reason: reason(attempts))
                return RenderOutcome(cls: step.cls, messageClass: step.messageClass, fallback: fallback)
            }
            canvas.rollBack(to: mark)
            if result == Int32(CELLHOST_DECLINED.rawValue) {
                attempts.append(attempt(step, "declined"))
            } else {
                var failed = attempt(step, "error")
                failed.detail = runtime.lastError[method.owner.pluginID]
                attempts.append(failed)
            }
        }
        // UnknownMessageCell never declines; this is the last resort if it was overridden away.
        canvas.append(message.text ?? "[\(message.type)]", style: [])
        return RenderOutcome(cls: runtime.unknownMessageCell, messageClass: message.type,
                             fallback: Fallback(attempts: attempts, reason: reason(attempts)))
    }

    private func attempt(_ step: Registry.Step, _ result: String) -> FallbackAttempt {
        FallbackAttempt(messageClass: step.messageClass, className: step.cls.name, pluginID: step.cls.pluginID, result: result)
    }

    private func reason(_ attempts: [FallbackAttempt]) -> String {
        guard let first = attempts.first else { return "" }
        switch first.result {
        case "missing type": return "the message has no usable type"
        case "unregistered": return "no renderer is registered for message class '\(first.messageClass)'"
        case "declined": return "\(first.className ?? "?") declined the message"
        default:
            return "\(first.className ?? "?") returned an error" + (first.detail.map { ": \($0)" } ?? "")
        }
    }
}

/// The system line for a room event that is not a message: a membership
/// change, a new room name or topic, the room's creation, a call, or another
/// change of the room's settings.
///
/// Membership events also move the display names on (`members`), so the
/// messages after a rename carry the new name.
enum MatrixStateLine {
    /// The `system.event` and the sentence for `event`, or nil when it is not
    /// shown (a membership event that changes nothing visible, a state event
    /// of another namespace, an event type nobody shows).
    static func describe(_ event: MatrixEvent, members: MatrixMembers) -> (event: String, text: String)? {
        guard let type = event.type else { return nil }
        let sender = event.sender.map(members.name(of:)) ?? "Someone"
        let content = event.content
        func text(_ key: StaticString) -> String? { content.flatMap { event.string($0, key) } }
        switch type {
        case "m.room.member":
            return membership(event, sender: sender, members: members)
        case "m.room.name":
            guard let name = text("name"), !name.isEmpty else { return ("name", "\(sender) removed the room name") }
            return ("name", "\(sender) changed the room name to “\(name)”")
        case "m.room.topic":
            guard let topic = text("topic"), !topic.isEmpty else { return ("topic", "\(sender) removed the topic") }
            return ("topic", "\(sender) changed the topic to “\(topic)”")
        case "m.room.create":
            return ("create", "\(sender) created the room")
        case "m.room.avatar":
            return ("avatar", "\(sender) changed the room picture")
        case "m.room.encryption":
            return ("encryption", "\(sender) turned on end-to-end encryption")
        case "m.room.pinned_events":
            return ("pin", "\(sender) changed the pinned messages")
        case "m.room.tombstone":
            return ("upgrade", "\(sender) upgraded the room")
        case "m.call.invite":
            return ("call", "\(sender) started a \(isVideoCall(event) ? "video call" : "call")")
        default:
            // Another setting of the room: `m.room.power_levels` → "power levels".
            guard event.isState, type.hasPrefix("m.room.") else { return nil }
            let what = type.dropFirst("m.room.".count).replacingUnderscores()
            guard !what.isEmpty else { return nil }
            return ("settings", "\(sender) changed the room's \(what)")
        }
    }

    /// True when a call invite's SDP offer has a video stream.
    private static func isVideoCall(_ event: MatrixEvent) -> Bool {
        guard let content = event.content, let offer = event.object(content, "offer"), let sdp = event.string(offer, "sdp") else { return false }
        return sdp.contains("m=video")
    }

    private static func membership(_ event: MatrixEvent, sender: String, members: MatrixMembers) -> (event: String, text: String)? {
        guard let target = event.stateKey, let content = event.content else { return nil }
        let membership = event.string(content, "membership") ?? ""
        let previous = event.previousContent
        let previousMembership = previous.flatMap { event.string($0, "membership") }
        let newName = event.string(content, "displayname").flatMap { $0.isEmpty ? nil : $0 }
        let oldName: String? = previous.map { event.string($0, "displayname") } ?? members.displayName(of: target)
        let oldShown = oldName.flatMap { $0.isEmpty ? nil : $0 } ?? MatrixMembers.localpart(target)
        let shown = newName ?? oldShown
        let isSelf = event.sender == target
        let reason = event.string(content, "reason").flatMap { $0.isEmpty ? nil : ": \($0)" } ?? ""
        defer {
            if membership == "join" || membership == "invite" { members.set(target, newName) }
        }
        switch membership {
        case "join":
            if previousMembership == "join" {
                if newName != oldName.flatMap({ $0.isEmpty ? nil : $0 }) {
                    if let newName, oldName?.isEmpty == false { return ("rename", "\(oldShown) changed their name to \(newName)") }
                    if let newName { return ("rename", "\(oldShown) set their name to \(newName)") }
                    return ("rename", "\(oldShown) removed their name")
                }
                let avatar = event.string(content, "avatar_url")
                let oldAvatar = previous.flatMap { event.string($0, "avatar_url") }
                return avatar != oldAvatar ? ("avatar", "\(shown) changed their profile picture") : nil
            }
            return ("join", "\(shown) joined")
        case "invite":
            return ("invite", "\(sender) invited \(shown)")
        case "leave":
            if isSelf { return ("leave", previousMembership == "invite" ? "\(oldShown) rejected the invitation" : "\(oldShown) left") }
            if previousMembership == "ban" { return ("unban", "\(sender) unbanned \(oldShown)") }
            if previousMembership == "invite" { return ("invite", "\(sender) withdrew \(oldShown)'s invitation") }
            return ("kick", "\(sender) removed \(oldShown)\(reason)")
        case "ban":
            return ("ban", "\(sender) banned \(oldShown)\(reason)")
        case "knock":
            return ("knock", "\(shown) asked to join")
        default:
            return nil
        }
    }
}

private extension Substring {
    func replacingUnderscores() -> String { String(map { $0 == "_" ? " " : $0 }) }
}

/// Display names of the room's members, as they are at each event.
///
/// A first pass over a file learns the name each user had when the input
/// starts (from a state block, or what their first membership event says
/// they were called before it); the names then change as membership events
/// are shown, so every message carries the name current when it was sent.
/// Memory grows with the number of members.
final class MatrixMembers {
    private var names: [String: String] = [:]

    /// What the first pass learned about one user.
    private struct Start {
        var stateName: String?
        var earliest = Double.infinity
        /// From the earliest membership event: its previous name, else its name.
        var earliestName: String?
        var earliestKnowsPrevious = false
        var seenTimeline = false
    }

    private var starts: [String: Start] = [:]

    /// The name shown for `user`: their display name, else the localpart of
    /// their id (`@alice:example.org` → `alice`).
    func name(of user: String) -> String {
        if let name = names[user], !name.isEmpty { return name }
        return MatrixMembers.localpart(user)
    }

    /// The display name `user` has now, if any.
    func displayName(of user: String) -> String? { names[user] }

    /// Sets (or, with nil, clears) the display name of `user`.
    func set(_ user: String, _ name: String?) {
        if let name, !name.isEmpty { names[user] = name } else { names.removeValue(forKey: user) }
    }

    static func localpart(_ user: String) -> String {
        guard user.hasPrefix("@") else { return user }
        let name = user.dropFirst().prefix { $0 != ":" }
        return name.isEmpty ? user : String(name)
    }

    // MARK: The first pass

    /// Learns from a membership event of the first pass.
    func learn(_ event: MatrixEvent, block: MatrixPlace.Block) {
        guard event.type == "m.room.member", let user = event.stateKey, let content = event.content else { return }
        let name = event.string(content, "displayname")
        var start = starts[user] ?? Start()
        if block == .state {
            if start.stateName == nil, let name { start.stateName = name }
        } else if (event.milliseconds ?? .infinity) < start.earliest || !start.seenTimeline {
            start.earliest = event.milliseconds ?? .infinity
            start.seenTimeline = true
            if let previous = event.previousContent {
                start.earliestName = event.string(previous, "displayname")
                start.earliestKnowsPrevious = true
            } else {
                start.earliestName = event.string(content, "membership") == "join" ? name : nil
                start.earliestKnowsPrevious = false
            }
        }
        starts[user] = start
    }

    /// Takes the names learned by the first pass as the names at the start.
    func begin() {
        for (user, start) in starts {
            let name = start.earliestKnowsPrevious ? (start.earliestName ?? start.stateName) : (start.stateName ?? start.earliestName)
            set(user, name)
        }
        starts = [:]
    }
}

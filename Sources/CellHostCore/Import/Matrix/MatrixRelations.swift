/// What other events say about one event: its edits, its reactions and
/// whether it was deleted (redacted).
struct MatrixRelation {
    /// One `m.replace` event.
    struct Edit {
        var eventID: String
        var sender: String?
        var milliseconds: Double
        /// The position in the input, to break ties in time.
        var order: Int
        /// The raw `m.new_content` object (nil when the edit has none, as in
        /// an encrypted edit: the message is still marked edited).
        var newContent: [UInt8]?
    }

    var edits: [Edit] = []
    var reactions: [(eventID: String, key: String)] = []
    var redacted = false
    /// The event was shown with these relations.
    var applied = false
}

/// The relations of a whole input, by the id of the event they are about.
///
/// Memory grows with the number of relations (and their edits' new text),
/// not with the number of messages. `take` hands an event its relations
/// when it is shown; what is never taken refers to an event that is not in
/// the input, or (on a stream read once) one shown before they arrived.
final class MatrixRelations {
    private var byTarget: [String: MatrixRelation] = [:]
    /// The ids of edit and reaction events (a deletion of one of them is not
    /// a deleted message).
    private var relationEvents: Set<String> = []
    private var order = 0
    /// Relations that arrived after their event was shown.
    private(set) var late = (edits: 0, reactions: 0, deletions: 0)

    func addEdit(target: String, _ edit: MatrixRelation.Edit) {
        var edit = edit
        edit.order = order
        order += 1
        relationEvents.insert(edit.eventID)
        update(target) { relation in
            if relation.applied { late.edits += 1 }
            relation.edits.append(edit)
        }
    }

    func addReaction(target: String, eventID: String, key: String) {
        relationEvents.insert(eventID)
        update(target) { relation in
            if relation.applied { late.reactions += 1 }
            relation.reactions.append((eventID, key))
        }
    }

    func addRedaction(target: String) {
        update(target) { relation in
            if relation.applied, !relation.redacted, !relationEvents.contains(target) { late.deletions += 1 }
            relation.redacted = true
        }
    }

    private func update(_ target: String, _ change: (inout MatrixRelation) -> Void) {
        var relation = byTarget.removeValue(forKey: target) ?? MatrixRelation()
        change(&relation)
        byTarget[target] = relation
    }

    /// The relations of the event `id`, now marked as applied.
    func take(_ id: String) -> MatrixRelation? {
        guard !id.isEmpty, var relation = byTarget.removeValue(forKey: id) else { return nil }
        relation.applied = true
        byTarget[id] = relation
        return relation
    }

    func isRedacted(_ id: String) -> Bool { byTarget[id]?.redacted == true }

    /// The edit that wins: by the message's sender (another user's edit is
    /// ignored, as the specification says), not deleted, the latest by
    /// `origin_server_ts` (then the later in the input).
    func latestEdit(of relation: MatrixRelation, sender: String?) -> MatrixRelation.Edit? {
        var best: MatrixRelation.Edit?
        for edit in relation.edits where edit.sender == sender && !isRedacted(edit.eventID) {
            if let current = best, (current.milliseconds, current.order) > (edit.milliseconds, edit.order) { continue }
            best = edit
        }
        return best
    }

    /// Reaction counts by key in order of first appearance, deleted reactions left out.
    func reactionCounts(of relation: MatrixRelation) -> [(key: String, count: Int)] {
        var counts: [(key: String, count: Int)] = []
        for reaction in relation.reactions where !isRedacted(reaction.eventID) {
            if let index = counts.firstIndex(where: { $0.key == reaction.key }) {
                counts[index].count += 1
            } else {
                counts.append((reaction.key, 1))
            }
        }
        return counts
    }

    /// Relations never applied: about events that are not in the input, or
    /// (read once) that were shown before them.
    var unapplied: (edits: Int, reactions: Int, deletions: Int) {
        var result = (edits: 0, reactions: 0, deletions: 0)
        for (target, relation) in byTarget where !relation.applied {
            if relationEvents.contains(target) { continue }
            result.edits += relation.edits.filter { !isRedacted($0.eventID) }.count
            result.reactions += relation.reactions.filter { !isRedacted($0.eventID) }.count
            if relation.redacted { result.deletions += 1 }
        }
        return result
    }
}

/// Where the elements of a document's arrays start, built lazily per array on
/// its first indexed look-up (`poll.options.57`), so that reading element N
/// costs O(1) instead of walking N siblings: a plugin reading every option of
/// an 80 000-option poll does linear, not quadratic, work.
///
/// It also keeps the last key path resolved (`paths`), so that the next
/// one that starts the same way resumes after the shared segments: one
/// object for both, so that a copy of the document retains one reference
/// for them.
///
/// Owned by one `JSONDocument` and cleared when it parses the next value.
final class ArrayIndex {
    /// Arrays with at most this many elements are walked, not indexed.
    static let walkLimit = 8

    /// Array node → the node of each element.
    private var starts: [Int: [Int32]] = [:]
    /// Nodes stepped over to find elements since the last reset (walking and
    /// building indexes): what look-ups cost, for tests of their complexity.
    private(set) var steps = 0

    /// The last key path resolved and where its segments led.
    let paths = PathMemo()

    /// Inlined into the parse (as a call it cost some 20 instructions a
    /// document in saving and restoring the parser's registers), and the
    /// dictionary emptied only when an array was indexed: its
    /// `removeAll(keepingCapacity:)` is a call even when there is nothing
    /// to remove, and most documents index none.
    @inline(__always)
    func reset() {
        if !starts.isEmpty { starts.removeAll(keepingCapacity: true) }
        steps = 0
        paths.reset()
    }

    /// The node of element `position` of the array at `array`, which has
    /// `count` elements (0 ≤ position < count).
    func element(_ document: JSONDocument, _ array: Int, _ position: Int, count: Int) -> Int {
        if count <= ArrayIndex.walkLimit {
            var cursor = array + 1
            for _ in 0..<position { cursor = document.skip(cursor) }
            steps += position
            return cursor
        }
        if let known = starts[array] { return Int(known[position]) }
        var list: [Int32] = []
        list.reserveCapacity(count)
        var cursor = array + 1
        for _ in 0..<count {
            list.append(Int32(truncatingIfNeeded: cursor))
            cursor = document.skip(cursor)
        }
        steps += count
        starts[array] = list
        return Int(list[position])
    }
}

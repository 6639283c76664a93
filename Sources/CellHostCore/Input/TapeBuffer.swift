/// The nodes a parse writes, in memory the parser owns (and the stack of
/// containers it has open): appending is a
/// store and an increment, with no uniqueness or capacity checks of an
/// `Array` per node. The document reads the finished tape where it is
/// (`JSONDocument.Nodes`).
///
/// Owned by one `JSONDocument` (a copy of the document that parses again
/// gets a buffer of its own) and reused for every value it parses.
final class TapeBuffer {
    private(set) var base: UnsafeMutablePointer<JSONDocument.Node>
    private(set) var capacity: Int
    /// The parser's open containers (node and members so far), at most
    /// `JSONDocument.maximumDepth`.
    let stack: UnsafeMutablePointer<(node: Int32, members: Int32)>

    init(capacity: Int = 64) {
        self.capacity = capacity
        base = .allocate(capacity: capacity)
        stack = .allocate(capacity: JSONDocument.maximumDepth)
    }

    deinit {
        base.deallocate()
        stack.deallocate()
    }

    /// Makes room for at least `count` + `room` nodes, keeping the first `count`.
    func grow(keeping count: Int, room: Int) {
        let larger = max(capacity * 2, count + room)
        let moved = UnsafeMutablePointer<JSONDocument.Node>.allocate(capacity: larger)
        moved.moveInitialize(from: base, count: count)
        base.deallocate()
        base = moved
        capacity = larger
    }

    /// Gives back memory a large value made the buffer grow.
    func shrink(to limit: Int) {
        guard capacity > limit else { return }
        base.deallocate()
        capacity = 64
        base = .allocate(capacity: capacity)
    }
}

/// A growable list of wrapper segments in memory it manages itself: the
/// wrapper appends to it and empties it once per word, and a Swift array
/// would pay a uniqueness check on every append and a generic
/// `replaceSubrange` on every `removeAll(keepingCapacity:)`.
///
/// Owned by one `CellCanvas`, which frees it (`deallocate`) in its deinit;
/// copies of the struct share the memory, so only the owner's copy may
/// outlive a `wrap` call (the wrapper moves its copy back).
struct SegmentList {
    private(set) var base: UnsafeMutablePointer<Wrapper.Segment>
    private(set) var count = 0
    private var capacity: Int

    init(capacity: Int = 64) {
        self.capacity = max(1, capacity)
        base = .allocate(capacity: self.capacity)
    }

    var isEmpty: Bool { count == 0 }

    @inline(__always)
    mutating func append(_ segment: Wrapper.Segment) {
        if count == capacity { grow() }
        (base + count).initialize(to: segment)
        count += 1
    }

    /// The last segment, to extend in place; nil when empty.
    @inline(__always)
    var last: UnsafeMutablePointer<Wrapper.Segment>? { count > 0 ? base + (count - 1) : nil }

    @inline(__always)
    mutating func removeAll() { count = 0 }

    /// The segments, valid until the next append.
    var segments: UnsafeBufferPointer<Wrapper.Segment> { UnsafeBufferPointer(start: base, count: count) }

    private mutating func grow() {
        let larger = UnsafeMutablePointer<Wrapper.Segment>.allocate(capacity: capacity * 2)
        larger.moveInitialize(from: base, count: count)
        base.deallocate()
        base = larger
        capacity *= 2
    }

    /// Frees the memory (the owner's deinit).
    func deallocate() { base.deallocate() }
}

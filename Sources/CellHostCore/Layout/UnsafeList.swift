/// A growable list of plain values in memory it manages itself: a
/// canvas's bytes, pieces and lines (which the cells, the wrapper and the
/// chrome append to, and the encoders read) and the wrapper's word and
/// spaces being collected. A Swift array would pay a uniqueness check (and
/// a call) on every append, some 120 instructions on every
/// `append(contentsOf:)` of a buffer, and a generic `replaceSubrange` on
/// every `removeAll(keepingCapacity:)`; here an append is a capacity check
/// and a store (or a copy of memory), and emptying sets the count.
///
/// Only for trivial types (no references): elements are never
/// deinitialized. Owned by one `CellCanvas`, which frees it (`deallocate`)
/// in its deinit; copies of the struct share the memory, so only the
/// owner's copy may outlive a `wrap` or `layout` call (the wrapper and the
/// chrome's `ChromeLines` store their copies back into the canvas when
/// they are done).
struct UnsafeList<Element> {
    private(set) var base: UnsafeMutablePointer<Element>
    private(set) var count = 0
    private(set) var capacity: Int

    init(capacity: Int = 64) {
        self.capacity = max(1, capacity)
        base = .allocate(capacity: self.capacity)
    }

    var isEmpty: Bool { count == 0 }

    @inline(__always)
    mutating func append(_ element: Element) {
        if count == capacity { grow(toHold: count &+ 1) }
        (base + count).initialize(to: element)
        count &+= 1
    }

    /// Appends a copy of `buffer`'s elements (a cell's text into a canvas's
    /// bytes). `buffer` must not point into this list: growing would free
    /// it before the copy (`appendCopies(of:)` copies from the list itself).
    /// Up to 64 bytes are copied without a call to memcpy
    /// (`OutputBuffer.copy`: the elements are trivial).
    @inline(__always)
    mutating func append(contentsOf buffer: UnsafeBufferPointer<Element>) {
        guard let source = buffer.baseAddress else { return }
        let added = buffer.count
        if added > capacity &- count { grow(toHold: count + added) }
        OutputBuffer.copy(UnsafeRawPointer(source), to: UnsafeMutableRawPointer(base + count),
                          count: added &* MemoryLayout<Element>.stride)
        count &+= added
    }

    /// Element `index` (< `count`, not checked: indices come from the
    /// canvas's own lines).
    @inline(__always)
    subscript(index: Int) -> Element { base[index] }

    /// Appends a copy of the elements `range` (within `0..<count`) of this
    /// list: the chrome puts a content line's pieces into a bubble line.
    @inline(__always)
    mutating func appendCopies(of range: Range<Int>) {
        let added = range.count
        if added > capacity &- count { grow(toHold: count + added) }
        // The copies go past `count`, so they never overlap the originals.
        (base + count).initialize(from: base + range.lowerBound, count: added)
        count &+= added
    }

    /// Makes room for `added` more elements and returns the storage, for a
    /// caller that writes many elements past `count` with one capacity
    /// check (the chrome's bubble lines) and then keeps them with
    /// `extend(to:)`. Valid until the list grows again; the elements before
    /// `count` stay readable through it.
    @inline(__always)
    mutating func reserve(_ added: Int) -> UnsafeMutablePointer<Element> {
        if added > capacity &- count { grow(toHold: count + added) }
        return base
    }

    /// Keeps the elements written past `count` (within the room `reserve`
    /// made) up to `newCount`.
    @inline(__always)
    mutating func extend(to newCount: Int) {
        precondition(newCount >= count && newCount <= capacity, "UnsafeList.extend beyond the reserved room")
        count = newCount
    }

    /// Keeps the first `newCount` elements (all when there are fewer).
    @inline(__always)
    mutating func truncate(to newCount: Int) { count = max(0, min(count, newCount)) }

    /// The last element, to change in place; nil when empty.
    @inline(__always)
    var last: UnsafeMutablePointer<Element>? { count > 0 ? base + (count &- 1) : nil }

    @inline(__always)
    mutating func removeAll() { count = 0 }

    /// The elements, valid until the next append.
    var elements: UnsafeBufferPointer<Element> { UnsafeBufferPointer(start: base, count: count) }

    /// The elements, to change in place (the chrome cuts text to a width
    /// where it was sanitized); valid until the next append.
    var mutableElements: UnsafeMutableBufferPointer<Element> { UnsafeMutableBufferPointer(start: base, count: count) }

    /// Moves the elements to memory for at least `minimum` of them (twice
    /// the capacity, or more for a large append).
    private mutating func grow(toHold minimum: Int) {
        let larger = max(capacity * 2, minimum)
        let memory = UnsafeMutablePointer<Element>.allocate(capacity: larger)
        memory.moveInitialize(from: base, count: count)
        base.deallocate()
        base = memory
        capacity = larger
    }

    /// Empties the list and gives its memory back when it holds more than
    /// `threshold` bytes (after a large message).
    mutating func release(above threshold: Int) {
        count = 0
        guard capacity * MemoryLayout<Element>.stride > threshold else { return }
        base.deallocate()
        capacity = 64
        base = .allocate(capacity: capacity)
    }

    /// Frees the memory (the owner's deinit).
    func deallocate() { base.deallocate() }
}

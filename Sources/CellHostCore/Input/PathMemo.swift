/// The last key path resolved in a document and the node each of its
/// segments led to, so that the next path that starts the same way resumes
/// after the shared segments instead of looking every key up again from the
/// root. Plugins read several fields of one payload in a row (`file.name`,
/// `file.path`, `file.size`; `poll.options.0.votes`, `poll.options.1.votes`),
/// and the payload is usually the last of half a dozen top-level members.
///
/// A remembered prefix is reused only up to a separator whose bytes, and
/// all before it, are the same in both paths: the segments before it (and
/// their backslash escapes) are then the same, and so is where they lead.
///
/// Kept by a document's `ArrayIndex` and cleared with it when the document
/// parses the next value.
final class PathMemo {
    /// Paths longer than this are resolved without the memo (the message
    /// API's paths are shorter than 256 bytes).
    static let pathCapacity = 256
    /// Steps remembered per path; deeper paths resolve their rest from the
    /// last one remembered.
    static let stepCapacity = 16

    /// For each step taken: the offset of the separator after its segment
    /// and the node it led to (`stepCapacity` of each); then the bytes of
    /// the last path. One allocation, made by the first `resume`: most
    /// documents (the reply-quote ring's, an importer's) never resolve a
    /// path.
    private var storage: UnsafeMutableRawPointer?
    private var separators: UnsafeMutablePointer<Int> { storage.unsafelyUnwrapped.assumingMemoryBound(to: Int.self) }
    private var nodes: UnsafeMutablePointer<Int> { separators + PathMemo.stepCapacity }
    private var path: UnsafeMutablePointer<UInt8> {
        (storage.unsafelyUnwrapped + 2 * PathMemo.stepCapacity * MemoryLayout<Int>.stride)
            .assumingMemoryBound(to: UInt8.self)
    }
    private var length = 0
    private var steps = 0

    deinit { storage?.deallocate() }

    /// Makes the storage, its steps bound to `Int` and its path to bytes.
    private func allocate() {
        let stepBytes = 2 * PathMemo.stepCapacity * MemoryLayout<Int>.stride
        // Eight bytes more than a path: `resume(cString:)` stores the C
        // string eight bytes at a time, its last word reaching past its end.
        let made = UnsafeMutableRawPointer.allocate(byteCount: stepBytes + PathMemo.pathCapacity + 8,
                                                    alignment: MemoryLayout<Int>.alignment)
        made.bindMemory(to: Int.self, capacity: 2 * PathMemo.stepCapacity)
        (made + stepBytes).bindMemory(to: UInt8.self, capacity: PathMemo.pathCapacity + 8)
        storage = made
    }

    @inline(__always)
    func reset() {
        length = 0
        steps = 0
    }

    /// Where resolving `next` can start: the node the longest remembered
    /// prefix of it led to and the offset just past that prefix's
    /// separator, or `(root, 0)`. Then remembers `next` in place of the
    /// last path, with the steps of that prefix.
    func resume(_ next: UnsafeBufferPointer<UInt8>) -> (node: Int, start: Int) {
        guard let base = next.baseAddress, next.count <= PathMemo.pathCapacity else {
            reset()
            return (JSONDocument.root, 0)
        }
        if storage == nil { allocate() }
        let shared = PathMemo.sharedPrefix(UnsafePointer(path), base, min(length, next.count))
        // Steps whose separator lies inside the shared bytes still hold.
        while steps > 0, separators[steps - 1] >= shared { steps -= 1 }
        path.update(from: base, count: next.count)
        length = next.count
        return steps > 0 ? (nodes[steps - 1], separators[steps - 1] + 1) : (JSONDocument.root, 0)
    }

    /// `resume` for the C string `cString`, read once up to its NUL: each
    /// word of it is copied over the last path's bytes and compared with
    /// them as it is read (no `strnlen` first, no second pass to compare,
    /// no third to copy). Also gives the path as remembered (its bytes are
    /// the memo's, valid until the next `resume` or `reset`); nil, with the
    /// memo cleared, for a path of `pathCapacity` bytes or more (no NUL
    /// among its first 256 bytes), which the message API does not resolve.
    ///
    /// A word is loaded only where its eight bytes lie in one page (the
    /// page of the bytes before the NUL, so mapped): `strlen`'s own rule,
    /// which never reads a page the string does not reach. Near a page's
    /// end the bytes are read one at a time.
    @inline(__always)
    func resume(cString: UnsafePointer<UInt8>)
        -> (node: Int, start: Int, path: UnsafeBufferPointer<UInt8>)? {
        if storage == nil { allocate() }
        let copy = path
        // The first byte where the paths differ, once found (the memo's
        // bytes past the last path's end are stale: capped below).
        var shared = Int.max
        var count = 0
        while true {
            let source = cString + count
            if UInt(bitPattern: source) & 4095 <= 4096 - 8 {
                let raw = UnsafeRawPointer(source).loadUnaligned(as: UInt64.self)
                let last = UnsafeRawPointer(copy + count).loadUnaligned(as: UInt64.self)
                UnsafeMutableRawPointer(copy + count).storeBytes(of: raw, as: UInt64.self)
                // Byte n of the path is byte n of `word` from the low end.
                let word = UInt64(littleEndian: raw)
                let difference = word ^ UInt64(littleEndian: last)
                if shared == .max, difference != 0 { shared = count &+ difference.trailingZeroBitCount / 8 }
                // The lowest byte flagged is the first NUL (a borrow only
                // flags bytes above a NUL).
                let zeros = (word &- 0x0101_0101_0101_0101) & ~word & 0x8080_8080_8080_8080
                if zeros != 0 {
                    count = count &+ zeros.trailingZeroBitCount / 8
                    break
                }
                count = count &+ 8
            } else {
                let byte = source.pointee
                if byte == 0 { break }
                if shared == .max, copy[count] != byte { shared = count }
                copy[count] = byte
                count = count &+ 1
            }
            if count >= PathMemo.pathCapacity {
                reset()
                return nil
            }
        }
        shared = min(shared, length, count)
        // Steps whose separator lies inside the shared bytes still hold.
        while steps > 0, separators[steps &- 1] >= shared { steps = steps &- 1 }
        length = count
        let path = UnsafeBufferPointer(start: UnsafePointer(copy), count: count)
        return steps > 0 ? (nodes[steps &- 1], separators[steps &- 1] &+ 1, path) : (JSONDocument.root, 0, path)
    }

    /// The offset of the first '.' or backslash at or after `start` in the
    /// `count` bytes at `base`, or `count`: eight bytes at a time (a path's
    /// segments are a few bytes long; a loop per byte took some five
    /// instructions a byte). Reads eight bytes at every offset below
    /// `count`, as the memo's copy of a path allows.
    @inline(__always)
    static func separatorOrEscape(_ base: UnsafePointer<UInt8>, from start: Int, count: Int) -> Int {
        var offset = start
        while offset < count {
            let word = UInt64(littleEndian: UnsafeRawPointer(base + offset).loadUnaligned(as: UInt64.self))
            let dots = word ^ 0x2E2E_2E2E_2E2E_2E2E, escapes = word ^ 0x5C5C_5C5C_5C5C_5C5C
            // A zero byte of either marks a match; the lowest byte flagged
            // is the first (a borrow only flags bytes above a zero byte).
            let found = ((dots &- 0x0101_0101_0101_0101) & ~dots | (escapes &- 0x0101_0101_0101_0101) & ~escapes)
                & 0x8080_8080_8080_8080
            if found != 0 { return min(offset &+ found.trailingZeroBitCount / 8, count) }
            offset = offset &+ 8
        }
        return count
    }

    /// Records that the segment ending at the separator at `offset` of the
    /// path given to `resume` led to `node`.
    func record(separator offset: Int, node: Int) {
        guard steps < PathMemo.stepCapacity, offset < length else { return }
        separators[steps] = offset
        nodes[steps] = node
        steps += 1
    }

    /// How many of the first `count` bytes of `a` and `b` are equal before
    /// the first that differs, compared eight bytes at a time.
    static func sharedPrefix(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ count: Int) -> Int {
        var offset = 0
        while offset + 8 <= count {
            let difference = UnsafeRawPointer(a + offset).loadUnaligned(as: UInt64.self)
                ^ UnsafeRawPointer(b + offset).loadUnaligned(as: UInt64.self)
            if difference != 0 { return offset + UInt64(littleEndian: difference).trailingZeroBitCount / 8 }
            offset += 8
        }
        while offset < count, a[offset] == b[offset] { offset += 1 }
        return offset
    }
}

/// The last few distinct `sender` objects of a render thread's messages
/// (`{"id":"u-2","name":"Bob"}`), each with the id and name read from it,
/// so that a sender seen again is known from its bytes alone: one
/// comparison instead of a look-up of its two members and one of each
/// value in `RecentStrings`. The people of a conversation take turns, so
/// a few entries catch nearly every message.
///
/// A kept object is matched by its raw bytes, compared a word at a time
/// (`KeyWord`): the same bytes parse to the same members, so the id and
/// name read from them are the same too (escapes and invalid UTF-8
/// included). Objects longer than `keyBytes` are not kept.
struct RecentSenders {
    /// Objects kept; the oldest is replaced when a new one comes.
    static let capacity = 8
    /// The longest object kept, in bytes (a multiple of eight).
    static let keyBytes = 64
    private static let keyWords = keyBytes / 8

    private struct Entry {
        var length: Int
        var id: String
        var name: String
    }

    private var entries: [Entry] = []
    /// The bytes of each entry's object as words (`keyWords` an entry, in
    /// the entries' order), read only up to its length.
    private var words = [UInt64](repeating: 0, count: RecentSenders.capacity * RecentSenders.keyWords)
    /// The entry a new object replaces once all are in use.
    private var next = 0

    init() {
        entries.reserveCapacity(Self.capacity)
    }

    /// The id and name kept for the object at `index` of `document` (an
    /// object node), or nil when its bytes are not among those kept.
    func find(_ document: JSONDocument, _ index: Int) -> (id: String, name: String)? {
        position(document, index).map { (entries[$0].id, entries[$0].name) }
    }

    /// Sets `id` and `name` to those kept at `position` (from
    /// `position(_:_:)`), each stored only when it does not hold that
    /// value already (`SmallASCII.same`): a `Message`'s sender is often
    /// the one of the message its slot held before, and storing it would
    /// retain the new strings and release the old, four calls.
    func assign(_ position: Int, id: inout String, name: inout String) {
        entries.withUnsafeBufferPointer { entries in
            if !SmallASCII.same(entries[position].id, id) { id = entries[position].id }
            if !SmallASCII.same(entries[position].name, name) { name = entries[position].name }
        }
    }

    /// The entry kept for the object at `index` of `document` (an object
    /// node), or nil when its bytes are not among those kept.
    func position(_ document: JSONDocument, _ index: Int) -> Int? {
        let node = document.nodes[index]
        let start = Int(node.start), length = Int(node.end &- node.start)
        guard length <= Self.keyBytes else { return nil }
        return document.bytes.withUnsafeBufferPointer { all -> Int? in
            guard let base = all.baseAddress, start >= 0, length >= 0, start + length <= all.count else { return nil }
            let found = entries.withUnsafeBufferPointer { entries in
                words.withUnsafeBufferPointer { words -> Int? in
                    for position in entries.indices where entries[position].length == length {
                        // Whole words are loaded as they are; the last few bytes masked (`KeyWord`).
                        var offset = 0, word = position &* Self.keyWords
                        while offset &+ 8 <= length,
                              UInt64(littleEndian: UnsafeRawPointer(base + (start &+ offset)).loadUnaligned(as: UInt64.self))
                                  == words[word] {
                            offset &+= 8
                            word &+= 1
                        }
                        if offset &+ 8 <= length { continue }
                        if offset == length
                            || KeyWord.of(base, start &+ offset, length &- offset, count: all.count) == words[word] {
                            return position
                        }
                    }
                    return nil
                }
            }
            return found
        }
    }

    /// Keeps `id` and `name` as what the object at `index` of `document`
    /// reads as, in place of the oldest entry once all are in use.
    mutating func remember(_ document: JSONDocument, _ index: Int, id: String, name: String) {
        let node = document.nodes[index]
        let start = Int(node.start), length = Int(node.end &- node.start)
        guard length <= Self.keyBytes, start >= 0, length >= 0, start + length <= document.bytes.count else { return }
        let position: Int
        if entries.count < Self.capacity {
            position = entries.count
            entries.append(Entry(length: length, id: id, name: name))
        } else {
            position = next
            entries[position] = Entry(length: length, id: id, name: name)
            next = next + 1 == Self.capacity ? 0 : next + 1
        }
        document.bytes.withUnsafeBufferPointer { all in
            guard let base = all.baseAddress else { return }
            var offset = 0, word = position * Self.keyWords
            while offset < length {
                words[word] = KeyWord.of(base, start + offset, length - offset, count: all.count)
                offset += 8
                word += 1
            }
        }
    }
}

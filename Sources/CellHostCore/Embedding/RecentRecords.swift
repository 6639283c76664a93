import Glibc

/// The last messages of a conversation, kept as their raw records so that a
/// later reply can quote them: the quote is only worked out when a reply asks
/// for it, and memory is bounded by a count and a per-record size.
///
/// Every message is remembered and most are never looked up, so the index
/// is a small open-addressing table (linear probing, a hash of the id's
/// UTF-8 eight bytes at a time) instead of a `[String: Int]`, whose SipHash
/// and bucket bookkeeping cost about 2 000 instructions a message.
/// Ids come from input, so colliding ids are possible; the table is never
/// more than a quarter full, so a probe is bounded by its size and a
/// hostile input can only slow its own lookups, never grow memory.
///
/// A table entry carries the low 32 bits of its id's hash beside the slot
/// number: probing compares ids only when those bits match. Evicting the
/// oldest id leaves its entry in the table, stale: it names a slot that now
/// holds another id, so a probe passes over it as over any other id's, and
/// an id is found by the one entry whose slot holds it. Removing the entry
/// instead cost two reads at random places in the table, often cache
/// misses, one after the other (the slot's entry, then the one after it)
/// for every message remembered. Stale entries count towards the table's
/// load: when it is a quarter full, it is rebuilt from the slots, which
/// keep their ids' hashes (`rebuild`); at eight positions a slot, that is
/// after at least as many new ids as there are slots. The table is that
/// large because ids that count up take neighbouring positions (`hash`),
/// and runs of them merge into long probes in a fuller table (an average
/// of 8 entries looked at for 100 000 `real` messages with four positions
/// a slot, rebuilt at half full; 2.6 with eight, at a quarter).
/// Slots and table are allocated once, at their full size, and owned by
/// the ring (it cannot be copied), so remembering a record checks no
/// array's uniqueness or bounds.
///
/// The records' bytes are copied one after another into one byte ring
/// (`reserve`), not kept in a buffer each: buffers traded with the render
/// slots were last touched thousands of messages earlier, and reading
/// their headers was about 2 % of the owning thread's time, where the
/// ring is written in order. A record is never overwritten while its id
/// is remembered: when the ring comes round to the oldest record still
/// remembered, it is copied into a new ring twice the size of what is
/// remembered (`makeRoom`), so it holds at most about twice the bytes of
/// the records remembered, plus one.
///
/// A slot keeps its id as bytes in the ring, not as a `String`: within its
/// record when the render worker found it there as plain ASCII
/// (`remember(idAt:record:renderedBy:)`, the bytes the id `String` was made
/// of, so `complete` needs no `String`'s bytes), else copied after the
/// record (`remember(id:record:renderedBy:)`). Getting a `String`'s UTF-8
/// to hash and compare cost a retain, a release and some 80 instructions a
/// message; assigning it into the slot released the evicted id.
struct RecentRecords: ~Copyable {
    static let defaultCapacity = 4096
    /// Larger records are not remembered (a reply to one shows its id).
    static let maximumRecordBytes = 16 << 10
    /// The most ids a ring holds (slot numbers and hash bits share an entry).
    static let maximumCapacity = 1 << 24
    /// The bytes the ring starts with (it grows as the records need).
    static let initialBytes = 64 << 10

    private struct Slot {
        /// `hash(id)`, to enter it again when the table is rebuilt.
        var hash: Int
        /// Where its record starts, counted in bytes written since the ring
        /// was last rebuilt (`head`), and where that is in `bytes`.
        var start: Int
        var offset: Int
        /// The bytes it holds in the ring (the record, then the id when it
        /// was copied after it); 0 while it has none.
        var count: Int
        /// The record's length.
        var recordCount: Int
        /// Where the id's UTF-8 is, from `offset`, and its length.
        var idOffset: Int
        var idCount: Int
        /// Unretained: a runtime keeps every class it linked as long as it
        /// lives (`Runtime.linked`), and the session that owns this ring
        /// keeps the runtime. A retain would write the reference count of
        /// an object the render workers retain too.
        var cls: Unmanaged<RuntimeClass>
    }

    let capacity: Int
    /// `capacity` slots, the first `used` initialized.
    private let slots: UnsafeMutablePointer<Slot>
    private var used = 0
    /// `mask + 1` positions (at least eight a slot), each holding the
    /// hash's low 32 bits above a slot number + 1; 0 is empty.
    private let table: UnsafeMutablePointer<UInt64>
    private let mask: Int
    /// Positions in use, stale entries included (at most a quarter of the table).
    private var occupied = 0
    /// The slot the next new id replaces once all are in use (the oldest).
    private var next = 0
    /// The byte ring: `byteCapacity` bytes.
    private var bytes: UnsafeMutablePointer<UInt8>
    private var byteCapacity: Int
    /// Where the next record goes, counted in bytes written since the ring
    /// was rebuilt (a record's `start`), and where that is in `bytes`.
    private var head = 0
    private var headOffset = 0
    /// No remembered record starts before this (the oldest's start when
    /// `makeRoom` last looked, or less): bytes up to it plus the ring's size
    /// may be written without looking again.
    private var oldestStart = 0

    /// `bytes` is the ring's size to begin with (tests give small ones).
    init(capacity: Int, bytes: Int = RecentRecords.initialBytes) {
        self.capacity = min(max(1, capacity), RecentRecords.maximumCapacity)
        var size = 16
        while size < 8 * self.capacity { size <<= 1 }
        slots = .allocate(capacity: self.capacity)
        table = .allocate(capacity: size)
        table.initialize(repeating: 0, count: size)
        mask = size - 1
        byteCapacity = max(1, bytes)
        self.bytes = .allocate(capacity: byteCapacity)
    }

    deinit {
        slots.deinitialize(count: used)
        slots.deallocate()
        table.deallocate()
        bytes.deallocate()
    }

    /// Remembers `record` as the message `id`, rendered by `cls` (a copy;
    /// a record over `maximumRecordBytes` is not remembered).
    mutating func remember(id: String, record: UnsafeBufferPointer<UInt8>, renderedBy cls: Unmanaged<RuntimeClass>) {
        func remember(_ id: UnsafeBufferPointer<UInt8>) {
            self.remember(id: id, hash: Self.hash(id), inRecord: false, record: record, renderedBy: cls)
        }
        id.utf8.withContiguousStorageIfAvailable(remember) ?? Array(id.utf8).withUnsafeBufferPointer(remember)
    }

    /// Remembers `record` as the message whose id is the bytes at `range`
    /// of it, when they are plain ASCII (what the id `String` decoded from
    /// them holds): true. False, with nothing remembered, when they are
    /// not (or `range` is not within `record`): the caller remembers it
    /// by its `String` instead. An empty id is not remembered (true).
    mutating func remember(idAt range: Range<Int>, record: UnsafeBufferPointer<UInt8>,
                           renderedBy cls: Unmanaged<RuntimeClass>) -> Bool {
        guard let base = record.baseAddress, range.lowerBound >= 0, range.upperBound <= record.count else { return false }
        guard !range.isEmpty else { return true }
        let id = UnsafeBufferPointer(start: base + range.lowerBound, count: range.count)
        let (hash, bits) = Self.hashAndBits(id)
        guard bits & Self.asciiMask == 0 else { return false }
        remember(id: id, hash: hash, inRecord: true, record: record, renderedBy: cls)
        return true
    }

    /// Remembers `record` as the id `id`, whose `hash(_:)` is `hash`: bytes
    /// within `record` when `inRecord`, else copied into the ring after it.
    private mutating func remember(id: UnsafeBufferPointer<UInt8>, hash: Int, inRecord: Bool, record: UnsafeBufferPointer<UInt8>,
                                   renderedBy cls: Unmanaged<RuntimeClass>) {
        guard record.count <= RecentRecords.maximumRecordBytes else { return }
        let slot = self.slot(for: id, hash: hash, renderedBy: cls)
        // What it held (the same id's earlier record, or an evicted one's) is free.
        slot.pointee.count = 0
        let total = inRecord ? record.count : record.count + id.count
        let (start, offset) = reserve(total)
        if let base = record.baseAddress, record.count > 0 {
            UnsafeMutableRawPointer(bytes + offset).copyMemory(from: base, byteCount: record.count)
        }
        let idOffset: Int
        if inRecord, let base = record.baseAddress, let idBase = id.baseAddress {
            idOffset = idBase - base
        } else {
            idOffset = record.count
            if let idBase = id.baseAddress, id.count > 0 {
                UnsafeMutableRawPointer(bytes + offset + idOffset).copyMemory(from: idBase, byteCount: id.count)
            }
        }
        slot.pointee.start = start
        slot.pointee.offset = offset
        slot.pointee.count = total
        slot.pointee.recordCount = record.count
        slot.pointee.idOffset = idOffset
        slot.pointee.idCount = id.count
    }

    /// True when the slot's id is the bytes of `id`.
    @inline(__always)
    private func holds(_ slot: UnsafeMutablePointer<Slot>, _ id: UnsafeBufferPointer<UInt8>) -> Bool {
        guard slot.pointee.idCount == id.count else { return false }
        guard let base = id.baseAddress else { return true }
        return memcmp(bytes + slot.pointee.offset + slot.pointee.idOffset, base, id.count) == 0
    }

    /// Room for `count` bytes in one piece at the head of the ring: where
    /// they start (as `head` counts) and where that is in `bytes`.
    private mutating func reserve(_ count: Int) -> (start: Int, offset: Int) {
        // A record does not wrap round the ring's end: it goes to the start.
        if headOffset + count > byteCapacity {
            head += byteCapacity - headOffset
            headOffset = 0
        }
        if head + count - byteCapacity > oldestStart { makeRoom(for: count) }
        let place = (head, headOffset)
        head += count
        headOffset += count
        return place
    }

    /// Makes sure that `count` bytes at the head overwrite no remembered
    /// record: finds the oldest one, and when that leaves less than a
    /// quarter of the ring to write before the next look, copies the
    /// records into a new ring of twice their size.
    private mutating func makeRoom(for count: Int) {
        var oldest = head
        var live = 0
        for number in 0..<used where slots[number].count > 0 {
            oldest = min(oldest, slots[number].start)
            live += slots[number].count
        }
        if oldest + byteCapacity - (head + count) >= byteCapacity / 4 {
            oldestStart = oldest
            return
        }
        let size = max(RecentRecords.initialBytes, 2 * (live + count))
        let new = UnsafeMutablePointer<UInt8>.allocate(capacity: size)
        var end = 0
        for number in 0..<used {
            let length = slots[number].count
            if length > 0 {
                UnsafeMutableRawPointer(new + end).copyMemory(from: bytes + slots[number].offset, byteCount: length)
            }
            slots[number].start = end
            slots[number].offset = end
            end += length
        }
        bytes.deallocate()
        bytes = new
        byteCapacity = size
        head = end
        headOffset = end
        oldestStart = 0
    }

    /// The slot of `id`, rendered by `cls`: its own when it is remembered,
    /// else a new one or, once all are in use, the oldest (its id
    /// forgotten: its entry stays, stale), entered in the table under `id`.
    /// The caller sets the record.
    private mutating func slot(for id: UnsafeBufferPointer<UInt8>, hash: Int, renderedBy cls: Unmanaged<RuntimeClass>) -> UnsafeMutablePointer<Slot> {
        // A quarter full, stale entries included: a new entry could make
        // the next probes long.
        if 4 * occupied >= mask + 1 { rebuild() }
        let tag = Self.tag(hash)
        // One probe finds the id or the free position a new entry takes.
        var position = hash & mask
        while true {
            let entry = table[position]
            if entry == 0 { break }
            if entry & Self.tagBits == tag {
                let slot = slots + Self.slotNumber(entry)
                if holds(slot, id) {
                    slot.pointee.cls = cls
                    return slot
                }
            }
            position = (position + 1) & mask
        }
        let number: Int
        if used < capacity {
            number = used
            (slots + number).initialize(to: Slot(hash: hash, start: head, offset: headOffset, count: 0, recordCount: 0,
                                                 idOffset: 0, idCount: 0, cls: cls))
            used += 1
        } else {
            // Reuse the oldest slot.
            number = next
            next = next + 1 == capacity ? 0 : next + 1
            slots[number].hash = hash
            slots[number].cls = cls
        }
        table[position] = tag | UInt64(number + 1)
        occupied += 1
        return slots + number
    }

    /// Empties the table of stale entries: enters each slot's id again.
    private mutating func rebuild() {
        table.update(repeating: 0, count: mask + 1)
        for number in 0..<used {
            var position = slots[number].hash & mask
            while table[position] != 0 { position = (position + 1) & mask }
            table[position] = Self.tag(slots[number].hash) | UInt64(number + 1)
        }
        occupied = used
    }

    /// The record remembered as `id` and the class that rendered it
    /// (unretained, as `remember` was given it); the bytes are the ring's,
    /// valid until the next `remember`.
    func lookup(_ id: String) -> (record: UnsafeBufferPointer<UInt8>, cls: Unmanaged<RuntimeClass>)? {
        id.utf8.withContiguousStorageIfAvailable { lookup($0) } ?? Array(id.utf8).withUnsafeBufferPointer { lookup($0) }
    }

    private func lookup(_ id: UnsafeBufferPointer<UInt8>) -> (record: UnsafeBufferPointer<UInt8>, cls: Unmanaged<RuntimeClass>)? {
        let hash = Self.hash(id)
        let tag = Self.tag(hash)
        var position = hash & mask
        while true {
            let entry = table[position]
            if entry == 0 { return nil }
            if entry & Self.tagBits == tag {
                let slot = slots + Self.slotNumber(entry)
                if holds(slot, id) {
                    return (UnsafeBufferPointer(start: bytes + slot.pointee.offset, count: slot.pointee.recordCount), slot.pointee.cls)
                }
            }
            position = (position + 1) & mask
        }
    }

    private static let tagBits: UInt64 = 0xFFFF_FFFF_0000_0000

    /// The bits of `hash` a table entry keeps (its home position among them).
    private static func tag(_ hash: Int) -> UInt64 { UInt64(truncatingIfNeeded: UInt32(truncatingIfNeeded: hash)) << 32 }

    private static func slotNumber(_ entry: UInt64) -> Int { Int(truncatingIfNeeded: entry & 0xFFFF_FFFF) - 1 }

    /// A hash of the UTF-8 of `id`: all bytes but the last taken eight at a
    /// time (a word is mixed in by a multiply and a shift; FNV-1a, a
    /// multiply a byte, was 82 instructions for an id of eight bytes), plus
    /// the last byte as it is. So ids that count up (`m-120`, `m-121`, …,
    /// as exports number messages) take neighbouring table positions, ten
    /// in a row in one or two cache lines: with the last byte mixed in too,
    /// every message remembered missed the cache at a random position of
    /// the table (some 2 % of all samples for 10⁶ `real` messages). Ids
    /// that differ elsewhere are spread as before; a run of neighbours is
    /// at most 256 long (the values of a byte).
    static func hash(_ id: String) -> Int {
        // Native and small strings (all of them on Linux) lend their UTF-8 as it is.
        id.utf8.withContiguousStorageIfAvailable(hash) ?? Array(id.utf8).withUnsafeBufferPointer(hash)
    }

    /// `hash(_:)` of the UTF-8 `bytes`.
    static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> Int { hashAndBits(bytes).hash }

    /// `hash(_:)` of `bytes`, and the bits of all its bytes or-ed together
    /// (`bits & asciiMask == 0`: every byte is ASCII), which the hash reads
    /// anyway: a loop of its own over an id cost some 25 instructions.
    @inline(__always)
    private static func hashAndBits(_ bytes: UnsafeBufferPointer<UInt8>) -> (hash: Int, bits: UInt64) {
        func mix(_ hash: UInt64, _ word: UInt64) -> UInt64 {
            let product = (hash ^ word) &* 0x9E37_79B9_7F4A_7C15
            return product ^ (product >> 32)
        }
        guard let last = bytes.last else { return (Int(truncatingIfNeeded: mix(0, 0xFF51_AFD7_ED55_8CCD)), 0) }
        let raw = UnsafeRawBufferPointer(bytes)
        let count = raw.count - 1
        var hash = UInt64(count)
        var bits = UInt64(last)
        var index = 0
        while count - index > 8 {
            let word = raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            hash = mix(hash, word)
            bits |= word
            index += 8
        }
        // The last one to eight bytes before the last: two halves that
        // may overlap, or the first, middle and last byte of up to three
        // (every byte, either way).
        let rest = count - index
        if rest >= 4 {
            let low = raw.loadUnaligned(fromByteOffset: index, as: UInt32.self)
            let high = raw.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self)
            let word = UInt64(low) | UInt64(high) << 32
            hash = mix(hash, word)
            bits |= word
        } else if rest > 0 {
            let word = UInt64(raw[index]) | UInt64(raw[index + rest / 2]) << 8 | UInt64(raw[count - 1]) << 16
            hash = mix(hash, word)
            bits |= word
        }
        return (Int(truncatingIfNeeded: mix(hash, 0xFF51_AFD7_ED55_8CCD) &+ UInt64(last)), bits)
    }

    /// The high bit of every byte of a word.
    private static let asciiMask: UInt64 = 0x8080_8080_8080_8080
}

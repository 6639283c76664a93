/// The last messages of a conversation, kept as their raw records so that a
/// later reply can quote them: the quote is only worked out when a reply asks
/// for it, and memory is bounded by a count and a per-record size.
///
/// Every message is remembered and most are never looked up, so the index
/// is a small open-addressing table (linear probing, FNV-1a over the id's
/// UTF-8, deletion by backward shift) instead of a `[String: Int]`, whose
/// SipHash and bucket bookkeeping cost about 2 000 instructions a message.
/// Ids come from input, so colliding ids are possible; the table holds at
/// most `capacity` ids at half load, so a probe is bounded by `capacity`
/// and a hostile input can only slow its own lookups, never grow memory.
///
/// A table entry carries the low 32 bits of its id's hash beside the slot
/// number, and each slot knows where its entry is: probing compares ids
/// only when those bits match, removal finds an entry's home position
/// without reading its slot, and evicting the oldest id needs no look-up.
/// Slots and table are allocated once, at their full size, and owned by
/// the ring (it cannot be copied), so remembering a record checks no
/// array's uniqueness or bounds.
struct RecentRecords: ~Copyable {
    static let defaultCapacity = 4096
    /// Larger records are not remembered (a reply to one shows its id).
    static let maximumRecordBytes = 16 << 10
    /// The largest buffer a slot keeps (`canTake`).
    static let maximumBufferBytes = 2 * maximumRecordBytes
    /// The most ids a ring holds (slot numbers and hash bits share an entry).
    static let maximumCapacity = 1 << 24

    private struct Slot {
        var id: String
        /// The table position of this slot's entry.
        var position: Int
        var record: [UInt8]
        var cls: RuntimeClass
    }

    let capacity: Int
    /// `capacity` slots, the first `used` initialized.
    private let slots: UnsafeMutablePointer<Slot>
    private var used = 0
    /// `mask + 1` positions, each holding the hash's low 32 bits above a
    /// slot number + 1; 0 is empty.
    private let table: UnsafeMutablePointer<UInt64>
    private let mask: Int
    /// The slot the next new id replaces once all are in use (the oldest).
    private var next = 0

    init(capacity: Int) {
        self.capacity = min(max(1, capacity), RecentRecords.maximumCapacity)
        var size = 16
        while size < 2 * self.capacity { size <<= 1 }
        slots = .allocate(capacity: self.capacity)
        table = .allocate(capacity: size)
        table.initialize(repeating: 0, count: size)
        mask = size - 1
    }

    deinit {
        slots.deinitialize(count: used)
        slots.deallocate()
        table.deallocate()
    }

    mutating func remember(id: String, record: UnsafeBufferPointer<UInt8>, renderedBy cls: RuntimeClass) {
        guard record.count <= RecentRecords.maximumRecordBytes else { return }
        let slot = self.slot(for: id, renderedBy: cls)
        slot.pointee.record.removeAll(keepingCapacity: true)
        slot.pointee.record.append(contentsOf: record)
    }

    /// Whether `remember(id:taking:renderedBy:)` may take `record`: it is
    /// small enough to remember, and its buffer did not grow larger than
    /// `maximumBufferBytes` for an earlier record, so the ring never holds
    /// more than that per slot.
    static func canTake(_ record: [UInt8]) -> Bool {
        record.count <= maximumRecordBytes && record.capacity <= maximumBufferBytes
    }

    /// `remember(id:record:renderedBy:)` for a record the caller no longer
    /// needs, which passed `canTake` (checked by the caller when it filled
    /// the buffer: the render workers' slots share it with a message that
    /// another thread parsed, and reading its size here would fetch that
    /// cache line back): its buffer moves into the ring (no copy), and
    /// `record` gets the buffer it replaces, with its old bytes still in it
    /// (the caller empties it before filling it again).
    mutating func remember(id: String, taking record: inout [UInt8], renderedBy cls: RuntimeClass) {
        assert(Self.canTake(record))
        swap(&slot(for: id, renderedBy: cls).pointee.record, &record)
    }

    /// The slot of `id`, rendered by `cls`: its own when it is remembered,
    /// else a new one or, once all are in use, the oldest (its id
    /// forgotten), entered in the table under `id`. The caller sets the record.
    private mutating func slot(for id: String, renderedBy cls: RuntimeClass) -> UnsafeMutablePointer<Slot> {
        let hash = Self.hash(id)
        let tag = Self.tag(hash)
        // One probe finds the id or the free position a new entry takes.
        var position = hash & mask
        while true {
            let entry = table[position]
            if entry == 0 { break }
            if entry & Self.tagBits == tag {
                let slot = slots + Self.slotNumber(entry)
                if slot.pointee.id == id {
                    if slot.pointee.cls !== cls { slot.pointee.cls = cls }
                    return slot
                }
            }
            position = (position + 1) & mask
        }
        let number: Int
        if used < capacity {
            number = used
            (slots + number).initialize(to: Slot(id: id, position: position, record: [], cls: cls))
            used += 1
        } else {
            // Reuse the oldest slot and its buffer.
            number = next
            next = next + 1 == capacity ? 0 : next + 1
            remove(at: slots[number].position)
            // The removal may have freed a position earlier on this probe run.
            position = hash & mask
            while table[position] != 0 { position = (position + 1) & mask }
            slots[number].id = id
            slots[number].position = position
            // Most messages are rendered by a few classes: no reference counting when it is the same.
            if slots[number].cls !== cls { slots[number].cls = cls }
        }
        table[position] = tag | UInt64(number + 1)
        return slots + number
    }

    func lookup(_ id: String) -> (record: [UInt8], cls: RuntimeClass)? {
        let hash = Self.hash(id)
        let tag = Self.tag(hash)
        var position = hash & mask
        while true {
            let entry = table[position]
            if entry == 0 { return nil }
            if entry & Self.tagBits == tag {
                let slot = slots + Self.slotNumber(entry)
                if slot.pointee.id == id { return (slot.pointee.record, slot.pointee.cls) }
            }
            position = (position + 1) & mask
        }
    }

    /// Empties a table position, moving later entries of the probe run back
    /// so that every remaining id is still found from its home position.
    private mutating func remove(at position: Int) {
        var hole = position
        var probe = position
        while true {
            probe = (probe + 1) & mask
            let entry = table[probe]
            if entry == 0 { break }
            let home = Int(truncatingIfNeeded: entry >> 32) & mask
            // The entry may fill the hole when the hole lies on its way
            // from its home position to where it is.
            if (probe - home) & mask >= (probe - hole) & mask {
                table[hole] = entry
                slots[Self.slotNumber(entry)].position = hole
                hole = probe
            }
        }
        table[hole] = 0
    }

    private static let tagBits: UInt64 = 0xFFFF_FFFF_0000_0000

    /// The bits of `hash` a table entry keeps (its home position among them).
    private static func tag(_ hash: Int) -> UInt64 { UInt64(truncatingIfNeeded: UInt32(truncatingIfNeeded: hash)) << 32 }

    private static func slotNumber(_ entry: UInt64) -> Int { Int(truncatingIfNeeded: entry & 0xFFFF_FFFF) - 1 }

    /// FNV-1a (64-bit) over the UTF-8 of `id`, folded to an `Int`.
    static func hash(_ id: String) -> Int {
        func fnv(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
            var hash: UInt64 = 0xCBF2_9CE4_8422_2325
            for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
            return hash
        }
        // Native and small strings (all of them on Linux) lend their UTF-8 as it is.
        let value = id.utf8.withContiguousStorageIfAvailable(fnv) ?? Array(id.utf8).withUnsafeBufferPointer(fnv)
        return Int(truncatingIfNeeded: value ^ (value >> 29))
    }
}

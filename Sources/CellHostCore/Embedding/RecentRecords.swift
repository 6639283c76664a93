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
struct RecentRecords {
    static let defaultCapacity = 4096
    /// Larger records are not remembered (a reply to one shows its id).
    static let maximumRecordBytes = 16 << 10
    /// The largest buffer a slot keeps (`remember(id:taking:renderedBy:)`).
    static let maximumBufferBytes = 2 * maximumRecordBytes

    private struct Slot {
        var id: String
        var hash: Int
        var record: [UInt8]
        var cls: RuntimeClass?
    }

    let capacity: Int
    private var slots: [Slot] = []
    /// Table positions hold a slot number + 1; 0 is empty.
    private var table: [Int32]
    private let mask: Int
    /// The slot the next new id replaces once all are in use (the oldest).
    private var next = 0

    init(capacity: Int) {
        self.capacity = max(1, capacity)
        var size = 16
        while size < 2 * self.capacity { size <<= 1 }
        table = [Int32](repeating: 0, count: size)
        mask = size - 1
    }

    mutating func remember(id: String, record: UnsafeBufferPointer<UInt8>, renderedBy cls: RuntimeClass) {
        guard record.count <= RecentRecords.maximumRecordBytes else { return }
        let slot = self.slot(for: id)
        slots[slot].record.removeAll(keepingCapacity: true)
        slots[slot].record.append(contentsOf: record)
        slots[slot].cls = cls
    }

    /// `remember(id:record:renderedBy:)` for a record the caller no longer
    /// needs: its buffer moves into the ring (no copy), and `record` gets
    /// the buffer it replaces, emptied, for the caller to reuse. A buffer
    /// grown larger than `maximumBufferBytes` by an earlier record is copied
    /// from instead, so the ring never holds more than that per slot.
    mutating func remember(id: String, taking record: inout [UInt8], renderedBy cls: RuntimeClass) {
        guard record.count <= RecentRecords.maximumRecordBytes else { return }
        guard record.capacity <= RecentRecords.maximumBufferBytes else {
            record.withUnsafeBufferPointer { remember(id: id, record: $0, renderedBy: cls) }
            return
        }
        let slot = self.slot(for: id)
        swap(&slots[slot].record, &record)
        record.removeAll(keepingCapacity: true)
        slots[slot].cls = cls
    }

    /// The slot of `id`: its own when it is remembered, else a new one or,
    /// once all are in use, the oldest (its id forgotten), entered in the
    /// table under `id`. The caller sets the record and class.
    private mutating func slot(for id: String) -> Int {
        let hash = Self.hash(id)
        if let position = find(id, hash) { return Int(table[position]) - 1 }
        let slot: Int
        if slots.count < capacity {
            slot = slots.count
            slots.append(Slot(id: id, hash: hash, record: [], cls: nil))
        } else {
            // Reuse the oldest slot and its buffer.
            slot = next
            if let old = find(slots[slot].id, slots[slot].hash) { remove(at: old) }
            slots[slot].id = id
            slots[slot].hash = hash
            next = (next + 1) % capacity
        }
        var position = hash & mask
        while table[position] != 0 { position = (position + 1) & mask }
        table[position] = Int32(slot + 1)
        return slot
    }

    func lookup(_ id: String) -> (record: [UInt8], cls: RuntimeClass)? {
        guard let position = find(id, Self.hash(id)) else { return nil }
        let slot = slots[Int(table[position]) - 1]
        guard let cls = slot.cls else { return nil }
        return (slot.record, cls)
    }

    /// The table position holding `id`, if it is remembered.
    private func find(_ id: String, _ hash: Int) -> Int? {
        var position = hash & mask
        while true {
            let entry = table[position]
            if entry == 0 { return nil }
            let slot = Int(entry) - 1
            if slots[slot].hash == hash && slots[slot].id == id { return position }
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
            let home = slots[Int(entry) - 1].hash & mask
            // The entry may fill the hole when the hole lies on its way
            // from its home position to where it is.
            if (probe - home) & mask >= (probe - hole) & mask {
                table[hole] = entry
                hole = probe
            }
        }
        table[hole] = 0
    }

    /// FNV-1a (64-bit) over the UTF-8 of `id`, folded to an `Int`.
    static func hash(_ id: String) -> Int {
        var id = id
        let value = id.withUTF8 { bytes -> UInt64 in
            var hash: UInt64 = 0xCBF2_9CE4_8422_2325
            for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
            return hash
        }
        return Int(truncatingIfNeeded: value ^ (value >> 29))
    }
}

/// The last messages of a conversation, kept as their raw records so that a
/// later reply can quote them: the quote is only worked out when a reply asks
/// for it, and memory is bounded by a count and a per-record size.
struct RecentRecords {
    static let defaultCapacity = 4096
    /// Larger records are not remembered (a reply to one shows its id).
    static let maximumRecordBytes = 16 << 10

    private struct Slot {
        var id: String
        var record: [UInt8]
        var cls: RuntimeClass?
    }

    let capacity: Int
    private var slots: [Slot] = []
    private var index: [String: Int] = [:]
    private var next = 0

    init(capacity: Int) { self.capacity = capacity }

    mutating func remember(id: String, record: UnsafeBufferPointer<UInt8>, renderedBy cls: RuntimeClass) {
        guard record.count <= RecentRecords.maximumRecordBytes else { return }
        if let existing = index[id] {
            slots[existing].record.removeAll(keepingCapacity: true)
            slots[existing].record.append(contentsOf: record)
            slots[existing].cls = cls
            return
        }
        if slots.count < capacity {
            index[id] = slots.count
            slots.append(Slot(id: id, record: Array(record), cls: cls))
            return
        }
        // Reuse the oldest slot and its buffer.
        index[slots[next].id] = nil
        slots[next].id = id
        slots[next].record.removeAll(keepingCapacity: true)
        slots[next].record.append(contentsOf: record)
        slots[next].cls = cls
        index[id] = next
        next = (next + 1) % capacity
    }

    func lookup(_ id: String) -> (record: [UInt8], cls: RuntimeClass)? {
        guard let position = index[id], let cls = slots[position].cls else { return nil }
        return (slots[position].record, cls)
    }
}

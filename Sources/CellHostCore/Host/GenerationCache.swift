/// A thread's last few answers from something shared (a conversation's
/// instances, the registry's chains), each kept with the generation of the
/// source it came from: an answer is used only while its source is still
/// of that generation, so the source never has to tell the caches it
/// changed. Eight entries, the oldest replaced first; a linear search, as
/// the keys are few and compared cheaply.
struct GenerationCache<Key: Equatable, Value> {
    private var entries: [(generation: Int, key: Key, value: Value)] = []
    static var capacity: Int { 8 }

    /// The value kept for `key` at `generation`, if any.
    func value(for key: Key, generation: Int) -> Value? {
        for entry in entries where entry.generation == generation && entry.key == key { return entry.value }
        return nil
    }

    /// Keeps `value` for `key` at `generation`, replacing the oldest entry when full.
    mutating func insert(_ value: Value, for key: Key, generation: Int) {
        if entries.count >= Self.capacity { entries.removeFirst() }
        entries.append((generation, key, value))
    }
}

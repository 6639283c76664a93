import Glibc

/// A string's number in a `NameTable`.
struct Name: Hashable, Sendable {
    let rawValue: UInt32

    init(_ index: Int) { rawValue = UInt32(truncatingIfNeeded: index) }

    var index: Int { Int(rawValue) }
}

/// Strings kept once each and referred to by number (`Name`): the class
/// names, selectors, encodings, message classes and paths of a plugin
/// catalog repeat across plugins, and two names are compared, hashed and
/// stored as the integers they are. A name's `String` is made from its
/// bytes when first asked for.
///
/// Thread-safe: render worker threads look names up while linking a class
/// on first use.
final class NameTable: @unchecked Sendable {
    private var bytes: [UInt8] = []
    /// Where each name's bytes end in `bytes` (each starts where the one before ends).
    private var ends: [Int] = []
    /// The strings made so far, and where each name's is in it (-1: not
    /// made): plain integers per name, so a table of many names costs
    /// nothing to free.
    private var strings: [String] = []
    private var madeString: [Int32] = []
    /// Open addressing over the names, by `ByteHash`: -1 marks a free slot.
    /// Built on the first look-up, so a table read from a file costs
    /// nothing until a name is searched for.
    private var slots: [Int32] = []
    private let lock = RecursiveLock()

    init() {}

    /// The most names a table read from bytes may hold.
    static let maximumCount = 1 << 24

    var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return ends.count
    }

    /// The name of `string`, added if it is not in the table yet.
    func intern(_ string: String) -> Name {
        var string = string
        return string.withUTF8 { intern(UnsafeRawBufferPointer($0)) }
    }

    /// The name of these bytes, added if they are not in the table yet.
    func intern(_ key: UnsafeRawBufferPointer) -> Name {
        lock.lock()
        defer { lock.unlock() }
        if let found = locate(key) { return found }
        bytes.append(contentsOf: key)
        ends.append(bytes.count)
        madeString.append(-1)
        let name = Name(ends.count - 1)
        if ends.count * 2 > slots.count { rebuildIndex() } else { place(name, hash: ByteHash.hash(key)) }
        return name
    }

    /// The name of `string`, if the table holds it.
    func find(_ string: String) -> Name? {
        var string = string
        return string.withUTF8 { find(UnsafeRawBufferPointer($0)) }
    }

    /// The name of these bytes, if the table holds them.
    func find(_ key: UnsafeRawBufferPointer) -> Name? {
        lock.lock()
        defer { lock.unlock() }
        return locate(key)
    }

    /// The string of `name` (invalid UTF-8 repaired), made once.
    func string(_ name: Name) -> String {
        lock.lock()
        defer { lock.unlock() }
        if madeString[name.index] >= 0 { return strings[Int(madeString[name.index])] }
        let made = bytes.withUnsafeBufferPointer { buffer in
            String(decoding: UnsafeBufferPointer(rebasing: buffer[range(name)]), as: UTF8.self)
        }
        madeString[name.index] = Int32(strings.count)
        strings.append(made)
        return made
    }

    /// Calls `body` with the bytes of `name`.
    func withBytes<T>(_ name: Name, _ body: (UnsafeRawBufferPointer) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        let range = range(name)
        return bytes.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[range])) }
    }

    private func range(_ name: Name) -> Range<Int> {
        (name.index == 0 ? 0 : ends[name.index - 1])..<ends[name.index]
    }

    private func locate(_ key: UnsafeRawBufferPointer) -> Name? {
        if slots.isEmpty {
            guard !ends.isEmpty else { return nil }
            rebuildIndex()
        }
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: ByteHash.hash(key)) & mask
        while true {
            let entry = slots[slot]
            if entry < 0 { return nil }
            let name = Name(Int(entry))
            let range = range(name)
            if range.count == key.count {
                let equal = bytes.withUnsafeBytes { stored in
                    key.isEmpty || memcmp(stored.baseAddress! + range.lowerBound, key.baseAddress!, key.count) == 0
                }
                if equal { return name }
            }
            slot = (slot + 1) & mask
        }
    }

    private func rebuildIndex() {
        var capacity = 16
        while capacity < ends.count * 2 { capacity <<= 1 }
        slots = [Int32](repeating: -1, count: capacity)
        let mask = capacity - 1
        bytes.withUnsafeBytes { stored in
            slots.withUnsafeMutableBufferPointer { slots in
                var start = 0
                for (index, end) in ends.enumerated() {
                    var slot = Int(truncatingIfNeeded: ByteHash.hash(UnsafeRawBufferPointer(rebasing: stored[start..<end]))) & mask
                    while slots[slot] >= 0 { slot = (slot + 1) & mask }
                    slots[slot] = Int32(truncatingIfNeeded: index)
                    start = end
                }
            }
        }
    }

    private func place(_ name: Name, hash: UInt64) {
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        while slots[slot] >= 0 { slot = (slot + 1) & mask }
        slots[slot] = Int32(truncatingIfNeeded: name.index)
    }

    // MARK: Coding

    /// The table as bytes: the count, each name's length, then every name's bytes.
    func encode(into writer: inout WireWriter) {
        lock.lock()
        defer { lock.unlock() }
        writer.u32(UInt32(ends.count))
        var start = 0
        for end in ends {
            writer.u32(UInt32(end - start))
            start = end
        }
        writer.data(bytes)
    }

    /// A table read from bytes `encode` wrote; throws `WireReader.WireError`
    /// when they are not such bytes.
    static func decode(_ reader: inout WireReader) throws -> NameTable {
        let count = try reader.count(limit: maximumCount)
        let table = NameTable()
        table.ends.reserveCapacity(count)
        var end = 0
        for _ in 0..<count {
            end += Int(try reader.u32())
            // Lengths are checked against what is left, so the sum stays small.
            guard end <= reader.bytes.count else { throw WireReader.WireError() }
            table.ends.append(end)
        }
        let blob = try reader.data()
        guard blob.count == end else { throw WireReader.WireError() }
        table.bytes = Array(blob)
        table.madeString = Array(repeating: -1, count: count)
        return table
    }
}

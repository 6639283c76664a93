import Glibc

/// The last few distinct values of one string field of a message (its
/// type, its sender's id or name), so that a value seen again makes no new
/// `String`. The senders of a conversation take turns, so the one previous
/// value alone would often not match. A render thread keeps one for all
/// the messages it parses (`Message.RecentFields` in `CallState.recent`):
/// a `Message`'s own sees only every ring's length-th record, and is cold in
/// the cache by then.
///
/// An entry keeps the first 16 bytes of its value's UTF-8 as two words
/// (`KeyWord`) beside the value: a candidate is compared by its length and
/// two integers, and a longer one by a `memcmp` of the rest, never through
/// a `String`. The candidate's raw bytes are compared with the value's own
/// UTF-8, so a match is always right: bytes equal to valid UTF-8 decode to
/// exactly that string (a value that was repaired when decoded is simply
/// not matched by its original bytes).
struct RecentStrings {
    /// Values kept; the oldest is replaced when a new one comes.
    static let capacity = 8

    private struct Entry {
        var length: Int
        var low: UInt64
        var high: UInt64
        var value: String
    }

    private var entries: [Entry] = []
    /// The entry a new value replaces once all are in use.
    private var next = 0

    init() {
        entries.reserveCapacity(Self.capacity)
    }

    /// The decoded string at `index` of `document` (what `string(_:)`
    /// gives): a kept value when its bytes are the same, else a new string,
    /// kept. Nil when the node is not a string.
    mutating func string(_ document: JSONDocument, _ index: Int) -> String? {
        var value = ""
        return assign(document, index, to: &value) ? value : nil
    }

    /// Sets `target` to what `string(_:_:)` gives and returns true, or
    /// returns false when the node is not a string. A kept value is
    /// stored only when `target` does not hold it already (`SmallASCII.same`):
    /// a `Message`'s field often holds the same value as the message its
    /// slot held before (most types are `text`), and storing it would
    /// retain the new string and release the old, two calls.
    mutating func assign(_ document: JSONDocument, _ index: Int, to target: inout String) -> Bool {
        guard let range = document.rawString(index) else {
            guard let value = document.string(index) else { return false }
            target = value
            return true
        }
        let length = range.count
        return document.bytes.withUnsafeBufferPointer { all -> Bool in
            guard let base = all.baseAddress else {
                target = ""
                return true
            }
            let start = base + range.lowerBound
            let (low, high) = Self.words(base, range.lowerBound, length, count: all.count)
            let found = entries.withUnsafeBufferPointer { entries -> Int? in
                for position in entries.indices {
                    let entry = entries[position]
                    if entry.length == length, entry.low == low, entry.high == high,
                       length <= 16 || Self.tailEquals(entry.value, start, length) {
                        return position
                    }
                }
                return nil
            }
            if let found {
                entries.withUnsafeBufferPointer { entries in
                    if !SmallASCII.same(entries[found].value, target) { target = entries[found].value }
                }
                return true
            }
            let value = Self.decoded(UnsafeBufferPointer(start: start, count: length))
            remember(value)
            target = value
            return true
        }
    }

    /// `bytes` as a string, invalid UTF-8 repaired with U+FFFD (what
    /// `String(decoding:as:)` gives). Up to 15 bytes, the string is built in
    /// place as a small string (`String(unsafeUninitializedCapacity:)`,
    /// which checks only that the bytes are ASCII and repairs as
    /// `String(decoding:as:)` does when they are not): about 105
    /// instructions for a message's id against 210 for
    /// `String(decoding:as:)`'s general path. Ids and new field values
    /// are short.
    static func decoded(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        guard bytes.count <= 15, let source = bytes.baseAddress else { return String(decoding: bytes, as: UTF8.self) }
        return String(unsafeUninitializedCapacity: bytes.count) { buffer in
            guard let target = buffer.baseAddress else { return 0 }
            target.initialize(from: source, count: bytes.count)
            return bytes.count
        }
    }

    /// The bytes at `range` of `all` as a string (what `decoded(_:)`
    /// gives): with `small` (`SmallASCII.layoutHolds`, which the caller
    /// keeps: a static's every read checks that it was set), up to 15
    /// ASCII bytes (a message's id, as a rule) are made into a small
    /// string from their two words (`SmallASCII`), some 15 instructions
    /// where `String(unsafeUninitializedCapacity:)` cost 104 (a call that
    /// checks and copies the bytes again).
    @inline(__always)
    static func decoded(_ all: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, small: Bool) -> String {
        let length = range.count
        if small, length <= 15, let base = all.baseAddress, range.lowerBound >= 0, range.upperBound <= all.count {
            let (low, high) = words(base, range.lowerBound, length, count: all.count)
            if let small = SmallASCII.string(low, high, count: length) { return small }
        }
        return decoded(UnsafeBufferPointer(rebasing: all[range]))
    }

    /// Keeps `value`, in place of the oldest value once all entries are in use.
    private mutating func remember(_ value: String) {
        let kept = value.utf8.withContiguousStorageIfAvailable { utf8 -> Entry? in
            guard let base = utf8.baseAddress else { return nil }
            let (low, high) = Self.words(base, 0, utf8.count, count: utf8.count)
            return Entry(length: utf8.count, low: low, high: high, value: value)
        }
        guard let entry = kept ?? nil else { return }
        if entries.count < Self.capacity {
            entries.append(entry)
        } else {
            entries[next] = entry
            next = next + 1 == Self.capacity ? 0 : next + 1
        }
    }

    /// The first 16 of the `length` bytes at `base + start` as two words
    /// (zero past the end), in a buffer of `count` bytes.
    @inline(__always)
    private static func words(_ base: UnsafePointer<UInt8>, _ start: Int, _ length: Int, count: Int) -> (UInt64, UInt64) {
        (KeyWord.of(base, start, length, count: count),
         length > 8 ? KeyWord.of(base, start + 8, length - 8, count: count) : 0)
    }

    /// True when the bytes of `value`'s UTF-8 after the 16th equal those
    /// at `start` (both are `length` bytes long).
    private static func tailEquals(_ value: String, _ start: UnsafePointer<UInt8>, _ length: Int) -> Bool {
        value.utf8.withContiguousStorageIfAvailable { utf8 in
            guard let base = utf8.baseAddress, utf8.count == length else { return false }
            return memcmp(base + 16, start + 16, length - 16) == 0
        } ?? false
    }
}

/// Small ASCII strings made from their bytes as two words, the way the
/// standard library lays out a string of up to 15 UTF-8 bytes on a 64-bit
/// platform: the bytes in order, then a top byte of flags (immortal,
/// ASCII, small: 0xE0) and the count. Used only when a string the standard
/// library made is laid out so (`layoutHolds`, checked once for every
/// length); else, or for other bytes, nil (the caller takes the general path).
enum SmallASCII {
    /// The string of the `count` (at most 15) bytes in `low` and `high`
    /// (zero past the count), or nil when one is not ASCII. Only when
    /// `layoutHolds`.
    @inline(__always)
    static func string(_ low: UInt64, _ high: UInt64, count: Int) -> String? {
        #if arch(x86_64) || arch(arm64)
        guard count <= 15, (low | high) & 0x8080_8080_8080_8080 == 0 else { return nil }
        return unsafeBitCast((low, high | (0xE0 | UInt64(truncatingIfNeeded: count)) << 56), to: String.self)
        #else
        return nil
        #endif
    }

    /// True when `a` and `b` are the same string value: the same small
    /// string or the same storage (false for equal strings stored apart).
    @inline(__always)
    static func same(_ a: String, _ b: String) -> Bool {
        #if arch(x86_64) || arch(arm64)
        return unsafeBitCast(a, to: (UInt64, UInt64).self) == unsafeBitCast(b, to: (UInt64, UInt64).self)
        #else
        return false
        #endif
    }

    /// True when strings the standard library makes of 0 to 15 ASCII bytes
    /// have the bits `string(_:_:count:)` gives.
    static let layoutHolds: Bool = {
        #if arch(x86_64) || arch(arm64)
        guard MemoryLayout<String>.size == 16 else { return false }
        for count in 0...15 {
            let bytes = (0..<count).map { UInt8(truncatingIfNeeded: 0x21 &+ $0 &* 7) & 0x7F }
            var low: UInt64 = 0, high: UInt64 = 0
            for (index, byte) in bytes.enumerated() {
                if index < 8 { low |= UInt64(byte) << (8 * UInt64(index)) } else { high |= UInt64(byte) << (8 * UInt64(index - 8)) }
            }
            let made = String(decoding: bytes, as: UTF8.self)
            let (madeLow, madeHigh) = unsafeBitCast(made, to: (UInt64, UInt64).self)
            guard madeLow == low, madeHigh == high | (0xE0 | UInt64(count)) << 56 else { return false }
        }
        return true
        #else
        return false
        #endif
    }()
}

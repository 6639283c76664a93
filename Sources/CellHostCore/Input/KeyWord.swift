/// The first eight bytes of a JSON key as one little-endian integer (zero
/// above a shorter key's end), so that `Message.load` tells the fields it
/// reads apart with one integer comparison per candidate instead of a
/// `memcmp` each. Two keys of the same length up to 8 bytes are equal
/// exactly when their words are; a longer key also compares its other bytes.
enum KeyWord {
    /// The word of the `length` bytes at `base + start`, in a buffer of
    /// `count` bytes (read in one load when eight bytes are there).
    @inline(__always)
    static func of(_ base: UnsafePointer<UInt8>, _ start: Int, _ length: Int, count: Int) -> UInt64 {
        let kept = min(length, 8)
        if start + 8 <= count {
            let word = UInt64(littleEndian: UnsafeRawPointer(base + start).loadUnaligned(as: UInt64.self))
            return kept == 8 ? word : word & ((1 << (8 * UInt64(kept))) - 1)
        }
        var word: UInt64 = 0
        for index in 0..<kept { word |= UInt64(base[start + index]) << (8 * UInt64(index)) }
        return word
    }

    /// The word of `name` (for the constants' test).
    static func of(_ name: StaticString) -> UInt64 {
        of(name.utf8Start, 0, name.utf8CodeUnitCount, count: name.utf8CodeUnitCount)
    }

    // The keys `Message.load` reads ("directio" and "reaction" are the
    // first eight bytes of "direction" and "reactions").
    static let id: UInt64 = 0x6469
    static let type: UInt64 = 0x6570_7974
    static let time: UInt64 = 0x656D_6974
    static let text: UInt64 = 0x7478_6574
    static let sender: UInt64 = 0x7265_646E_6573
    static let status: UInt64 = 0x7375_7461_7473
    static let edited: UInt64 = 0x6465_7469_6465
    static let replyTo: UInt64 = 0x6F74_5F79_6C70_6572
    static let directio: UInt64 = 0x6F69_7463_6572_6964
    static let reaction: UInt64 = 0x6E6F_6974_6361_6572
}

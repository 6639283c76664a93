/// A fast 64-bit hash of bytes, eight at a time: what the plugin catalog's
/// name table hashes names with (a `String`'s `Hashable` conformance costs
/// several hundred instructions a key), and the plugin cache's checksum.
///
/// Each step maps the state one-to-one for a given word, so changing any
/// one word of the input always changes the hash.
enum ByteHash {
    static let seed: UInt64 = 0x243F_6A88_85A3_08D3

    /// The hash of `bytes`, continuing from `state`.
    static func hash(_ bytes: UnsafeRawBufferPointer, state: UInt64 = seed) -> UInt64 {
        var state = state ^ UInt64(bytes.count)
        var offset = 0
        while bytes.count - offset >= 8 {
            state = mix(state, UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)))
            offset += 8
        }
        if offset < bytes.count {
            var tail: UInt64 = 0
            for index in offset..<bytes.count { tail |= UInt64(bytes[index]) << (8 * UInt64(index - offset)) }
            state = mix(state, tail)
        }
        return finish(state)
    }

    /// The hash of an array's bytes.
    static func hash(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        bytes.withUnsafeBytes { hash($0) }
    }

    @inline(__always)
    private static func mix(_ state: UInt64, _ word: UInt64) -> UInt64 {
        let mixed = (state ^ word) &* 0x9E37_79B9_7F4A_7C15
        return mixed ^ (mixed >> 29)
    }

    @inline(__always)
    private static func finish(_ state: UInt64) -> UInt64 {
        var value = state ^ (state >> 33)
        value = value &* 0xFF51_AFD7_ED55_8CCD
        return value ^ (value >> 33)
    }
}

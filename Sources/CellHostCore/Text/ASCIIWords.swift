/// Word boundaries in ASCII text, eight bytes at a time: the wrapper's
/// fast path looks for spaces, for the end of a run of spaces and for the
/// first byte of 0x80 or more with these instead of a loop per byte (whose
/// exit the processor mispredicts at the end of every word).
///
/// A chunk is eight bytes as a little-endian word (the first byte lowest);
/// a search flags the bytes it looks for by their high bit, exactly (no
/// false flags above a true one, so the highest flag can be used too), and
/// cuts the flags off at the end of the range.
enum ASCIIWords {
    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highs: UInt64 = 0x8080_8080_8080_8080
    private static let lows: UInt64 = 0x7F7F_7F7F_7F7F_7F7F
    private static let blanks: UInt64 = 0x2020_2020_2020_2020

    /// `bytes[index..<index + 8]` (`index` < `bytes.count`) as a chunk;
    /// bytes past the end of `bytes` read as zero. Near the end, the
    /// buffer's last eight bytes are read and shifted down (no loop).
    @inline(__always)
    static func chunk(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> UInt64 {
        guard let base = bytes.baseAddress.map(UnsafeRawPointer.init) else { return 0 }
        let count = bytes.count
        if index &+ 8 <= count {
            return UInt64(littleEndian: (base + index).loadUnaligned(as: UInt64.self))
        }
        if count >= 8 {
            let last = UInt64(littleEndian: (base + (count &- 8)).loadUnaligned(as: UInt64.self))
            return last >> (UInt64(truncatingIfNeeded: index &- (count &- 8)) &* 8)
        }
        var word: UInt64 = 0
        var offset = count &- 1
        while offset >= index {
            word = word << 8 | UInt64(bytes[offset])
            offset &-= 1
        }
        return word
    }

    /// The spaces of `chunk`, flagged exactly (for a search backwards).
    @inline(__always)
    static func spaces(_ chunk: UInt64) -> UInt64 {
        let other = chunk ^ blanks
        // Adding 0x7F to a byte's low seven bits sets its high bit unless
        // they are all zero; no carry leaves the byte.
        return ~(((other & lows) &+ lows) | other) & highs
    }

    /// Flags for the first `count` bytes of a chunk (all eight when `count` >= 8).
    @inline(__always)
    static func leading(_ count: Int) -> UInt64 {
        count >= 8 ? ~0 : (1 &<< (UInt64(truncatingIfNeeded: count) &* 8)) &- 1
    }

    /// The first position in `start..<end` whose byte `select` flags in
    /// its chunk, or `end`. Only the lowest flag of a chunk is used, so it
    /// alone needs to be exact; flags past `end` are cut off by `min`.
    @inline(__always)
    private static func first(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, end: Int,
                              _ select: (UInt64) -> UInt64) -> Int {
        var index = start
        while index < end {
            let found = select(chunk(bytes, at: index))
            if found != 0 {
                let position = index &+ found.trailingZeroBitCount &>> 3
                return position < end ? position : end
            }
            index &+= 8
        }
        return end
    }

    /// The first space in `bytes[start..<end]`, or `end`.
    @inline(__always)
    static func nextSpace(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, end: Int) -> Int {
        // The zero bytes of `chunk ^ blanks`: the lowest flag is exact
        // (a borrow can only flag a byte above a zero one).
        first(bytes, from: start, end: end) { (($0 ^ blanks) &- ones) & ~($0 ^ blanks) & highs }
    }

    /// The first byte other than a space in `bytes[start..<end]`, or `end`.
    @inline(__always)
    static func nextNonSpace(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, end: Int) -> Int {
        // The lowest set bit of `chunk ^ blanks` is in its first byte that is not a space.
        first(bytes, from: start, end: end) { $0 ^ blanks }
    }

    /// The first byte of 0x80 or more in `bytes[start..<end]`, or `end`:
    /// 32 bytes at a time while they are all ASCII (most text is), then a
    /// chunk at a time.
    @inline(__always)
    static func firstNonASCII(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, end: Int) -> Int {
        var index = start
        if let base = bytes.baseAddress.map(UnsafeRawPointer.init) {
            while index &+ 32 <= end {
                let high = ((base + index).loadUnaligned(as: UInt64.self)
                            | (base + (index &+ 8)).loadUnaligned(as: UInt64.self)
                            | (base + (index &+ 16)).loadUnaligned(as: UInt64.self)
                            | (base + (index &+ 24)).loadUnaligned(as: UInt64.self)) & highs
                if high != 0 { break }
                index &+= 32
            }
        }
        return first(bytes, from: index, end: end) { $0 & highs }
    }

    /// The end of the last word of `bytes[start..<end]` (the spaces after
    /// it taken off), or `start` when it is all spaces.
    @inline(__always)
    static func endOfLastWord(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, end: Int) -> Int {
        var wordEnd = end
        while wordEnd > start, bytes[wordEnd &- 1] == 0x20 { wordEnd &-= 1 }
        return wordEnd
    }

    /// The end of the last word of `bytes[start...]` that a space at or
    /// before `reach` follows (the spaces before that space taken off), or
    /// `start` when there is none: every word from `start` to there fits
    /// in `reach - start` columns and is complete.
    @inline(__always)
    static func lastWordEnd(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, reach: Int) -> Int {
        var top = reach
        while top > start {
            // The last space in `low...top`, eight bytes at a time backwards.
            let low = top &- 7 > start ? top &- 7 : start &+ 1
            let found = spaces(chunk(bytes, at: low)) & leading(top &- low &+ 1)
            if found != 0 {
                var wordEnd = low &+ (63 &- found.leadingZeroBitCount) &>> 3
                while wordEnd > start, bytes[wordEnd &- 1] == 0x20 { wordEnd &-= 1 }
                return wordEnd
            }
            top = low &- 1
        }
        return start
    }
}

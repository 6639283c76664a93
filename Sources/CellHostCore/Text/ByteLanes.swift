/// Sixteen bytes compared at once (`SIMD16<UInt8>`, SSE2 on x86-64): a
/// compare gives a mask whose matching lanes are all ones, read here as two
/// 64-bit words, where the stdlib's lane loop would go through memory.
extension SIMDMask where Storage == SIMD16<Int8> {
    /// The index of the first lane that matched, or nil when none did.
    @inline(__always)
    var firstTrueLane: Int? {
        let halves = unsafeBitCast(self, to: SIMD2<UInt64>.self)
        let low = UInt64(littleEndian: halves[0]), high = UInt64(littleEndian: halves[1])
        if low != 0 { return low.trailingZeroBitCount &>> 3 }
        if high != 0 { return 8 &+ high.trailingZeroBitCount &>> 3 }
        return nil
    }

    /// True when any lane matched.
    @inline(__always)
    var anyLane: Bool {
        let halves = unsafeBitCast(self, to: SIMD2<UInt64>.self)
        return halves[0] | halves[1] != 0
    }
}

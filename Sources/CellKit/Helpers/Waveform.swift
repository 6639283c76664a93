/// Waveforms drawn with the eight block elements ▁▂▃▄▅▆▇█.
public enum Waveform {
    /// The bar characters, lowest to highest.
    public static let bars: [Character] = ["▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"]

    /// Scales `samples` to 0...1 by their own minimum and maximum (any range
    /// and sign; non-finite values are dropped). All-equal samples become
    /// 0.5, so a flat waveform draws as middle bars.
    public static func normalize(_ samples: [Double]) -> [Double] {
        let finite = samples.filter(\.isFinite)
        guard let low = finite.min(), let high = finite.max() else { return [] }
        guard high > low else { return finite.map { _ in 0.5 } }
        return finite.map { ($0 - low) / (high - low) }
    }

    /// Resamples `values` to exactly `count` values: each output value is the
    /// average of its bucket when there are more inputs than outputs, and the
    /// nearest input when there are fewer. Empty input or `count <= 0` gives `[]`.
    public static func resample(_ values: [Double], to count: Int) -> [Double] {
        guard !values.isEmpty, count > 0 else { return [] }
        let n = values.count
        if n == count { return values }
        if n < count {
            return (0..<count).map { i in values[min(n - 1, (2 * i + 1) * n / (2 * count))] }
        }
        return (0..<count).map { i in
            let start = i * n / count
            let end = max(start + 1, (i + 1) * n / count)
            return values[start..<end].reduce(0, +) / Double(end - start)
        }
    }

    /// The bar for a value in 0...1 (clamped).
    public static func bar(_ value: Double) -> Character {
        bars[barIndex(value)]
    }

    /// `samples` normalised, resampled to `width` bars and drawn; `""` when
    /// there are no usable samples or `width <= 0`.
    public static func draw(_ samples: [Double], width: Int) -> String {
        samples.withUnsafeBufferPointer { samples in
            withBars(samples, width: width) { String(decoding: $0, as: UTF8.self) }
        }
    }

    /// Appends `draw(samples, width: width)` to `cell` in `style` (nothing
    /// when it is empty), without making a `String`.
    public static func append(_ samples: [Double], width: Int, style: Style = .plain, to cell: inout CellBuilder) {
        samples.withUnsafeBufferPointer { append($0, width: width, style: style, to: &cell) }
    }

    /// `append(_:width:style:to:)` for samples in a buffer (as
    /// `Message.withNumbers` hands them over).
    package static func append(_ samples: UnsafeBufferPointer<Double>, width: Int, style: Style = .plain,
                               to cell: inout CellBuilder) {
        withBars(samples, width: width) { cell.append(bytes: $0, style: style) }
    }

    // MARK: Drawing without intermediate arrays

    private static func barIndex(_ value: Double) -> Int {
        let clamped = value.isFinite ? min(1, max(0, value)) : 0
        return Int((clamped * Double(bars.count - 1)).rounded())
    }

    /// The last UTF-8 byte of `bar(value)` (the first two are E2 96):
    /// `barIndex` without a call into libm. The scaled value `s` is in
    /// 0...7; rounding it half away from zero is "fraction ≥ 0.5 goes up",
    /// as `rounded()` does, which is `(⌊2s⌋ + 1) / 2`: doubling is exact,
    /// so one truncation gives the bar (the equivalence tests compare the
    /// two). A value in 0...1, as drawing passes, takes one range check.
    @inline(__always)
    private static func barByte(_ value: Double) -> UInt8 {
        let clamped = value >= 0 && value <= 1 ? value : (value > 1 && value.isFinite ? 1 : 0)
        let halfSteps = Int(clamped * 7 * 2) // Double(bars.count - 1), then doubled
        return 0x81 &+ UInt8(truncatingIfNeeded: (halfSteps &+ 1) &>> 1)
    }

    /// The UTF-8 of the bar whose last byte is `byte`, as the low three
    /// bytes of a little-endian word: bars are written a word at a time,
    /// each word's fourth byte overwritten by the next bar.
    @inline(__always)
    private static func barWord(_ byte: UInt8) -> UInt32 {
        0x96E2 | UInt32(byte) &<< 16
    }

    /// Calls `body` with the UTF-8 of `draw(samples, width:)`, computed in
    /// temporary storage with exactly the arithmetic of `normalize`,
    /// `resample` and `bar` (same operations, same order). A sample is
    /// normalized where it is used (`normalized`), not in a pass of its own.
    static func withBars<R>(_ samples: UnsafeBufferPointer<Double>, width: Int,
                            _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        let count = max(0, width)
        return withUnsafeTemporaryAllocation(of: Double.self, capacity: max(1, samples.count)) { finite in
            // normalize: the finite samples and their min and max, in one
            // pass (the first finite sample replaces both infinities).
            var finiteCount = 0
            var lowest = Double.infinity, highest = -Double.infinity
            for sample in samples where sample.isFinite {
                finite[finiteCount] = sample
                finiteCount &+= 1 // at most samples.count
                if sample < lowest { lowest = sample }
                if highest < sample { highest = sample }
            }
            // Constants from here on: the closures below read them from
            // registers (captured `var`s were reloaded from memory in every
            // turn of the loops, some 8 instructions a bar).
            let n = finiteCount, low = lowest, high = highest
            guard n > 0, count > 0 else { return body(UnsafeBufferPointer(start: nil, count: 0)) }
            let range = high - low
            let isFlat = !(high > low)
            /// `normalize(samples)[k]`.
            @inline(__always) func normalized(_ k: Int) -> Double { isFlat ? 0.5 : (finite[k] - low) / range }
            // resample, then one 3-byte bar per value (U+2581 … U+2588),
            // written as a word (`barWord`): one spare byte at the end.
            return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 3 * count + 1) { text in
                guard let base = text.baseAddress else { return body(UnsafeBufferPointer(start: nil, count: 0)) }
                // (`i < count`, and `3 * count + 1` did not overflow.)
                @inline(__always) func put(_ word: UInt32, at i: Int) {
                    UnsafeMutableRawPointer(base + 3 &* i).storeBytes(of: word.littleEndian, as: UInt32.self)
                }
                if n <= count {
                    // Each sample's own bar (n == count), or the nearest
                    // sample's (n < count, which repeats samples): find each
                    // sample's bar once.
                    withUnsafeTemporaryAllocation(of: UInt32.self, capacity: n) { barWords in
                        for k in 0..<n { barWords[k] = barWord(barByte(normalized(k))) }
                        // Bar i shows sample (2i + 1)·n / 2·count (n == count:
                        // sample i), kept as a quotient and a remainder that
                        // grow by 2n a bar, less than one 2·count (n ≤ count).
                        var sample = 0, remainder = n
                        let step = 2 * n, divisor = 2 * count, last = n - 1
                        if remainder >= divisor {
                            sample += 1
                            remainder -= divisor
                        }
                        for i in 0..<count {
                            put(barWords[min(last, sample)], at: i)
                            remainder += step
                            if remainder >= divisor {
                                sample &+= 1 // at most count
                                remainder &-= divisor
                            }
                        }
                    }
                } else {
                    for i in 0..<count {
                        let start = i * n / count
                        let end = max(start + 1, (i + 1) * n / count)
                        var sum = 0.0
                        for k in start..<end { sum = sum + normalized(k) }
                        put(barWord(barByte(sum / Double(end - start))), at: i)
                    }
                }
                return body(UnsafeBufferPointer(start: base, count: 3 * count))
            }
        }
    }
}

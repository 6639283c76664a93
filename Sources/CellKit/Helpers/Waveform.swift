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
        let clamped = value.isFinite ? min(1, max(0, value)) : 0
        return bars[Int((clamped * Double(bars.count - 1)).rounded())]
    }

    /// `samples` normalised, resampled to `width` bars and drawn; `""` when
    /// there are no usable samples or `width <= 0`.
    public static func draw(_ samples: [Double], width: Int) -> String {
        String(resample(normalize(samples), to: width).map(bar))
    }
}

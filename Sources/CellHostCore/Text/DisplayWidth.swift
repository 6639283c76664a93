import CUTF8Proc

/// One grapheme cluster: a byte range and the terminal columns it takes.
struct Cluster {
    var start: Int32
    var end: Int32
    var width: Int32
    /// A space: a break opportunity, dropped at the end of a wrapped line.
    var isSpace: Bool
    /// A wide (CJK, emoji) cluster: a break opportunity on both sides.
    var isWide: Bool
    /// A run of printable ASCII characters of one column each, taken as one
    /// unit (the wrapper's fast path) and splittable at any byte.
    var isRun: Bool = false
}

/// Display width by grapheme cluster, as terminals draw text: CJK and emoji
/// take two columns, combining marks and joiners none, an emoji ZWJ sequence
/// or a flag one cluster of two.
public enum DisplayWidth {
    /// Scalars kept per cluster; the rest (a flood of combining marks) is
    /// dropped so that one cluster cannot make a line unbounded.
    public static let maximumScalarsPerCluster = 32

    /// Splits valid, sanitized UTF-8 `bytes[range]` into clusters, appending them.
    static func clusters(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, into output: inout [Cluster]) {
        var position = range.lowerBound
        let end = range.upperBound
        var state: Int32 = 0
        var previous: Int32 = -1
        var current: Cluster?
        var scalarsInCluster = 0
        var sawVS16 = false
        var firstScalar: Int32 = 0
        while position < end {
            let byte = bytes[position]
            if byte < 0x80 && previous < 0x80 {
                // ASCII after ASCII (or at the start) always begins a new cluster:
                // CR LF never occurs in sanitized text and marks are never ASCII.
                if let finished = current { output.append(finish(finished, firstScalar, sawVS16)) }
                let isSpace = byte == 0x20
                current = Cluster(start: Int32(position), end: Int32(position + 1), width: 1, isSpace: isSpace, isWide: false)
                firstScalar = Int32(byte)
                previous = Int32(byte)
                state = 0
                scalarsInCluster = 1
                sawVS16 = false
                position += 1
                continue
            }
            let length = max(1, UTF8Repair.validSequenceLength(bytes, position))
            let scalar = byte < 0x80 ? Int32(byte) : Int32(bitPattern: Sanitizer.decode(bytes, position, length))
            let breaks = previous < 0 || utf8proc_grapheme_break_stateful(previous, scalar, &state)
            if breaks || current == nil {
                if let finished = current { output.append(finish(finished, firstScalar, sawVS16)) }
                current = Cluster(start: Int32(position), end: Int32(position + length), width: 0,
                                  isSpace: scalar == 0x20, isWide: false)
                firstScalar = scalar
                scalarsInCluster = 1
                sawVS16 = false
            } else {
                scalarsInCluster += 1
                if scalarsInCluster <= maximumScalarsPerCluster { current?.end = Int32(position + length) }
                if scalar == 0xFE0F { sawVS16 = true }
            }
            previous = scalar
            position += length
        }
        if let finished = current { output.append(finish(finished, firstScalar, sawVS16)) }
    }

    private static func finish(_ cluster: Cluster, _ first: Int32, _ emojiPresentation: Bool) -> Cluster {
        var result = cluster
        if first < 0x80 {
            result.width = 1
            return result
        }
        var width = Int32(utf8proc_charwidth(first))
        if emojiPresentation || (first >= 0x1F1E6 && first <= 0x1F1FF && cluster.end - cluster.start > 4) {
            width = 2
        }
        if width <= 0 { width = 1 }      // a lone mark or joiner still takes a cell somewhere
        result.width = min(width, 2)
        result.isWide = result.width == 2
        return result
    }

    /// Columns taken by sanitized text.
    public static func width(of text: String) -> Int {
        var text = text
        return text.withUTF8 { bytes in
            var clusters: [Cluster] = []
            DisplayWidth.clusters(bytes, 0..<bytes.count, into: &clusters)
            return clusters.reduce(0) { $0 + Int($1.width) }
        }
    }
}

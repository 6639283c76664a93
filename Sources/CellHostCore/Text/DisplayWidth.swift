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

/// How text is measured: the way the terminal that shows it measures, so
/// right-aligned lines end in the same column.
public enum WidthMode: String, Sendable, CaseIterable {
    /// By grapheme cluster: an emoji ZWJ sequence, a flag, an emoji with a
    /// skin tone or with U+FE0F takes two columns (kitty, WezTerm, foot).
    case grapheme
    /// Code point by code point, as glibc's `wcwidth` and the terminals built
    /// on it do (tmux, xterm, VTE): `❤️` is one column, `👩‍💻` four.
    case wcwidth

    /// The mode of the terminal the environment describes: `grapheme` for
    /// kitty, WezTerm, foot and ghostty (by `TERM_PROGRAM`, then `TERM`),
    /// `wcwidth` for tmux and screen (`TMUX`, `TERM`), VTE (`VTE_VERSION`) and
    /// xterm; `grapheme` when nothing says (no terminal, `TERM` unset or dumb).
    public static func auto(environment: [String: String]) -> WidthMode {
        let program = (environment["TERM_PROGRAM"] ?? "").lowercased()
        let term = (environment["TERM"] ?? "").lowercased()
        if program == "tmux" || environment["TMUX"].map({ !$0.isEmpty }) == true { return .wcwidth }
        if ["wezterm", "kitty", "ghostty", "foot"].contains(program) { return .grapheme }
        if term.hasPrefix("xterm-kitty") || term.hasPrefix("foot") || term.hasPrefix("xterm-ghostty") || term == "wezterm" {
            return .grapheme
        }
        if term.hasPrefix("tmux") || term.hasPrefix("screen") { return .wcwidth }
        if environment["VTE_VERSION"].map({ !$0.isEmpty }) == true { return .wcwidth }
        if term.hasPrefix("xterm") || term.hasPrefix("rxvt") || term == "linux" { return .wcwidth }
        return .grapheme
    }
}

/// Display width as terminals draw text: CJK and emoji take two columns,
/// combining marks and joiners none. By grapheme cluster (the default), an
/// emoji ZWJ sequence or a flag is one cluster of two; in `wcwidth` mode each
/// code point of width one or two starts a unit of its own, which takes the
/// zero-width code points after it.
public enum DisplayWidth {
    /// Scalars kept per cluster; the rest (a flood of combining marks) is
    /// dropped so that one cluster cannot make a line unbounded.
    public static let maximumScalarsPerCluster = 32

    /// Splits valid, sanitized UTF-8 `bytes[range]` into clusters, appending them.
    static func clusters(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, mode: WidthMode = .grapheme,
                         into output: inout [Cluster]) {
        if mode == .wcwidth {
            codePointUnits(bytes, range, into: &output)
            return
        }
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

    /// `wcwidth` mode: a code point of width one or two (`utf8proc_charwidth`,
    /// the Unicode tables glibc's `wcwidth` follows) and the zero-width code
    /// points after it, up to `maximumScalarsPerCluster`.
    private static func codePointUnits(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, into output: inout [Cluster]) {
        var position = range.lowerBound
        var current: Cluster?
        var scalars = 0
        while position < range.upperBound {
            let byte = bytes[position]
            let length = byte < 0x80 ? 1 : max(1, UTF8Repair.validSequenceLength(bytes, position))
            let scalar = byte < 0x80 ? Int32(byte) : Int32(bitPattern: Sanitizer.decode(bytes, position, length))
            let width = byte < 0x80 ? 1 : Int32(utf8proc_charwidth(scalar))
            if width <= 0, current != nil {
                scalars += 1
                if scalars <= maximumScalarsPerCluster { current?.end = Int32(position + length) }
            } else {
                if let finished = current { output.append(finished) }
                let columns = min(max(width, 1), 2) // a lone mark still takes a cell somewhere
                current = Cluster(start: Int32(position), end: Int32(position + length), width: columns,
                                  isSpace: scalar == 0x20, isWide: columns == 2)
                scalars = 1
            }
            position += length
        }
        if let finished = current { output.append(finished) }
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
    public static func width(of text: String, mode: WidthMode = .grapheme) -> Int {
        var text = text
        return text.withUTF8 { bytes in
            var clusters: [Cluster] = []
            DisplayWidth.clusters(bytes, 0..<bytes.count, mode: mode, into: &clusters)
            return clusters.reduce(0) { $0 + Int($1.width) }
        }
    }
}

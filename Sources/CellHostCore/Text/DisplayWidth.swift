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

    /// Splits valid, sanitized UTF-8 `bytes[range]` into clusters, appending
    /// them, one per character.
    static func clusters(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, mode: WidthMode = .grapheme,
                         into output: inout [Cluster]) {
        var scanner = ClusterScanner(bytes, range, mode: mode)
        while let cluster = scanner.next() {
            guard cluster.isRun else { output.append(cluster); continue }
            for index in cluster.start..<cluster.end {
                output.append(Cluster(start: index, end: index + 1, width: 1, isSpace: cluster.isSpace, isWide: false))
            }
        }
    }

    /// Columns taken by sanitized text.
    public static func width(of text: String, mode: WidthMode = .grapheme) -> Int {
        var text = text
        return text.withUTF8 { bytes in
            var scanner = ClusterScanner(bytes, 0..<bytes.count, mode: mode)
            var total = 0
            while let cluster = scanner.next() { total += Int(cluster.width) }
            return total
        }
    }
}

/// The widths of the emoji a conversation's reactions use, so the footer
/// can tell a reactions line's width without sanitizing and measuring the
/// line: a conversation reacts with a handful of emoji, and a tenth of its
/// messages have reactions.
///
/// An emoji is given a width only when the line would show it as it is and
/// measure it on its own: it is safe (`Sanitizer.isSafe`), and between two
/// spaces it makes whole clusters of its own, none dropped. In the line an
/// emoji always has a space or nothing on either side (the two spaces
/// between reactions, the space before a count), and printable ASCII is
/// safe and one column a byte, so the line is then safe too, and its width
/// is its ASCII bytes plus its emoji's widths: what `Chrome.fit` finds.
struct EmojiWidths {
    /// An emoji of up to 16 bytes, packed with its length, and its width
    /// (nil when it is not measured alone).
    private struct Entry {
        var low: UInt64
        var high: UInt64
        var count: Int
        var width: Int?
    }

    private let mode: WidthMode
    private var entries: [Entry] = []
    private var next = 0
    private static let kept = 16

    init(mode: WidthMode) {
        self.mode = mode
    }

    /// The width of `emoji` in a reactions line; nil when the line must be
    /// measured as a whole (longer than 16 bytes, unsafe, or joining a
    /// space next to it).
    mutating func width(of emoji: UnsafeBufferPointer<UInt8>) -> Int? {
        guard emoji.count <= 16 else { return nil }
        var words: (UInt64, UInt64) = (0, 0)
        withUnsafeMutableBytes(of: &words) { $0.copyMemory(from: UnsafeRawBufferPointer(emoji)) }
        for entry in entries where entry.low == words.0 && entry.high == words.1 && entry.count == emoji.count {
            return entry.width
        }
        let entry = Entry(low: words.0, high: words.1, count: emoji.count, width: EmojiWidths.measure(emoji, mode: mode))
        if entries.count < EmojiWidths.kept { entries.append(entry) } else { entries[next] = entry }
        next = (next + 1) % EmojiWidths.kept
        return entry.width
    }

    /// The width of `emoji` when it was measured before and has one (it
    /// is then safe, so valid UTF-8, and was cut to 8 characters already),
    /// else nil; nothing is measured or kept. The footer asks this of an
    /// emoji's bytes as the record has them, before decoding them.
    func knownWidth(of emoji: UnsafeBufferPointer<UInt8>) -> Int? {
        guard emoji.count <= 16 else { return nil }
        var words: (UInt64, UInt64) = (0, 0)
        withUnsafeMutableBytes(of: &words) { $0.copyMemory(from: UnsafeRawBufferPointer(emoji)) }
        for entry in entries where entry.low == words.0 && entry.high == words.1 && entry.count == emoji.count {
            return entry.width
        }
        return nil
    }

    /// The width of `emoji` between two spaces, when it is safe and its
    /// clusters there start after the first space and end before the
    /// second; nil otherwise.
    static func measure(_ emoji: UnsafeBufferPointer<UInt8>, mode: WidthMode) -> Int? {
        guard !emoji.isEmpty, Sanitizer.isSafe(emoji, keepingNewlines: false) else { return nil }
        let spaced = [0x20] + Array(emoji) + [0x20]
        return spaced.withUnsafeBufferPointer { buffer -> Int? in
            let last = buffer.count - 1
            var scanner = ClusterScanner(buffer, 0..<buffer.count, mode: mode)
            var position = 0
            var width = 0
            while let cluster = scanner.next() {
                let start = Int(cluster.start)
                let end = Int(cluster.end)
                // Nothing dropped, and no cluster across either space's edge.
                guard start == position, !(start < 1 && end > 1), !(start < last && end > last) else { return nil }
                if start >= 1 && end <= last { width += Int(cluster.width) }
                position = end
            }
            return position == buffer.count ? width : nil
        }
    }
}

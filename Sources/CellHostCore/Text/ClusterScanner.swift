import CUTF8Proc

/// Walks valid, sanitized UTF-8 one cluster at a time: the units a line
/// may be broken between, with the columns each takes (`DisplayWidth`).
///
/// Printable ASCII is taken a run of letters (or of spaces) at a time, as
/// one cluster marked `isRun` that may be cut at any byte: the same breaks
/// and widths as one cluster per byte, found by a tight loop. Other code
/// points are looked up in `CodePointProperties`; only marks, joiners,
/// emoji, jamo and regional indicators go through utf8proc's grapheme
/// state machine.
struct ClusterScanner {
    private let bytes: UnsafeBufferPointer<UInt8>
    private let end: Int
    private let mode: WidthMode
    private var position: Int
    /// The code point before `position` (-1 at the start) and whether it
    /// was a prepend mark; utf8proc's break state for the slow path.
    private var previous: Int32 = -1
    private var previousIsPrepend = false
    private var state: Int32 = 0
    /// Where the properties of non-ASCII code points are looked up.
    private let table = CodePointProperties.table
    /// The code point after the last cluster `loneCodePoint` returned,
    /// decoded to see that it starts a cluster: its position (-1 when
    /// none), length and properties, so the next call does not decode it
    /// again.
    private var lookaheadPosition = -1
    private var lookaheadLength = 0
    private var lookaheadValue: UInt32 = 0
    private var lookaheadProperties = CodePointProperties(bits: 0)

    init(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, mode: WidthMode) {
        self.bytes = bytes
        self.end = range.upperBound
        self.mode = mode
        self.position = range.lowerBound
    }

    /// True when the code point the scanner starts at is not ASCII and
    /// starts a cluster of its own whatever comes before it (but a prepend
    /// mark, which ASCII never is): then the text before it ends a cluster
    /// there, and can be measured without the scanner. It is then kept as
    /// the look-ahead, so the first call does not decode it again.
    mutating func startsWithOwnCluster() -> Bool {
        guard position < end, bytes[position] >= 0x80 else { return false }
        return keepsOwnCluster(at: position)
    }

    /// True when the code point at `index` (< end) starts a cluster of its
    /// own whatever came before it (other than a prepend mark).
    @inline(__always)
    private func startsOwnCluster(at index: Int) -> Bool {
        let byte = bytes[index]
        if byte < 0x80 { return true }
        let properties = scalar(at: index).properties
        return mode == .wcwidth ? properties.width > 0 : properties.startsCluster
    }

    mutating func next() -> Cluster? {
        guard position < end else { return nil }
        let start = position
        let first = bytes[start]
        if first < 0x80 && !previousIsPrepend {
            // A run of spaces or of other printable ASCII. Its last byte
            // belongs to the next cluster's start when a mark follows.
            let isSpace = first == 0x20
            var index = isSpace ? start + 1 : letterRunEnd(from: start + 1)
            while index < end {
                let byte = bytes[index]
                if byte >= 0x80 || (byte == 0x20) != isSpace { break }
                index += 1
            }
            if index < end, bytes[index] >= 0x80, !startsOwnCluster(at: index) {
                index -= 1
            }
            if index > start {
                position = index
                previous = Int32(bytes[index - 1])
                state = 0
                return Cluster(start: Int32(start), end: Int32(index), width: Int32(index - start),
                               isSpace: isSpace, isWide: false, isRun: true)
            }
        }
        if first >= 0x80, let cluster = loneCodePoint(at: start) { return cluster }
        return mode == .wcwidth ? codePointUnit() : graphemeCluster()
    }

    /// The printable ASCII from here up to the next non-ASCII code point,
    /// spaces and all, as one run (`isSpace` false): the runs `next()`
    /// would give there, joined. Nil when `next()` would not give a run
    /// here (not ASCII, or a cluster of one ASCII byte and marks). For
    /// `Chrome.fit`, which may cut a run at any byte and does not look for
    /// spaces, so a reply quote's ASCII preview is one cluster, not one per
    /// word.
    mutating func nextASCIIStretch() -> Cluster? {
        let start = position
        guard start < end, bytes[start] < 0x80, !previousIsPrepend else { return nil }
        var index = ASCIIWords.firstNonASCII(bytes, from: start &+ 1, end: end)
        // The last byte belongs to the next cluster when a mark follows.
        if index < end, !startsOwnCluster(at: index) { index &-= 1 }
        guard index > start else { return nil }
        position = index
        previous = Int32(bytes[index &- 1])
        state = 0
        return Cluster(start: Int32(start), end: Int32(index), width: Int32(index &- start),
                       isSpace: false, isWide: false, isRun: true)
    }

    /// `next()`, except that a cluster made of one code point is joined
    /// by the code points of its width after it that are clusters by
    /// themselves (`loneCodePoint`): a run of Cyrillic or Greek letters,
    /// or a voice message's waveform of block elements, comes back as one
    /// cluster of one column each (not `isRun`: it may not be cut between
    /// bytes); a run of CJK characters as one `isWide` cluster of two
    /// columns each, its code points each a cluster of two columns. For the
    /// wrapper, which collects one-column clusters into one segment of a
    /// word anyway, and places a run of wide ones at once when all of it
    /// fits on the line (else one by one, scanning it again with `next()`).
    mutating func nextJoining() -> Cluster? {
        guard var cluster = next() else { return nil }
        // The columns of each code point joined.
        let columns: Int32
        if cluster.isWide {
            // Joined only after a lone code point (the loop below needs the
            // look-ahead at `position`, which only `loneCodePoint` leaves
            // there), so scanning the run again finds the same clusters.
            columns = 2
        } else {
            guard !cluster.isRun, !cluster.isSpace, cluster.width == 1 else { return cluster }
            columns = 1
            // A run of narrow symbols (a waveform, a bar): each is one column
            // and starts a cluster of its own, so each but the last is a
            // cluster by itself, and the last one too when what follows it
            // ends it. Taken at once, without decoding. (All of them start
            // with E2: most text after a one-column letter does not, and is
            // not looked at.)
            var symbolsEnd = position < end && bytes[position] == 0xE2
                ? CodePointProperties.narrowSymbolRunEnd(bytes, from: position, end: end) : position
            if symbolsEnd > position {
                if !endsAlone(at: symbolsEnd) { symbolsEnd &-= 3 }
                if symbolsEnd > position {
                    let last = symbolsEnd &- 3
                    let value = 0x2000 | UInt32(bytes[last &+ 1] & 0x3F) << 6 | UInt32(bytes[last &+ 2] & 0x3F)
                    cluster.width &+= Int32(truncatingIfNeeded: (symbolsEnd &- position) / 3)
                    cluster.end = Int32(truncatingIfNeeded: symbolsEnd)
                    step(past: value, to: symbolsEnd)
                }
            }
        }
        // `lookaheadPosition` is `position` only when the call above left
        // a code point that starts a cluster there (earlier ones are behind).
        // Each turn is `loneCodePoint` for that code point, when it takes
        // `columns` columns, without making a `Cluster` of it.
        while position == lookaheadPosition, (lookaheadProperties.width >= 2 ? 2 : 1) == columns,
              mode == .wcwidth || !lookaheadProperties.isPrepend {
            let value = lookaheadValue
            let next = position &+ lookaheadLength
            guard endsAlone(at: next) else { break }
            step(past: value, to: next)
            cluster.end = Int32(truncatingIfNeeded: next)
            cluster.width &+= columns
        }
        return cluster
    }

    /// The fast path for most non-ASCII text (letters of most scripts, CJK,
    /// symbols): the code point at `start` when it is a cluster (a unit in
    /// `wcwidth` mode) by itself, because the code point after it is ASCII,
    /// starts a cluster of its own (`wcwidth`: has a width) or is past the
    /// end; nil otherwise, for the general path. What `graphemeCluster` and
    /// `codePointUnit` give for such a code point, with the state moved on
    /// the same way; the code point after it is decoded once, for this
    /// check and for the next call.
    @inline(__always)
    private mutating func loneCodePoint(at start: Int) -> Cluster? {
        let value: UInt32, length: Int, properties: CodePointProperties
        if start == lookaheadPosition {
            (value, length, properties) = (lookaheadValue, lookaheadLength, lookaheadProperties)
        } else {
            guard let decoded = UTF8Repair.decodeValid(bytes, at: start) else { return nil }
            (value, length) = decoded
            properties = table.of(value)
        }
        // A prepend mark attaches to what follows it.
        if mode == .grapheme && properties.isPrepend { return nil }
        let next = start + length
        guard endsAlone(at: next) else { return nil }
        step(past: value, to: next)
        let columns: Int32 = properties.width >= 2 ? 2 : 1 // a lone mark still takes a cell
        return Cluster(start: Int32(start), end: Int32(next), width: columns, isSpace: false, isWide: columns == 2)
    }

    /// True when a code point that ends at `next` is a cluster (a unit in
    /// `wcwidth` mode) by itself: what follows is the end, ASCII, or a
    /// code point that starts one of its own, which is then kept as the
    /// look-ahead (decoded once, for this check and the next call).
    @inline(__always)
    private mutating func endsAlone(at next: Int) -> Bool {
        guard next < end, bytes[next] >= 0x80 else { return true }
        return keepsOwnCluster(at: next)
    }

    /// True when the non-ASCII code point at `index` (< end) is valid and
    /// starts a cluster of its own; it is then kept as the look-ahead.
    @inline(__always)
    private mutating func keepsOwnCluster(at index: Int) -> Bool {
        guard let (value, length) = UTF8Repair.decodeValid(bytes, at: index) else { return false }
        let properties = table.of(value)
        guard mode == .wcwidth ? properties.width > 0 : properties.startsCluster else { return false }
        lookaheadPosition = index
        lookaheadLength = length
        lookaheadValue = value
        lookaheadProperties = properties
        return true
    }

    /// Moves past the lone code point `value`, to `next`, with the break
    /// state where `graphemeCluster` and `codePointUnit` would leave it.
    @inline(__always)
    private mutating func step(past value: UInt32, to next: Int) {
        position = next
        previous = Int32(bitPattern: value)
        previousIsPrepend = false
        if next < end { state = 0 }
    }

    /// Skips ASCII other than spaces from `index` eight bytes at a time and
    /// returns the first position of the last (partial) eight, or of a
    /// space or byte >= 0x80, whichever comes first; the caller finishes the
    /// run a byte at a time.
    @inline(__always)
    private func letterRunEnd(from index: Int) -> Int {
        guard let base = bytes.baseAddress else { return index }
        var index = index
        while index + 8 <= end {
            let chunk = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
            // A byte of `spaces` is zero where `chunk` has a space; the
            // lowest flagged byte is exact (little-endian, borrows only move up).
            let spaces = chunk ^ 0x2020_2020_2020_2020
            let stops = ((spaces &- 0x0101_0101_0101_0101) & ~spaces | chunk) & 0x8080_8080_8080_8080
            if stops != 0 { return index + stops.trailingZeroBitCount >> 3 }
            index += 8
        }
        return index
    }

    /// The code point at `position`, its length, and its properties.
    @inline(__always)
    private func scalar(at index: Int) -> (value: Int32, length: Int, properties: CodePointProperties) {
        let byte = bytes[index]
        if byte < 0x80 { return (Int32(byte), 1, CodePointProperties(bits: 0x5)) }
        // Sanitized text is valid; a stray byte is measured as U+FFFD.
        guard let (value, length) = UTF8Repair.decodeValid(bytes, at: index) else { return (0xFFFD, 1, table.of(0xFFFD)) }
        return (Int32(bitPattern: value), length, table.of(value))
    }

    /// `grapheme` mode: one extended grapheme cluster, starting at `position`.
    private mutating func graphemeCluster() -> Cluster {
        let start = position
        let (first, firstLength, firstProperties) = scalar(at: start)
        var clusterEnd = start + firstLength
        // The break before `first` was decided (and the state moved on) by
        // the cluster before, or it is the start.
        previous = first
        previousIsPrepend = firstProperties.isPrepend
        position = clusterEnd
        var scalars = 1
        var sawVS16 = false
        while position < end {
            let (value, length, properties) = scalar(at: position)
            if properties.startsCluster && !previousIsPrepend {
                state = 0
                break
            }
            if utf8proc_grapheme_break_stateful(previous, value, &state) { break }
            scalars += 1
            if scalars <= DisplayWidth.maximumScalarsPerCluster { clusterEnd = position + length }
            if value == 0xFE0F { sawVS16 = true }
            previous = value
            previousIsPrepend = properties.isPrepend
            position += length
        }
        var cluster = Cluster(start: Int32(start), end: Int32(clusterEnd), width: 1, isSpace: first == 0x20, isWide: false)
        if first >= 0x80 {
            var width = firstProperties.width
            if sawVS16 || (first >= 0x1F1E6 && first <= 0x1F1FF && cluster.end - cluster.start > 4) { width = 2 }
            if width <= 0 { width = 1 } // a lone mark or joiner still takes a cell somewhere
            cluster.width = min(width, 2)
            cluster.isWide = cluster.width == 2
        }
        return cluster
    }

    /// `wcwidth` mode: a code point of width one or two (`utf8proc_charwidth`,
    /// the Unicode tables glibc's `wcwidth` follows) and the zero-width code
    /// points after it, up to `maximumScalarsPerCluster`.
    private mutating func codePointUnit() -> Cluster {
        let start = position
        let (first, firstLength, firstProperties) = scalar(at: start)
        var unitEnd = start + firstLength
        position = unitEnd
        var scalars = 1
        while position < end {
            let (_, length, properties) = scalar(at: position)
            if properties.width > 0 { break }
            scalars += 1
            if scalars <= DisplayWidth.maximumScalarsPerCluster { unitEnd = position + length }
            position += length
        }
        previous = first
        let columns = first < 0x80 ? 1 : min(max(firstProperties.width, 1), 2) // a lone mark still takes a cell
        return Cluster(start: Int32(start), end: Int32(unitEnd), width: columns, isSpace: first == 0x20,
                       isWide: columns == 2)
    }
}

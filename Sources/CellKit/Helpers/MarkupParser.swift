/// InlineMarkup's parser, over the units (Characters) of a text.
///
/// It follows the rules documented on `InlineMarkup` in three steps:
///
/// 1. `findRegions` marks URLs and code spans in one left-to-right pass
///    (whichever starts first wins); nothing inside a region is markup, and
///    a backslash inside one is literal.
/// 2. `parse` walks the text, emitting literal runs, regions, and the
///    contents of `*…*` / `_…_` / `**…**` / `__…__` pairs (recursively, with
///    the style added), and dropping the backslash of each escape. A marker
///    pairs with the first valid closer of its kind (one or two units wide)
///    with at least one unit between them, outside any region, if that
///    closer is inside the range being parsed.
/// 3. The sink merges consecutive pieces of equal style into spans.
///
/// Every position the parser asks about (region starts, closer look-ups)
/// only ever moves forward, so closers are found by forward scans instead of
/// precomputed tables, literal runs are skipped in tight loops, and the
/// whole parse is linear in the text's length. Nothing is allocated on the
/// heap for ordinary texts: the regions live in temporary storage.
///
/// Escapes are not recorded anywhere: whether a marker is escaped is read
/// from the run of backslashes just before it (an odd run outside a URL
/// escapes it; see `isEscaped`). `parse` meets every escape from its
/// backslash, left to right, so it drops backslashes without asking.
struct MarkupParser<Units: MarkupUnits> {
    let units: Units
    /// Which kinds of markup the text can hold at all.
    let shape: TextShape
    /// URLs and code spans, in text order, as unit ranges: the first
    /// `regionCount` entries.
    private let regions: UnsafeMutableBufferPointer<Range<Int>>
    private var regionCount = 0
    /// The first region that does not start before the parse position, and
    /// where it starts (`Int.max` when there is none).
    private var nextRegion = 0
    private var nextRegionStart = Int.max
    /// The closer scans of `*`, `_`, `**` and `__`.
    private var strongClosers = CloserScan()
    private var emphasisClosers = CloserScan()
    private var doubleStrongClosers = CloserScan()
    private var doubleEmphasisClosers = CloserScan()

    /// Parses `units` into `sink` (which is not finished).
    static func run<Sink: MarkupSink>(_ units: Units, _ shape: TextShape, into sink: inout Sink) {
        // Regions are disjoint: code spans are at least 3 units long, and
        // URLs at least 8 (`http://x`), so without a backtick an eighth of
        // the units is room enough. (A third for every text made the storage
        // of a text of 190 bytes or more with a URL exceed the 1 KiB that
        // temporary allocation keeps on the stack: 316 heap allocations for
        // 10 000 `real` messages.)
        let capacity = shape.hasBacktick ? units.count / 3 + 1 : shape.hasURLScheme ? units.count / 8 + 1 : 0
        withUnsafeTemporaryAllocation(of: Range<Int>.self, capacity: capacity) { regions in
            var parser = MarkupParser(units: units, shape: shape, regions: regions)
            parser.findRegions()
            parser.advanceRegions(to: 0)
            parser.parse(0..<units.count, style: .plain, into: &sink)
        }
    }

    private init(units: Units, shape: TextShape, regions: UnsafeMutableBufferPointer<Range<Int>>) {
        self.units = units
        self.shape = shape
        self.regions = regions
    }

    // MARK: Markers

    /// `*`, `_` or `` ` ``.
    @inline(always)
    static func isMarker(_ code: UInt8) -> Bool {
        code == UnitCode.star || code == UnitCode.underscore || code == UnitCode.backtick
    }

    @inline(always)
    static func isEmphasisMarker(_ code: UInt8) -> Bool {
        code == UnitCode.star || code == UnitCode.underscore
    }

    /// What a backslash escapes: a marker or a backslash.
    @inline(always)
    static func isEscapable(_ code: UInt8) -> Bool {
        isMarker(code) || code == UnitCode.backslash
    }

    /// True when unit `i` (a marker) is escaped: an odd run of backslashes,
    /// outside any URL, comes just before it. Escapes pair left to right
    /// (`\\` is one), and a run starts fresh: the unit before it is no
    /// backslash. Only a URL can hold the run (a code span ends with `` ` ``),
    /// and then it holds all of it (a URL never ends just before a backslash:
    /// it would have kept it), so one look at the last one decides. The
    /// regions before `i` must be known.
    func isEscaped(_ i: Int) -> Bool {
        guard shape.hasEmphasisOrEscape else { return false }
        var j = i - 1
        while j >= 0, units.code(j) == UnitCode.backslash { j -= 1 }
        guard (i - 1 - j) & 1 == 1 else { return false }
        return regionCount == 0 || !isCovered(i - 1)
    }

    /// How many markers the run starting at unit `i` holds, 3 meaning three
    /// or more; 0 when unit `i` starts no run: it is no marker, is escaped,
    /// or follows an unescaped marker of its kind. (An escaped marker
    /// belongs to no run, so `\**x**` has a run of two.)
    @inline(__always)
    func runLength(_ i: Int) -> Int {
        let c = units.code(i)
        guard Self.isMarker(c) else { return 0 }
        if i > 0, units.code(i - 1) == c, !isEscaped(i - 1) { return 0 }
        if i > 0, units.code(i - 1) == UnitCode.backslash, isEscaped(i) { return 0 }
        var length = 1
        while length < 3, i + length < units.count, units.code(i + length) == c { length += 1 }
        return length
    }

    /// A run of exactly `width` markers at `i` that can open: at a word
    /// boundary and before a non-space.
    func isOpener(_ i: Int, width: Int) -> Bool {
        runLength(i) == width && !units.isWord(i - 1) && !units.isSpace(i + width)
    }

    /// A run of exactly `width` markers at `i` that can close: after a
    /// non-space and at a word boundary.
    func isCloser(_ i: Int, width: Int) -> Bool {
        runLength(i) == width && !units.isSpace(i - 1) && !units.isWord(i + width)
    }

    /// A `` ` `` that can close a code span. Inside a code span a backslash
    /// is literal, so escapes play no part: `` `a\` `` is the code `a\`.
    func isCodeCloser(_ i: Int) -> Bool {
        units.code(i) == UnitCode.backtick
            && !(i > 0 && units.code(i - 1) == UnitCode.backtick)
            && !(i + 1 < units.count && units.code(i + 1) == UnitCode.backtick)
            && !units.isSpace(i - 1) && !units.isWord(i + 1)
    }

    /// True when unit `i` is inside a URL or code span.
    func isCovered(_ i: Int) -> Bool {
        var low = 0, high = regionCount
        while low < high {
            let mid = (low + high) / 2
            if regions[mid].upperBound <= i { low = mid + 1 } else { high = mid }
        }
        return low < regionCount && regions[low].contains(i)
    }

    /// Finds the closers of one kind (a marker, one or two wide) left to
    /// right, on demand. The positions asked about never decrease, so no
    /// closer is examined twice. (Kept small, with the kind passed to
    /// `firstCloser`: the parser is copied when its methods are called.)
    struct CloserScan {
        /// The first unit not examined yet.
        var next = 0
        /// The closer found last, or -1; no closer lies between the
        /// previous query's position and it.
        var found = -1
    }

    /// The first closer of `marker`, `width` wide, at or after `position`,
    /// found with `scan` (which must be asked about this kind only; see
    /// `CloserScan`). Code-span closers are found anywhere; `*` and `_`
    /// closers only outside URLs and code spans.
    func firstCloser(_ scan: inout CloserScan, of marker: UInt8, width: Int, atOrAfter position: Int) -> Int? {
        if scan.found >= position { return scan.found }
        var i = max(scan.next, position)
        while true {
            i = units.firstIndex(of: marker, marker, marker, from: i, to: units.count)
            guard i < units.count else { break }
            let isCloser = marker == UnitCode.backtick
                ? isCodeCloser(i)
                : isCloser(i, width: width) && !isCovered(i)
            if isCloser {
                scan.found = i
                scan.next = i + 1
                return i
            }
            i += 1
        }
        scan.found = -1
        scan.next = units.count
        return nil
    }

    // MARK: URLs and code spans

    static func isClosingBracket(_ code: UInt8) -> Bool {
        code == UInt8(ascii: ")") || code == UInt8(ascii: "]") || code == UInt8(ascii: "}") || code == UInt8(ascii: ">")
    }

    /// True for an ASCII `code` (below 0x80) that is whitespace (tab, LF,
    /// VT, FF, CR, space: `ASCIIClass.isSpace`) or a bracket (`isBracket`).
    @inline(__always)
    static func isSpaceOrBracket(_ code: UInt8) -> Bool {
        // Bits 9...13, 32, '(' ')' '<' '>' of the first word; '[' ']' '{' '}' of the second.
        let low: UInt64 = 0x3E00 | 1 << 32 | 1 << 0x28 | 1 << 0x29 | 1 << 0x3C | 1 << 0x3E
        let high: UInt64 = 1 << (0x5B - 64) | 1 << (0x5D - 64) | 1 << (0x7B - 64) | 1 << (0x7D - 64)
        return (code < 64 ? low : high) &>> UInt64(code & 63) & 1 != 0
    }

    static func isBracket(_ code: UInt8) -> Bool {
        switch code {
        case UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "["), UInt8(ascii: "]"),
             UInt8(ascii: "{"), UInt8(ascii: "}"), UInt8(ascii: "<"), UInt8(ascii: ">"):
            return true
        default:
            return false
        }
    }

    /// The opening partner of a closing bracket.
    static func openingBracket(_ code: UInt8) -> UInt8 {
        switch code {
        case UInt8(ascii: ")"): return UInt8(ascii: "(")
        case UInt8(ascii: "]"): return UInt8(ascii: "[")
        case UInt8(ascii: "}"): return UInt8(ascii: "{")
        default: return UInt8(ascii: "<")
        }
    }

    /// `. , ; : ! ? ' "`, the markers, and 。、，！？…
    static func isTrailingPunctuation(_ code: UInt8) -> Bool {
        switch code {
        case UInt8(ascii: "."), UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: ":"), UInt8(ascii: "!"),
             UInt8(ascii: "?"), UInt8(ascii: "'"), UInt8(ascii: "\""), UInt8(ascii: "*"), UInt8(ascii: "_"),
             UInt8(ascii: "`"), UnitCode.otherTrailingPunctuation:
            return true
        default:
            return false
        }
    }

    /// True when the units at `index` spell `scheme` (lower-case ASCII),
    /// letters in either case.
    func matches(_ scheme: StaticString, at index: Int) -> Bool {
        let length = scheme.utf8CodeUnitCount
        guard index + length <= units.count else { return false }
        let expected = UnsafeBufferPointer(start: scheme.utf8Start, count: length)
        for k in 0..<length {
            var code = units.code(index + k)
            if code &- UInt8(ascii: "A") < 26 { code |= 0x20 }
            guard code == expected[k] else { return false }
        }
        return true
    }

    /// The end (exclusive) of a URL starting at `index`, or nil.
    func urlEnd(at index: Int) -> Int? {
        let first = units.code(index)
        guard first == UInt8(ascii: "h") || first == UInt8(ascii: "H"), !units.isWord(index - 1) else { return nil }
        let schemeLength = matches("https://", at: index) ? 8 : matches("http://", at: index) ? 7 : 0
        guard schemeLength > 0 else { return nil }
        let start = index + schemeLength
        var end = start
        // Counts of ( ) [ ] { } < >, by bracket.
        var brackets = BracketCounts()
        while end < units.count {
            let code = units.code(end)
            if code < 0x80 {
                // A unit whose code is ASCII is that one byte: most of a URL
                // is neither whitespace nor a bracket, told by one bit test
                // (`isSpace` and `isBracket` took some 15 instructions a unit).
                if !Self.isSpaceOrBracket(code) {
                    end += 1
                    continue
                }
                if ASCIIClass.isSpace(code) { break }
            } else if units.isSpace(end) {
                break
            }
            if Self.isBracket(code) { brackets[code] += 1 }
            end += 1
        }
        // Trim trailing punctuation, and closing brackets without an
        // opening partner inside the URL.
        while end > start {
            let last = units.code(end - 1)
            let isClosing = Self.isClosingBracket(last)
            let unbalanced = isClosing && brackets[last] > brackets[Self.openingBracket(last)]
            guard Self.isTrailingPunctuation(last) || unbalanced else { break }
            if isClosing { brackets[last] -= 1 }
            end -= 1
        }
        return end > start ? end : nil
    }

    /// Counts per bracket character, without a dictionary.
    struct BracketCounts {
        private var counts: (Int, Int, Int, Int, Int, Int, Int, Int) = (0, 0, 0, 0, 0, 0, 0, 0)

        subscript(code: UInt8) -> Int {
            get {
                switch code {
                case UInt8(ascii: "("): return counts.0
                case UInt8(ascii: ")"): return counts.1
                case UInt8(ascii: "["): return counts.2
                case UInt8(ascii: "]"): return counts.3
                case UInt8(ascii: "{"): return counts.4
                case UInt8(ascii: "}"): return counts.5
                case UInt8(ascii: "<"): return counts.6
                default: return counts.7
                }
            }
            set {
                switch code {
                case UInt8(ascii: "("): counts.0 = newValue
                case UInt8(ascii: ")"): counts.1 = newValue
                case UInt8(ascii: "["): counts.2 = newValue
                case UInt8(ascii: "]"): counts.3 = newValue
                case UInt8(ascii: "{"): counts.4 = newValue
                case UInt8(ascii: "}"): counts.5 = newValue
                case UInt8(ascii: "<"): counts.6 = newValue
                default: counts.7 = newValue
                }
            }
        }
    }

    /// One left-to-right pass marking URLs and code spans; whichever starts
    /// first wins. A code span runs from an opening `` ` `` (not escaped) to
    /// the first closing one at least two units on, backslashes inside it
    /// being literal. Escapes need no pass of their own: `isEscaped` reads
    /// them from the backslashes before a backtick, and the regions before
    /// it are known by then.
    ///
    /// A URL is looked for from the `:` of its scheme, four or five units
    /// after its start (`http:`, `https:`), not from every `h`: a colon is
    /// far rarer in text than an h, each of which cost a `urlEnd` call.
    /// The same regions are found: a URL's scheme holds no backtick and no
    /// other colon, so its colon is the first stop after its start (a
    /// backtick before its start is taken first, as before), and the start
    /// is tried only when the scan had not passed it (`from`).
    mutating func findRegions() {
        guard shape.hasURLScheme || shape.hasBacktick else { return }
        var codeClosers = CloserScan()
        // Only a `:` can end a URL's `http`/`https` (and only when there is a `://`).
        let colon = shape.hasURLScheme ? UInt8(ascii: ":") : UnitCode.backtick
        var i = 0
        while true {
            let from = i
            i = units.firstIndex(of: UnitCode.backtick, colon, colon, from: i, to: units.count)
            guard i < units.count else { break }
            var start = i
            var end: Int?
            if units.code(i) != UnitCode.backtick {
                // `https:` (five units before the colon), else `http:` (four).
                if i - 5 >= from, let found = urlEnd(at: i - 5) {
                    start = i - 5
                    end = found
                } else if i - 4 >= from, let found = urlEnd(at: i - 4) {
                    start = i - 4
                    end = found
                }
            } else if isOpener(i, width: 1),
                      let closer = firstCloser(&codeClosers, of: UnitCode.backtick, width: 1, atOrAfter: i + 2) {
                end = closer + 1
            }
            // (There is always room: see `run`.)
            if let end, regionCount < regions.count {
                regions[regionCount] = start..<end
                regionCount += 1
                i = end
            } else {
                i += 1
            }
        }
    }

    // MARK: Spans

    /// Emits bytes of units `range` in `style`, unless empty.
    @inline(always)
    func emit<Sink: MarkupSink>(_ range: Range<Int>, _ style: Style, into sink: inout Sink) {
        guard !range.isEmpty else { return }
        sink.emit(units.text, units.offset(range.lowerBound), units.offset(range.upperBound), style)
    }

    /// Moves the region cursor to the first region starting at or after `i`.
    mutating func advanceRegions(to i: Int) {
        while nextRegion < regionCount, regions[nextRegion].lowerBound < i { nextRegion += 1 }
        nextRegionStart = nextRegion < regionCount ? regions[nextRegion].lowerBound : Int.max
    }

    mutating func parse<Sink: MarkupSink>(_ range: Range<Int>, style: Style, into sink: inout Sink) {
        var literalStart = range.lowerBound
        var i = range.lowerBound
        while i < range.upperBound {
            advanceRegions(to: i)
            // Skip literal units up to the next thing that can be markup: a
            // region, a * or _, or a backslash.
            let stop = min(range.upperBound, nextRegionStart)
            if shape.hasEmphasisOrEscape {
                i = units.firstIndex(of: UnitCode.star, UnitCode.underscore, UnitCode.backslash, from: i, to: stop)
            } else if i < stop {
                i = stop
            }
            guard i < range.upperBound else { break }

            if i == nextRegionStart, regions[nextRegion].upperBound <= range.upperBound {
                let region = regions[nextRegion]
                emit(literalStart..<i, style, into: &sink)
                if units.code(i) == UnitCode.backtick {
                    emit((i + 1)..<(region.upperBound - 1), style.union(.code), into: &sink)
                } else {
                    emit(region, style.union(.link), into: &sink)
                }
                i = region.upperBound
                literalStart = i
                continue
            }
            let code = units.code(i)
            if code == UnitCode.backslash {
                // Escapes are met from their backslash (this one is not
                // escaped itself: its escape would have been skipped whole),
                // and never straddle the range's end, whose closer is unescaped.
                if i + 1 < range.upperBound, Self.isEscapable(units.code(i + 1)) {
                    emit(literalStart..<i, style, into: &sink)
                    literalStart = i + 1
                    i += 2
                } else {
                    i += 1
                }
                continue
            }
            if Self.isEmphasisMarker(code) {
                // (After a letter or digit nothing opens: `snake_case` and
                // `2*3` are decided without looking at the run.)
                let width = units.isWord(i - 1) ? 0 : runLength(i)
                if width == 1 || width == 2, !units.isSpace(i + width) {
                    let isStar = code == UnitCode.star
                    // Scans are copied out and back: `firstCloser` reads `self`.
                    var scan = isStar ? (width == 1 ? strongClosers : doubleStrongClosers)
                                      : (width == 1 ? emphasisClosers : doubleEmphasisClosers)
                    let closer = firstCloser(&scan, of: code, width: width, atOrAfter: i + width + 1)
                    switch (isStar, width) {
                    case (true, 1): strongClosers = scan
                    case (true, _): doubleStrongClosers = scan
                    case (false, 1): emphasisClosers = scan
                    case (false, _): doubleEmphasisClosers = scan
                    }
                    if let closer, closer + width <= range.upperBound {
                        emit(literalStart..<i, style, into: &sink)
                        parse((i + width)..<closer, style: style.union(isStar ? .strong : .emphasis), into: &sink)
                        i = closer + width
                        literalStart = i
                        continue
                    }
                }
                // A run that opens nothing is literal: skip it whole.
                i += max(width, 1)
                continue
            }
            i += 1
        }
        emit(literalStart..<range.upperBound, style, into: &sink)
    }
}

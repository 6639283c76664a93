// The text as InlineMarkup's parser sees it: a sequence of *units*, one per
// Swift Character (extended grapheme cluster), read straight from UTF-8
// bytes. Most texts are ASCII, where a unit is a byte; other texts are cut
// into grapheme clusters once, with the standard library's own rules.

/// What a quick pass over the bytes says about a text: which kinds of
/// markup can occur in it, and whether its units are bytes.
struct TextShape {
    /// `*`, `_` or `\`: emphasis markers or escapes.
    var hasEmphasisOrEscape = false
    /// `` ` `` or U+1FEF (which equals `` ` `` as a Character): code spans.
    var hasBacktick = false
    /// `:`, which every URL has.
    var hasColon = false
    /// `://`, which every URL has in its scheme. Only a text with one can
    /// hold a URL: a `:` elsewhere (`10:30`, `Note:`) marks nothing, so a
    /// text whose only markup byte is such a colon is one plain span, and
    /// the parser looks for URLs only when there is one.
    var hasURLScheme = false
    /// Non-ASCII, or a CR (which joins an LF after it): units are grapheme
    /// clusters, not bytes.
    var needsGraphemes = false
    /// A CR: the text cannot be parsed as `MixedUnits`.
    var hasCarriageReturn = false
    /// False when the text is known not to be valid UTF-8.
    var isValidUTF8 = true
    /// A host string whose validity the shape took on trust, but whose
    /// scalars the parser will decode (non-ASCII, with markup): it is
    /// validated on the way, by `MixedUnits.fit` (which decodes its scalars
    /// anyway) or, for a text that needs grapheme clusters, before them.
    var needsValidation = false

    /// False when the whole text is one plain span.
    var hasMarkup: Bool { hasEmphasisOrEscape || hasBacktick || hasURLScheme }

    /// The shape of any bytes: non-ASCII text is validated.
    init(of text: UnsafeBufferPointer<UInt8>) {
        self.init(text, validatingAll: true)
    }

    /// The shape of a string the host handed out (`Message.withTextUTF8`,
    /// `withTypeAndTextUTF8`, `utf8`), which the ABI promises is valid
    /// UTF-8: the same flags as `init(of:)` for valid UTF-8, but the text is
    /// not validated here. It is validated only when the parser will decode
    /// its scalars (`needsValidation`: non-ASCII text with markup, about one
    /// text in five), so that a host breaking the promise cannot make the
    /// parser read out of bounds, and then in the pass that decides how to
    /// parse it (`MixedUnits.fit`) rather than a pass of its own. Otherwise
    /// `isValidUTF8` takes the promise at its word: the text then goes back
    /// to the host as it is, which checks it again anyway.
    init(ofHostString text: UnsafeBufferPointer<UInt8>) {
        self.init(text, validatingAll: false)
    }

    private init(_ text: UnsafeBufferPointer<UInt8>, validatingAll: Bool) {
        let seen = SeenBytes(text)
        hasEmphasisOrEscape = seen.emphasisOrEscape
        hasBacktick = seen.backtick || (seen.leadE1 && UTF8Scalar.containsGreekVaria(text))
        hasColon = seen.colon
        hasURLScheme = seen.colon && Self.containsURLScheme(text)
        hasCarriageReturn = seen.carriageReturn
        needsGraphemes = seen.nonASCII || seen.carriageReturn
        if seen.nonASCII {
            if validatingAll {
                isValidUTF8 = UTF8Scalar.isValid(text)
            } else {
                needsValidation = hasMarkup
            }
        }
    }

    /// True when `text` holds `://` (each `:` found eight bytes at a time).
    static func containsURLScheme(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        let count = text.count, colon = UInt8(ascii: ":"), slash = UInt8(ascii: "/")
        var i = ByteScan.firstIndex(of: colon, colon, colon, in: text.baseAddress, from: 0, to: count)
        while i &+ 2 < count {
            if text[i &+ 1] == slash, text[i &+ 2] == slash { return true }
            i = ByteScan.firstIndex(of: colon, colon, colon, in: text.baseAddress, from: i &+ 1, to: count)
        }
        return false
    }

    /// The high bit of every byte.
    static let highBits: UInt64 = 0x8080_8080_8080_8080

    /// Non-zero when some byte of `word` equals `byte`: the classic
    /// has-zero-byte test on `word ^ byte…`. Exact as a yes/no answer, and
    /// its lowest set bit is the high bit of the first matching byte
    /// (bits above it may be false alarms).
    @inline(always)
    static func zeroByte(_ word: UInt64, _ byte: UInt8) -> UInt64 {
        let x = word ^ (0x0101_0101_0101_0101 &* UInt64(byte))
        return (x &- 0x0101_0101_0101_0101) & ~x & 0x8080_8080_8080_8080
    }
}

/// Which of the bytes `TextShape` asks about occur in a text, read sixteen
/// bytes at a time as `SIMD16<UInt8>` (SSE2 compares on x86-64: about
/// twenty instructions for sixteen bytes, where 64-bit words took about
/// forty, and there is no per-byte path for non-ASCII text). Every answer
/// is an OR over the bytes, so bytes may be read twice: a tail is read as
/// the text's last sixteen bytes, and a text of 8 to 15 bytes as its first
/// and last eight. Zero bytes (a text under eight bytes is padded with
/// them) match nothing.
struct SeenBytes {
    typealias Bytes = SIMD16<UInt8>
    typealias Mask = SIMDMask<SIMD16<Int8>>

    var emphasisOrEscape = false
    var backtick = false
    var colon = false
    var carriageReturn = false
    var nonASCII = false
    /// 0xE1, the lead byte of U+1000...U+1FFF, U+1FEF among them.
    var leadE1 = false

    init(_ text: UnsafeBufferPointer<UInt8>) {
        guard let base = text.baseAddress, !text.isEmpty else { return }
        let count = text.count
        var emphasis = Mask(repeating: false), backtick = Mask(repeating: false), colon = Mask(repeating: false)
        var carriageReturn = Mask(repeating: false), leadE1 = Mask(repeating: false)
        var all = Bytes(repeating: 0)
        @inline(__always) func look(_ bytes: Bytes) {
            emphasis .|= (bytes .== Bytes(repeating: UInt8(ascii: "*"))) .| (bytes .== Bytes(repeating: UInt8(ascii: "_")))
                .| (bytes .== Bytes(repeating: UInt8(ascii: "\\")))
            backtick .|= bytes .== Bytes(repeating: UInt8(ascii: "`"))
            colon .|= bytes .== Bytes(repeating: UInt8(ascii: ":"))
            carriageReturn .|= bytes .== Bytes(repeating: UInt8(ascii: "\r"))
            leadE1 .|= bytes .== Bytes(repeating: 0xE1)
            all |= bytes
        }
        @inline(__always) func word(_ at: Int) -> UInt64 {
            UInt64(littleEndian: UnsafeRawPointer(base + at).loadUnaligned(as: UInt64.self))
        }
        @inline(__always) func block(_ at: Int) -> Bytes { UnsafeRawPointer(base + at).loadUnaligned(as: Bytes.self) }
        if count >= 16 {
            // Two blocks a step, with wrapping arithmetic (`i` stays below
            // `count`): no overflow check and half the loop's bookkeeping.
            var i = 0
            while i < count &- 31 {
                look(block(i))
                look(block(i &+ 16))
                i &+= 32
            }
            if i < count &- 15 {
                look(block(i))
                i &+= 16
            }
            if i < count { look(block(count &- 16)) }
        } else if count >= 8 {
            look(unsafeBitCast(SIMD2<UInt64>(word(0), word(count - 8)), to: Bytes.self))
        } else {
            var short: UInt64 = 0
            for k in 0..<count { short |= UInt64(base[k]) &<< UInt64(8 * k) }
            look(unsafeBitCast(SIMD2<UInt64>(short, 0), to: Bytes.self))
        }
        emphasisOrEscape = Self.isAnySet(emphasis)
        self.backtick = Self.isAnySet(backtick)
        self.colon = Self.isAnySet(colon)
        self.carriageReturn = Self.isAnySet(carriageReturn)
        self.leadE1 = Self.isAnySet(leadE1)
        let words = unsafeBitCast(all, to: SIMD2<UInt64>.self)
        nonASCII = (words[0] | words[1]) & TextShape.highBits != 0
    }

    /// True when a lane of `mask` is set: two 64-bit words tested
    /// (the standard library's `any` is a call to a generic reduction).
    @inline(__always)
    static func isAnySet(_ mask: Mask) -> Bool {
        let words = unsafeBitCast(mask, to: SIMD2<UInt64>.self)
        return words[0] | words[1] != 0
    }
}

/// The first look at a host string (`InlineMarkup.append(hostString:to:)`):
/// can it hold markup at all? Seven texts in ten on the `real` mix hold
/// none of the bytes that markup needs, and go to the builder as one plain
/// span after this pass alone, without `SeenBytes` (which also asks about
/// CR and non-ASCII, which a plain span does not care about) or a sink.
///
/// It asks about three byte classes where `SeenBytes` asks about seven
/// bytes: `*` and `:` (`byte | 0x10 == ':'`), `\`, `_` and `` ` `` (the range
/// 0x5C...0x60, which also holds `]` and `^`), and 0xE1 (U+1FEF's lead
/// byte), so an answer of true may be a false alarm (`]`, `^`, a colon
/// outside `://`, another 0xE1 scalar) that the exact `TextShape` then
/// settles; false is exact. Stops at the first 32-byte step with a hit.
enum MarkupBytes {
    typealias Bytes = SIMD16<UInt8>

    /// True when `text` holds one of the bytes above.
    static func mayHaveMarkup(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = text.baseAddress, !text.isEmpty else { return false }
        let count = text.count
        @inline(__always) func block(_ at: Int) -> Bytes { UnsafeRawPointer(base + at).loadUnaligned(as: Bytes.self) }
        @inline(__always) func word(_ at: Int) -> UInt64 {
            UInt64(littleEndian: UnsafeRawPointer(base + at).loadUnaligned(as: UInt64.self))
        }
        if count >= 16 {
            var i = 0
            while i < count &- 31 {
                if SeenBytes.isAnySet(hits(block(i)) .| hits(block(i &+ 16))) { return true }
                i &+= 32
            }
            if i < count &- 15 {
                if SeenBytes.isAnySet(hits(block(i))) { return true }
                i &+= 16
            }
            return i < count && SeenBytes.isAnySet(hits(block(count &- 16)))
        } else if count >= 8 {
            return SeenBytes.isAnySet(hits(unsafeBitCast(SIMD2<UInt64>(word(0), word(count &- 8)), to: Bytes.self)))
        } else {
            // Zero bytes pad it: 0x10, 0x24 and 0 are no hits.
            var short: UInt64 = 0
            for k in 0..<count { short |= UInt64(base[k]) &<< UInt64(8 &* k) }
            return SeenBytes.isAnySet(hits(unsafeBitCast(SIMD2<UInt64>(short, 0), to: Bytes.self)))
        }
    }

    /// The lanes of `bytes` in one of the three classes.
    @inline(__always)
    static func hits(_ bytes: Bytes) -> SIMDMask<SIMD16<Int8>> {
        let starOrColon = (bytes | Bytes(repeating: 0x10)) .== Bytes(repeating: UInt8(ascii: ":"))
        // 0x5C...0x60 plus 0x24 is 0x80...0x84: the five lowest signed bytes
        // (one signed compare; SSE2 has no unsigned one).
        let shifted = unsafeBitCast(bytes &+ Bytes(repeating: 0x24), to: SIMD16<Int8>.self)
        let escapeOrMarker = shifted .< SIMD16<Int8>(repeating: -123)
        return starOrColon .| escapeOrMarker .| (bytes .== Bytes(repeating: 0xE1))
    }
}

/// The unit codes the parser compares: a unit that is exactly one ASCII
/// scalar is that byte; a few other single-scalar units stand for what they
/// equal as a Character; anything else is `other`.
enum UnitCode {
    static let star = UInt8(ascii: "*")
    static let underscore = UInt8(ascii: "_")
    static let backtick = UInt8(ascii: "`")
    static let backslash = UInt8(ascii: "\\")
    /// One of the non-ASCII trailing punctuation characters of URLs:
    /// U+3002 U+3001 U+FF0C U+FF01 U+FF1F U+2026.
    static let otherTrailingPunctuation: UInt8 = 0x80
    /// Anything else (several scalars, or a scalar with no special meaning).
    static let other: UInt8 = 0xFF

    /// The code of the unit made of `text[start..<end]`.
    static func of(_ text: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> UInt8 {
        switch end - start {
        case 1:
            return text[start]
        case 2:
            // U+037E GREEK QUESTION MARK is canonically equivalent to ";".
            return text[start] == 0xCD && text[start + 1] == 0xBE ? UInt8(ascii: ";") : other
        case 3:
            // U+1FEF GREEK VARIA is canonically equivalent to "`".
            if UTF8Scalar.isGreekVaria(text, at: start) { return backtick }
            let a = text[start], b = text[start + 1], c = text[start + 2]
            if a == 0xE3, b == 0x80, c == 0x82 || c == 0x81 { return otherTrailingPunctuation } // 。 、
            if a == 0xEF, b == 0xBC, c == 0x8C || c == 0x81 || c == 0x9F { return otherTrailingPunctuation } // ， ！ ？
            if a == 0xE2, b == 0x80, c == 0xA6 { return otherTrailingPunctuation } // …
            return other
        default:
            return other
        }
    }
}

/// ASCII character classes, as `Character` answers them for ASCII.
enum ASCIIClass {
    /// `isLetter || isNumber`: `[0-9A-Za-z]`.
    @inline(always)
    static func isWord(_ byte: UInt8) -> Bool {
        (byte | 0x20) &- UInt8(ascii: "a") < 26 || byte &- UInt8(ascii: "0") < 10
    }

    /// `isWhitespace`: tab, LF, VT, FF, CR and space.
    @inline(always)
    static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte &- 0x09 < 5
    }
}

/// The parser's view of a text. Unit `i` spans bytes
/// `offset(i)..<offset(i + 1)`.
protocol MarkupUnits {
    /// The UTF-8 text.
    var text: UnsafeBufferPointer<UInt8> { get }
    /// The number of units.
    var count: Int { get }
    /// Where unit `i` starts; `offset(count)` is the byte count.
    func offset(_ i: Int) -> Int
    /// The unit's code (see `UnitCode`); `0 <= i < count`.
    func code(_ i: Int) -> UInt8
    /// `Character.isLetter || isNumber`; false outside the text.
    func isWord(_ i: Int) -> Bool
    /// `Character.isWhitespace`; true outside the text.
    func isSpace(_ i: Int) -> Bool
    /// The first unit in `start..<end` whose code is `a`, `b` or `c`, else
    /// `end`: how the parser skips ordinary text.
    func firstIndex(of a: UInt8, _ b: UInt8, _ c: UInt8, from start: Int, to end: Int) -> Int
}

/// ASCII without CR: a unit is a byte.
struct ASCIIUnits: MarkupUnits {
    let text: UnsafeBufferPointer<UInt8>

    init(_ text: UnsafeBufferPointer<UInt8>) { self.text = text }

    var count: Int { text.count }
    func offset(_ i: Int) -> Int { i }
    func code(_ i: Int) -> UInt8 { text[i] }

    func isWord(_ i: Int) -> Bool {
        i >= 0 && i < text.count && ASCIIClass.isWord(text[i])
    }

    func isSpace(_ i: Int) -> Bool {
        i < 0 || i >= text.count || ASCIIClass.isSpace(text[i])
    }

    func firstIndex(of a: UInt8, _ b: UInt8, _ c: UInt8, from start: Int, to end: Int) -> Int {
        ByteScan.firstIndex(of: a, b, c, in: text.baseAddress, from: start, to: end)
    }
}

/// Valid UTF-8 without CR whose every ASCII byte is a grapheme cluster of
/// its own (`fit`), parsed a byte at a time, as ASCII is: the cutting into
/// clusters that `GraphemeUnits` does for the whole text is skipped, which is
/// most of the cost of a non-ASCII text with markup.
///
/// Why the parse is the same as over clusters: the parser only ever asks
/// about a unit's code, and about the class (`isWord`, `isSpace`) of a unit
/// next to an ASCII one or inside a URL. Every ASCII byte being a cluster,
/// a byte's code is its cluster's (non-ASCII bytes are `other`, and `fit`
/// refuses the scalars whose cluster code is not: U+1FEF always, the URL
/// punctuation of `UnitCode` when there is a `://`); a unit count between two
/// ASCII units is non-zero exactly when their byte distance is above one;
/// the byte after an ASCII one starts a cluster, whose first scalar decides
/// its class. The byte before one of the ASCII units whose left neighbour is
/// asked about (`*`, `_`, `` ` ``, `h`, `H`) ends a run of non-ASCII
/// scalars whose last scalar `fit` requires to be a cluster of its own. Inside a URL only whitespace is asked about, and a
/// whitespace scalar always starts its cluster (only a Prepend scalar could
/// join it to what precedes, which `fit` refuses), so the scalar holding a
/// byte answers for its cluster there.
struct MixedUnits: MarkupUnits {
    let text: UnsafeBufferPointer<UInt8>

    init(_ text: UnsafeBufferPointer<UInt8>) { self.text = text }

    var count: Int { text.count }
    func offset(_ i: Int) -> Int { i }

    /// The byte when it is ASCII, else `other`.
    func code(_ i: Int) -> UInt8 {
        let byte = text[i]
        return byte < 0x80 ? byte : UnitCode.other
    }

    func isWord(_ i: Int) -> Bool {
        guard i >= 0, i < text.count else { return false }
        let byte = text[i]
        if byte < 0x80 { return ASCIIClass.isWord(byte) }
        let properties = scalar(holding: i).properties
        return properties.isAlphabetic || properties.numericType != nil
    }

    func isSpace(_ i: Int) -> Bool {
        guard i >= 0, i < text.count else { return true }
        let byte = text[i]
        if byte < 0x80 { return ASCIIClass.isSpace(byte) }
        return Self.isWhitespace(scalar(holding: i))
    }

    func firstIndex(of a: UInt8, _ b: UInt8, _ c: UInt8, from start: Int, to end: Int) -> Int {
        ByteScan.firstIndex(of: a, b, c, in: text.baseAddress, from: start, to: end)
    }

    /// The scalar whose UTF-8 holds byte `i` (valid UTF-8: at most three
    /// continuation bytes to step back over).
    private func scalar(holding i: Int) -> Unicode.Scalar {
        var start = i
        while start > 0, text[start] & 0xC0 == 0x80 { start -= 1 }
        return UTF8Scalar.decode(text, at: start).scalar
    }

    /// How `MixedUnits.fit` finds a text.
    enum Fit {
        /// It parses the same as `MixedUnits` as it does as `GraphemeUnits`.
        case bytes
        /// It needs `GraphemeUnits`; the bytes after what decided it
        /// were not looked at (nor validated).
        case graphemes
        /// It is not valid UTF-8.
        case invalidUTF8
    }

    /// `.bytes` when `text` (of `shape`, not ASCII) parses the same
    /// as `MixedUnits` as it does as `GraphemeUnits` (see the type's notes):
    /// no CR; no U+1FEF; with a `://`, none of the non-ASCII URL punctuation;
    /// no ASCII byte joined to the scalar after it (an Extend, ZWJ or
    /// SpacingMark scalar) or to the one before it (a Prepend scalar); no
    /// non-ASCII whitespace after a scalar that may be Prepend; and no `*`,
    /// `_`, `` ` ``, `h` or `H` right after a run of non-ASCII scalars whose
    /// last one may join the one before it (`isLoneLetter`). Linear in the text;
    /// the standard library is asked about a pair of scalars only at the
    /// edges of runs, for scalars outside the simple ranges and the emoji
    /// ranges known not to join. Each non-ASCII scalar is validated as it is
    /// decoded: `.invalidUTF8` at the first invalid one, so a text whose
    /// validity was taken on trust (`TextShape.needsValidation`) needs no
    /// pass of its own when it gives `.bytes`.
    static func fit(_ text: UnsafeBufferPointer<UInt8>, _ shape: TextShape) -> Fit {
        guard !shape.hasCarriageReturn, let base = text.baseAddress else { return .graphemes }
        let count = text.count
        var i = 0
        while i < count {
            // ASCII, eight bytes at a time, straight to the first non-ASCII
            // byte of a word (it took a byte a step from the word's start,
            // reloading the word each time: some 70 instructions a run).
            if i &+ 16 <= count {
                // Two words a step (the text's non-ASCII bytes are few).
                let first = UInt64(littleEndian: UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self))
                    & TextShape.highBits
                let second = UInt64(littleEndian: UnsafeRawPointer(base + (i &+ 8)).loadUnaligned(as: UInt64.self))
                    & TextShape.highBits
                if first | second == 0 {
                    i &+= 16
                    continue
                }
                i &+= first != 0 ? first.trailingZeroBitCount &>> 3 : 8 &+ second.trailingZeroBitCount &>> 3
            } else if i &+ 8 <= count {
                let high = UInt64(littleEndian: UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self))
                    & TextShape.highBits
                if high == 0 {
                    i &+= 8
                    continue
                }
                i &+= high.trailingZeroBitCount &>> 3
            } else if base[i] < 0x80 {
                i &+= 1
                continue
            }
            // A run of non-ASCII scalars, after an ASCII byte unless at the start.
            let runStart = i
            // The run's last scalar so far, and the one before it.
            var previous = Unicode.Scalar(UInt8(0)), previousStart = i, previousIsSimple = true
            var earlier = Unicode.Scalar(UInt8(0)), earlierIsSimple = true
            while i < count, base[i] >= 0x80 {
                if let length = simpleLetterLength(base, i, count), previousIsSimple || base[i] != 0xC2 {
                    // A simple scalar that no check below refuses: only that it
                    // is simple is kept (a simple scalar's value is never
                    // asked about: `isLoneLetter` is true for every one), and
                    // U+0085 and U+00A0, the only whitespace among them, come
                    // here only after a simple scalar, where no whitespace
                    // check applies.
                    (earlier, earlierIsSimple) = (previous, previousIsSimple)
                    (previous, previousStart, previousIsSimple) = (Unicode.Scalar(UInt8(0)), i, true)
                    i &+= length
                    continue
                }
                guard let (scalar, length) = UTF8Scalar.decodeIfValid(text, at: i) else { return .invalidUTF8 }
                let isSimple = GraphemeUnits.isSimple(scalar)
                if isSimple {
                    if shape.hasURLScheme, isURLPunctuation(scalar) { return .graphemes }
                } else {
                    if scalar.value == 0x1FEF || (shape.hasURLScheme && isURLPunctuation(scalar)) { return .graphemes }
                    if i == runStart, runStart > 0, !neverJoinsPrevious(scalar) { return .graphemes }
                }
                if !previousIsSimple, i > runStart, isWhitespace(scalar), !neverPrepend(previous) {
                    return .graphemes
                }
                (earlier, earlierIsSimple) = (previous, previousIsSimple)
                (previous, previousStart, previousIsSimple) = (scalar, i, isSimple)
                i += length
            }
            // An ASCII byte follows, or the end.
            guard i < count else { break }
            if !previousIsSimple, !neverPrepend(previous) { return .graphemes }
            switch base[i] {
            case UnitCode.star, UnitCode.underscore, UnitCode.backtick, UInt8(ascii: "h"), UInt8(ascii: "H"):
                // The parser asks about the cluster before this byte: the
                // run's last scalar must be one (the first scalar of a run
                // is, as an ASCII byte or the start is before it).
                let isOwnCluster = previousStart == runStart
                    || (isLoneLetter(previous) && (earlierIsSimple || neverJoins(earlier)))
                guard isOwnCluster else { return .graphemes }
            default:
                break
            }
        }
        return .bytes
    }

    /// The length of the valid UTF-8 sequence at `i` when it is one of the
    /// commonest simple scalars (`GraphemeUnits.isSimple`) that are neither
    /// URL punctuation nor U+1FEF, told from its bytes without decoding it:
    /// U+0080...U+02FF (lead C2...CB) and U+0400...U+047F (D0, D1), Arabic
    /// letters U+061D...U+064A, and CJK U+4000...U+9FFF (E4...E9); else nil.
    /// (Decoding and classifying each scalar took some 40 instructions.)
    @inline(__always)
    static func simpleLetterLength(_ base: UnsafePointer<UInt8>, _ i: Int, _ count: Int) -> Int? {
        let lead = base[i]
        guard i &+ 1 < count else { return nil }
        let second = base[i &+ 1]
        guard second & 0xC0 == 0x80 else { return nil }
        if lead &- 0xC2 < 10 || lead &- 0xD0 < 2 || (lead == 0xD8 && second >= 0x9D) || (lead == 0xD9 && second <= 0x8A) {
            return 2
        }
        if lead &- 0xE4 < 6, i &+ 2 < count, base[i &+ 2] & 0xC0 == 0x80 { return 3 }
        return nil
    }

    /// The scalars whose unit code is not `other` in a URL's trailing
    /// punctuation: U+037E (`;`) and those of `UnitCode.otherTrailingPunctuation`.
    @inline(always)
    static func isURLPunctuation(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x037E, 0x3001, 0x3002, 0xFF0C, 0xFF01, 0xFF1F, 0x2026: return true
        default: return false
        }
    }

    /// Ranges of letters, symbols and emoji that are neither Extend, ZWJ,
    /// SpacingMark nor Prepend: Greek, Hebrew and Arabic letters, Thai
    /// consonants, arrows, mathematical and technical symbols, shapes,
    /// dingbats and emoji (`test_knownRangesNeverJoin` checks every scalar).
    @inline(always)
    static func neverJoins(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0370...0x03FF, 0x05D0...0x05EA, 0x0671...0x06D3, 0x0E01...0x0E30, 0x2100...0x23FF,
             0x25A0...0x27BF, 0x2B00...0x2BFF, 0x1F000...0x1F3FA, 0x1F400...0x1FAFF:
            return true
        default:
            return false
        }
    }

    /// Scalars that start a cluster after a simple scalar or one of the
    /// `neverJoins` ranges (which hold no Prepend, Hangul jamo, ZWJ or
    /// Indic linker): the simple ones, and Greek, Hebrew and Arabic letters
    /// and Thai consonants (`test_loneLettersJoinNothingBefore` checks them).
    /// Not after anything: a Hangul syllable joins a leading jamo before it,
    /// and © an emoji and ZWJ.
    @inline(always)
    static func isLoneLetter(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0370...0x03FF, 0x05D0...0x05EA, 0x0671...0x06D3, 0x0E01...0x0E30: return true
        default: return GraphemeUnits.isSimple(scalar)
        }
    }

    /// Never Prepend: a grapheme break always follows it (before anything
    /// but Extend, ZWJ and SpacingMark). `neverJoins` ranges and combining
    /// marks, joiners, variation selectors, skin tones and emoji tags
    /// (`test_knownRangesNeverJoin` checks them), else the standard library.
    static func neverPrepend(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0300...0x036F, 0x0483...0x0489, 0x0591...0x05C7, 0x064B...0x065F, 0x200C...0x200D, 0x20D0...0x20FF,
             0xFE00...0xFE0F, 0x1F3FB...0x1F3FF, 0xE0020...0xE007F:
            return true
        default:
            return neverJoins(scalar) || !joins(scalar, "a")
        }
    }

    /// Never joins a letter before it (not Extend, ZWJ or SpacingMark).
    static func neverJoinsPrevious(_ scalar: Unicode.Scalar) -> Bool {
        neverJoins(scalar) || !joins("a", scalar)
    }

    /// `scalar.properties.isWhitespace`, with the standard library asked
    /// only about scalars up to U+00A0, U+1680, U+2000...U+205F (but ZWJ,
    /// the commonest scalar after an emoji) and U+3000, the only ranges
    /// with whitespace (`test_noWhitespaceOutsideTheCheckedRanges`), so
    /// that a run of letters not among the simple scalars (Hebrew, Latin
    /// with accents above U+00FF, Devanagari) makes no look-up a scalar.
    @inline(always)
    static func isWhitespace(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        let inWhitespaceRange = value <= 0xA0 || value == 0x1680 || (value &- 0x2000 <= 0x5F && value != 0x200D)
            || value == 0x3000
        return inWhitespaceRange && scalar.properties.isWhitespace
    }

    /// True when `first` and `second` make one `Character`. With an ASCII
    /// letter on one side, only GB9, GB9a (Extend, ZWJ, SpacingMark after)
    /// and GB9b (Prepend before) can join them, and a control byte instead
    /// of the letter would join less: the answer is safe for any ASCII byte.
    static func joins(_ first: Unicode.Scalar, _ second: Unicode.Scalar) -> Bool {
        var pair = String.UnicodeScalarView()
        pair.append(first)
        pair.append(second)
        return String(pair).count == 1
    }
}

/// Valid UTF-8 cut into grapheme clusters: the start offset and code of each.
struct GraphemeUnits: MarkupUnits {
    let text: UnsafeBufferPointer<UInt8>
    /// `count + 1` offsets; the last is `text.count`.
    let starts: UnsafeMutableBufferPointer<Int>
    let codes: UnsafeMutableBufferPointer<UInt8>
    let count: Int

    /// Cuts `text` (valid UTF-8) and calls `body` with the units, which live
    /// in temporary storage (on the stack when small).
    static func with<R>(_ text: UnsafeBufferPointer<UInt8>, _ body: (GraphemeUnits) -> R) -> R {
        withUnsafeTemporaryAllocation(of: Int.self, capacity: text.count + 1) { starts in
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(1, text.count)) { codes in
                let count = cut(text, into: starts)
                for unit in 0..<count {
                    codes[unit] = UnitCode.of(text, starts[unit], starts[unit + 1])
                }
                return body(GraphemeUnits(text: text, starts: starts, codes: codes, count: count))
            }
        }
    }

    /// Writes the start of every grapheme cluster of `text`, then
    /// `text.count`, to `starts`; returns the number of clusters.
    ///
    /// Between two *simple* scalars (see `isSimple`) there is always a
    /// boundary except inside CR LF, so only the breaks inside a *run* next
    /// to other scalars are asked of the standard library, by cutting the
    /// run's bytes into `Character`s (the rules `String` itself follows,
    /// through public API only). A run starts at the simple scalar before
    /// the first other scalar (a boundary precedes that scalar, and a simple
    /// scalar carries no state, such as an emoji, regional indicator or
    /// Indic sequence, forward), and ends before a simple scalar that follows
    /// a simple scalar. Grapheme rules look only backwards from a break, so
    /// the breaks inside the run are those of the whole text.
    ///
    /// ASCII bytes after a simple scalar, the bulk of most texts, are taken
    /// in a tight loop without decoding: each starts a cluster (an LF after
    /// a CR aside), and leaves a simple scalar behind.
    static func cut(_ text: UnsafeBufferPointer<UInt8>, into starts: UnsafeMutableBufferPointer<Int>) -> Int {
        var count = 0
        // The scalar before `i`: where it starts (-1 before the first one),
        // whether it is simple, and whether it is a CR.
        var previousStart = -1
        var previousIsSimple = false
        var previousIsCR = false
        var i = 0
        let end = text.count
        while i < end {
            if previousIsSimple, text[i] < 0x80 {
                repeat {
                    let byte = text[i]
                    if !(previousIsCR && byte == UInt8(ascii: "\n")) {
                        starts[count] = i
                        count += 1
                    }
                    previousIsCR = byte == UInt8(ascii: "\r")
                    previousStart = i
                    i += 1
                } while i < end && text[i] < 0x80
                continue
            }
            let (scalar, length) = UTF8Scalar.decode(text, at: i)
            if previousIsSimple, isSimple(scalar) {
                // (Not ASCII, so not the LF of a CR LF.)
                starts[count] = i
                count += 1
                previousIsCR = false
                previousStart = i
                i += length
                continue
            }
            // A run: from the previous scalar (already counted, or not, by
            // the rule above) to just before a simple scalar after a simple one.
            let runStart = previousStart >= 0 ? previousStart : i
            var last = (scalar: scalar, start: i)
            var runEnd = i + length
            while runEnd < end {
                let (next, nextLength) = UTF8Scalar.decode(text, at: runEnd)
                if isSimple(last.scalar), isSimple(next) { break }
                last = (next, runEnd)
                runEnd += nextLength
            }
            var offset = runStart
            let run = String(decoding: UnsafeBufferPointer(rebasing: text[runStart..<runEnd]), as: UTF8.self)
            for character in run {
                // The run's first cluster starts at `runStart`, which is the
                // text's start or was decided by the simple-pair rule.
                if offset != runStart || previousStart < 0 {
                    starts[count] = offset
                    count += 1
                }
                offset += character.utf8.count
            }
            previousStart = last.start
            previousIsSimple = isSimple(last.scalar)
            previousIsCR = last.scalar == "\r"
            i = runEnd
        }
        starts[count] = text.count
        return count
    }

    /// Scalars that are never Extend, SpacingMark, ZWJ, Prepend, regional
    /// indicators, Extended_Pictographic, Indic conjunct parts or Hangul
    /// jamo, so that two of them in a row always have a grapheme boundary
    /// between them (CR LF aside): below U+0300, and the common blocks of
    /// CJK, kana, Hangul syllables, Cyrillic, Arabic and punctuation. These
    /// are the ranges the standard library's own quick check uses
    /// (`test_simpleScalarsNeverJoin` checks every one of them).
    @inline(always)
    static func isSimple(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0000...0x02FF, 0x0400...0x0482, 0x061D...0x064A, 0x2010...0x2029, 0x3000...0x3029,
             0x3041...0x3096, 0x30A1...0x30FC, 0x3400...0xA4CF, 0xAC00...0xD7AF, 0xFF01...0xFF9D:
            return true
        default:
            return false
        }
    }

    func offset(_ i: Int) -> Int { starts[i] }
    func code(_ i: Int) -> UInt8 { codes[i] }

    func firstIndex(of a: UInt8, _ b: UInt8, _ c: UInt8, from start: Int, to end: Int) -> Int {
        ByteScan.firstIndex(of: a, b, c, in: UnsafePointer(codes.baseAddress), from: start, to: min(end, count))
    }

    func isWord(_ i: Int) -> Bool {
        guard i >= 0, i < count else { return false }
        let first = text[starts[i]]
        if first < 0x80 { return ASCIIClass.isWord(first) }
        let properties = UTF8Scalar.decode(text, at: starts[i]).scalar.properties
        return properties.isAlphabetic || properties.numericType != nil
    }

    func isSpace(_ i: Int) -> Bool {
        guard i >= 0, i < count else { return true }
        let first = text[starts[i]]
        if first < 0x80 { return ASCIIClass.isSpace(first) }
        return MixedUnits.isWhitespace(UTF8Scalar.decode(text, at: starts[i]).scalar)
    }
}

/// Finding bytes sixteen at a time.
enum ByteScan {
    /// The first index in `start..<end` of `bytes` holding `a`, `b` or `c`,
    /// else `end` (also when `start >= end`).
    ///
    /// Sixteen bytes a step as `SIMD16<UInt8>` compares (SSE2), the hits
    /// read as two words whose first set byte is the first match; then
    /// eight bytes a step, then bytes. (Eight bytes a step, three
    /// has-zero-byte tests a word, took some 20 instructions for eight
    /// bytes: 1.1 M for 10 000 `real` messages.)
    static func firstIndex(of a: UInt8, _ b: UInt8, _ c: UInt8, in bytes: UnsafePointer<UInt8>?,
                           from start: Int, to end: Int) -> Int {
        guard let bytes, start < end else { return max(start, end) }
        var i = start
        if i &+ 16 <= end {
            let va = SIMD16<UInt8>(repeating: a), vb = SIMD16<UInt8>(repeating: b), vc = SIMD16<UInt8>(repeating: c)
            repeat {
                let block = UnsafeRawPointer(bytes + i).loadUnaligned(as: SIMD16<UInt8>.self)
                let hits = unsafeBitCast((block .== va) .| (block .== vb) .| (block .== vc), to: SIMD2<UInt64>.self)
                // Lanes are 0 or 0xFF, in memory order (little-endian words).
                if hits[0] != 0 { return i &+ hits[0].trailingZeroBitCount &>> 3 }
                if hits[1] != 0 { return i &+ 8 &+ hits[1].trailingZeroBitCount &>> 3 }
                i &+= 16
            } while i &+ 16 <= end
        }
        while i + 8 <= end {
            let word = UInt64(littleEndian: UnsafeRawPointer(bytes + i).loadUnaligned(as: UInt64.self))
            let hits = TextShape.zeroByte(word, a) | TextShape.zeroByte(word, b) | TextShape.zeroByte(word, c)
            if hits != 0 {
                // The lowest flagged byte is always a real match.
                return i + hits.trailingZeroBitCount / 8
            }
            i += 8
        }
        while i < end {
            let byte = bytes[i]
            if byte == a || byte == b || byte == c { return i }
            i += 1
        }
        return end
    }
}

/// Reading scalars from UTF-8.
enum UTF8Scalar {
    /// The length of the valid UTF-8 sequence at `i` (whose first byte is
    /// not ASCII), or 0 when it is invalid (overlong, surrogate, beyond
    /// U+10FFFF, truncated).
    @inline(__always)
    static func validLength(_ text: UnsafeBufferPointer<UInt8>, at i: Int) -> Int {
        let lead = text[i]
        let length: Int
        var low: UInt8 = 0x80, high: UInt8 = 0xBF   // the second byte's range
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; low = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; high = 0x9F
        case 0xF0: length = 4; low = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; high = 0x8F
        default: return 0
        }
        guard i + length <= text.count else { return 0 }
        let second = text[i + 1]
        guard second >= low, second <= high else { return 0 }
        for k in 2..<length where text[i + k] & 0xC0 != 0x80 { return 0 }
        return length
    }

    /// True when `text` holds U+1FEF GREEK VARIA (looked for at each 0xE1).
    static func containsGreekVaria(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        for i in text.indices where text[i] == 0xE1 && isGreekVaria(text, at: i) { return true }
        return false
    }

    /// True when `text` is valid UTF-8 (ASCII skipped eight bytes at a time).
    static func isValid(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = text.baseAddress else { return true }
        let count = text.count
        var i = 0
        while i < count {
            while i + 8 <= count,
                  UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self) & TextShape.highBits == 0 {
                i += 8
            }
            guard i < count else { break }
            if base[i] < 0x80 {
                i += 1
                continue
            }
            let length = validLength(text, at: i)
            guard length > 0 else { return false }
            i += length
        }
        return true
    }

    /// The scalar at `i` (whose first byte is not ASCII) and its length in
    /// bytes, or `nil` when the sequence there is invalid (`validLength`).
    /// One pass over the bytes: the lead byte's payload is the bits below
    /// its length marker (`0x7F >> length`).
    @inline(__always)
    static func decodeIfValid(_ text: UnsafeBufferPointer<UInt8>, at i: Int) -> (scalar: Unicode.Scalar, length: Int)? {
        let length = validLength(text, at: i)
        guard length > 0 else { return nil }
        var value = UInt32(text[i]) & (0x7F &>> UInt32(length))
        for k in 1..<length { value = value << 6 | UInt32(text[i + k] & 0x3F) }
        return (Unicode.Scalar(value) ?? "\u{FFFD}", length)
    }

    /// The scalar at `i` of valid UTF-8, and its length in bytes.
    static func decode(_ text: UnsafeBufferPointer<UInt8>, at i: Int) -> (scalar: Unicode.Scalar, length: Int) {
        let lead = UInt32(text[i])
        var value: UInt32
        let length: Int
        if lead < 0x80 {
            return (Unicode.Scalar(UInt8(lead)), 1)
        } else if lead < 0xE0 {
            value = lead & 0x1F
            length = 2
        } else if lead < 0xF0 {
            value = lead & 0x0F
            length = 3
        } else {
            value = lead & 0x07
            length = 4
        }
        for k in 1..<length { value = value << 6 | UInt32(text[i + k] & 0x3F) }
        return (Unicode.Scalar(value) ?? "\u{FFFD}", length)
    }

    /// True when the three bytes at `i` are U+1FEF GREEK VARIA.
    static func isGreekVaria(_ text: UnsafeBufferPointer<UInt8>, at i: Int) -> Bool {
        i + 2 < text.count && text[i] == 0xE1 && text[i + 1] == 0xBF && text[i + 2] == 0xAF
    }
}

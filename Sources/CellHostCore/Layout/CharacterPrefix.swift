/// Cuts UTF-8 text to its first N `Character`s — what
/// `String(decoding:as:).prefix(N)` keeps — without making a `String` of
/// the text when it can tell the boundaries from the code points alone.
///
/// `String.prefix` walks extended grapheme clusters, some 25 instructions
/// a character. Most text is made of code points that form a character by
/// themselves whatever their neighbours (`standsAlone`); over a run of those,
/// each code point is a character and only its UTF-8 needs decoding. From
/// the first code point that may join a neighbour on, `String` cuts the rest.
enum CharacterPrefix {
    /// Cuts `bytes[start...]` to its first `limit` characters; invalid UTF-8
    /// in what is kept is repaired as `String(decoding:as:)` repairs it.
    static func cut(_ bytes: inout [UInt8], from start: Int, toCharacters limit: Int) {
        switch bytes.withUnsafeBufferPointer({ plan($0, from: start, limit: max(0, limit)) }) {
        case .whole:
            return
        case let .at(end):
            bytes.removeSubrange(end...)
        case let .general(boundary, before):
            let rest = String(decoding: bytes[boundary...], as: UTF8.self).prefix(max(0, limit) - before)
            bytes.removeSubrange(boundary...)
            bytes += rest.utf8
        }
    }

    /// Where `cut` ends the text.
    enum Plan: Equatable {
        /// The text has at most `limit` characters and is valid UTF-8.
        case whole
        /// The first `limit` characters end at this offset.
        case at(Int)
        /// `before` characters come before `boundary`, a character boundary:
        /// the rest is cut by `String`.
        case general(boundary: Int, before: Int)
    }

    /// Walks the code points of `text[start...]`. While each stands alone,
    /// the `limit + 1`-th is where the cut goes (ASCII is taken eight bytes
    /// at a time). At the first that does not (or at invalid UTF-8), the
    /// code point before it may belong to its character, so `String` takes
    /// over from there; the two before that stand alone, so a character
    /// boundary lies between them. Text of at most `limit` valid code
    /// points has at most `limit` characters, so the rest is only counted.
    static func plan(_ text: UnsafeBufferPointer<UInt8>, from start: Int, limit: Int) -> Plan {
        guard let base = text.baseAddress else { return .whole }
        let end = text.count
        var position = start
        var scalars = 0
        // The start of the code point before `position`.
        var previous = start
        var general: Plan {
            .general(boundary: previous, before: max(0, scalars - 1))
        }
        while true {
            while position + 8 <= end && scalars + 8 <= limit {
                let word = UnsafeRawPointer(base + position).loadUnaligned(as: UInt64.self)
                // Stop at a byte of 0x80 or more, or at a CR.
                let carriageReturns = word ^ 0x0D0D_0D0D_0D0D_0D0D
                guard (word | ((carriageReturns &- 0x0101_0101_0101_0101) & ~carriageReturns)) & 0x8080_8080_8080_8080 == 0
                else { break }
                position += 8
                scalars += 8
                previous = position - 1
            }
            guard position < end else { return .whole }
            let value: UInt32
            let length: Int
            if base[position] < 0x80 {
                value = UInt32(base[position])
                length = 1
            } else if let decoded = UTF8Repair.decodeValid(text, at: position) {
                (value, length) = decoded
            } else {
                return general
            }
            if !standsAlone(value) { break }
            if scalars == limit { return .at(position) }
            scalars += 1
            previous = position
            position += length
        }
        let cut = general
        while position < end {
            if base[position] < 0x80 {
                position += 1
            } else if let (_, length) = UTF8Repair.decodeValid(text, at: position) {
                position += length
            } else {
                return cut
            }
            scalars += 1
            if scalars > limit { return cut }
        }
        return .whole
    }

    /// True for a code point whose grapheme break class is Other (which
    /// takes in Extended_Pictographic), Control or LF: between two such code
    /// points there is always a character boundary (no mark, joiner,
    /// prepend, Hangul jamo, regional indicator or CR among them). Listed as
    /// ranges of blocks that hold no other class, so the answer is the same
    /// in every Unicode version; whatever is not listed is left to `String`.
    @inline(__always)
    static func standsAlone(_ value: UInt32) -> Bool {
        switch value {
        case 0x0D: return false // CR: joins a following LF
        case 0x00...0x2FF: return true // ASCII, C1 controls, Latin-1, Latin Extended, IPA, spacing modifiers
        case 0x370...0x482, 0x48A...0x52F: return true // Greek, Cyrillic (not its combining marks)
        case 0x5D0...0x5EA: return true // Hebrew letters
        case 0x620...0x64A, 0x660...0x66F, 0x671...0x6D5: return true // Arabic letters, digits, punctuation
        case 0x200C, 0x200D: return false // zero-width non-joiner (Extend) and joiner
        case 0x2000...0x20CF: return true // general punctuation, super- and subscripts, currency
        case 0x2100...0x2BFF: return true // letterlike symbols to miscellaneous symbols and arrows
        case 0x2E80...0x2FDF: return true // CJK and Kangxi radicals
        case 0x302A...0x302F, 0x3099...0x309A: return false // ideographic tone and kana voicing marks
        case 0x3000...0x30FF: return true // CJK punctuation, Hiragana, Katakana
        case 0x3400...0x9FFF, 0xF900...0xFAFF: return true // CJK ideographs
        case 0xAC00...0xD7A3: return true // Hangul syllables (no jamo)
        case 0xFF01...0xFF5E, 0xFF61...0xFF9D: return true // full- and halfwidth forms (not the voicing marks)
        case 0x1F300...0x1F3FA, 0x1F400...0x1FAFF: return true // pictographs (not the skin-tone modifiers)
        case 0x20000...0x3FFFF: return true // CJK ideographs, planes 2 and 3
        default: return false
        }
    }
}

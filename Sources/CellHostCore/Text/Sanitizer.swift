import CUTF8Proc

/// Makes untrusted text safe to put on a terminal (docs/reliability.md):
///
/// - ECMA-48 escape sequences (CSI, OSC, DCS, SOS, PM, APC, and two-byte
///   escapes, introduced by ESC or by their C1 forms) are removed whole;
/// - other C0 and C1 controls and DEL are shown as visible symbols
///   (U+2400… control pictures, or `<U+0085>`);
/// - bidi controls and other invisible format characters are shown as
///   `<U+202E>`, except the joiners emoji and many scripts need (U+200C,
///   U+200D) and emoji tag characters;
/// - invalid UTF-8 becomes U+FFFD; a tab becomes four spaces.
///
/// Newlines are not handled here: the builder splits text into lines first.
public enum Sanitizer {
    /// Appends the sanitized form of `input` to `output` (an array, or a
    /// canvas's bytes). Returns true when the input was printable ASCII (the
    /// output is then a plain copy, one column per byte).
    ///
    /// With `keepingNewlines`, '\n' passes through (for strings handed to
    /// plugins, whose line breaks the builder honours).
    @discardableResult
    public static func sanitize<Output: ByteSink>(_ input: UnsafeBufferPointer<UInt8>, into output: inout Output,
                                                  keepingNewlines: Bool = false) -> Bool {
        // Safe text (printable ASCII, and valid UTF-8 of visible
        // characters) is copied a run at a time; only what must change is
        // looked at on its own.
        let count = input.count
        var position = 0
        var ascii = true
        let table = CodePointProperties.table
        while true {
            let runEnd = safeRunEnd(input, from: position, keepingNewlines: keepingNewlines, table: table, ascii: &ascii)
            if position == 0 && runEnd == count {
                output.append(contentsOf: input)
                return ascii
            }
            if runEnd > position { output.append(contentsOf: UnsafeBufferPointer(rebasing: input[position..<runEnd])) }
            guard runEnd < count else { return false }
            position = replaceUnsafe(input, at: runEnd, into: &output)
        }
    }

    /// True when `input` needs no change (`sanitize` would copy it as it is).
    ///
    /// `table` is where non-ASCII characters are looked up: a caller on a
    /// hot path passes one it keeps (`StringArena`), since reading
    /// `CodePointProperties.table` costs a `swift_once` check each time.
    @inline(__always)
    static func isSafe(_ input: UnsafeBufferPointer<UInt8>, keepingNewlines: Bool,
                       table: CodePointProperties.Table = CodePointProperties.table) -> Bool {
        var ascii = true
        return safeRunEnd(input, from: 0, keepingNewlines: keepingNewlines, table: table, ascii: &ascii) == input.count
    }

    /// Where the safe text from `start` ends: the first byte that starts
    /// something to remove or replace, or the end. Clears `ascii` when it
    /// passes a non-ASCII character or a newline (not printable ASCII).
    @inline(__always)
    private static func safeRunEnd(_ input: UnsafeBufferPointer<UInt8>, from start: Int, keepingNewlines: Bool,
                                   table: CodePointProperties.Table, ascii: inout Bool) -> Int {
        var position = start
        let count = input.count
        guard let base = input.baseAddress else { return position }
        while position < count {
            // Printable ASCII a vector or a word at a time (not tried inside
            // a run of non-ASCII characters, such as CJK text).
            if base[position] < 0x80 {
                position = printableASCIIEnd(base, from: position, count: count)
                if position >= count { break }
            }
            let byte = base[position]
            if byte < 0x80 {
                // Printable (a byte the word scan flagged falsely), a kept
                // newline, or the end of the run.
                if byte &- 0x20 < 0x5F { position &+= 1; continue }
                if byte == 0x0A && keepingNewlines { ascii = false; position &+= 1; continue }
                break
            }
            // Most characters of most scripts: a lead and second byte after
            // which no sequence can be a control or a hidden format
            // character, so only the sequence's form is checked (no
            // decoding, no look-up).
            let visible = visibleSequenceLength(base, at: position, count: count)
            if visible > 0 { ascii = false; position &+= visible; continue }
            // A bar or a waveform: box drawing, block elements or braille,
            // visible characters all, taken a run at a time on their bytes.
            if byte == 0xE2, position + 1 < count, base[position + 1] &- 0x94 < 3 || base[position + 1] &- 0xA0 < 4 {
                let symbolsEnd = CodePointProperties.narrowSymbolRunEnd(input, from: position, end: count)
                if symbolsEnd > position {
                    ascii = false
                    position = symbolsEnd
                    continue
                }
            }
            guard byte >= 0xC2, let (scalar, length) = UTF8Repair.decodeValid(input, at: position) else { break }
            guard scalar >= 0xA0, !table.of(scalar).isHiddenFormat else { break }
            ascii = false
            position &+= length
        }
        return position
    }

    /// For each lead byte C2–EF (entry `lead - 0xC2`), the second bytes
    /// 80–BF (bit `second & 0x3F`) after which every valid sequence is a
    /// visible character from U+00A0 (no C1 control, no hidden format
    /// character): for a two-byte lead, the one character; for a three-byte
    /// lead, all 64 characters the third byte can make (so E0 80–9F,
    /// overlong, and ED A0–BF, surrogates, are clear, and a third byte
    /// 80–BF is all that is left to check). Whole scripts (Latin, Greek,
    /// Cyrillic, Hebrew, Arabic but for its few format characters, Indic,
    /// Vietnamese, CJK punctuation, kana, Hangul, fullwidth forms, the
    /// variation selectors of emoji) thus need no decoding and no look-up.
    /// E2 94–96 and E2 A0–A3 (box drawing, block elements, braille) are left
    /// clear for `narrowSymbolRunEnd`, which takes a waveform's run of them
    /// at once. Made from the code point table; `SanitizerScanTests` checks
    /// every entry against it.
    static let visibleSecondBytes: [UInt64] = [
        0xFFFF_DFFF_0000_0000, 0xFFFF_FFFF_FFFF_FFFF, 0xFFFF_FFFF_FFFF_FFFF, 0xFFFF_FFFF_FFFF_FFFF, // C2–C5
        0xFFFF_FFFF_FFFF_FFFF, 0xFFFF_FFFF_FFFF_FFFF, 0xFFFF_FFFF_FFFF_FFFF, 0xFFFF_FFFF_FFFF_FFFF, // C6–C9
        0xFFFF_FFFF_FFFF_FFFF, 0xFFFF_FFFF_FFFF_FFFF, 0xFFFF_FFFF_FFFF_FFFF, 0xFFFF_FFFF_FFFF_FFFF, // CA–CD
        0xFFFF_FFFF_FFFF_FFFF, 0xFFFF_FFFF_FFFF_FFFF, 0xFFFF_FFFF_FFFF_FFFF, 0xFFFF_FFFF_FFFF_FFFF, // CE–D1
        0xFFFF_FFFF_FFFF_FFFF, 0xFFFF_FFFF_FFFF_FFFF, 0xFFFF_FFFF_FFFF_FFFF, 0xFFFF_FFFF_FFFF_FFFF, // D2–D5
        0xFFFF_FFFF_FFFF_FFFF, 0xFFFF_FFFF_FFFF_FFFF, 0xFFFF_FFFF_EFFF_FFC0, 0xFFFF_FFFF_FFFF_FFFF, // D6–D9
        0xFFFF_FFFF_FFFF_FFFF, 0xFFFF_FFFF_DFFF_FFFF, 0xFFFF_FFFF_FFFF_7FFF, 0xFFFF_FFFF_FFFF_FFFF, // DA–DD
        0xFFFF_FFFF_FFFF_FFFF, 0xFFFF_FFFF_FFFF_FFFF, 0xFFFF_FFF3_0000_0000, 0xFFFF_FFFE_FFFF_FFFF, // DE–E1
        0xFFFF_FFF0_FF8F_FFFC, 0xFFFF_FFFF_FFFF_FFFF, 0xFFFF_FFFF_FFFF_FFFF, 0xFFFF_FFFF_FFFF_FFFF, // E2–E5
        0xFFFF_FFFF_FFFF_FFFF, 0xFFFF_FFFF_FFFF_FFFF, 0xFFFF_FFFF_FFFF_FFFF, 0xFFFF_FFFF_FFFF_FFFF, // E6–E9
        0xFFFF_FFFF_FFFF_FFFF, 0xFFFF_FFFF_FFFF_FFFF, 0xFFFF_FFFF_FFFF_FFFF, 0x0000_0000_FFFF_FFFF, // EA–ED
        0xFFFF_FFFF_FFFF_FFFF, 0x77FF_FFFF_FFFF_FFFF, // EE–EF
    ]

    /// The length of the sequence at `position` (a byte that is not
    /// printable ASCII) when it is a visible character that
    /// `visibleSecondBytes` or the emoji block U+1F000–U+1FFFF vouches for
    /// without a look-up; 0 otherwise (the general path then decides).
    @inline(__always)
    static func visibleSequenceLength(_ base: UnsafePointer<UInt8>, at position: Int, count: Int) -> Int {
        let lead = base[position]
        guard position &+ 1 < count else { return 0 }
        let second = base[position &+ 1]
        let index = Int(lead &- 0xC2)
        if index < visibleSecondBytes.count {
            guard second & 0xC0 == 0x80, visibleSecondBytes[index] &>> UInt64(second & 0x3F) & 1 != 0 else { return 0 }
            if lead < 0xE0 { return 2 }
            return position &+ 2 < count && base[position &+ 2] & 0xC0 == 0x80 ? 3 : 0
        }
        // F0 9F, then two bytes 80–BF: U+1F000–U+1FFFF, emoji and symbols,
        // in which no code point is a hidden format character.
        guard lead == 0xF0, position &+ 3 < count else { return 0 }
        let sequence = UInt32(littleEndian: UnsafeRawPointer(base + position).loadUnaligned(as: UInt32.self))
        return sequence & 0xC0C0_FFFF == 0x8080_9FF0 ? 4 : 0
    }

    /// The end of the printable ASCII (20–7E) from `start` (a byte below
    /// 0x80): the first byte below 0x20, 0x7F or from 0x80, or `count`.
    ///
    /// Sixteen bytes a turn as `SIMD16` (SSE2), then the last sixteen,
    /// overlapping bytes this scan found printable (which cannot be
    /// flagged); eight to fifteen bytes as a `UInt64` word and the last
    /// eight; fewer than eight as the buffer's last word, shifted past the
    /// bytes before `start` (which may be anything); in a buffer of under
    /// eight bytes (a name, an id), four to seven as two `UInt32` words,
    /// fewer one at a time.
    @inline(__always)
    static func printableASCIIEnd(_ base: UnsafePointer<UInt8>, from start: Int, count: Int) -> Int {
        let left = count &- start
        if left >= 16 {
            var position = start
            while position &+ 16 <= count {
                let flagged = unprintableLanes(UnsafeRawPointer(base + position).loadUnaligned(as: SIMD16<UInt8>.self))
                if flagged != 0 { return position &+ flagged.trailingZeroBitCount &>> 3 }
                position &+= 16
            }
            if position == count { return count }
            let last = count &- 16
            let flagged = unprintableLanes(UnsafeRawPointer(base + last).loadUnaligned(as: SIMD16<UInt8>.self))
            return flagged == 0 ? count : last &+ flagged.trailingZeroBitCount &>> 3
        }
        if left >= 8 {
            return printableEnd(base, from: start, count: count, as: UInt64.self)
        }
        if count >= 8 {
            // The buffer's last word, the bytes before `start` shifted
            // out. A borrow or carry from them can only flag a printable
            // byte (which the caller steps over), never hide one.
            let flagged = unprintableBytes(word(base, count &- 8, as: UInt64.self)) &>> UInt64(8 &* (8 &- left))
            return flagged == 0 ? count : start &+ flagged.trailingZeroBitCount &>> 3
        }
        if left >= 4 { return printableEnd(base, from: start, count: count, as: UInt32.self) }
        var position = start
        while position < count, base[position] &- 0x20 < 0x5F { position &+= 1 }
        return position
    }

    /// `printableASCIIEnd` of one to two words' worth of bytes (`count -
    /// start` from one `Word` to two): the word at `start`, then the last
    /// word, overlapping bytes the first found printable.
    @inline(__always)
    private static func printableEnd<Word: FixedWidthInteger & UnsignedInteger>(
        _ base: UnsafePointer<UInt8>, from start: Int, count: Int, as: Word.Type
    ) -> Int {
        let first = unprintableBytes(word(base, start, as: Word.self))
        if first != 0 { return start &+ first.trailingZeroBitCount &>> 3 }
        let last = count &- MemoryLayout<Word>.size
        let flagged = unprintableBytes(word(base, last, as: Word.self))
        return flagged == 0 ? count : last &+ flagged.trailingZeroBitCount &>> 3
    }

    /// The bytes at `offset` as a word, the first in the lowest.
    @inline(__always)
    private static func word<Word: FixedWidthInteger>(_ base: UnsafePointer<UInt8>, _ offset: Int, as: Word.Type) -> Word {
        Word(littleEndian: UnsafeRawPointer(base + offset).loadUnaligned(as: Word.self))
    }

    /// The high bit of each byte of `word` below 0x20 (subtracting 0x20
    /// borrows), 0x7F (adding 1 carries) or from 0x80. Borrows and carries
    /// only move up, and none leaves a printable byte, so the lowest set
    /// bit is always the first such byte's.
    @inline(__always)
    private static func unprintableBytes<Word: FixedWidthInteger & UnsignedInteger>(_ word: Word) -> Word {
        let ones = Word.max / 0xFF, highs = ones &<< 7
        return (word | (word &- 0x20 &* ones) | (word &+ ones)) & highs
    }

    /// Each lane of `bytes` that is not printable ASCII as a set byte
    /// (0xFF) of the result, the first lane in the lowest. Adding 1 maps
    /// 20–7E to 21–7F, the only bytes above 0x20 as signed numbers, so
    /// one add and one signed compare find them all.
    @inline(__always)
    private static func unprintableLanes(_ bytes: SIMD16<UInt8>) -> UInt128 {
        let shifted = unsafeBitCast(bytes &+ 1, to: SIMD16<Int8>.self)
        let flagged = shifted .<= SIMD16<Int8>(repeating: 0x20)
        return unsafeBitCast(flagged, to: UInt128.self)
    }

    /// Appends what replaces the unsafe character or sequence at `position`
    /// (nothing, for an escape sequence) and returns the position after it.
    private static func replaceUnsafe<Output: ByteSink>(_ input: UnsafeBufferPointer<UInt8>, at position: Int,
                                                        into output: inout Output) -> Int {
        let byte = input[position]
        if byte == 0x1B { return skipEscape(input, position + 1) }
        if byte == 0x09 {
            for _ in 0..<4 { output.append(0x20) }
            return position + 1
        }
        if byte < 0x20 { UTF8Repair.appendScalar(0x2400 + UInt32(byte), to: &output); return position + 1 }
        if byte == 0x7F { UTF8Repair.appendScalar(0x2421, to: &output); return position + 1 }
        let length = UTF8Repair.validSequenceLength(input, position)
        guard length > 0 else {
            UTF8Repair.appendScalar(0xFFFD, to: &output)
            return position + UTF8Repair.invalidSubpartLength(input, position)
        }
        let scalar = decode(input, position, length)
        switch scalar {
        case 0x9B: return skipCSIBody(input, position + length)               // C1 CSI
        case 0x9D: return skipStringBody(input, position + length)            // C1 OSC
        case 0x90, 0x98, 0x9E, 0x9F: return skipStringBody(input, position + length) // C1 DCS, SOS, PM, APC
        default: // other C1 controls, hidden format characters
            appendVisible(scalar, to: &output)
            return position + length
        }
    }

    /// Sanitizes a Swift string.
    public static func sanitize(_ text: String) -> String {
        var text = text
        var output: [UInt8] = []
        text.withUTF8 { _ = sanitize($0, into: &output) }
        return String(decoding: output, as: UTF8.self)
    }

    /// Format characters (category Cf) and other invisible characters that
    /// could hide or reorder text, to be shown visibly.
    @inline(__always)
    static func isHiddenFormat(_ scalar: UInt32) -> Bool {
        scalar >= 0xAD && scalar <= 0x10FFFF && CodePointProperties.of(scalar).isHiddenFormat
    }

    /// `isHiddenFormat` of `scalar`, whose general category (utf8proc's) is
    /// `category` (`CodePointProperties` keeps the answers).
    static func computeHiddenFormat(_ scalar: UInt32, category: utf8proc_category_t) -> Bool {
        if scalar < 0xAD { return false }
        if scalar == 0x200C || scalar == 0x200D { return false }      // ZWNJ, ZWJ
        if scalar >= 0xE0020 && scalar <= 0xE007F { return false }    // emoji tag sequences
        if scalar == 0x2028 || scalar == 0x2029 { return true }       // line/paragraph separators
        if scalar >= 0xFFF9 && scalar <= 0xFFFB { return true }       // interlinear annotation
        return category == UTF8PROC_CATEGORY_CF
    }

    static func appendVisible<Output: ByteSink>(_ scalar: UInt32, to output: inout Output) {
        var hex = String(scalar, radix: 16, uppercase: true)
        while hex.count < 4 { hex = "0" + hex }
        var shown = "<U+\(hex)>"
        shown.withUTF8 { output.append(contentsOf: $0) }
    }

    @inline(__always)
    static func decode(_ input: UnsafeBufferPointer<UInt8>, _ position: Int, _ length: Int) -> UInt32 {
        let lead = UInt32(input[position])
        switch length {
        case 2: return (lead & 0x1F) << 6 | UInt32(input[position + 1] & 0x3F)
        case 3: return (lead & 0x0F) << 12 | UInt32(input[position + 1] & 0x3F) << 6 | UInt32(input[position + 2] & 0x3F)
        default:
            return (lead & 0x07) << 18 | UInt32(input[position + 1] & 0x3F) << 12
                | UInt32(input[position + 2] & 0x3F) << 6 | UInt32(input[position + 3] & 0x3F)
        }
    }

    /// Skips an escape sequence whose ESC was at `position - 1`; returns the
    /// position after it.
    static func skipEscape(_ input: UnsafeBufferPointer<UInt8>, _ position: Int) -> Int {
        guard position < input.count else { return position }
        let byte = input[position]
        switch byte {
        case UInt8(ascii: "["): return skipCSIBody(input, position + 1)
        case UInt8(ascii: "]"), UInt8(ascii: "P"), UInt8(ascii: "X"), UInt8(ascii: "^"), UInt8(ascii: "_"):
            return skipStringBody(input, position + 1)
        case 0x20...0x2F:
            // nF: intermediates, then one final byte.
            var index = position
            while index < input.count, input[index] >= 0x20, input[index] <= 0x2F { index += 1 }
            if index < input.count, input[index] >= 0x30, input[index] <= 0x7E { index += 1 }
            return index
        case 0x30...0x7E:
            return position + 1
        default:
            // A lone ESC: drop it, keep what follows.
            return position
        }
    }

    /// Skips CSI parameters, intermediates and the final byte.
    static func skipCSIBody(_ input: UnsafeBufferPointer<UInt8>, _ position: Int) -> Int {
        var index = position
        while index < input.count, input[index] >= 0x30, input[index] <= 0x3F { index += 1 }
        while index < input.count, input[index] >= 0x20, input[index] <= 0x2F { index += 1 }
        if index < input.count, input[index] >= 0x40, input[index] <= 0x7E { index += 1 }
        return index
    }

    /// Skips a control string up to and including its terminator (BEL, ESC \,
    /// or C1 ST), or to the end of the text when unterminated.
    static func skipStringBody(_ input: UnsafeBufferPointer<UInt8>, _ position: Int) -> Int {
        var index = position
        while index < input.count {
            let byte = input[index]
            if byte == 0x07 { return index + 1 }
            if byte == 0x1B {
                return index + 1 < input.count && input[index + 1] == UInt8(ascii: "\\") ? index + 2 : index + 1
            }
            if byte == 0xC2, index + 1 < input.count, input[index + 1] == 0x9C { return index + 2 }
            index += 1
        }
        return index
    }
}

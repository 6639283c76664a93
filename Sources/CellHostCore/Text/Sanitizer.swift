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
        while position < count {
            // Sixteen bytes of printable ASCII at a time, as `SIMD16` (SSE2
            // compares), then eight (not tried inside a run of non-ASCII
            // characters, such as CJK text).
            if let base = input.baseAddress, base[position] < 0x80 {
                while position + 16 <= count {
                    let bytes = UnsafeRawPointer(base + position).loadUnaligned(as: SIMD16<UInt8>.self)
                    // A byte < 0x20, 0x7F or >= 0x80.
                    let unsafe = (bytes .< SIMD16<UInt8>(repeating: 0x20)) .| (bytes .>= SIMD16<UInt8>(repeating: 0x7F))
                    if let lane = unsafe.firstTrueLane {
                        position += lane
                        break
                    }
                    position += 16
                }
                while position + 8 <= count {
                    let word = UInt64(littleEndian: UnsafeRawPointer(base + position).loadUnaligned(as: UInt64.self))
                    let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
                    // A byte >= 0x80, < 0x20 (subtracting 0x20 borrows) or 0x7F (adding 1 carries).
                    let unsafe = (word | (word &- 0x20 &* ones) | (word &+ ones)) & highs
                    if unsafe != 0 {
                        // Its lowest set bit is the first such byte's (borrows
                        // and carries only move up, and none leaves a printable
                        // byte): the bytes before it are printable ASCII.
                        position += unsafe.trailingZeroBitCount >> 3
                        break
                    }
                    position += 8
                }
                if position >= count { break }
                if position + 8 > count, count >= 8 {
                    // Fewer than eight bytes left: the last eight, shifted
                    // past those looked at already (a carry or borrow from
                    // them can only flag a safe byte, never hide one).
                    let word = UInt64(littleEndian: UnsafeRawPointer(base + count - 8).loadUnaligned(as: UInt64.self))
                    let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
                    let unsafe = ((word | (word &- 0x20 &* ones) | (word &+ ones)) & highs) >> UInt64(8 * (position + 8 - count))
                    if unsafe == 0 { position = count; break }
                    position += unsafe.trailingZeroBitCount >> 3
                }
            }
            let byte = input[position]
            if byte >= 0x20 && byte < 0x7F { position += 1; continue }
            if byte == 0x0A && keepingNewlines { ascii = false; position += 1; continue }
            // A bar or a waveform: box drawing, block elements or braille,
            // visible characters all, taken a run at a time on their bytes.
            if byte == 0xE2, position + 1 < count, input[position + 1] &- 0x94 < 3 || input[position + 1] &- 0xA0 < 4 {
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
            position += length
        }
        return position
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

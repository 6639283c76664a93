/// Copies UTF-8 while replacing every invalid sequence (each maximal invalid
/// subpart, as Unicode recommends) with U+FFFD.
enum UTF8Repair {
    static let replacement: [UInt8] = [0xEF, 0xBF, 0xBD]

    /// Appends `input` to `output`, repaired.
    static func append(_ input: UnsafeBufferPointer<UInt8>, to output: inout [UInt8]) {
        var position = 0
        let count = input.count
        var runStart = 0
        while position < count {
            let byte = input[position]
            if byte < 0x80 { position += 1; continue }
            let length = validSequenceLength(input, position)
            if length > 0 { position += length; continue }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: input[runStart..<position]))
            output.append(contentsOf: replacement)
            position += max(1, invalidSubpartLength(input, position))
            runStart = position
        }
        output.append(contentsOf: UnsafeBufferPointer(rebasing: input[runStart..<count]))
    }

    /// Appends one scalar as UTF-8 (U+FFFD for surrogates and out-of-range values).
    static func appendScalar<Output: ByteSink>(_ value: UInt32, to output: inout Output) {
        let scalar = (value >= 0xD800 && value < 0xE000) || value > 0x10FFFF ? 0xFFFD : value
        switch scalar {
        case 0..<0x80: output.append(UInt8(scalar))
        case 0x80..<0x800:
            output.append(UInt8(0xC0 | scalar >> 6)); output.append(UInt8(0x80 | scalar & 0x3F))
        case 0x800..<0x10000:
            output.append(UInt8(0xE0 | scalar >> 12)); output.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            output.append(UInt8(0x80 | scalar & 0x3F))
        default:
            output.append(UInt8(0xF0 | scalar >> 18)); output.append(UInt8(0x80 | scalar >> 12 & 0x3F))
            output.append(UInt8(0x80 | scalar >> 6 & 0x3F)); output.append(UInt8(0x80 | scalar & 0x3F))
        }
    }

    /// The code point at `index` (a byte of 0x80 or more) and its length
    /// when it starts a valid two-, three- or four-byte sequence: what
    /// `validSequenceLength` accepts, checked on the decoded value (no
    /// overlong form, surrogate or value above U+10FFFF); nil otherwise.
    /// Validates and decodes in one pass, for the loops that need the value.
    @inline(__always)
    static func decodeValid(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> (value: UInt32, length: Int)? {
        let count = bytes.count
        let lead = UInt32(bytes[index])
        guard index + 1 < count else { return nil }
        let second = UInt32(bytes[index + 1])
        guard second & 0xC0 == 0x80 else { return nil }
        if lead < 0xE0 {
            let value = (lead & 0x1F) << 6 | (second & 0x3F)
            return lead >= 0xC0 && value >= 0x80 ? (value, 2) : nil
        }
        guard index + 2 < count else { return nil }
        let third = UInt32(bytes[index + 2])
        guard third & 0xC0 == 0x80 else { return nil }
        if lead < 0xF0 {
            let value = (lead & 0x0F) << 12 | (second & 0x3F) << 6 | (third & 0x3F)
            return value >= 0x800 && (value < 0xD800 || value >= 0xE000) ? (value, 3) : nil
        }
        guard lead < 0xF8, index + 3 < count else { return nil }
        let fourth = UInt32(bytes[index + 3])
        guard fourth & 0xC0 == 0x80 else { return nil }
        let value = (lead & 0x07) << 18 | (second & 0x3F) << 12 | (third & 0x3F) << 6 | (fourth & 0x3F)
        return value >= 0x10000 && value <= 0x10FFFF ? (value, 4) : nil
    }

    /// Length of the valid sequence starting at `position`, or 0.
    @inline(__always)
    static func validSequenceLength(_ input: UnsafeBufferPointer<UInt8>, _ position: Int) -> Int {
        let lead = input[position]
        let count = input.count
        func continuation(_ offset: Int, _ low: UInt8 = 0x80, _ high: UInt8 = 0xBF) -> Bool {
            position + offset < count && input[position + offset] >= low && input[position + offset] <= high
        }
        switch lead {
        case 0xC2...0xDF: return continuation(1) ? 2 : 0
        case 0xE0: return continuation(1, 0xA0) && continuation(2) ? 3 : 0
        case 0xE1...0xEC, 0xEE, 0xEF: return continuation(1) && continuation(2) ? 3 : 0
        case 0xED: return continuation(1, 0x80, 0x9F) && continuation(2) ? 3 : 0
        case 0xF0: return continuation(1, 0x90) && continuation(2) && continuation(3) ? 4 : 0
        case 0xF1...0xF3: return continuation(1) && continuation(2) && continuation(3) ? 4 : 0
        case 0xF4: return continuation(1, 0x80, 0x8F) && continuation(2) && continuation(3) ? 4 : 0
        default: return 0
        }
    }

    /// Length of the maximal invalid subpart at `position` (at least 1).
    static func invalidSubpartLength(_ input: UnsafeBufferPointer<UInt8>, _ position: Int) -> Int {
        let lead = input[position]
        let expected: Int
        var low: UInt8 = 0x80, high: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: expected = 2
        case 0xE0: expected = 3; low = 0xA0
        case 0xED: expected = 3; high = 0x9F
        case 0xE1...0xEF: expected = 3
        case 0xF0: expected = 4; low = 0x90
        case 0xF4: expected = 4; high = 0x8F
        case 0xF1...0xF3: expected = 4
        default: return 1
        }
        var length = 1
        while length < expected, position + length < input.count {
            let byte = input[position + length]
            let (lo, hi) = length == 1 ? (low, high) : (UInt8(0x80), UInt8(0xBF))
            guard byte >= lo && byte <= hi else { break }
            length += 1
        }
        return length
    }
}

/// Mends the string escapes JSON does not allow, so a value written by a
/// careless tool is still read: `\xNN` becomes `\u00NN`, and a backslash
/// before anything else that is no escape is kept as a literal backslash.
enum InvalidEscapes {
    /// The repaired bytes, how many escapes were mended and the first of
    /// them as it was, or nil when there was nothing to mend.
    static func repair(_ bytes: UnsafeBufferPointer<UInt8>) -> (bytes: [UInt8], count: Int, first: String)? {
        var output: [UInt8] = []
        var count = 0
        var first = ""
        var inString = false
        var i = 0
        var copied = 0
        func isHex(_ index: Int) -> Bool { index < bytes.count && hexValue(bytes[index]) != nil }
        while i < bytes.count {
            let byte = bytes[i]
            if !inString {
                if byte == UInt8(ascii: "\"") { inString = true }
                i += 1
                continue
            }
            if byte == UInt8(ascii: "\"") { inString = false; i += 1; continue }
            guard byte == UInt8(ascii: "\\") else { i += 1; continue }
            let next: UInt8 = i + 1 < bytes.count ? bytes[i + 1] : 0
            switch next {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
                 UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                i += 2
                continue
            case UInt8(ascii: "u") where (2...5).allSatisfy({ isHex(i + $0) }):
                i += 6
                continue
            default:
                break
            }
            output.append(contentsOf: bytes[copied..<i])
            if count == 0 { first = String(decoding: bytes[i..<min(i + (next == UInt8(ascii: "x") ? 4 : 2), bytes.count)], as: UTF8.self) }
            if next == UInt8(ascii: "x"), isHex(i + 2), isHex(i + 3) {
                output.append(contentsOf: Array("\\u00".utf8))
                output.append(bytes[i + 2])
                output.append(bytes[i + 3])
                i += 4
            } else {
                output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
                i += 1
            }
            copied = i
            count += 1
        }
        guard count > 0 else { return nil }
        output.append(contentsOf: bytes[copied...])
        return (output, count, first)
    }
}

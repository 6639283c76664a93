// libFuzzer target `sanitizer`: the first byte picks a content width (2…129),
// the rest is untrusted text. It goes through the sanitizer (both forms), a
// cell canvas (which sanitizes each line on the way in) and the wrapper.
// Invariants: sanitized output is valid UTF-8 without ESC, C0 (but "\n" when
// kept), DEL or C1; wrapped lines are no wider than the width, by their own
// count and measured again.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSanitizer(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard size > 0, let data else { return 0 }
    let width = 2 + Int(data[0]) % 128
    checkSanitizeAndWrap(UnsafeBufferPointer(start: data + 1, count: size - 1), width: width)
    return 0
}

func checkSafe(_ bytes: [UInt8], keepingNewlines: Bool, _ what: String) {
    guard String(validating: bytes, as: UTF8.self) != nil else { fuzzFail("\(what): not valid UTF-8") }
    for (index, byte) in bytes.enumerated() {
        if byte == 0x0A && keepingNewlines { continue }
        if byte < 0x20 || byte == 0x7F { fuzzFail("\(what): byte \(byte) at \(index)") }
        if byte == 0xC2, index + 1 < bytes.count, bytes[index + 1] >= 0x80, bytes[index + 1] <= 0x9F {
            fuzzFail("\(what): C1 control at \(index)")
        }
    }
}

func checkSanitizeAndWrap(_ input: UnsafeBufferPointer<UInt8>, width: Int) {
    for keepingNewlines in [false, true] {
        var output: [UInt8] = []
        let clean = Sanitizer.sanitize(input, into: &output, keepingNewlines: keepingNewlines)
        if clean && !output.elementsEqual(input) { fuzzFail("clean input was changed") }
        checkSafe(output, keepingNewlines: keepingNewlines, "sanitize(keepingNewlines: \(keepingNewlines))")
    }
    let string = Sanitizer.sanitize(String(decoding: input, as: UTF8.self))
    checkSafe(Array(string.utf8), keepingNewlines: false, "sanitize(String)")

    let canvas = CellCanvas()
    canvas.append(input, style: .strong)
    canvas.append(input, style: .code)
    Wrapper(width: width).wrap(canvas)
    for (number, line) in canvas.contentLines.enumerated() {
        var bytes: [UInt8] = []
        var sum = 0
        for piece in canvas.pieces[Int(line.firstPiece)..<Int(line.endPiece)] {
            sum += Int(piece.width)
            if piece.start >= 0 { bytes += canvas.bytes[Int(piece.start)..<Int(piece.end)] }
        }
        if sum != Int(line.width) { fuzzFail("line \(number): pieces sum to \(sum), line says \(line.width)") }
        if Int(line.width) > width { fuzzFail("line \(number) is \(line.width) columns at width \(width)") }
        checkSafe(bytes, keepingNewlines: false, "wrapped line \(number)")
        let measured = DisplayWidth.width(of: String(decoding: bytes, as: UTF8.self))
        if measured > width { fuzzFail("line \(number) measures \(measured) columns at width \(width)") }
    }
}

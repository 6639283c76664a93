import CUTF8Proc
import XCTest
@testable import CellHostCore

/// The sanitizer's safe-run scan (`Sanitizer.isSafe`, and `sanitize`, which
/// runs the same scan between the bytes it replaces) against the byte-by-byte
/// reference (`ReferenceClusters.sanitize`, every code point through
/// utf8proc): every code point, every lead byte with every next byte,
/// sequences cut short at the end of the buffer, and ASCII runs that start
/// after non-ASCII characters and controls.
final class SanitizerScanTests: XCTestCase {

    /// `Sanitizer.visibleSecondBytes` against the code point table, entry
    /// by entry: a bit is set exactly when every valid sequence of its lead
    /// and second byte is a character from U+00A0 shown as it is (for a
    /// three-byte lead, all 64 third bytes, none overlong or a surrogate),
    /// but for the box drawing, block and braille rows (E2 94–96, E2
    /// A0–A3) left to the run scan. So is U+1F000–U+1FFFF (F0 9F).
    func test_visibleSecondBytes_matchTheTable() {
        XCTAssertEqual(Sanitizer.visibleSecondBytes.count, 0xEF - 0xC2 + 1)
        func shown(_ scalar: UInt32) -> Bool {
            scalar >= 0xA0 && !(0xD800...0xDFFF).contains(scalar) && !Sanitizer.isHiddenFormat(scalar)
        }
        for lead in UInt32(0xC2)...0xEF {
            for second in UInt32(0x80)...0xBF {
                var expected: Bool
                if lead < 0xE0 {
                    expected = shown((lead & 0x1F) << 6 | (second & 0x3F))
                } else {
                    let first = (lead & 0x0F) << 12 | (second & 0x3F) << 6
                    expected = first >= 0x800 && (first...(first + 0x3F)).allSatisfy(shown)
                }
                if lead == 0xE2 && ((0x94...0x96).contains(second) || (0xA0...0xA3).contains(second)) { expected = false }
                let bit = Sanitizer.visibleSecondBytes[Int(lead - 0xC2)] >> UInt64(second & 0x3F) & 1 != 0
                XCTAssertEqual(bit, expected, "lead \(String(lead, radix: 16)) second \(String(second, radix: 16))")
            }
        }
        for scalar in UInt32(0x1F000)...0x1FFFF where Sanitizer.isHiddenFormat(scalar) {
            XCTFail("U+\(String(scalar, radix: 16)) is a hidden format character")
        }
    }

    /// Every code point, alone (its sequence ends the buffer), and after a
    /// few ASCII letters and before one.
    func test_isSafe_matchesTheReference_forEveryCodePoint() {
        var buffer = [UInt8](repeating: 0, count: 16)
        let table = CodePointProperties.table
        for value in UInt32(0)...0x10FFFF where !(0xD800...0xDFFF).contains(value) {
            var encoded: [UInt8] = []
            UTF8Repair.appendScalar(value, to: &encoded)
            let expected = value < 0x80 ? value >= 0x20 && value < 0x7F
                : value >= 0xA0 && !Sanitizer.computeHiddenFormat(value, category: utf8proc_category(Int32(bitPattern: value)))
            for shape in 0..<2 {
                var count = 0
                func put(_ bytes: [UInt8]) { for byte in bytes { buffer[count] = byte; count += 1 } }
                if shape == 1 { put([0x61, 0x62]) }
                put(encoded)
                if shape == 1 { put([0x63]) }
                let safe = buffer.withUnsafeBufferPointer {
                    Sanitizer.isSafe(UnsafeBufferPointer(rebasing: $0[..<count]), keepingNewlines: false, table: table)
                }
                if safe != expected { XCTFail("U+\(String(value, radix: 16)) shape \(shape): \(safe)"); return }
            }
        }
    }

    /// Every byte from 0x80 as a lead with every second byte, then (for
    /// three- and four-byte leads) a third and fourth byte of each kind or
    /// none: alone, so that the sequence may be cut short by the buffer's
    /// end, and between ASCII.
    func test_everyLeadByte_withEveryNextByte_matchesTheReference() {
        let others: [UInt8] = [0x00, 0x0A, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xE3, 0xFF]
        for lead in UInt8(0x80)...0xFF {
            for second in UInt8(0)...0xFF {
                var sequences: [[UInt8]] = [[lead], [lead, second]]
                if lead >= 0xE0 { sequences += others.map { [lead, second, $0] } }
                if lead >= 0xF0 {
                    let thirds: [UInt8] = [0x41, 0x80, 0x8F, 0x90, 0xBF, 0xC0]
                    sequences += [0x80, 0xBF, 0x41, 0xC0].flatMap { fourth in thirds.map { [lead, second, $0, fourth] } }
                }
                for sequence in sequences {
                    for input in [sequence, [0x61, 0x62] + sequence + [0x63], Array(repeating: 0x61, count: 17) + sequence] {
                        if !matchesReference(input, keepingNewlines: false) { return }
                    }
                }
            }
        }
    }

    /// Printable ASCII runs of every length from 0 to 40 with an unsafe or
    /// non-ASCII byte at every position, after a character or control that
    /// is not ASCII printable (so the scan starts past the buffer's start,
    /// after bytes it must not be misled by), both ways of newlines.
    func test_asciiRunsAfterOtherCharacters_matchTheReference() {
        let befores: [[UInt8]] = [[], Array("é".utf8), Array("日".utf8), Array("😀".utf8), Array("\u{202E}".utf8), [0x0A],
                                  [0x00], [0x09], [0x1B], [0x7F], [0xFF], [0xC2, 0x85]]
        let inserts: [[UInt8]] = [[], [0x1F], [0x00], [0x7F], [0x80], [0xFF], [0x0A], Array("é".utf8), Array("日".utf8),
                                  Array("\u{200B}".utf8), [0xE3, 0x81]]
        for before in befores {
            for length in 0...40 {
                let run = (0..<length).map { UInt8(0x20 + ($0 * 7) % 0x5F) }
                for insert in inserts {
                    for at in 0...length {
                        let input = before + Array(run[..<at]) + insert + Array(run[at...])
                        for keepingNewlines in [false, true] where !matchesReference(input, keepingNewlines: keepingNewlines) {
                            return
                        }
                    }
                }
            }
        }
    }

    /// Asserts that `isSafe` says whether the reference leaves `input` as
    /// it is, and that `sanitize` gives the reference's output; false on
    /// the first mismatch, so that a loop stops there.
    private func matchesReference(_ input: [UInt8], keepingNewlines: Bool,
                                  file: StaticString = #filePath, line: UInt = #line) -> Bool {
        let reference = input.withUnsafeBufferPointer { ReferenceClusters.sanitize($0, keepingNewlines: keepingNewlines) }
        let safe = input.withUnsafeBufferPointer { Sanitizer.isSafe($0, keepingNewlines: keepingNewlines) }
        var output: [UInt8] = []
        input.withUnsafeBufferPointer { _ = Sanitizer.sanitize($0, into: &output, keepingNewlines: keepingNewlines) }
        XCTAssertEqual(safe, reference == input, "isSafe \(input) keeping newlines \(keepingNewlines)", file: file, line: line)
        XCTAssertEqual(output, reference, "sanitize \(input) keeping newlines \(keepingNewlines)", file: file, line: line)
        return safe == (reference == input) && output == reference
    }
}

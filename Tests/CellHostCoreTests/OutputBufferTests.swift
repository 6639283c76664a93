import XCTest
@testable import CellHostCore

/// The output buffer's number and padding writers, and the JSON string
/// escaper's eight-bytes-at-a-time scan, against the obvious versions.
final class OutputBufferTests: XCTestCase {
    func test_appendDecimal_writesWhatStringDescribingWrites() {
        let values = [0, 1, 9, 10, 99, 100, 255, 1000, 65_535, 1_000_000, -1, -10, -999, Int.max, Int.min, Int.min + 1]
        for value in values + (0..<200).map({ _ in Int.random(in: Int.min...Int.max) }) {
            let out = OutputBuffer(fd: -1)
            out.appendDecimal(value)
            XCTAssertEqual(String(decoding: out.bytes, as: UTF8.self), String(value))
        }
    }

    func test_appendSpaces_writesExactlyTheCount_andNothingForZeroOrLess() {
        for count in [-5, 0, 1, 7, 300] {
            let out = OutputBuffer(fd: -1)
            out.append(0x41)
            out.appendSpaces(count)
            XCTAssertEqual(out.bytes, [0x41] + [UInt8](repeating: 0x20, count: max(0, count)))
        }
    }

    /// A cursor's appends write what the buffer's own write, across
    /// growth past the initial capacity (large runs and paddings, and many
    /// small ones), after bytes already pending, with empty runs and
    /// padding of no columns.
    func test_cursor_appendsWhatTheBufferAppends_acrossGrowth() {
        var generator = SystemRandomNumberGenerator()
        let text: [UInt8] = Array("┃ héllo, wörld ✓✓ read".utf8) + (0..<200).map { UInt8(0x21 + $0 % 90) }
        for round in 0..<20 {
            let direct = OutputBuffer(fd: -1)
            let viaCursor = OutputBuffer(fd: -1)
            direct.append(0x41)
            viaCursor.append(0x41)
            var steps: [(kind: Int, size: Int)] = []
            for _ in 0..<(round.isMultiple(of: 2) ? 3000 : 40) {
                let kind = Int.random(in: 0..<3, using: &generator)
                let size = round.isMultiple(of: 2) ? Int.random(in: -2...70, using: &generator)
                                                   : Int.random(in: 0...5000, using: &generator)
                steps.append((kind, size))
            }
            text.withUnsafeBufferPointer { all in
                /// Plays the steps through one writer's three appends.
                func play(_ run: (UnsafeBufferPointer<UInt8>) -> Void, _ spaces: (Int) -> Void, _ byte: (UInt8) -> Void) {
                    for (kind, size) in steps {
                        switch kind {
                        case 0: run(UnsafeBufferPointer(rebasing: all[0..<min(all.count, max(0, size))]))
                        case 1: spaces(size)
                        default: byte(0x0A)
                        }
                    }
                }
                play({ direct.append($0) }, { direct.appendSpaces($0) }, { direct.append($0) })
                viaCursor.withCursor { cursor in
                    play({ cursor.append($0) }, { cursor.appendSpaces($0) }, { cursor.append($0) })
                }
            }
            XCTAssertEqual(viaCursor.bytes, direct.bytes, "round \(round)")
        }
    }

    /// Escapes a byte at a time: `"`, `\`, newline and the other control
    /// characters and DEL; every other byte as it is.
    static func referenceJSONString(_ bytes: [UInt8]) -> [UInt8] {
        var output: [UInt8] = [0x22]
        for byte in bytes {
            switch byte {
            case 0x22: output += Array(#"\""#.utf8)
            case 0x5C: output += Array(#"\\"#.utf8)
            case 0x0A: output += Array(#"\n"#.utf8)
            case 0..<0x20, 0x7F: output += Array(String(format: "\\u%04x", Int(byte)).utf8)
            default: output.append(byte)
            }
        }
        return output + [0x22]
    }

    func test_jsonString_escapesLikeTheByteByByteReference_onRandomBytes() {
        var generator = SystemRandomNumberGenerator()
        // Mostly printable text, so that runs of eight clean bytes occur,
        // with every byte value that needs (or nearly needs) an escape.
        let special: [UInt8] = [0x00, 0x01, 0x0A, 0x1F, 0x20, 0x21, 0x22, 0x23, 0x5B, 0x5C, 0x5D, 0x7E, 0x7F, 0x80, 0xC3, 0xFF]
        for _ in 0..<5000 {
            let length = Int.random(in: 0...40, using: &generator)
            let bytes: [UInt8] = (0..<length).map { _ in
                Int.random(in: 0..<6, using: &generator) == 0
                    ? special.randomElement(using: &generator)!
                    : UInt8.random(in: 0x20...0x7E, using: &generator)
            }
            let out = OutputBuffer(fd: -1)
            bytes.withUnsafeBufferPointer { JSONText.appendString($0, to: out) }
            XCTAssertEqual(out.bytes, Self.referenceJSONString(bytes), "\(bytes)")
            if out.bytes != Self.referenceJSONString(bytes) { return }
        }
    }
}

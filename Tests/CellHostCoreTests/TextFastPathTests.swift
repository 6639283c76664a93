import CUTF8Proc
import XCTest
@testable import CellHostCore

/// The text fast paths (`CodePointProperties`, `ClusterScanner`, the
/// sanitizer's runs) give exactly what asking utf8proc code point by code
/// point gives, on random text from many scripts, marks, joiners and emoji.
final class TextFastPathTests: XCTestCase {
    /// Code points chosen to hit every branch: ASCII letters and spaces,
    /// accented Latin, Cyrillic, CJK, Hangul syllables and jamo, Arabic and
    /// Hebrew with marks, Devanagari (prepend-free marks), Thai, combining
    /// marks, ZWJ, VS16, skin tones, emoji, regional indicators, bidi and
    /// other format characters, C1 controls, ESC, tab, DEL.
    static let alphabet: [UInt32] = [
        0x61, 0x62, 0x20, 0x20, 0x2E, 0x41, 0xE9, 0xF1, 0x11F, 0x436, 0x4E2D, 0x6587, 0xAC00, 0x1100, 0x1161, 0x11A8,
        0x627, 0x644, 0x64E, 0x5D0, 0x5B8, 0x915, 0x93F, 0x94D, 0x0E01, 0x0E33, 0x301, 0x308, 0x200D, 0xFE0F,
        0x1F3FD, 0x2764, 0x1F469, 0x1F4BB, 0x1F600, 0x1F1E9, 0x1F1EA, 0x202E, 0x200B, 0xAD, 0x600, 0x110BD,
        0x85, 0x9B, 0x1B, 0x09, 0x7F, 0x2713, 0x25CC, 0xE0067, 0xFFFD, 0x3000, 0xFF21,
    ]

    static func randomText(_ generator: inout SystemRandomNumberGenerator, length: Int) -> [UInt8] {
        var scalars = String.UnicodeScalarView()
        for _ in 0..<length {
            let value = alphabet.randomElement(using: &generator)!
            scalars.append(Unicode.Scalar(value)!)
        }
        return Array(String(scalars).utf8)
    }

    func test_codePointProperties_matchUtf8proc_forEveryCodePoint() {
        for scalar in UInt32(0)...0x10FFFF where !(0xD800..<0xE000).contains(scalar) {
            let properties = CodePointProperties.of(scalar)
            let codepoint = Int32(bitPattern: scalar)
            XCTAssertEqual(properties.width, Int32(min(max(utf8proc_charwidth(codepoint), 0), 2)), "U+\(String(scalar, radix: 16))")
            let boundclass = Int32(utf8proc_get_property(codepoint).pointee.boundclass)
            XCTAssertEqual(properties.startsCluster, boundclass == Int32(UTF8PROC_BOUNDCLASS_OTHER.rawValue))
            XCTAssertEqual(properties.isPrepend, boundclass == Int32(UTF8PROC_BOUNDCLASS_PREPEND.rawValue))
            XCTAssertEqual(properties.isHiddenFormat, Sanitizer.computeHiddenFormat(scalar, category: utf8proc_category(codepoint)))
            if properties.width != Int32(min(max(utf8proc_charwidth(codepoint), 0), 2)) { return }
        }
    }

    func test_clusters_matchTheCodePointByCodePointReference_onRandomText() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<3000 {
            var text: [UInt8] = []
            let raw = Self.randomText(&generator, length: Int.random(in: 1...40, using: &generator))
            raw.withUnsafeBufferPointer { _ = Sanitizer.sanitize($0, into: &text) }
            guard clustersMatchReference(text, String(decoding: text, as: UTF8.self).unicodeScalars.map {
                String($0.value, radix: 16)
            }.description) else { return }
        }
    }

    /// Sequences `ClusterScanner`'s fast decoding must not take for a code
    /// point (overlong forms, surrogates, values above U+10FFFF, lone and
    /// missing continuation bytes): each byte is measured as U+FFFD.
    static let invalidSequences: [[UInt8]] = [
        [0x80], [0xBF], [0xC0, 0x80], [0xC1, 0xBF], [0xC3], [0xE0, 0x80, 0x80], [0xE0, 0x9F, 0xBF], [0xE2, 0x96],
        [0xED, 0xA0, 0x80], [0xED, 0xBF, 0xBF], [0xF0, 0x80, 0x80, 0x80], [0xF0, 0x8F, 0xBF, 0xBF], [0xF0, 0x9F, 0x98],
        [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80], [0xF8, 0x88, 0x80, 0x80], [0xFF], [0xE2, 0x41, 0x80],
    ]

    /// Text that is not valid UTF-8 (which the wrapper never sees, but
    /// the scanner must not misread): the fast path's decoding agrees with
    /// `UTF8Repair.validSequenceLength` on every sequence.
    func test_clusters_matchTheReference_onTextWithInvalidSequences() {
        var generator = SystemRandomNumberGenerator()
        // Printable code points only: the scanner takes ASCII controls as letters.
        let printable = Self.alphabet.filter { $0 >= 0x20 && $0 != 0x7F && !(0x80..<0xA0).contains($0) }
        for _ in 0..<3000 {
            var text: [UInt8] = []
            for _ in 0..<Int.random(in: 1...30, using: &generator) {
                if Int.random(in: 0..<4, using: &generator) == 0 {
                    text += Self.invalidSequences.randomElement(using: &generator)!
                } else {
                    text += Array(String(Unicode.Scalar(printable.randomElement(using: &generator)!)!).utf8)
                }
            }
            guard clustersMatchReference(text, "\(text)") else { return }
        }
    }

    /// `nextJoining` gives `next`'s clusters, with runs of one-column
    /// clusters (not ASCII runs or spaces) joined into one of their widths,
    /// and runs of wide code points, each a cluster, into one wide cluster
    /// that `next()` splits again into the same clusters.
    func test_nextJoining_joinsOnlyRunsOfOneColumnOrOfWideLoneClusters() {
        var generator = SystemRandomNumberGenerator()
        let narrow: [UInt32] = [0x436, 0x43B, 0xE9, 0x3B1, 0x2581, 0x2588, 0x2588, 0x2500, 0x259F, 0x25A0, 0x2800, 0x28FF, 0x301,
                                 0x200D, 0x4E2D, 0x4E2D, 0x3002, 0xAC00, 0x61, 0x20, 0x1F600, 0x1F600, 0xFE0F, 0x600,
                                 0x1F1EF, 0x1F1F5, 0x1100, 0x1161]
        for _ in 0..<3000 {
            var scalars = String.UnicodeScalarView()
            for _ in 0..<Int.random(in: 1...30, using: &generator) {
                scalars.append(Unicode.Scalar(narrow.randomElement(using: &generator)!)!)
            }
            var raw = Array(String(scalars).utf8)
            var text: [UInt8] = []
            raw.withUnsafeBufferPointer { _ = Sanitizer.sanitize($0, into: &text) }
            raw = text
            for mode in WidthMode.allCases {
                raw.withUnsafeBufferPointer { bytes in
                    var scanner = ClusterScanner(bytes, 0..<bytes.count, mode: mode)
                    var singles: [Cluster] = []
                    while let cluster = scanner.next() { singles.append(cluster) }
                    var joiner = ClusterScanner(bytes, 0..<bytes.count, mode: mode)
                    var index = 0
                    while let cluster = joiner.nextJoining() {
                        var parts: [Cluster] = []
                        while index < singles.count, singles[index].end <= cluster.end { parts.append(singles[index]); index += 1 }
                        let message = "\(mode) \(raw) at \(cluster.start)"
                        XCTAssertEqual(parts.first?.start, cluster.start, message)
                        XCTAssertEqual(parts.last?.end, cluster.end, message)
                        if parts.count == 1 {
                            let part = parts[0]
                            XCTAssertEqual([part.width, part.isSpace ? 1 : 0, part.isWide ? 1 : 0, part.isRun ? 1 : 0],
                                           [cluster.width, cluster.isSpace ? 1 : 0, cluster.isWide ? 1 : 0, cluster.isRun ? 1 : 0], message)
                        } else if cluster.isWide {
                            XCTAssertTrue(parts.allSatisfy { !$0.isRun && !$0.isSpace && $0.isWide && $0.width == 2 }, message)
                            XCTAssertEqual(Int(cluster.width), 2 * parts.count, message)
                            XCTAssertFalse(cluster.isRun || cluster.isSpace, message)
                            // Scanned again alone, the run gives the same clusters.
                            var again = ClusterScanner(bytes, Int(cluster.start)..<Int(cluster.end), mode: mode)
                            var split: [Cluster] = []
                            while let part = again.next() { split.append(part) }
                            XCTAssertEqual(split.map { [$0.start, $0.end, $0.width] }, parts.map { [$0.start, $0.end, $0.width] },
                                           message)
                        } else {
                            XCTAssertTrue(parts.allSatisfy { !$0.isRun && !$0.isSpace && !$0.isWide && $0.width == 1 }, message)
                            XCTAssertEqual(Int(cluster.width), parts.count, message)
                            XCTAssertFalse(cluster.isRun || cluster.isSpace || cluster.isWide, message)
                        }
                    }
                    XCTAssertEqual(index, singles.count, "\(mode) \(raw)")
                }
            }
        }
        // A waveform is one cluster of its width.
        let waveform = Array("▁▂▃▄▅▆▇█▁▂▃▄▅▆▇█".utf8)
        for mode in WidthMode.allCases {
            waveform.withUnsafeBufferPointer { bytes in
                var scanner = ClusterScanner(bytes, 0..<bytes.count, mode: mode)
                let cluster = scanner.nextJoining()
                XCTAssertEqual(cluster?.end, Int32(bytes.count))
                XCTAssertEqual(cluster?.width, 16)
                XCTAssertNil(scanner.nextJoining())
            }
        }
    }

    func test_sanitize_matchesTheByteByByteReference_onRandomText() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<3000 {
            var input = Self.randomText(&generator, length: Int.random(in: 0...30, using: &generator))
            if Bool.random(using: &generator), !input.isEmpty { input[Int.random(in: 0..<input.count, using: &generator)] = 0xFF }
            if Bool.random(using: &generator) { input.append(0x0A) }
            for keepingNewlines in [false, true] {
                var fast: [UInt8] = [0x2A]
                let ascii = input.withUnsafeBufferPointer { Sanitizer.sanitize($0, into: &fast, keepingNewlines: keepingNewlines) }
                let reference = input.withUnsafeBufferPointer { ReferenceClusters.sanitize($0, keepingNewlines: keepingNewlines) }
                XCTAssertEqual(fast, [0x2A] + reference, "\(input)")
                XCTAssertEqual(ascii, input.allSatisfy { $0 >= 0x20 && $0 < 0x7F }, "\(input)")
                XCTAssertEqual(input.withUnsafeBufferPointer { Sanitizer.isSafe($0, keepingNewlines: keepingNewlines) },
                               reference == input, "\(input)")
            }
        }
    }

    /// Asserts that `text`'s clusters in every width mode are the
    /// reference's (`label` names the text in a failure); false on the first
    /// mismatch, so a random test stops there.
    private func clustersMatchReference(_ text: [UInt8], _ label: String,
                                        file: StaticString = #filePath, line: UInt = #line) -> Bool {
        for mode in WidthMode.allCases {
            let fast = text.withUnsafeBufferPointer { bytes in
                var clusters: [Cluster] = []
                DisplayWidth.clusters(bytes, 0..<bytes.count, mode: mode, into: &clusters)
                return clusters.map { [$0.start, $0.end, $0.width, $0.isSpace ? 1 : 0, $0.isWide ? 1 : 0] }
            }
            let reference = text.withUnsafeBufferPointer { ReferenceClusters.clusters($0, mode: mode) }
            XCTAssertEqual(fast, reference, "\(mode) \(label)", file: file, line: line)
            if fast != reference { return false }
        }
        return true
    }
}

/// The measuring and sanitizing of before the fast paths: every code point
/// through utf8proc, every byte on its own.
enum ReferenceClusters {
    static func clusters(_ bytes: UnsafeBufferPointer<UInt8>, mode: WidthMode) -> [[Int32]] {
        var output: [[Int32]] = []
        var position = 0
        func scalar(_ at: Int) -> (Int32, Int) {
            let length = UTF8Repair.validSequenceLength(bytes, at)
            if bytes[at] >= 0x80 && length == 0 { return (0xFFFD, 1) } // a stray byte is measured as U+FFFD
            return bytes[at] < 0x80 ? (Int32(bytes[at]), 1) : (Int32(bitPattern: Sanitizer.decode(bytes, at, length)), length)
        }
        if mode == .wcwidth {
            var current: [Int32]?
            var scalars = 0
            while position < bytes.count {
                let (value, length) = scalar(position)
                let width = value < 0x80 ? 1 : Int32(utf8proc_charwidth(value))
                if width <= 0, current != nil {
                    scalars += 1
                    if scalars <= DisplayWidth.maximumScalarsPerCluster { current![1] = Int32(position + length) }
                } else {
                    if let finished = current { output.append(finished) }
                    let columns = min(max(width, 1), 2)
                    current = [Int32(position), Int32(position + length), columns, value == 0x20 ? 1 : 0, columns == 2 ? 1 : 0]
                    scalars = 1
                }
                position += length
            }
            if let finished = current { output.append(finished) }
            return output
        }
        var state: Int32 = 0
        var previous: Int32 = -1
        var current: [Int32]?
        var first: Int32 = 0
        var scalars = 0
        var sawVS16 = false
        func finish(_ cluster: [Int32]) -> [Int32] {
            var result = cluster
            if first < 0x80 { result[2] = 1; result[4] = 0; return result }
            var width = Int32(utf8proc_charwidth(first))
            if sawVS16 || (first >= 0x1F1E6 && first <= 0x1F1FF && cluster[1] - cluster[0] > 4) { width = 2 }
            if width <= 0 { width = 1 }
            result[2] = min(width, 2)
            result[4] = result[2] == 2 ? 1 : 0
            return result
        }
        while position < bytes.count {
            let (value, length) = scalar(position)
            let breaks = previous < 0 || utf8proc_grapheme_break_stateful(previous, value, &state)
            if breaks {
                if let finished = current { output.append(finish(finished)) }
                current = [Int32(position), Int32(position + length), 0, value == 0x20 ? 1 : 0, 0]
                first = value
                scalars = 1
                sawVS16 = false
            } else {
                scalars += 1
                if scalars <= DisplayWidth.maximumScalarsPerCluster { current![1] = Int32(position + length) }
                if value == 0xFE0F { sawVS16 = true }
            }
            previous = value
            position += length
        }
        if let finished = current { output.append(finish(finished)) }
        return output
    }

    static func sanitize(_ input: UnsafeBufferPointer<UInt8>, keepingNewlines: Bool) -> [UInt8] {
        var output: [UInt8] = []
        var position = 0
        while position < input.count {
            let byte = input[position]
            if byte >= 0x20 && byte < 0x7F { output.append(byte); position += 1; continue }
            if byte == 0x1B { position = Sanitizer.skipEscape(input, position + 1); continue }
            if byte == 0x09 { output += [0x20, 0x20, 0x20, 0x20]; position += 1; continue }
            if byte == 0x0A && keepingNewlines { output.append(byte); position += 1; continue }
            if byte < 0x20 { UTF8Repair.appendScalar(0x2400 + UInt32(byte), to: &output); position += 1; continue }
            if byte == 0x7F { UTF8Repair.appendScalar(0x2421, to: &output); position += 1; continue }
            let length = UTF8Repair.validSequenceLength(input, position)
            guard length > 0 else {
                output += UTF8Repair.replacement
                position += UTF8Repair.invalidSubpartLength(input, position)
                continue
            }
            let value = Sanitizer.decode(input, position, length)
            switch value {
            case 0x9B: position = Sanitizer.skipCSIBody(input, position + length)
            case 0x9D, 0x90, 0x98, 0x9E, 0x9F: position = Sanitizer.skipStringBody(input, position + length)
            case 0x80..<0xA0: Sanitizer.appendVisible(value, to: &output); position += length
            default:
                if Sanitizer.computeHiddenFormat(value, category: utf8proc_category(Int32(bitPattern: value))) {
                    Sanitizer.appendVisible(value, to: &output)
                } else {
                    output += input[position..<(position + length)]
                }
                position += length
            }
        }
        return output
    }
}

/// The wrapper's all-ASCII path takes the same clusters as the scanner.
final class WrapperASCIIPathTests: XCTestCase {
    func test_asciiRuns_areTheScannersClusters_onRandomASCIIText() {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("ab  .,-Z9 ".utf8) + [0x21, 0x7E]
        for _ in 0..<2000 {
            let text: [UInt8] = (0..<Int.random(in: 0...40, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }
            text.withUnsafeBufferPointer { bytes in
                XCTAssertEqual(ASCIIWords.firstNonASCII(bytes, from: 0, end: bytes.count), bytes.count)
                // A run of spaces ends at the next other byte, a word at the next space.
                var fast: [[Int32]] = []
                var index = 0
                while index < bytes.count {
                    let isSpace = bytes[index] == 0x20
                    let end = isSpace ? ASCIIWords.nextNonSpace(bytes, from: index, end: bytes.count)
                                      : ASCIIWords.nextSpace(bytes, from: index, end: bytes.count)
                    fast.append([Int32(index), Int32(end), Int32(end - index), isSpace ? 1 : 0])
                    index = end
                }
                for mode in WidthMode.allCases {
                    var scanner = ClusterScanner(bytes, 0..<bytes.count, mode: mode)
                    var reference: [[Int32]] = []
                    while let cluster = scanner.next() {
                        XCTAssertTrue(cluster.isRun)
                        reference.append([cluster.start, cluster.end, cluster.width, cluster.isSpace ? 1 : 0])
                    }
                    XCTAssertEqual(fast, reference, String(decoding: text, as: UTF8.self))
                }
            }
        }
    }

    func test_firstNonASCII_findsTheFirstByteFromOx80_atEveryPosition() {
        for length in 1...20 {
            for position in 0..<length {
                var text = [UInt8](repeating: 0x61, count: length)
                text[position] = 0xC3
                if position + 1 < length { text[position + 1] = 0xA9 }
                text.withUnsafeBufferPointer {
                    XCTAssertEqual(ASCIIWords.firstNonASCII($0, from: 0, end: $0.count), position, "\(length) \(position)")
                    XCTAssertEqual(ASCIIWords.firstNonASCII($0, from: 0, end: position), position, "\(length) \(position)")
                }
            }
        }
    }
}

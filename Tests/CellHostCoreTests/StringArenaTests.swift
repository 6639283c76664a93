import XCTest
import CellHostABI
@testable import CellHostCore

/// `StringArena.holdsSanitized` lets the builder copy a plugin's span
/// without sanitizing it again; it must say yes only when sanitizing would
/// change nothing, and the builder's output must not depend on it.
final class StringArenaTests: XCTestCase {
    func store(_ arena: StringArena, _ text: String) -> UnsafeBufferPointer<UInt8> {
        var text = text
        let stored = text.withUTF8 { arena.storeSanitized($0) }
        return UnsafeBufferPointer(start: UnsafeRawPointer(stored.data!).assumingMemoryBound(to: UInt8.self),
                                   count: stored.length)
    }

    func test_aSliceOfAStoredString_atCharacterBoundaries_isHeldSanitized() {
        let arena = StringArena()
        let text = store(arena, "Grüße 日本 ok")
        XCTAssertTrue(arena.holdsSanitized(text))
        XCTAssertTrue(arena.holdsSanitized(UnsafeBufferPointer(rebasing: text[0..<2])))   // "Gr"
        XCTAssertTrue(arena.holdsSanitized(UnsafeBufferPointer(rebasing: text[2..<4])))   // "ü"
    }

    func test_aSliceCuttingACharacter_isNot() {
        let arena = StringArena()
        let text = store(arena, "Grüße")
        XCTAssertFalse(arena.holdsSanitized(UnsafeBufferPointer(rebasing: text[0..<3])))  // ends inside "ü"
        XCTAssertFalse(arena.holdsSanitized(UnsafeBufferPointer(rebasing: text[3..<5])))  // starts inside "ü"
    }

    func test_aSpanAcrossTwoStoredStrings_orPastTheLast_isNot() {
        let arena = StringArena()
        let first = store(arena, "abc")
        _ = store(arena, "def")
        // "abc", its NUL, "def": the NUL would be shown as a control picture.
        XCTAssertFalse(arena.holdsSanitized(UnsafeBufferPointer(start: first.baseAddress, count: 7)))
        // Past the last string's NUL lies memory no string was stored in.
        XCTAssertFalse(arena.holdsSanitized(UnsafeBufferPointer(start: first.baseAddress, count: 9)))
    }

    func test_bytesOutsideTheArena_andStringsFromBeforeReset_areNot() {
        let arena = StringArena()
        let outside: [UInt8] = Array("abc".utf8)
        outside.withUnsafeBufferPointer { XCTAssertFalse(arena.holdsSanitized($0)) }
        let old = store(arena, "stale text")
        arena.reset()
        XCTAssertFalse(arena.holdsSanitized(old))
    }

    func test_aStoredStringAPluginWroteControlBytesInto_isNot() {
        let arena = StringArena()
        let text = store(arena, "a tab-free line of text")
        XCTAssertTrue(arena.holdsSanitized(text))
        // The strings are const to plugins; a plugin writing a tab or ESC into one anyway
        // gets its span sanitized again.
        for control: UInt8 in [0x09, 0x1B, 0x7F, 0x0D] {
            UnsafeMutablePointer(mutating: text.baseAddress!)[13] = control
            XCTAssertFalse(arena.holdsSanitized(text), "byte 0x\(String(control, radix: 16))")
        }
    }

    func test_hasControlByte_matchesTheByteByByteAnswer() {
        var generator = SystemRandomNumberGenerator()
        let alphabet: [UInt8] = [0x00, 0x09, 0x1B, 0x1F, 0x20, 0x41, 0x7E, 0x7F, 0x80, 0x9B, 0xC2, 0xE2, 0xFF]
        for _ in 0..<5000 {
            let bytes = (0..<Int.random(in: 0...40, using: &generator)).map { _ in
                Bool.random(using: &generator) ? alphabet.randomElement(using: &generator)! : UInt8(ascii: "x")
            }
            let expected = bytes.contains { $0 < 0x20 || $0 == 0x7F }
            XCTAssertEqual(bytes.withUnsafeBufferPointer { StringArena.hasControlByte($0) }, expected, "\(bytes)")
        }
    }

    /// Every byte value at the edges and the middle of spans of the
    /// lengths that take each read (per byte, two words, whole vectors, an
    /// overlapping last vector).
    func test_hasControlByte_findsEveryControlAtEveryReadLength() {
        for length in [1, 7, 8, 9, 15, 16, 17, 31, 32, 33, 40] {
            for position in Set([0, 1, length / 2, length - 2, length - 1]) where position >= 0 && position < length {
                for byte in UInt8(0)...0xFF {
                    var bytes = [UInt8](repeating: 0xC3, count: length)
                    bytes[position] = byte
                    XCTAssertEqual(bytes.withUnsafeBufferPointer { StringArena.hasControlByte($0) },
                                   byte < 0x20 || byte == 0x7F, "byte \(byte) at \(position) of \(length)")
                }
            }
        }
    }

    func test_storedTextIsSanitized_soTheHeldSpansAreWhatSanitizingGives() {
        // Escape sequences, controls and invalid UTF-8 were replaced when stored.
        let arena = StringArena()
        let raw: [UInt8] = Array("a\u{1B}[31mred\u{7}\tb".utf8) + [0xFF] + Array("é\u{202E}x".utf8)
        let stored = raw.withUnsafeBufferPointer { arena.storeSanitized($0) }
        let text = UnsafeBufferPointer(start: UnsafeRawPointer(stored.data!).assumingMemoryBound(to: UInt8.self),
                                       count: stored.length)
        for start in 0..<text.count {
            for end in (start + 1)...text.count {
                let span = UnsafeBufferPointer(rebasing: text[start..<end])
                guard arena.holdsSanitized(span) else { continue }
                var again: [UInt8] = []
                Sanitizer.sanitize(span, into: &again)
                XCTAssertEqual(again, Array(span), "bytes \(start)..<\(end)")
            }
        }
    }

    /// The builder copies a span it holds sanitized as it is (a whole
    /// append at once when it has no control byte): the content must be
    /// what sanitizing every line gives, caps included, for spans of stored
    /// strings with and without newlines, CRs, non-ASCII, and bytes a plugin
    /// wrote into them.
    func test_appendingHeldSpans_buildsWhatSanitizingGives() {
        let texts = ["plain words", "Grüße 日本 ▁▂▃█", "two\nlines", "crlf\r\nend\r", "\n", "tail\n", "é\n\nx",
                     String(repeating: "long line of text ", count: 8)]
        for limits in [OutputLimits.standard, OutputLimits(rows: 2, bytes: 1 << 20), OutputLimits(rows: 100, bytes: 9)] {
            let arena = StringArena()
            let held = CellCanvas(), plain = CellCanvas()
            held.limits = limits
            plain.limits = limits
            held.sanitizedSource = arena
            for (index, text) in texts.enumerated() {
                let stored = store(arena, text)
                if index == 1 { UnsafeMutablePointer(mutating: stored.baseAddress!)[1] = 0x1B } // a plugin's write
                for span in [stored, UnsafeBufferPointer(rebasing: stored[0..<min(3, stored.count)]),
                             UnsafeBufferPointer(rebasing: stored[min(1, stored.count)...])] {
                    held.append(span, style: .strong)
                    plain.append(span, style: .strong)
                }
            }
            XCTAssertEqual(Array(held.bytes.elements), Array(plain.bytes.elements), "\(limits)")
            XCTAssertEqual(String(describing: Array(held.items.elements)), String(describing: Array(plain.items.elements)), "\(limits)")
            XCTAssertEqual(held.truncated, plain.truncated, "\(limits)")
            XCTAssertEqual(held.droppedLines, plain.droppedLines, "\(limits)")
            XCTAssertEqual(held.lineEnds, plain.lineEnds, "\(limits)")
        }
    }

    /// Text a plugin made (not the message's strings) that sanitizing
    /// would copy as it is goes in with one pass, the rest line by line
    /// through the sanitizer: either way the content must be each line
    /// sanitized, lines ended by breaks (a CR ending a line dropped),
    /// for random safe and unsafe text (non-ASCII, invalid UTF-8, controls,
    /// newlines, empty).
    func test_appendingPluginText_buildsWhatSanitizingEachLineGives() {
        var random = SplitMix64(state: 0xCA7A_2026)
        let pieces: [[UInt8]] = [Array("words and ".utf8), Array("0:05".utf8), Array("▶ ".utf8), Array("▁▂█".utf8),
                                 Array("日本".utf8), Array("é".utf8), [0x0A], [0x0D, 0x0A], [0x0D], [0x09], [0x1B],
                                 [0x7F], [0xFF], [0xC3], Array("\u{202E}".utf8), Array("\u{200D}".utf8),
                                 Array(String(repeating: "long ascii run ", count: 3).utf8)]
        for _ in 0..<2_000 {
            var text: [UInt8] = []
            for _ in 0..<random.below(6) { text += pieces[random.below(pieces.count)] }
            let canvas = CellCanvas(), expected = CellCanvas()
            text.withUnsafeBufferPointer { canvas.append($0, style: .strong) }
            let lines = text.split(separator: 0x0A, omittingEmptySubsequences: false)
            for (index, line) in lines.enumerated() {
                var line = Array(line)
                if line.last == 0x0D { line.removeLast() }
                var sanitized: [UInt8] = []
                line.withUnsafeBufferPointer { _ = Sanitizer.sanitize($0, into: &sanitized) }
                if !sanitized.isEmpty {
                    let start = Int32(expected.bytes.count)
                    sanitized.withUnsafeBufferPointer { expected.bytes.append(contentsOf: $0) }
                    expected.items.append(.text(start: start, end: Int32(expected.bytes.count), style: .strong))
                }
                if index < lines.count - 1 { expected.lineBreak() }
            }
            XCTAssertEqual(Array(canvas.bytes.elements), Array(expected.bytes.elements), "\(text)")
            XCTAssertEqual(String(describing: Array(canvas.items.elements)), String(describing: Array(expected.items.elements)), "\(text)")
        }
    }
}

import CellHostABI
import Foundation
import XCTest
@testable import CellHostCore

/// Each message's content is capped in rows and bytes (`OutputLimits`); the
/// rest becomes one muted `… N more lines` row, and appends past the byte
/// cap are counted, not stored.
final class OutputLimitsTests: XCTestCase {
    private func host(_ render: @escaping (InProcessCell.Context) -> InProcessCell.Outcome) throws -> CellHost {
        let host = CellHost()
        try host.register(InProcessCell(className: "BigCell", messageClasses: ["big"], render: render))
        return host
    }

    func test_aCellAppendingEndlessLines_showsTheCapAndOneMoreLinesRow() throws {
        let host = try host { cell in
            for index in 0..<100_000 { cell.append("row \(index)\n") }
            return .rendered
        }
        let lines = try host.renderLines(#"{"type":"big"}"#, width: 40, limits: OutputLimits(rows: 10, bytes: 1 << 20))
        XCTAssertEqual(lines.count, 10)
        XCTAssertEqual(lines[8], "│ row 8")
        XCTAssertEqual(lines[9], "│ … 99991 more lines")
    }

    func test_theStandardCap_is1000Rows() throws {
        let host = try host { cell in
            for _ in 0..<5_000 { cell.lineBreak(); cell.append("x") }
            return .rendered
        }
        XCTAssertEqual(try host.renderLines(#"{"type":"big"}"#, width: 40).count, 1000)
    }

    func test_longWrappedText_isCutAfterWrapping() throws {
        let text = String(repeating: "word ", count: 1_000)
        let lines = try CellHost().renderLines(#"{"type":"nosuch","text":"\#(text)"}"#, width: 30,
                                               limits: OutputLimits(rows: 5, bytes: 1 << 20))
        XCTAssertEqual(lines.count, 5, "the host's own UnknownMessageCell is capped too: \(lines)")
        XCTAssertTrue(lines[4].hasPrefix("│ … "), lines[4])
        XCTAssertTrue(lines[4].hasSuffix(" more lines"), lines[4])
    }

    func test_contentUnderTheCap_hasNoMoreLinesRow() throws {
        let host = try host { cell in
            for index in 0..<3 { cell.append("row \(index)\n") }
            return .rendered
        }
        XCTAssertEqual(try host.renderLines(#"{"type":"big"}"#, width: 40, limits: OutputLimits(rows: 3, bytes: 100)),
                       ["┃ row 0", "│ row 1", "│ row 2"])
    }

    func test_appendsPastTheByteCap_areNotStored() {
        let canvas = CellCanvas()
        canvas.limits = OutputLimits(rows: 1_000, bytes: 1_000)
        let chunk = String(repeating: "abcdefghij", count: 100) + "\n"
        for _ in 0..<1_000 { canvas.append(chunk, style: []) }
        XCTAssertLessThanOrEqual(canvas.bytes.count, 1_000)
        XCTAssertLessThanOrEqual(canvas.items.count, 2)
        XCTAssertEqual(canvas.droppedLines, 999)
    }

    func test_theByteCap_cutsAtACharacterBoundary() {
        let canvas = CellCanvas()
        canvas.limits = OutputLimits(rows: 10, bytes: 10)
        canvas.append("ééééééééé", style: []) // 18 bytes
        XCTAssertEqual(canvas.bytes.count, 10)
        XCTAssertEqual(String(decoding: canvas.bytes.elements, as: UTF8.self), "ééééé")
        XCTAssertEqual(canvas.droppedLines, 1)
    }

    func test_expandingSanitizedText_staysWithinTheByteCap() {
        let canvas = CellCanvas()
        canvas.limits = OutputLimits(rows: 10, bytes: 100)
        canvas.append(String(repeating: "\u{202E}", count: 10_000), style: [])
        XCTAssertLessThanOrEqual(canvas.bytes.count, 100)
        XCTAssertNotNil(String(validatingUTF8: canvas.bytes.elements.map { CChar(bitPattern: $0) } + [0]))
    }

    func test_rowsPastTheCap_areCountedNotStored() {
        let canvas = CellCanvas()
        canvas.limits = OutputLimits(rows: 4, bytes: 1 << 20)
        var cells = [cellhost_block_cell](repeating: cellhost_block_cell(), count: 5_000)
        cells.withUnsafeBufferPointer { for _ in 0..<100 { canvas.appendRow($0) } }
        XCTAssertEqual(canvas.blockCells.count, 4 * OutputSettings.maximumWidth)
        XCTAssertEqual(canvas.droppedLines, 96)
    }

    func test_rollingBack_forgetsWhatWasDropped() {
        let canvas = CellCanvas()
        canvas.limits = OutputLimits(rows: 2, bytes: 1 << 20)
        let mark = canvas.mark
        canvas.append("a\nb\nc\nd", style: [])
        XCTAssertEqual(canvas.droppedLines, 1, "a, b and c are kept until wrapping; d is dropped")
        canvas.rollBack(to: mark)
        XCTAssertEqual(canvas.droppedLines, 0)
        canvas.append("a", style: [])
        XCTAssertEqual(canvas.items.count, 1)
    }

    func test_limits_areClampedToTheirRange() {
        XCTAssertEqual(OutputLimits(rows: 0, bytes: -5), OutputLimits(rows: 1, bytes: 1))
        XCTAssertEqual(OutputLimits(rows: .max, bytes: .max).bytes, OutputLimits.maximumBytes)
    }
}

/// Strings handed to plugins are cut at the per-message byte cap, so a huge
/// string costs a plugin no more than a cell can show.
final class PluginStringLimitTests: XCTestCase {
    func test_aStringOverTheLimit_isCutAtACharacterBoundary() {
        let arena = StringArena()
        arena.stringLimit = 10
        var text = "ééééééééé" // 18 bytes
        let stored = text.withUTF8 { arena.storeSanitized($0) }
        XCTAssertEqual(stored.length, 10)
        XCTAssertEqual(String(cString: stored.data), "ééééé")
    }

    func test_sanitizingCannotExpandAStringPastTheLimit() {
        let arena = StringArena()
        arena.stringLimit = 100
        var text = String(repeating: "\u{202E}", count: 1_000)
        let stored = text.withUTF8 { arena.storeSanitized($0) }
        XCTAssertLessThanOrEqual(stored.length, 100)
        XCTAssertEqual(strlen(stored.data), stored.length)
    }

    func test_aStringUnderTheLimit_isWhole() {
        let arena = StringArena()
        var text = "short"
        XCTAssertEqual(text.withUTF8 { arena.storeSanitized($0) }.length, 5)
    }
}

/// Chrome text (sender names, reply ids) is cut to the width before it is
/// sanitized whole; what shows is the same.
final class ChromeTextLimitTests: XCTestCase {
    func test_aHugeSenderName_ofBidiControls_showsItsStartCutToTheWidth() throws {
        let name = String(repeating: "\u{202E}", count: 1 << 20)
        let lines = try CellHost().renderLines(#"{"type":"nosuch","sender":{"id":"x","name":"\#(name)"},"text":"t"}"#, width: 40)
        XCTAssertEqual(lines.first, "<U+202E><U+202E><U+202E><U+202E><U+202E…")
    }
}

/// The byte cap for spans the builder copies without sanitizing them.
final class HeldSpanCapTests: XCTestCase {
    /// A span of the message's own strings is copied without sanitizing
    /// (`CellCanvas.append`'s fast path when it fits): the content, the
    /// cut and the count of dropped lines are what the general path gives,
    /// at every byte cap from one byte to more than all of it, exact fits
    /// included, after a row of block cells (4 bytes each) or not, and for
    /// empty spans and spans that end inside a character.
    func test_heldSpans_fillTheByteCapAsSanitizingDoes() {
        let texts = ["plain", "", "Grüße 日本", "👩\u{200D}👩\u{200D}👧 ok", "e\u{301}\u{301}", "last words"]
        for cap in 1...48 {
            for withRow in [false, true] {
                let arena = StringArena()
                let held = CellCanvas(), plain = CellCanvas()
                for canvas in [held, plain] {
                    canvas.limits = OutputLimits(rows: 100, bytes: cap)
                    if withRow {
                        var cell = cellhost_block_cell()
                        cell.codepoint = 0x2588
                        withUnsafePointer(to: &cell) { canvas.appendRow(UnsafeBufferPointer(start: $0, count: 1)) }
                    }
                }
                held.sanitizedSource = arena
                for text in texts {
                    var text = text
                    let stored = text.withUTF8 { arena.storeSanitized($0) }
                    let span = UnsafeBufferPointer(start: stored.data.map { UnsafeRawPointer($0).assumingMemoryBound(to: UInt8.self) },
                                                   count: stored.length)
                    for part in [span, UnsafeBufferPointer(rebasing: span[0..<min(2, span.count)])] {
                        held.append(part, style: .strong)
                        plain.append(part, style: .strong)
                    }
                }
                let what = "cap \(cap)\(withRow ? " after a row" : "")"
                XCTAssertEqual(Array(held.bytes.elements), Array(plain.bytes.elements), what)
                XCTAssertEqual(String(describing: Array(held.items.elements)), String(describing: Array(plain.items.elements)), what)
                XCTAssertEqual(held.truncated, plain.truncated, what)
                XCTAssertEqual(held.droppedLines, plain.droppedLines, what)
                XCTAssertLessThanOrEqual(held.bytes.count + 4 * held.blockCells.count, cap, what)
            }
        }
    }
}

import XCTest
@testable import CellHostCore

/// A reply quote holds the line the chrome draws, "↪ sender: preview", and
/// gives the HTML page the sender and the preview on their own.
final class ReplyQuoteTests: XCTestCase {
    func test_line_andStrings_withAndWithoutASender() {
        var quote = ReplyQuote()
        XCTAssertNil(quote.strings)
        quote.start(sender: "Bob")
        quote.appendPreview("hello")
        quote.appendPreview(0x20)
        Array("world".utf8).withUnsafeBufferPointer { quote.appendPreview($0) }
        quote.endPreview()
        XCTAssertEqual(String(decoding: quote.line, as: UTF8.self), "↪ Bob: hello world")
        XCTAssertEqual(quote.strings?.sender, "Bob")
        XCTAssertEqual(quote.strings?.preview, "hello world")
        quote.start(sender: "")
        quote.appendPreview("only text")
        quote.endPreview()
        XCTAssertEqual(String(decoding: quote.line, as: UTF8.self), "↪ only text")
        XCTAssertEqual(quote.strings?.sender, "")
        XCTAssertEqual(quote.strings?.preview, "only text")
        quote.clear()
        XCTAssertFalse(quote.isFound)
        XCTAssertNil(quote.strings)
    }

    func test_preview_isCutToItsLength_theSenderNever() {
        var quote = ReplyQuote()
        let name = String(repeating: "Жанна ", count: 40)
        quote.start(sender: name)
        quote.appendPreview(String(repeating: "日本語 ", count: 100))
        quote.endPreview()
        XCTAssertEqual(quote.strings?.sender, name)
        XCTAssertEqual(quote.strings?.preview, String(String(repeating: "日本語 ", count: 100).prefix(ReplyQuote.previewLength)))
    }
}

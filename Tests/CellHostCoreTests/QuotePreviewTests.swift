import XCTest
@testable import CellHostCore

/// A reply quote's preview is the first 120 characters of the quoted text,
/// whichever way `RenderSession.preview` takes to cut it.
final class QuotePreviewTests: XCTestCase {
    func test_preview_isTheFirst120Characters_ofShortLongASCIIAndOtherText() {
        var generator = SystemRandomNumberGenerator()
        let pieces = ["a", "word ", " ", "é", "e\u{301}", "日本", "👩‍💻", "🇯🇵", "x\u{200D}", "Ω"]
        for _ in 0..<2000 {
            let text = (0..<Int.random(in: 0...90, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
            let bytes = Array(text.utf8)
            XCTAssertEqual(RenderSession.preview(bytes), String(text.prefix(120)), text.debugDescription)
        }
    }

    func test_longASCII_isCutAt120Bytes() {
        let text = String(repeating: "abc ", count: 50)
        XCTAssertEqual(RenderSession.preview(Array(text.utf8)), String(text.prefix(120)))
        XCTAssertEqual(RenderSession.preview(Array(text.utf8)).utf8.count, 120)
    }
}

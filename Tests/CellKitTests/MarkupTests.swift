import CellKit
import XCTest

final class MarkupTests: XCTestCase {
    private func spans(_ text: String) -> [StyledSpan] { InlineMarkup.parse(text) }

    func test_plainTextIsOneUnstyledSpan() {
        XCTAssertEqual(spans("hello world"), [StyledSpan("hello world")])
        XCTAssertEqual(spans(""), [])
    }

    func test_singleMarkers() {
        XCTAssertEqual(spans("hi *there*"), [StyledSpan("hi "), StyledSpan("there", .strong)])
        XCTAssertEqual(spans("_so_ good"), [StyledSpan("so", .emphasis), StyledSpan(" good")])
        XCTAssertEqual(spans("run `make all` now"),
                       [StyledSpan("run "), StyledSpan("make all", .code), StyledSpan(" now")])
    }

    func test_markersOnlyAtWordBoundaries() {
        for literal in ["snake_case_name", "2*3*4", "a * b * c", "x *y*z", "file_name_", "_ spaced _",
                        "it's *not closed", "under_ score_"] {
            XCTAssertEqual(spans(literal), [StyledSpan(literal)], literal)
        }
    }

    func test_punctuationIsABoundary() {
        XCTAssertEqual(spans("(*yes*)."), [StyledSpan("("), StyledSpan("yes", .strong), StyledSpan(").")])
        XCTAssertEqual(spans("*Definitely*, still"), [StyledSpan("Definitely", .strong), StyledSpan(", still")])
    }

    func test_unmatchedAndDoubledMarkersStayLiteral() {
        XCTAssertEqual(spans("*open"), [StyledSpan("*open")])
        XCTAssertEqual(spans("**bold** and __init__"), [StyledSpan("**bold** and __init__")])
        XCTAssertEqual(spans("```code```"), [StyledSpan("```code```")])
        XCTAssertEqual(spans("**"), [StyledSpan("**")])
        XCTAssertEqual(spans("* *"), [StyledSpan("* *")])
    }

    func test_nesting() {
        XCTAssertEqual(spans("*bold _both_*"),
                       [StyledSpan("bold ", .strong), StyledSpan("both", [.strong, .emphasis])])
        XCTAssertEqual(spans("_*x*_"), [StyledSpan("x", [.strong, .emphasis])])
    }

    func test_codeIsLiteralInside() {
        XCTAssertEqual(spans("`*not bold* https://x.org`"),
                       [StyledSpan("*not bold* https://x.org", .code)])
        XCTAssertEqual(spans("*a `b* c`"), [StyledSpan("*a "), StyledSpan("b* c", .code)])
    }

    func test_urls() {
        XCTAssertEqual(spans("see https://example.org/a_b_c, ok"),
                       [StyledSpan("see "), StyledSpan("https://example.org/a_b_c", .link), StyledSpan(", ok")])
        XCTAssertEqual(spans("http://x.io/?q=1&r=2."),
                       [StyledSpan("http://x.io/?q=1&r=2", .link), StyledSpan(".")])
        XCTAssertEqual(spans("(https://x.com/a)"),
                       [StyledSpan("("), StyledSpan("https://x.com/a", .link), StyledSpan(")")])
        XCTAssertEqual(spans("https://en.wikipedia.org/wiki/Foo_(bar)"),
                       [StyledSpan("https://en.wikipedia.org/wiki/Foo_(bar)", .link)])
        XCTAssertEqual(spans("*https://x.com*"), [StyledSpan("https://x.com", [.strong, .link])])
        XCTAssertEqual(spans("go: https://a.b/c?!"),
                       [StyledSpan("go: "), StyledSpan("https://a.b/c", .link), StyledSpan("?!")])
    }

    func test_notURLs() {
        XCTAssertEqual(spans("https://"), [StyledSpan("https://")])
        XCTAssertEqual(spans("xhttp://a.b"), [StyledSpan("xhttp://a.b")])
        XCTAssertEqual(spans("ftp://a.b"), [StyledSpan("ftp://a.b")])
    }

    func test_newlinesAreKept() {
        XCTAssertEqual(spans("one\n*two*\nthree"),
                       [StyledSpan("one\n"), StyledSpan("two", .strong), StyledSpan("\nthree")])
    }

    func test_unicodeAroundMarkers() {
        XCTAssertEqual(spans("Tickets: `COAST-8F2K` 🎫"),
                       [StyledSpan("Tickets: "), StyledSpan("COAST-8F2K", .code), StyledSpan(" 🎫")])
        XCTAssertEqual(spans("é*x*"), [StyledSpan("é*x*")], "a letter before the marker is a word character")
        XCTAssertEqual(spans("🌊*wave*"), [StyledSpan("🌊"), StyledSpan("wave", .strong)])
    }

    func test_plainTextRemovesMarkers() {
        XCTAssertEqual(InlineMarkup.plainText("hi *there*, `x` and _y_ https://a.b"), "hi there, x and y https://a.b")
        XCTAssertEqual(InlineMarkup.plainText("2*3*4"), "2*3*4")
    }

    func test_hostileInputIsFast() {
        let text = String(repeating: " *a _b `c https://x.y/(((", count: 20_000)
        let start = ContinuousClock.now
        let result = InlineMarkup.parse(text)
        XCTAssertEqual(result.map(\.text).joined().count > 0, true)
        XCTAssertLessThan(ContinuousClock.now - start, .seconds(20))
    }
}

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

    func test_unmatchedMarkersStayLiteral() {
        XCTAssertEqual(spans("*open"), [StyledSpan("*open")])
        XCTAssertEqual(spans("**"), [StyledSpan("**")])
        XCTAssertEqual(spans("* *"), [StyledSpan("* *")])
    }

    // MARK: Doubled markers

    func test_doubleStarIsBold() {
        XCTAssertEqual(spans("a **bold** word"), [StyledSpan("a "), StyledSpan("bold", .strong), StyledSpan(" word")])
    }

    func test_doubleUnderscoreIsEmphasis() {
        // There is no underline style: `__x__` (underline on Discord) is italic.
        XCTAssertEqual(spans("a __quiet__ word"),
                       [StyledSpan("a "), StyledSpan("quiet", .emphasis), StyledSpan(" word")])
        XCTAssertEqual(spans("def __init__(self)"),
                       [StyledSpan("def "), StyledSpan("init", .emphasis), StyledSpan("(self)")])
    }

    func test_doubleMarkersOnlyAtWordBoundaries() {
        for literal in ["snake__case", "snake__case__name", "a**b**c", "** a **", "**a **", "x**y**", "__a__b"] {
            XCTAssertEqual(spans(literal), [StyledSpan(literal)], literal)
        }
    }

    func test_tripleMarkersStayLiteral() {
        for literal in ["***x***", "___x___", "***x*", "****x****"] {
            XCTAssertEqual(spans(literal), [StyledSpan(literal)], literal)
        }
    }

    func test_unmatchedDoubleMarkersStayLiteral() {
        for literal in ["**open", "**a*", "*a**", "__a_", "**a__"] {
            XCTAssertEqual(spans(literal), [StyledSpan(literal)], literal)
        }
    }

    func test_doubledBackticksStayLiteral() {
        XCTAssertEqual(spans("``code``"), [StyledSpan("``code``")])
        XCTAssertEqual(spans("```code```"), [StyledSpan("```code```")])
    }

    func test_doubleAndSingleMarkersNest() {
        XCTAssertEqual(spans("**bold _both_**"),
                       [StyledSpan("bold ", .strong), StyledSpan("both", [.strong, .emphasis])])
        XCTAssertEqual(spans("__*x*__"), [StyledSpan("x", [.strong, .emphasis])])
        XCTAssertEqual(spans("*a **b** c*"), [StyledSpan("a b c", .strong)])
    }

    func test_singleMarkerDoesNotCloseDouble() {
        XCTAssertEqual(spans("**a* b*"), [StyledSpan("**a* b*")])
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

    // MARK: Backslash escapes

    func test_escapedStarIsLiteral() {
        XCTAssertEqual(spans(#"\*not bold\*"#), [StyledSpan("*not bold*")])
    }

    func test_escapedUnderscoreIsLiteral() {
        XCTAssertEqual(spans(#"\_not italic\_"#), [StyledSpan("_not italic_")])
    }

    func test_escapedBacktickIsLiteral() {
        XCTAssertEqual(spans(#"\`not code\`"#), [StyledSpan("`not code`")])
    }

    func test_escapedBackslashIsOneBackslash() {
        XCTAssertEqual(spans(#"a \\ b"#), [StyledSpan(#"a \ b"#)])
        XCTAssertEqual(spans(#"\\\\"#), [StyledSpan(#"\\"#)])
    }

    func test_escapedBackslashDoesNotEscapeTheMarkerAfterIt() {
        XCTAssertEqual(spans(#"\\*bold*"#), [StyledSpan(#"\"#), StyledSpan("bold", .strong)])
        XCTAssertEqual(spans(#"\\\*x*"#), [StyledSpan(#"\*x*"#)])
    }

    func test_escapeAtStartOfText() {
        XCTAssertEqual(spans(#"\*x"#), [StyledSpan("*x")])
    }

    func test_escapeAtEndOfText() {
        XCTAssertEqual(spans(#"x\*"#), [StyledSpan("x*")])
    }

    func test_escapedMarkerInsideAPair() {
        XCTAssertEqual(spans(#"*bold \* star*"#), [StyledSpan("bold * star", .strong)])
        XCTAssertEqual(spans(#"_a\_b_"#), [StyledSpan("a_b", .emphasis)])
    }

    func test_escapedMarkerNextToARealPair() {
        XCTAssertEqual(spans(#"\**bold*"#), [StyledSpan("*"), StyledSpan("bold", .strong)])
        XCTAssertEqual(spans(#"*bold*\*"#), [StyledSpan("bold", .strong), StyledSpan("*")])
        XCTAssertEqual(spans(#"*\**"#), [StyledSpan("*", .strong)])
        XCTAssertEqual(spans(#"\***bold**"#), [StyledSpan("*"), StyledSpan("bold", .strong)])
    }

    func test_escapedDoubleMarkersAreLiteral() {
        XCTAssertEqual(spans(#"\*\*not bold\*\*"#), [StyledSpan("**not bold**")])
        XCTAssertEqual(spans(#"\_\_init\_\_"#), [StyledSpan("__init__")])
    }

    func test_loneTrailingBackslashStays() {
        XCTAssertEqual(spans(#"end\"#), [StyledSpan(#"end\"#)])
        XCTAssertEqual(spans(#"\"#), [StyledSpan(#"\"#)])
    }

    func test_backslashBeforeOtherCharacterStays() {
        for literal in [#"C:\path\to"#, #"a \n b"#, #"\ x"#, #"\é"#, #"\d"#] {
            XCTAssertEqual(spans(literal), [StyledSpan(literal)], literal)
        }
        XCTAssertEqual(spans("\\*\u{301}x*"), [StyledSpan("\\*\u{301}x*")], "a star with a combining mark is no marker")
    }

    func test_backslashesAreLiteralInCodeSpans() {
        XCTAssertEqual(spans(#"`a\*b`"#), [StyledSpan(#"a\*b"#, .code)])
        XCTAssertEqual(spans(#"`C:\`"#), [StyledSpan(#"C:\"#, .code)])
        XCTAssertEqual(spans(#"`\\`"#), [StyledSpan(#"\\"#, .code)])
    }

    func test_backslashesAreLiteralInURLs() {
        XCTAssertEqual(spans(#"see https://x.org/a\*b\_c"#),
                       [StyledSpan("see "), StyledSpan(#"https://x.org/a\*b\_c"#, .link)])
        XCTAssertEqual(spans(#"https://x.org/a\\b"#), [StyledSpan(#"https://x.org/a\\b"#, .link)])
    }

    func test_plainTextDropsEscapingBackslashes() {
        XCTAssertEqual(InlineMarkup.plainText(#"\*x\* \\ C:\d `a\*b` *y*"#), #"*x* \ C:\d a\*b y"#)
    }

    func test_appendPlainTextDropsEscapingBackslashes() {
        let appends = RecordingBuilder.appends { InlineMarkup.appendPlainText(#"\*x\* and \_y\_"#, to: &$0) }
        XCTAssertEqual(appends, [Piece(bytes: Array("*x* and _y_".utf8), style: 0)])
    }

    func test_appendDropsEscapingBackslashes() {
        let appends = RecordingBuilder.appends { InlineMarkup.append(#"a\*b *c\_d*"#, to: &$0) }
        XCTAssertEqual(appends, [Piece(bytes: Array("a*b ".utf8), style: 0),
                                 Piece(bytes: Array("c_d".utf8), style: Style.strong.rawValue)])
    }

    func test_hostileInputIsFast() {
        let text = String(repeating: " *a _b `c https://x.y/((( **d __e \\\\\\*f \\\\`", count: 20_000)
        let start = ContinuousClock.now
        let result = InlineMarkup.parse(text)
        XCTAssertEqual(result.map(\.text).joined().count > 0, true)
        XCTAssertLessThan(ContinuousClock.now - start, .seconds(20))
    }
}

import Foundation
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// `cellhost render --format html`: the demo page read back by a strict
/// tokenizer and by headless Chromium (Debian's `chromium`, installed by
/// `.ci/run`; the Chromium tests are skipped when it is not installed), the
/// hostile corpus (no element or attribute from the input survives), and
/// the media rules (embedded under the limit, linked above it, never a
/// device or FIFO).
///
/// Chromium only ever opens `file://` pages: every host name resolves to
/// nothing (`--host-resolver-rules`), and the page's own Content Security
/// Policy refuses scripts and connections. No test sleeps: Chromium's exit
/// ends each run.
final class HTMLTranscriptTests: EndToEndTestCase {

    // MARK: - The page, tokenized

    /// One tag of a page: its name, whether it closes, its attributes (values
    /// as written, entities not decoded).
    struct Tag {
        var name: String
        var closing: Bool
        var attributes: [(name: String, value: String)]

        func value(_ attribute: String) -> String? { attributes.first { $0.name == attribute }?.value }
        var classes: [String] { (value("class") ?? "").split(separator: " ").map(String.init) }
    }

    struct PageError: Error, CustomStringConvertible {
        var description: String
    }

    /// Splits `page` into its tags, strictly: a `<` must start a tag (or the
    /// doctype), names are lowercase ASCII, every attribute value is quoted
    /// with `"`, and text between tags holds no `<` or `>` (the escaper
    /// writes `&lt;` and `&gt;`). The content of `<style>` is skipped.
    /// `strictText`: text holds no raw `"` either (true of cellhost's output;
    /// Chromium's serialization leaves quotes in text as they are).
    static func tags(in page: String, strictText: Bool = true) throws -> [Tag] {
        let bytes = Array(page.utf8)
        var tags: [Tag] = []
        var index = 0
        func isNameByte(_ byte: UInt8) -> Bool {
            (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39) || byte == 0x2D
        }
        func context() -> String { String(decoding: bytes[max(0, index - 60)..<min(bytes.count, index + 60)], as: UTF8.self) }
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: ">") || (strictText && byte == UInt8(ascii: "\"")) {
                throw PageError(description: "raw '\(Character(UnicodeScalar(byte)))' in text near: \(context())")
            }
            guard byte == UInt8(ascii: "<") else { index += 1; continue }
            index += 1
            if bytes[index...].starts(with: Array("!DOCTYPE html>".utf8)) { index += 14; continue }
            var tag = Tag(name: "", closing: false, attributes: [])
            if bytes[index] == UInt8(ascii: "/") { tag.closing = true; index += 1 }
            let nameStart = index
            while index < bytes.count, isNameByte(bytes[index]) { index += 1 }
            tag.name = String(decoding: bytes[nameStart..<index], as: UTF8.self)
            guard !tag.name.isEmpty else { throw PageError(description: "a '<' that starts no tag near: \(context())") }
            while true {
                while index < bytes.count, bytes[index] == 0x20 { index += 1 }
                guard index < bytes.count else { throw PageError(description: "unterminated tag \(tag.name)") }
                if bytes[index] == UInt8(ascii: ">") { index += 1; break }
                let attributeStart = index
                while index < bytes.count, isNameByte(bytes[index]) { index += 1 }
                let name = String(decoding: bytes[attributeStart..<index], as: UTF8.self)
                guard !name.isEmpty, !tag.closing else { throw PageError(description: "malformed tag near: \(context())") }
                var value = ""
                if bytes[index] == UInt8(ascii: "=") {
                    guard bytes[index + 1] == UInt8(ascii: "\"") else {
                        throw PageError(description: "unquoted value of \(name) near: \(context())")
                    }
                    index += 2
                    let valueStart = index
                    while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
                        if bytes[index] == UInt8(ascii: "<") || bytes[index] == UInt8(ascii: ">") {
                            throw PageError(description: "raw '<' or '>' in the value of \(name) near: \(context())")
                        }
                        index += 1
                    }
                    value = String(decoding: bytes[valueStart..<index], as: UTF8.self)
                    index += 1
                }
                tag.attributes.append((name, value))
            }
            tags.append(tag)
            if tag.name == "style" && !tag.closing {
                guard let end = page.range(of: "</style>") else { throw PageError(description: "unclosed style") }
                index = page.utf8.distance(from: page.startIndex, to: end.lowerBound)
            }
        }
        return tags
    }

    /// The tags and attributes cellhost writes (`HTMLEncoder.knownTags`,
    /// `knownAttributes`), and the classes of its style sheet.
    static let knownTags: Set<String> = ["html", "head", "meta", "title", "style", "body", "main", "div", "span",
                                         "strong", "em", "code", "a", "time", "img", "audio"]
    static let knownAttributes: Set<String> = ["lang", "charset", "name", "content", "http-equiv", "class", "id", "role",
                                               "aria-level", "href", "rel", "src", "alt", "loading", "controls",
                                               "preload", "style"]
    static let knownClasses: Set<String> = ["transcript", "day", "system", "conversation", "msg", "in", "out", "start",
                                            "c0", "c1", "c2", "c3", "c4", "c5", "head", "sender", "bubble", "quote",
                                            "text", "rows", "media", "file", "more", "foot", "reactions", "edited",
                                            "status", "sending", "sent", "delivered", "read", "failed", "muted",
                                            "accent", "ok", "warn", "err", "q", "link", "bars"]
    static let voidTags: Set<String> = ["meta", "img"]

    /// Checks that `tags` hold only cellhost's own markup: known tags,
    /// attributes and classes, balanced elements, links that are fragments,
    /// http(s) or relative paths, sources that are data URIs of pictures and
    /// audio or relative paths, and colour-only `style` attributes.
    func assertOnlyOwnMarkup(_ tags: [Tag], _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        var stack: [String] = []
        for tag in tags {
            XCTAssertTrue(Self.knownTags.contains(tag.name), "\(what): unknown element <\(tag.name)>", file: file, line: line)
            if tag.closing {
                XCTAssertEqual(stack.popLast(), tag.name, "\(what): </\(tag.name)> closes what it did not open",
                               file: file, line: line)
                continue
            }
            if !Self.voidTags.contains(tag.name) { stack.append(tag.name) }
            for (name, value) in tag.attributes {
                XCTAssertTrue(Self.knownAttributes.contains(name), "\(what): unknown attribute \(name) on <\(tag.name)>",
                              file: file, line: line)
                XCTAssertFalse(name.hasPrefix("on"), "\(what): event handler \(name)", file: file, line: line)
                switch name {
                case "class":
                    for cls in tag.classes {
                        XCTAssertTrue(Self.knownClasses.contains(cls), "\(what): unknown class \(cls)", file: file, line: line)
                    }
                case "href":
                    XCTAssertTrue(Self.isSafeLink(value), "\(what): href \(value.prefix(200))", file: file, line: line)
                case "src":
                    XCTAssertTrue(Self.isSafeSource(value), "\(what): src \(value.prefix(200))", file: file, line: line)
                case "style":
                    XCTAssertNotNil(value.range(of: #"^(color:#[0-9a-f]{6})?;?(background:#[0-9a-f]{6})?$"#,
                                                options: .regularExpression),
                                    "\(what): style \(value.prefix(200))", file: file, line: line)
                default: break
                }
            }
        }
        XCTAssertEqual(stack, [], "\(what): elements left open", file: file, line: line)
    }

    /// `#m-…`, `http(s)://…`, or a relative path whose first segment has no `:`.
    static func isSafeLink(_ value: String) -> Bool {
        let lower = value.lowercased()
        if lower.hasPrefix("#m-") || lower.hasPrefix("https://") || lower.hasPrefix("http://") { return true }
        return isRelativePath(value)
    }

    static func isSafeSource(_ value: String) -> Bool {
        if value.range(of: #"^data:(image/(png|jpeg|gif|webp)|audio/(ogg|wav|flac|mpeg|mp4));base64,[A-Za-z0-9+/]*=*$"#,
                       options: .regularExpression) != nil { return true }
        return isRelativePath(value)
    }

    static func isRelativePath(_ value: String) -> Bool {
        !value.isEmpty && !value.hasPrefix("/") && !(value.split(separator: "/").first ?? "").contains(":")
            && value.range(of: #"^[A-Za-z0-9%._~/-]+$"#, options: .regularExpression) != nil
    }

    // MARK: - Running

    /// Renders `args` as a page; stdout is a file (links relative to its directory).
    func renderPage(_ args: [String], currentDirectory: URL? = nil, expectStatus: Int32? = 0,
                    file: StaticString = #filePath, line: UInt = #line) throws -> RawRun {
        try renderRaw(args + ["--format", "html"], currentDirectory: currentDirectory, expectStatus: expectStatus,
                      timeout: 120, file: file, line: line)
    }

    /// The demo page, as the golden has it.
    func demoPage(file: StaticString = #filePath, line: UInt = #line) throws -> RawRun {
        try renderPage(["conversation.jsonl", "--me", "u-alice"], currentDirectory: Self.examplesDirectory,
                       file: file, line: line)
    }

    static let demoIDs = (1...29).map { "m-\($0)" }

    // MARK: - The demo, without a browser

    func test_demoPage_holdsEveryMessageInOrder_withMediaAndChrome() throws {
        let started = Date()
        let run = try demoPage()
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertEqual(run.stderr, "")
        let page = run.text
        let tags = try Self.tags(in: page)
        assertOnlyOwnMarkup(tags, "demo")
        let messages = tags.filter { !$0.closing && $0.name == "div" && $0.classes.contains("msg") }
        XCTAssertEqual(messages.compactMap { $0.value("id") }, Self.demoIDs.map { "m-" + $0 }, "every message, in order")
        // Sender colours as in the terminal: Bob first (c0), then Carol (c1);
        // Alice's own messages are outgoing.
        func element(_ id: String) -> Tag? { messages.first { $0.value("id") == "m-" + id } }
        XCTAssertEqual(element("m-1")?.classes, ["msg", "in", "c0", "start"])
        XCTAssertEqual(element("m-6")?.classes, ["msg", "in", "c1", "start"])
        XCTAssertEqual(element("m-5")?.classes, ["msg", "out"])
        XCTAssertEqual(tags.filter { $0.name == "div" && $0.classes == ["day"] }.count, 2, "two days")
        let images = tags.filter { $0.name == "img" }
        XCTAssertEqual(images.map { String(($0.value("src") ?? "").prefix(22)) },
                       ["data:image/png;base64,", "data:image/jpeg;base64"], "both pictures embedded")
        let audio = tags.filter { $0.name == "audio" && !$0.closing }
        XCTAssertEqual(audio.count, 2)
        XCTAssertTrue(audio.allSatisfy { $0.value("src")?.hasPrefix("data:audio/ogg;base64,") == true })
        let fileLinks = tags.filter { $0.name == "a" && $0.classes == ["file"] }.compactMap { $0.value("href") }
        XCTAssertEqual(fileLinks.count, 2, "itinerary.pdf and expenses.csv (trip-photos.zip is missing)")
        XCTAssertTrue(fileLinks.allSatisfy { $0.hasSuffix("media/itinerary.pdf") || $0.hasSuffix("media/expenses.csv") }, "\(fileLinks)")
        XCTAssertTrue(page.contains("missing"), "the missing zip keeps the cell's mark")
        XCTAssertTrue(page.contains("Unsupported message type"), "the unknown type through its fallback")
        XCTAssertTrue(page.contains(##"<a class="quote" href="#m-m-1">↪ Bob: Morning!"##), "a reply links to its quote")
        XCTAssertTrue(page.contains(#"<div class="quote">↪ reply to m-0-old</div>"#))
        XCTAssertTrue(page.contains(#"<a href="https://example.org/trips/coast-2026" rel="noopener noreferrer nofollow">"#))
        for status in ["sending", "sent", "delivered", "read", "failed"] {
            XCTAssertTrue(page.contains("<span class=\"status \(status)\">"), status)
        }
        XCTAssertTrue(page.contains("@media (prefers-color-scheme:dark)"))
        XCTAssertFalse(page.contains("<script"))
        print("HTMLTranscriptTests: demo page \(run.stdout.count) bytes, rendered in \(String(format: "%.2f", elapsed)) s")
    }

    // MARK: - The demo in Chromium

    func test_demoPage_inChromium_domConsoleAndScreenshots() throws {
        let chromium = try chromium()
        let page = scratchDir.appendingPathComponent("demo.html")
        try demoPage().stdout.write(to: page)

        let dump = try runChromium(chromium, ["--dump-dom", page.absoluteString])
        XCTAssertEqual(dump.status, 0, dump.stderr.suffix(2000).description)
        assertNoConsoleMessages(dump.stderr, "demo")
        let dom = String(decoding: dump.stdout, as: UTF8.self)
        let tags = try Self.tags(in: dom, strictText: false)
        assertOnlyOwnMarkup(tags, "demo DOM")
        let ids = tags.filter { !$0.closing && $0.name == "div" && $0.classes.contains("msg") }.compactMap { $0.value("id") }
        XCTAssertEqual(ids, Self.demoIDs.map { "m-" + $0 }, "the browser sees every message, in order")
        let images = tags.filter { $0.name == "img" }
        XCTAssertEqual(images.count, 2)
        XCTAssertTrue(images.allSatisfy { $0.value("src")?.hasPrefix("data:image/") == true })
        XCTAssertEqual(tags.filter { $0.name == "audio" && !$0.closing }.count, 2)

        // Light and dark screenshots: PNGs of the window's size, with more than
        // a blank page's bytes, and different from each other.
        let light = scratchDir.appendingPathComponent("light.png")
        let dark = scratchDir.appendingPathComponent("dark.png")
        for (url, extra) in [(light, [String]()), (dark, ["--force-dark-mode"])] {
            let shot = try runChromium(chromium, extra + ["--window-size=900,2000", "--screenshot=\(url.path)", page.absoluteString])
            XCTAssertEqual(shot.status, 0, shot.stderr.suffix(2000).description)
            assertNoConsoleMessages(shot.stderr, "screenshot")
        }
        let lightPNG = try Data(contentsOf: light), darkPNG = try Data(contentsOf: dark)
        for (name, png) in [("light", lightPNG), ("dark", darkPNG)] {
            let size = try XCTUnwrap(Self.pngSize(png), "\(name) is a PNG")
            XCTAssertEqual(size.width, 900, name)
            XCTAssertEqual(size.height, 2000, name)
            // A blank 900×2000 page compresses to a few kilobytes; the demo's
            // text, bubbles and pictures take well over 50 KB.
            XCTAssertGreaterThan(png.count, 50_000, "\(name): \(png.count) bytes")
        }
        XCTAssertNotEqual(lightPNG, darkPNG, "prefers-color-scheme: dark changes the page")
        print("HTMLTranscriptTests: screenshots light \(lightPNG.count) B, dark \(darkPNG.count) B")
    }

    // MARK: - Hostile input

    /// Every string the hostile corpus (HostileInputTests) puts in a message,
    /// and markup aimed at HTML in every place a string reaches the page:
    /// text, sender names and ids, message ids, types, reactions, file names,
    /// paths and MIME types, reply ids, statuses, poll options, system lines.
    static let markupPayloads = [
        #"<script>alert(1)</script>"#,
        #"<img src=x onerror=alert(1)>"#,
        #""><svg onload=alert(1)>"#,
        #"'><iframe src=javascript:alert(1)>"#,
        #"javascript:alert(1)"#,
        #"https://x.example/"onmouseover="alert(1)"#,
        #"</div></div></main><a href="javascript:alert(1)">x</a><!--"#,
        #"&lt;b&gt; &amp; &#x3C;script&#x3E;"#,
    ]

    static func markupMessages(_ h: String) -> [String] {
        let q = jsonString(h)
        return [
            #"{"id":\#(q),"type":"text","sender":{"id":\#(q),"name":\#(q)},"time":"2026-01-01T10:00:00Z","text":\#(jsonString("see " + h + " and *" + h + "* `" + h + "` " + h)),"reactions":[{"emoji":\#(q),"count":3}]}"#,
            #"{"id":"x-reply","type":"text","sender":{"id":"u-2","name":"Bob"},"reply_to":\#(q),"text":"reply"}"#,
            #"{"id":"x-link","type":"text","sender":{"id":"u-2","name":"Bob"},"text":\#(jsonString("https://ok.example/path " + h + " javascript:alert(1)"))}"#,
            #"{"id":"x-file","type":"file","text":\#(q),"file":{"name":\#(q),"size":12,"mime":\#(q),"path":\#(q)}}"#,
            #"{"id":"x-image","type":"image","text":\#(q),"image":{"path":\#(q),"width":10,"height":10}}"#,
            #"{"id":"x-voice","type":"voice","text":\#(q),"voice":{"path":\#(q),"duration":2}}"#,
            #"{"id":"x-poll","type":"poll","text":\#(q),"poll":{"question":\#(q),"options":[{"text":\#(q),"votes":1}]}}"#,
            #"{"id":"x-type","type":\#(q),"text":\#(q)}"#,
            #"{"id":"x-out","type":"text","sender":{"id":"me","name":\#(q)},"status":\#(q),"time":\#(q),"edited":true,"text":\#(q)}"#,
            #"{"id":"x-system","type":"system","text":\#(q)}"#,
            #"{"id":"x-heading","type":"system","system":{"event":"conversation"},"text":\#(q)}"#,
        ]
    }

    /// The corpus as one input file: every payload, or only those named.
    func hostileInput(only names: Set<String>? = nil) throws -> URL {
        var bytes: [UInt8] = []
        for (name, payload) in HostileInputTests.corpus where names?.contains(name) ?? true {
            for line in HostileInputTests.hostileMessages(payload) { bytes += line + [0x0A] }
        }
        for payload in Self.markupPayloads {
            for line in Self.markupMessages(payload) { bytes += Array(line.utf8) + [0x0A] }
        }
        // A file whose name is markup, next to the input, so that its link is written.
        let name = #"<img src=x onerror=alert(1)>"#
        try Data("x".utf8).write(to: inputDirectory.appendingPathComponent("javascript:alert(1)"))
        try Data("x".utf8).write(to: inputDirectory.appendingPathComponent(name.replacingOccurrences(of: "/", with: "_")))
        bytes += Array(#"{"id":"x-real-file","type":"file","file":{"name":"n","path":"javascript:alert(1)"}}"#.utf8) + [0x0A]
        bytes += Array(#"{"id":"x-real-file-2","type":"file","file":{"path":\#(jsonString(name.replacingOccurrences(of: "/", with: "_")))}}"#.utf8) + [0x0A]
        return try writeInput("hostile.jsonl", bytes: Data(bytes))
    }

    func test_hostileCorpus_noElementOrAttributeFromTheInputSurvives() throws {
        try FileManager.default.createDirectory(at: inputDirectory, withIntermediateDirectories: true)
        let input = try hostileInput()
        let run = try renderPage([input.path, "--me", "me", "--max-rows", "100000"])
        let tags = try Self.tags(in: run.text)
        assertOnlyOwnMarkup(tags, "hostile page")
        let page = run.text
        // (As text, "onerror=" is harmless: the tokenizer above checks no tag has it.)
        for forbidden in ["<script", "<svg", "<iframe", "<img src=x", "<!--", "href=\"javascript", "src=\"javascript", "\u{1B}"] {
            XCTAssertFalse(page.contains(forbidden), "the page holds \(forbidden)")
        }
        // Every message is there (ids escaped), the markup shown as text.
        let messageCount = tags.filter { !$0.closing && $0.name == "div" && ($0.classes.contains("msg") || $0.classes == ["system"]
                                                                           || $0.classes == ["conversation"]) }.count
        let expected = HostileInputTests.corpus.count * HostileInputTests.expectedIDs.count
            + Self.markupPayloads.count * Self.markupMessages("").count + 2
        XCTAssertEqual(messageCount, expected)
        XCTAssertTrue(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        XCTAssertTrue(page.contains(#"id="m-&quot;&gt;&lt;svg onload=alert(1)&gt;""#), "an id is escaped")
        // The files named like markup are linked, percent-encoded.
        XCTAssertTrue(page.contains(#"href="javascript%3Aalert%281%29""#) || page.contains(#"%2Fjavascript%3Aalert%281%29""#)
                      || page.contains(#"/javascript%3Aalert%281%29""#), "the file is a relative link")
        XCTAssertTrue(page.contains("%3Cimg%20src%3Dx%20onerror%3Dalert%281%29%3E\""))
        // Only https://ok.example/path is a link among the text's URLs.
        let links = tags.filter { $0.name == "a" && $0.value("rel") != nil }.compactMap { $0.value("href") }
        XCTAssertEqual(Set(links), ["https://ok.example/path"], "\(Set(links))")
    }

    /// The same in a real parser. The three payloads that are only long
    /// (100 000 characters, 10 000 combining marks) are left out here: they
    /// hold no markup, the check above covers them, and Chromium takes
    /// minutes to lay out 100 000 characters of emoji and CJK in every place.
    func test_hostileCorpus_inChromium_theDOMHoldsOnlyOwnMarkup_andNothingRuns() throws {
        let chromium = try chromium()
        try FileManager.default.createDirectory(at: inputDirectory, withIntermediateDirectories: true)
        let input = try hostileInput(only: ["escapes", "c1", "bidi", "controls", "raw-controls", "invalid-utf8"])
        let page = scratchDir.appendingPathComponent("hostile.html")
        try renderPage([input.path, "--me", "me"]).stdout.write(to: page)
        let dump = try runChromium(chromium, ["--dump-dom", page.absoluteString])
        XCTAssertEqual(dump.status, 0, dump.stderr.suffix(2000).description)
        assertNoConsoleMessages(dump.stderr, "hostile page")
        let tags = try Self.tags(in: String(decoding: dump.stdout, as: UTF8.self), strictText: false)
        XCTAssertGreaterThan(tags.count, 1000)
        assertOnlyOwnMarkup(tags, "hostile DOM")
    }

    // MARK: - Media

    /// The media rules: embedded under the limit, linked (relative to the
    /// page's directory) above it, nothing for a device, a FIFO, a file that
    /// is no picture or a missing one; `--images none` drops the pictures.
    func test_media_embeddedLinkedOrLeftOut() throws {
        let media = inputDirectory.appendingPathComponent("media", isDirectory: true)
        try FileManager.default.createDirectory(at: media, withIntermediateDirectories: true)
        let examples = Self.examplesDirectory.appendingPathComponent("media")
        try FileManager.default.copyItem(at: examples.appendingPathComponent("cat.png"), to: media.appendingPathComponent("cat.png"))
        try FileManager.default.copyItem(at: examples.appendingPathComponent("voice-note.ogg"),
                                         to: media.appendingPathComponent("note.ogg"))
        // A PNG header and 2 MiB + 1 bytes: over the limit.
        var big = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        big.append(Data(count: (2 << 20) + 1 - big.count))
        try big.write(to: media.appendingPathComponent("big photo.png"))
        try Data("<svg onload=alert(1)>".utf8).write(to: media.appendingPathComponent("fake.png"))
        XCTAssertEqual(mkfifo(media.appendingPathComponent("pipe.png").path, 0o600), 0)
        try FileManager.default.createSymbolicLink(atPath: media.appendingPathComponent("zero.png").path, withDestinationPath: "/dev/zero")
        try Data("a,b\n".utf8).write(to: media.appendingPathComponent("a b#1.csv"))
        let input = try writeInput("media.jsonl", lines: [
            #"{"id":"small","type":"image","image":{"path":"media/cat.png"}}"#,
            #"{"id":"big","type":"image","image":{"path":"media/big photo.png"}}"#,
            #"{"id":"fake","type":"image","image":{"path":"media/fake.png"}}"#,
            #"{"id":"fifo","type":"image","image":{"path":"media/pipe.png"}}"#,
            #"{"id":"zero","type":"image","image":{"path":"media/zero.png"}}"#,
            #"{"id":"gone","type":"image","image":{"path":"media/gone.png"}}"#,
            #"{"id":"voice","type":"voice","voice":{"path":"media/note.ogg"}}"#,
            #"{"id":"file","type":"file","file":{"path":"media/a b#1.csv"}}"#,
            #"{"id":"devfile","type":"file","file":{"name":"zero","path":"/dev/zero"}}"#,
        ])
        let run = try renderPage([input.path], expectStatus: 0)
        let tags = try Self.tags(in: run.text)
        assertOnlyOwnMarkup(tags, "media page")
        let page = run.text
        func message(_ id: String) -> String {
            guard let start = page.range(of: "id=\"m-\(id)\"") else { return "" }
            let rest = page[start.upperBound...]
            return String(rest[..<(rest.range(of: "\n</div>\n")?.lowerBound ?? rest.endIndex)])
        }
        XCTAssertTrue(message("small").contains("<img src=\"data:image/png;base64,"), message("small"))
        // stdout is a file in <scratch>/run-N: links start there.
        XCTAssertTrue(message("big").contains(#"<img src="../inputs/media/big%20photo.png" alt="big photo.png""#), message("big"))
        for id in ["fake", "fifo", "zero", "gone"] {
            XCTAssertFalse(message(id).contains("<img"), "\(id): \(message(id))")
        }
        XCTAssertTrue(message("zero").contains("not a regular file"), message("zero"))
        XCTAssertTrue(message("gone").contains("missing"), message("gone"))
        XCTAssertTrue(message("voice").contains("<audio controls preload=\"metadata\" src=\"data:audio/ogg;base64,"))
        XCTAssertTrue(message("file").contains(#"<a class="file" href="../inputs/media/a%20b%231.csv">"#), message("file"))
        XCTAssertFalse(message("devfile").contains("<a "), message("devfile"))

        let none = try renderPage([input.path, "--images", "none"])
        XCTAssertFalse(none.text.contains("<img"), "--images none: no pictures")
        XCTAssertTrue(none.text.contains("<audio"), "--images none keeps the audio")
    }

    /// Piped (not a file), links are relative to the current directory.
    func test_links_piped_areRelativeToTheCurrentDirectory() throws {
        let run = try execute(URL(fileURLWithPath: "/bin/sh"),
                              ["-c", #""$0" render conversation.jsonl --format html | cat"#, binary.path],
                              environment: cleanEnvironment(renderEnvironment()), stdin: nil,
                              currentDirectory: Self.examplesDirectory, timeout: 60, file: #filePath, line: #line)
        XCTAssertTrue(run.stdout.count > 10_000)
        XCTAssertTrue(String(decoding: run.stdout, as: UTF8.self).contains(#"<a class="file" href="media/itinerary.pdf">"#))
    }

    /// An empty input is still a whole page (StreamingTests checks that
    /// each message is written as soon as it is read).
    func test_emptyInput_isAWholePage() throws {
        let run = try renderPage(["-"], expectStatus: 0)
        XCTAssertTrue(run.text.hasPrefix("<!DOCTYPE html>"))
        XCTAssertTrue(run.text.hasSuffix("</main>\n</body>\n</html>\n"))
        assertOnlyOwnMarkup(try Self.tags(in: run.text), "empty page")
    }

    // MARK: - Chromium

    /// Debian's `chromium` (or `chromium-browser`) on PATH; the test fails
    /// without it (the README's install step and .ci/run install it).
    func chromium() throws -> URL {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            for name in ["chromium", "chromium-browser"] {
                let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent(name)
                if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            }
        }
        XCTFail("chromium is not installed (apt-get install chromium; .ci/install-deps.sh does)")
        throw XCTSkip("no chromium")
    }

    /// Runs headless Chromium on `file://` pages only, in a profile of its
    /// own, with no host name resolving; console messages go to stderr.
    func runChromium(_ chromium: URL, _ args: [String], file: StaticString = #filePath, line: UInt = #line) throws
        -> (status: Int32, stdout: Data, stderr: String) {
        let profile = scratchDir.appendingPathComponent("chromium-profile", isDirectory: true)
        let flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                     "--no-default-browser-check", "--disable-extensions", "--disable-sync", "--disable-background-networking",
                     "--disable-component-update", "--disable-default-apps", "--mute-audio", "--hide-scrollbars",
                     "--user-data-dir=\(profile.path)", "--host-resolver-rules=MAP * ~NOTFOUND",
                     "--enable-logging=stderr", "--v=0"]
        return try execute(chromium, flags + args, environment: cleanEnvironment([:]), stdin: nil,
                           currentDirectory: scratchDir, timeout: 180, file: file, line: line)
    }

    /// The page has no script: any console message (an error, a refused
    /// load, an uncaught exception) means something went wrong.
    func assertNoConsoleMessages(_ stderr: String, _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        let console = stderr.split(separator: "\n").filter {
            $0.contains(":CONSOLE") || $0.contains("Uncaught") || $0.contains("Refused to")
        }
        XCTAssertEqual(console, [], "\(what): console messages", file: file, line: line)
    }

    /// Width and height from a PNG's IHDR chunk.
    static func pngSize(_ data: Data) -> (width: Int, height: Int)? {
        let bytes = [UInt8](data.prefix(24))
        guard bytes.count == 24, bytes[0..<8] == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A],
              bytes[12..<16] == Array("IHDR".utf8)[...] else { return nil }
        func be32(_ offset: Int) -> Int { bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) } }
        return (be32(16), be32(20))
    }
}

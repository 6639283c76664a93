import CellHostABI
import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif
@testable import CellHostCore

/// The pieces of `--format html`: the escaper, the URL checks, the relative
/// links, data URIs, magic bytes, what plugins are told, and the page as a
/// session writes it (head first, one element per message, closing tags at
/// `finish`).
final class HTMLOutputTests: XCTestCase {

    // MARK: Escaping

    func test_escaper_replacesEveryMarkupCharacter() {
        XCTAssertEqual(HTMLText.escaped(#"<script>alert("x") & 'y'</script>"#),
                       "&lt;script&gt;alert(&quot;x&quot;) &amp; &#39;y&#39;&lt;/script&gt;")
        XCTAssertEqual(HTMLText.escaped(#""><svg onload=alert(1)>"#), "&quot;&gt;&lt;svg onload=alert(1)&gt;")
        // An entity in the input stays text.
        XCTAssertEqual(HTMLText.escaped("&lt;b&gt;"), "&amp;lt;b&amp;gt;")
    }

    func test_escaper_sanitizesFirst() {
        // The escape sequence goes whole, the control becomes its picture,
        // the bidi override is shown.
        XCTAssertEqual(HTMLText.escaped("a\u{1B}[31m<b>\u{7}\u{202E}"), "a&lt;b&gt;␇&lt;U+202E&gt;")
    }

    func test_escapedBytes_controlBytesBecomeReplacementCharacters() {
        let buffer = OutputBuffer(fd: -1)
        let bytes: [UInt8] = [0x61, 0x00, 0x1B, 0x0A, 0x62]
        bytes.withUnsafeBufferPointer { HTMLText.appendEscaped($0, to: buffer) }
        XCTAssertEqual(String(decoding: buffer.bytes, as: UTF8.self), "a\u{FFFD}\u{FFFD}\nb")
    }

    // MARK: URLs

    private func isWebURL(_ text: String) -> Bool {
        Array(text.utf8).withUnsafeBufferPointer { HTMLText.isWebURL($0) }
    }

    func test_onlyPlainHTTPURLsAreLinks() {
        XCTAssertTrue(isWebURL("https://example.org/trips/coast-2026"))
        XCTAssertTrue(isWebURL("HTTP://example.org/?a=1&b=2"))
        XCTAssertFalse(isWebURL("javascript:alert(1)"))
        XCTAssertFalse(isWebURL("JaVaScRiPt:alert(1)"))
        XCTAssertFalse(isWebURL("data:text/html,<script>alert(1)</script>"))
        XCTAssertFalse(isWebURL("https://x.example/\"onmouseover=\"alert(1)"))
        XCTAssertFalse(isWebURL("https://x.example/'><svg>"))
        XCTAssertFalse(isWebURL("https://x.example/a b"))
        XCTAssertFalse(isWebURL("https://"))
        XCTAssertFalse(isWebURL("https://bücher.example/"), "non-ASCII stays text")
    }

    func test_relativeURL_percentEncodesEverySegment() {
        XCTAssertEqual(HTMLMedia.relativeURL(to: "/chats/media/cat.png", from: "/chats"), "media/cat.png")
        XCTAssertEqual(HTMLMedia.relativeURL(to: "/chats/media/cat.png", from: "/out/pages"), "../../chats/media/cat.png")
        XCTAssertEqual(HTMLMedia.relativeURL(to: "/a/./b/../media/x y#1\"<>.png", from: "/a"), "media/x%20y%231%22%3C%3E.png")
        // A colon never survives: a file named like a scheme is still a path.
        XCTAssertEqual(HTMLMedia.relativeURL(to: "/m/javascript:alert(1)", from: "/m"), "javascript%3Aalert%281%29")
        XCTAssertEqual(HTMLMedia.relativeURL(to: "/m/é.pdf", from: "/"), "m/%C3%A9.pdf")
    }

    // MARK: Media

    func test_dataURI_isBase64() {
        for (input, expected) in [("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="),
                                  ("fooba", "Zm9vYmE="), ("foobar", "Zm9vYmFy")] {
            let buffer = OutputBuffer(fd: -1)
            HTMLMedia.appendDataURI(mime: "text/plain", Array(input.utf8), to: buffer)
            XCTAssertEqual(String(decoding: buffer.bytes, as: UTF8.self), "data:text/plain;base64," + expected)
        }
    }

    func test_magicBytes() {
        XCTAssertEqual(HTMLMedia.pictureType([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0]), "image/png")
        XCTAssertEqual(HTMLMedia.pictureType([0xFF, 0xD8, 0xFF, 0xE0]), "image/jpeg")
        XCTAssertEqual(HTMLMedia.pictureType(Array("GIF89a".utf8)), "image/gif")
        XCTAssertEqual(HTMLMedia.pictureType(Array("RIFF\0\0\0\0WEBPVP8 ".utf8)), "image/webp")
        XCTAssertNil(HTMLMedia.pictureType(Array("<svg onload=alert(1)>".utf8)), "SVG is never embedded")
        XCTAssertNil(HTMLMedia.pictureType([0x89, 0x50]))
        XCTAssertEqual(HTMLMedia.audioType(Array("OggS\0\u{2}".utf8)), "audio/ogg")
        XCTAssertEqual(HTMLMedia.audioType(Array("RIFF\0\0\0\0WAVEfmt ".utf8)), "audio/wav")
        XCTAssertNil(HTMLMedia.audioType(Array("hello".utf8)))
    }

    func test_onlyRegularFilesAreOpened() throws {
        XCTAssertNil(HTMLMedia.open("/dev/zero", embedLimit: 1 << 20), "a device")
        XCTAssertNil(HTMLMedia.open("/", embedLimit: 1 << 20), "a directory")
        XCTAssertNil(HTMLMedia.open("/nonexistent/\(UUID().uuidString)", embedLimit: 1 << 20))
        let fifo = FileManager.default.temporaryDirectory.appendingPathComponent("html-fifo-\(UUID().uuidString)").path
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        defer { unlink(fifo) }
        XCTAssertNil(HTMLMedia.open(fifo, embedLimit: 1 << 20), "a FIFO (opening it must not block)")
        XCTAssertFalse(HTMLMedia.isRegularFile(fifo))
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("html-file-\(UUID().uuidString)")
        try Data(repeating: 7, count: 100).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        XCTAssertEqual(HTMLMedia.open(file.path, embedLimit: 100)?.bytes?.count, 100, "read whole at the limit")
        let big = HTMLMedia.open(file.path, embedLimit: 99)
        XCTAssertEqual(big?.size, 100)
        XCTAssertNil(big?.bytes, "over the limit: only the head is read")
        XCTAssertEqual(big?.head.count, 16)
    }

    // MARK: What plugins are told

    func test_pluginsAreToldHTML_trueColour_andNoPreviews() {
        let settings = OutputSettings(format: .html, depth: .none, width: 80)
        let output = PluginOutput(settings: settings, images: .symbols)
        XCTAssertEqual(output.format, "html")
        XCTAssertEqual(output.colors, UInt32(CELLHOST_COLORS_TRUECOLOR))
        XCTAssertEqual(output.images, ImageMode.none, "the page shows pictures itself")
        var info = cellhost_output_info()
        info.struct_size = UInt32(MemoryLayout<cellhost_output_info>.size)
        withUnsafeMutablePointer(to: &info) { output.fill($0) }
        XCTAssertEqual(info.format, cellhost_output_format(CELLHOST_FORMAT_HTML))
    }

    func test_resolve_htmlHasNoTerminalColours() {
        let settings = OutputSettings.resolve(format: .html, color: .always, width: nil,
                                              environment: ["TERM": "xterm-256color"], isTerminal: true, terminalWidth: 120)
        XCTAssertEqual(settings.format, .html)
        XCTAssertEqual(settings.depth, ColorDepth.none)
    }

    // MARK: A session writing a page

    private func page(_ records: [String], me: String? = nil) throws -> String {
        let host = CellHost()
        let output = OutputBuffer(fd: -1)
        var settings = OutputSettings(format: .html, depth: .none, width: 60)
        settings.html.linkBase = "/"
        let session = RenderSession(host: host, settings: settings, me: me, output: output)
        for (index, record) in records.enumerated() {
            try Array(record.utf8).withUnsafeBufferPointer { try session.render($0, line: index + 1) }
        }
        session.finish()
        return String(decoding: output.bytes, as: UTF8.self)
    }

    func test_emptyInput_isStillAWholePage() throws {
        let html = try page([])
        XCTAssertTrue(html.hasPrefix("<!DOCTYPE html>\n<html lang=\"en\">"))
        XCTAssertTrue(html.hasSuffix("</main>\n</body>\n</html>\n"))
        XCTAssertTrue(html.contains("@media (prefers-color-scheme:dark)"))
        XCTAssertTrue(html.contains("Content-Security-Policy"))
    }

    func test_messagesAndChrome() throws {
        let html = try page([
            #"{"id":"1","type":"text","sender":{"id":"b","name":"Bob <b>"},"time":"2026-11-28T09:14:00Z","text":"hi\nthere","reactions":[{"emoji":"👍","count":2}]}"#,
            #"{"id":"2","type":"text","sender":{"id":"b","name":"Bob <b>"},"time":"2026-11-28T09:15:00Z","text":"again"}"#,
            #"{"id":"3","type":"text","sender":{"id":"me","name":"Me"},"time":"2026-11-28T09:16:00Z","status":"read","reply_to":"1","edited":true,"text":"ok"}"#,
            #"{"id":"4","type":"system","time":"2026-11-29T08:00:00Z","text":"Carol joined"}"#,
            #"{"id":"5","type":"system","system":{"event":"conversation"},"text":"Trip"}"#,
        ], me: "me")
        XCTAssertEqual(html.components(separatedBy: "<div class=\"day\"").count - 1, 2, html)
        XCTAssertTrue(html.contains(#"<div class="msg in c0 start" id="m-1">"#), html)
        XCTAssertTrue(html.contains(#"<span class="sender">Bob &lt;b&gt;</span> <time>09:14</time>"#), html)
        XCTAssertTrue(html.contains(#"<div class="msg in c0" id="m-2">"#), "a group's later message keeps its colour, no header")
        XCTAssertTrue(html.contains(#"<div class="text">hi"# + "\nthere</div>"), "line breaks kept for pre-wrap")
        XCTAssertTrue(html.contains(#"<span class="reactions">👍 2</span>"#))
        XCTAssertTrue(html.contains(#"<div class="msg out start" id="m-3">"#))
        XCTAssertTrue(html.contains(##"<a class="quote" href="#m-1">↪ Bob &lt;b&gt;: hi there</a>"##), html)
        XCTAssertTrue(html.contains(#"<span class="edited">edited</span><span class="status read">✓✓ read</span>"#))
        XCTAssertTrue(html.contains(#"<div class="system" id="m-4"><div class="text">Carol joined</div></div>"#), html)
        XCTAssertTrue(html.contains(#"<div class="conversation" role="heading" aria-level="2" id="m-5"><div class="text">Trip</div></div>"#), html)
    }
}

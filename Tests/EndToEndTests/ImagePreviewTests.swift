import Foundation
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// The image cell's previews: decoded from the file a message names, drawn
/// with libchafa as rows of block cells, sized to the cell, coloured for the
/// output, and refused (with a muted notice) when the file is not a picture
/// the cell will decode.
///
/// The demo pictures are Examples/media/cat.png (64×48) and sunset.jpg
/// (80×60); the refusal fixtures are in Fixtures/media.
final class ImagePreviewTests: EndToEndTestCase {

    static var demoMedia: URL { examplesDirectory.appendingPathComponent("media", isDirectory: true) }
    static var fixtureMedia: URL { fixturesDirectory.appendingPathComponent("media", isDirectory: true) }

    static let caption = "CAPTION-END"

    /// An image message for `path`, with a caption marking where the preview ends.
    func imageMessage(_ path: String, width: Int? = nil, height: Int? = nil) -> String {
        var image = #""path":\#(jsonString(path))"#
        if let width, let height { image += #","width":\#(width),"height":\#(height)"# }
        return #"{"type":"image","id":"i","text":"\#(Self.caption)","image":{\#(image)}}"#
    }

    /// Renders `messages` with `args`; the media directory is `media`.
    func render(_ messages: [String], width: Int, format: String, media: URL = demoMedia,
                extraArgs: [String] = [], env: [String: String] = [:],
                file: StaticString = #filePath, line: UInt = #line) throws -> RawRun {
        let input = Data((messages.joined(separator: "\n") + "\n").utf8)
        var environment = defaultEnvironment
        environment["TZ"] = "UTC"
        environment.merge(env) { _, given in given }
        let result = try run(["render", "-", "--format", format, "--width", String(width),
                              "--media-dir", media.path] + extraArgs,
                             env: environment, stdin: input, file: file, line: line)
        XCTAssertEqual(result.status, 0, "render exit status; stderr:\n\(result.stderr)", file: file, line: line)
        return RawRun(status: result.status, stdout: Data(result.stdout.utf8), stderr: result.stderr)
    }

    /// The preview rows of the one image message in `lines` (escape
    /// sequences already removed): the lines between the header (`[IMG]
    /// name · W×H`, which may wrap) and the caption, without the
    /// two-column gutter.
    func previewRows(_ lines: [String]) -> [String] {
        guard let caption = lines.firstIndex(where: { $0.contains(Self.caption) }),
              let header = lines[..<caption].lastIndex(where: { $0.contains("×") }) else { return [] }
        return lines[(header + 1)..<caption].map { String($0.dropFirst(2)) }
    }

    /// The content width the host gives an incoming message at `width`: the
    /// longest line of a long text message, without its gutter.
    func contentWidth(_ width: Int) throws -> Int {
        let long = #"{"type":"text","id":"t","text":"\#(String(repeating: "x", count: 2000))"}"#
        let run = try render([long], width: width, format: "plain")
        return (run.lines.map { $0.count }.max() ?? 2) - 2
    }

    /// The preview size the cell promises: the content width, the aspect
    /// ratio kept with cells twice as high as wide, at most `rows` rows.
    func expectedSize(image: (Int, Int), content: Int, rows maximum: Int = 12) -> (columns: Int, rows: Int) {
        let aspect = Double(image.1) / Double(image.0)
        let rows = (Double(content) * aspect / 2).rounded()
        if rows <= Double(maximum) { return (content, max(1, Int(rows))) }
        return (min(content, Int((Double(maximum) * 2 / aspect).rounded())), maximum)
    }

    func assertPreview(_ rows: [String], is size: (columns: Int, rows: Int), _ what: String,
                       file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(rows.count, size.rows, "rows of \(what):\n\(rows.joined(separator: "\n"))", file: file, line: line)
        for row in rows {
            XCTAssertEqual(row.unicodeScalars.count, size.columns, "columns of \(what): '\(row)'", file: file, line: line)
        }
    }

    // MARK: - Sizes in every format

    func test_catPNG_plain_previewFillsTheContentWidthWithTheAspectRatioKept() throws {
        for width in [20, 30, 40, 80] {
            let run = try render([imageMessage("cat.png")], width: width, format: "plain")
            let size = expectedSize(image: (64, 48), content: try contentWidth(width))
            assertPreview(previewRows(run.lines), is: size, "cat.png at --width \(width)")
        }
    }

    func test_sunsetJPEG_json_rowsGiveTheColoursOfEveryPreviewLineAsSpans() throws {
        let input = Data((imageMessage("sunset.jpg") + "\n").utf8)
        let result = try run(["render", "-", "--format", "json", "--width", "50", "--media-dir", Self.demoMedia.path],
                             env: defaultEnvironment, stdin: input)
        XCTAssertEqual(result.status, 0, result.stderr)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let lines = try XCTUnwrap(object["lines"] as? [String])
        let rows = try XCTUnwrap(object["rows"] as? [[String: Any]])
        let size = expectedSize(image: (80, 60), content: try contentWidth(50))
        XCTAssertEqual(rows.count, size.rows, "one coloured row per preview line")
        let hex = try NSRegularExpression(pattern: "^#[0-9a-f]{6}$")
        for row in rows {
            let index = try XCTUnwrap(row["line"] as? Int)
            let spans = try XCTUnwrap(row["spans"] as? [[String: Any]])
            XCTAssertEqual(spans.compactMap { $0["text"] as? String }.joined(), lines[index], "the spans make up line \(index)")
            let colours = spans.flatMap { [$0["fg"], $0["bg"]].compactMap { $0 as? String } }
            XCTAssertFalse(colours.isEmpty, "line \(index) has colours")
            for colour in colours {
                XCTAssertNotNil(hex.firstMatch(in: colour, range: NSRange(colour.startIndex..., in: colour)), colour)
            }
        }
    }

    func test_sunsetJPEG_json_rowsAreLinesOfCharacters() throws {
        for width in [24, 50, 100] {
            let (records, _) = try renderJSON([imageMessage("sunset.jpg")], width: width,
                                              extraArgs: ["--media-dir", Self.demoMedia.path])
            let record = try XCTUnwrap(records.first)
            XCTAssertEqual(record.className, "ImageMessageCell")
            let size = expectedSize(image: (80, 60), content: try contentWidth(width))
            assertPreview(previewRows(record.lines), is: size, "sunset.jpg in JSON at --width \(width)")
            XCTAssertFalse(record.lines.joined().contains("\u{1B}"), "JSON lines carry no escape sequence")
        }
    }

    func test_plainOutput_picturesAreInTheCharacters_brailleWithoutEscapes() throws {
        let run = try render([imageMessage("cat.png")], width: 40, format: "plain")
        XCTAssertFalse(run.text.contains("\u{1B}"))
        let rows = previewRows(run.lines)
        XCTAssertFalse(rows.isEmpty)
        let scalars = rows.flatMap { $0.unicodeScalars }
        XCTAssertTrue(scalars.allSatisfy { (0x2800...0x28FF).contains($0.value) || $0 == " " },
                      "braille dots only:\n\(rows.joined(separator: "\n"))")
        XCTAssertGreaterThan(Set(scalars).count, 4, "the picture is in the characters, not one repeated glyph")
    }

    func test_trueColor_previewUses24BitColours() throws {
        let run = try render([imageMessage("sunset.jpg")], width: 40, format: "ansi", extraArgs: ["--color", "always"],
                             env: ["COLORTERM": "truecolor", "TERM": "xterm-256color"])
        XCTAssertTrue(run.text.contains("48;2;"), "24-bit backgrounds")
        let plain = String(decoding: strippingSGR(run.stdout), as: UTF8.self)
        assertPreview(previewRows(outputLines(plain)), is: expectedSize(image: (80, 60), content: try contentWidth(40)),
                      "sunset.jpg in truecolor")
    }

    func test_256Colours_previewUsesThePalette() throws {
        let run = try render([imageMessage("sunset.jpg")], width: 40, format: "ansi", extraArgs: ["--color", "always"],
                             env: ["TERM": "xterm-256color"])
        XCTAssertTrue(run.text.contains("48;5;"), "256-colour backgrounds")
        XCTAssertFalse(run.text.contains("48;2;"))
        let plain = String(decoding: strippingSGR(run.stdout), as: UTF8.self)
        assertPreview(previewRows(outputLines(plain)), is: expectedSize(image: (80, 60), content: try contentWidth(40)),
                      "sunset.jpg in 256 colours")
    }

    func test_16Colours_previewUsesTheBasicColours() throws {
        let run = try render([imageMessage("cat.png")], width: 40, format: "ansi", extraArgs: ["--color", "always"],
                             env: ["TERM": "xterm"])
        XCTAssertFalse(run.text.contains("48;5;"))
        XCTAssertFalse(run.text.contains("48;2;"))
        let backgrounds = (40...47).map { "\($0)m" } + (100...107).map { "\($0)m" }
        XCTAssertTrue(backgrounds.contains { run.text.contains(";" + $0) || run.text.contains("[" + $0) },
                      "16-colour backgrounds")
        let plain = String(decoding: strippingSGR(run.stdout), as: UTF8.self)
        assertPreview(previewRows(outputLines(plain)), is: expectedSize(image: (64, 48), content: try contentWidth(40)),
                      "cat.png in 16 colours")
    }

    // MARK: - The user's settings

    func test_imagesNone_drawsNoPreviewButKeepsNameSizeAndCaption() throws {
        let run = try render([imageMessage("cat.png")], width: 40, format: "plain", extraArgs: ["--images", "none"])
        XCTAssertEqual(run.lines, ["┃ [IMG] cat.png · 64×48", "│ \(Self.caption)"])
    }

    func test_imageRows_capsTheHeightAndNarrowsThePreview() throws {
        let run = try render([imageMessage("cat.png")], width: 80, format: "plain", extraArgs: ["--image-rows", "3"])
        assertPreview(previewRows(run.lines), is: (8, 3), "cat.png with --image-rows 3") // 3 rows × 2 × 64/48
    }

    // MARK: - The size comes from the file

    func test_sizeFromTheFile_whenTheMessageGivesNone() throws {
        let run = try render([imageMessage("sunset.jpg")], width: 40, format: "plain", extraArgs: ["--images", "none"])
        XCTAssertEqual(run.lines.first, "┃ [IMG] sunset.jpg · 80×60")
    }

    func test_sizeFromTheFile_winsOverTheMessage() throws {
        let run = try render([imageMessage("cat.png", width: 640, height: 480)], width: 40, format: "plain",
                             extraArgs: ["--images", "none"])
        XCTAssertEqual(run.lines.first, "┃ [IMG] cat.png · 64×48")
        XCTAssertFalse(run.text.contains("640"))
    }

    func test_messageSizeShown_whenTheFileIsMissing() throws {
        let run = try render([imageMessage("nowhere.png", width: 640, height: 480)], width: 60, format: "plain")
        XCTAssertEqual(run.lines, ["┃ [IMG] nowhere.png · 640×480 · missing", "│ \(Self.caption)"])
    }

    // MARK: - Other formats

    func test_gif_firstFrameIsShown() throws {
        // two-frames.gif: a red frame, then a green one.
        let run = try render([imageMessage("two-frames.gif")], width: 40, format: "ansi", media: Self.fixtureMedia,
                             extraArgs: ["--color", "always"], env: ["COLORTERM": "truecolor"])
        XCTAssertTrue(run.text.contains("2;255;0;0m"), "red from the first frame")
        XCTAssertFalse(run.text.contains(";0;255;0m"), "nothing from the second frame")
        XCTAssertTrue(run.text.contains("20×10"))
    }

    func test_webp_stillAndAnimated_areDecoded() throws {
        let run = try render([imageMessage("small.webp"), imageMessage("two-frames.webp")], width: 40, format: "plain",
                             media: Self.fixtureMedia, extraArgs: ["--image-rows", "4"])
        XCTAssertTrue(run.lines.contains("┃ [IMG] small.webp · 40×30"), run.text)
        XCTAssertTrue(run.lines.contains { $0.contains("two-frames.webp · 20×10") }, run.text)
        XCTAssertFalse(run.text.contains("corrupt"), run.text)
        XCTAssertEqual(run.lines.filter { $0.unicodeScalars.contains { (0x2800...0x28FF).contains($0.value) } }.count, 8,
                       "4 rows each:\n\(run.text)")
    }

    // MARK: - Refusals

    /// The first line of the one image message rendered for `path`.
    func headerLine(_ path: String, media: URL = fixtureMedia, file: StaticString = #filePath, line: UInt = #line) throws -> [String] {
        try render([imageMessage(path)], width: 80, format: "plain", media: media, file: file, line: line).lines
    }

    func test_hugeHeader_isRefusedBeforeDecoding() throws {
        // A 69-byte PNG whose header declares 100000×100000 pixels.
        XCTAssertEqual(try headerLine("huge-header.png"),
                       ["┃ [IMG] huge-header.png · 100000×100000 · image too large", "│ \(Self.caption)"])
    }

    func test_truncatedJPEG_isACorruptImage() throws {
        XCTAssertEqual(try headerLine("truncated.jpg"),
                       ["┃ [IMG] truncated.jpg · 80×60 · corrupt image", "│ \(Self.caption)"])
    }

    func test_badPNGData_isACorruptImage() throws {
        XCTAssertEqual(try headerLine("corrupt.png"),
                       ["┃ [IMG] corrupt.png · 64×48 · corrupt image", "│ \(Self.caption)"])
    }

    func test_textFile_isNotAnImage() throws {
        XCTAssertEqual(try headerLine("not-an-image.png"),
                       ["┃ [IMG] not-an-image.png · not an image", "│ \(Self.caption)"])
    }

    func test_fileOverTheByteLimit_isNotRead() throws {
        let big = try makeDirectory("big").appendingPathComponent("big.png")
        XCTAssertTrue(FileManager.default.createFile(atPath: big.path, contents: Data()))
        XCTAssertEqual(truncate(big.path, 33 * 1024 * 1024), 0) // sparse: nothing is written
        let lines = try headerLine("big.png", media: big.deletingLastPathComponent())
        XCTAssertEqual(lines.first, "┃ [IMG] big.png · larger than 32 MB")
    }

    func test_devicesDirectoriesAndFIFOs_areNotRegularFiles() throws {
        let fifo = try makeDirectory("fifo").appendingPathComponent("pipe.png")
        XCTAssertEqual(mkfifo(fifo.path, 0o600), 0)
        let paths = ["/dev/zero", "/dev/urandom", "/", fifo.path]
        let run = try render(paths.map { imageMessage($0) }, width: 80, format: "plain", media: Self.fixtureMedia)
        let headers = run.lines.filter { $0.contains("[IMG]") }
        XCTAssertEqual(headers, ["┃ [IMG] zero · not a regular file", "┃ [IMG] urandom · not a regular file",
                                 "┃ [IMG] image · not a regular file", "┃ [IMG] pipe.png · not a regular file"])
    }

    // MARK: - Linking and degrading

    func test_cellhostBinary_doesNotLinkTheImageLibraries() throws {
        let result = try execute(URL(fileURLWithPath: "/usr/bin/env"), ["ldd", binary.path],
                                 environment: ProcessInfo.processInfo.environment, stdin: nil,
                                 currentDirectory: tempRoot, timeout: 60, file: #filePath, line: #line)
        XCTAssertEqual(result.status, 0, result.stderr)
        let text = String(decoding: result.stdout, as: UTF8.self)
        XCTAssertTrue(text.contains("libc.so"), "ldd listed the libraries:\n\(text)")
        for library in ["libchafa", "libglib", "libgdk_pixbuf", "libpng", "libjpeg", "libwebp", "libgif"] {
            XCTAssertFalse(text.contains(library), "cellhost links \(library):\n\(text)")
        }
    }

    func test_withoutChafa_theImagePluginFailsWithTheReason_andImagesFallBackToTheFileCell() throws {
        // An installation (cellhost and the shipped plugins beside it) whose
        // libImageCell.so needs "libchafa.so.X", which does not exist.
        let install = try makeDirectory("install")
        let built = binary.deletingLastPathComponent()
        let fm = FileManager.default
        for name in try fm.contentsOfDirectory(atPath: built.path) where name.hasPrefix("lib") && name.hasSuffix(".so") {
            try fm.copyItem(at: built.appendingPathComponent(name), to: install.appendingPathComponent(name))
        }
        let host = install.appendingPathComponent("cellhost")
        try fm.copyItem(at: binary, to: host)
        let plugin = install.appendingPathComponent("libImageCell.so")
        var bytes = [UInt8](try Data(contentsOf: plugin))
        let needed = Array("libchafa.so.0\0".utf8), missing = Array("libchafa.so.X\0".utf8)
        var patched = 0
        var index = 0
        while index + needed.count <= bytes.count {
            if bytes[index] == needed[0], Array(bytes[index..<(index + needed.count)]) == needed {
                bytes.replaceSubrange(index..<(index + needed.count), with: missing)
                patched += 1
            }
            index += 1
        }
        XCTAssertGreaterThan(patched, 0, "libImageCell.so names libchafa.so.0")
        try Data(bytes).write(to: plugin)

        let environment = cleanEnvironment(defaultEnvironment.merging(["TZ": "UTC"]) { _, new in new })
        let listing = try execute(host, ["list-plugins", "--json"], environment: environment, stdin: nil,
                                  currentDirectory: tempRoot, timeout: 60, file: #filePath, line: #line)
        XCTAssertEqual(listing.status, 1, "a plugin failed to load; stderr:\n\(listing.stderr)")
        let report = try decode(PluginReport.self, from: String(decoding: listing.stdout, as: UTF8.self),
                                what: "list-plugins --json")
        let entry = try XCTUnwrap(report.plugin(atPath: plugin.path), "\(report.plugins.map(\.file))")
        XCTAssertEqual(entry.state, .failed)
        XCTAssertTrue(entry.error?.contains("libchafa.so.X") ?? false, "the reason names the library: \(entry.error ?? "nil")")

        let input = Data((imageMessage("cat.png") + "\n").utf8)
        let rendered = try execute(host, ["render", "-", "--format", "json", "--width", "60",
                                          "--media-dir", Self.demoMedia.path],
                                   environment: environment, stdin: input, currentDirectory: tempRoot,
                                   timeout: 60, file: #filePath, line: #line)
        let records = try decodeJSONLines(RenderRecord.self, from: String(decoding: rendered.stdout, as: UTF8.self),
                                          what: "render --format json")
        let record = try XCTUnwrap(records.first, rendered.stderr)
        XCTAssertEqual(record.renderedAs, "file", "the parent class's cell shows it")
        XCTAssertEqual(record.className, "FileMessageCell")
        XCTAssertTrue(record.lines.joined(separator: "\n").contains("cat.png"), "\(record.lines)")
    }
}

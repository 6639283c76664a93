import Foundation
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// FileCell looks at the file a message names: its type from its content
/// (libmagic on a bounded prefix), its size from the file, and a muted mark
/// when there is no readable regular file at the path. The media are copies
/// of `Examples/media` made in each test's temporary directory.
final class FileTypeTests: EndToEndTestCase {

    // MARK: - Helpers

    /// `<root>/media/` with copies of every file in `Examples/media`, made
    /// on first use.
    private var media: URL!

    func mediaDirectory() throws -> URL {
        if let media { return media }
        let dir = try makeDirectory("media")
        let source = Self.examplesDirectory.appendingPathComponent("media", isDirectory: true)
        for name in try FileManager.default.contentsOfDirectory(atPath: source.path) {
            try FileManager.default.copyItem(at: source.appendingPathComponent(name),
                                             to: dir.appendingPathComponent(name))
        }
        media = dir
        return dir
    }

    /// Copies `Examples/media/<example>` to `<media>/<name>`.
    @discardableResult
    func copyExample(_ example: String, as name: String) throws -> URL {
        let dir = try mediaDirectory()
        let target = dir.appendingPathComponent(name)
        try FileManager.default.copyItem(at: dir.appendingPathComponent(example), to: target)
        return target
    }

    /// A file message naming `path`, with the optional `file` fields given.
    func fileMessage(_ path: String, id: String = "f-1", name: String? = nil, mime: String? = nil,
                     size: Int? = nil) -> String {
        var file: [String: Any] = ["path": path]
        if let name { file["name"] = name }
        if let mime { file["mime"] = mime }
        if let size { file["size"] = size }
        let message: [String: Any] = ["type": "file", "id": id, "file": file]
        let data = try! JSONSerialization.data(withJSONObject: message, options: [.sortedKeys])
        return String(decoding: data, as: UTF8.self)
    }

    /// Writes `messages` to `<directory>/input.jsonl` and renders that file
    /// (`--format json --width 80`) from `currentDirectory` (the test's
    /// root, which holds no media), so relative paths must resolve against
    /// the input file's directory.
    func renderInputFile(_ messages: [String], in directory: URL, extraArgs: [String] = [],
                         env: [String: String] = [:], currentDirectory: URL? = nil,
                         file: StaticString = #filePath, line: UInt = #line) throws
        -> (messages: [RenderedMessage], stderr: String) {
        let input = directory.appendingPathComponent("input.jsonl")
        try Data((messages.joined(separator: "\n") + "\n").utf8).write(to: input)
        let result = try run(["render", input.path, "--format", "json", "--width", "80"] + extraArgs,
                             env: renderEnvironment().merging(env) { _, given in given },
                             currentDirectory: currentDirectory, timeout: 30, file: file, line: line)
        XCTAssertEqual(result.status, 0, "render exit status; stderr:\n\(result.stderr)", file: file, line: line)
        let rendered = try decodeJSONLines(RenderedMessage.self, from: result.stdout,
                                           what: "render --format json", file: file, line: line)
        return (rendered, result.stderr)
    }

    /// The content lines of one rendered message: the gutter (`┃ `, `│ `)
    /// and trailing spaces removed.
    func content(_ message: RenderedMessage) -> [String] {
        message.lines.map { line in
            var text = Substring(line)
            if text.hasPrefix("┃ ") || text.hasPrefix("│ ") { text = text.dropFirst(2) }
            while text.last == " " { text = text.dropLast() }
            return String(text)
        }
    }

    /// Renders one file message from an input file in the media directory
    /// and returns its content lines.
    func renderOne(_ message: String, env: [String: String] = [:],
                   file: StaticString = #filePath, line: UInt = #line) throws -> [String] {
        let result = try renderInputFile([message], in: try mediaDirectory(), env: env, file: file, line: line)
        XCTAssertEqual(result.messages.count, 1, file: file, line: line)
        guard let first = result.messages.first else { return [] }
        XCTAssertEqual(first.className, "FileMessageCell", file: file, line: line)
        return content(first)
    }

    // MARK: - Types from content

    func test_pdf_without_a_mime_type_is_detected_as_pdf() throws {
        XCTAssertEqual(try renderOne(fileMessage("itinerary.pdf")),
                       ["[PDF] itinerary.pdf", "1.2 KB · application/pdf"])
    }

    func test_png_is_detected_as_an_image() throws {
        XCTAssertEqual(try renderOne(fileMessage("cat.png")), ["[IMG] cat.png", "449 B · image/png"])
    }

    func test_jpeg_is_detected_as_an_image() throws {
        XCTAssertEqual(try renderOne(fileMessage("sunset.jpg")), ["[IMG] sunset.jpg", "1.5 KB · image/jpeg"])
    }

    func test_csv_is_detected_as_csv() throws {
        XCTAssertEqual(try renderOne(fileMessage("expenses.csv")), ["[TXT] expenses.csv", "219 B · text/csv"])
    }

    func test_ogg_is_detected_as_audio() throws {
        XCTAssertEqual(try renderOne(fileMessage("voice-note.ogg")),
                       ["[AUD] voice-note.ogg", "6.5 KB · audio/ogg"])
    }

    func test_pdf_renamed_txt_shows_as_pdf() throws {
        try copyExample("itinerary.pdf", as: "itinerary.txt")
        XCTAssertEqual(try renderOne(fileMessage("itinerary.txt")),
                       ["[PDF] itinerary.txt", "1.2 KB · application/pdf"])
    }

    func test_pdf_sent_as_text_plain_shows_as_pdf() throws {
        try copyExample("itinerary.pdf", as: "itinerary.txt")
        XCTAssertEqual(try renderOne(fileMessage("itinerary.txt", mime: "text/plain")),
                       ["[PDF] itinerary.txt", "1.2 KB · application/pdf"])
    }

    func test_png_without_extension_is_an_image() throws {
        try copyExample("cat.png", as: "cat")
        XCTAssertEqual(try renderOne(fileMessage("cat")), ["[IMG] cat", "449 B · image/png"])
    }

    func test_jpeg_named_png_shows_as_jpeg() throws {
        try copyExample("sunset.jpg", as: "sunset.png")
        XCTAssertEqual(try renderOne(fileMessage("sunset.png")), ["[IMG] sunset.png", "1.5 KB · image/jpeg"])
    }

    func test_ogg_without_extension_is_audio() throws {
        try copyExample("voice-note.ogg", as: "voice-note")
        XCTAssertEqual(try renderOne(fileMessage("voice-note")), ["[AUD] voice-note", "6.5 KB · audio/ogg"])
    }

    func test_csv_renamed_pdf_shows_as_csv() throws {
        try copyExample("expenses.csv", as: "expenses.pdf")
        XCTAssertEqual(try renderOne(fileMessage("expenses.pdf")), ["[TXT] expenses.pdf", "219 B · text/csv"])
    }

    func test_plain_text_keeps_the_more_specific_type_of_its_extension() throws {
        // libmagic says text/plain for any text; the name says Markdown.
        try writeFile("notes.md", Data("Packing list\n\n- towels\n- sun cream\n".utf8), in: try mediaDirectory())
        XCTAssertEqual(try renderOne(fileMessage("notes.md")), ["[TXT] notes.md", "35 B · text/markdown"])
    }

    func test_the_display_name_does_not_decide_the_type() throws {
        XCTAssertEqual(try renderOne(fileMessage("itinerary.pdf", name: "photo.jpg")),
                       ["[PDF] photo.jpg", "1.2 KB · application/pdf"])
    }

    // MARK: - Sizes from the file

    func test_size_comes_from_the_file_when_the_message_gives_none() throws {
        XCTAssertEqual(try renderOne(fileMessage("voice-reply.ogg")),
                       ["[AUD] voice-reply.ogg", "11 KB · audio/ogg"])
    }

    func test_the_files_size_wins_over_the_messages() throws {
        XCTAssertEqual(try renderOne(fileMessage("itinerary.pdf", mime: "application/pdf", size: 99_000_000)),
                       ["[PDF] itinerary.pdf", "1.2 KB · application/pdf"])
    }

    // MARK: - No file to read

    func test_missing_file_is_marked_and_keeps_the_messages_size_and_type() throws {
        XCTAssertEqual(try renderOne(fileMessage("trip-photos.zip", mime: "application/zip", size: 18_874_368)),
                       ["[ZIP] trip-photos.zip", "18 MB · application/zip · missing"])
    }

    func test_missing_file_without_details_shows_only_the_mark_and_the_extensions_type() throws {
        XCTAssertEqual(try renderOne(fileMessage("gone/report.pdf")),
                       ["[PDF] report.pdf", "application/pdf · missing"])
    }

    func test_unreadable_file_is_marked() throws {
        try XCTSkipIf(geteuid() == 0, "root reads files whatever their permissions")
        let url = try writeFile("secret.pdf", Data("%PDF-1.4\n".utf8), in: try mediaDirectory())
        XCTAssertEqual(chmod(url.path, 0), 0)
        XCTAssertEqual(try renderOne(fileMessage("secret.pdf")), ["[PDF] secret.pdf", "application/pdf · unreadable"])
    }

    func test_dev_zero_renders_with_a_notice() throws {
        XCTAssertEqual(try renderOne(fileMessage("/dev/zero")), ["[FILE] zero", "not a regular file"])
    }

    func test_dev_urandom_renders_with_a_notice() throws {
        XCTAssertEqual(try renderOne(fileMessage("/dev/urandom")), ["[FILE] urandom", "not a regular file"])
    }

    func test_root_directory_renders_with_a_notice() throws {
        XCTAssertEqual(try renderOne(fileMessage("/", name: "everything.zip")),
                       ["[ZIP] everything.zip", "application/zip · not a regular file"])
    }

    func test_fifo_renders_with_a_notice() throws {
        // Nobody ever opens the FIFO for writing: opening it to read would
        // block, and reading it would never end.
        let fifo = try mediaDirectory().appendingPathComponent("pipe.csv")
        XCTAssertEqual(mkfifo(fifo.path, 0o600), 0)
        XCTAssertEqual(try renderOne(fileMessage("pipe.csv")), ["[TXT] pipe.csv", "text/csv · not a regular file"])
    }

    func test_symlink_to_a_device_renders_with_a_notice() throws {
        try makeSymlink("zeros.bin", to: "/dev/zero", in: try mediaDirectory())
        XCTAssertEqual(try renderOne(fileMessage("zeros.bin")), ["[FILE] zeros.bin", "not a regular file"])
    }

    // MARK: - Relative paths

    func test_relative_path_resolves_against_the_input_files_directory() throws {
        // The input lives in <root>/chat/, the media in <root>/chat/media/,
        // and cellhost runs from <root>.
        let chat = try makeDirectory("chat")
        let sub = try makeDirectory("chat/media")
        try FileManager.default.copyItem(at: try mediaDirectory().appendingPathComponent("cat.png"),
                                         to: sub.appendingPathComponent("cat.png"))
        let result = try renderInputFile([fileMessage("media/cat.png")], in: chat)
        XCTAssertEqual(result.messages.map(content), [["[IMG] cat.png", "449 B · image/png"]])
    }

    func test_relative_input_file_path_resolves_too() throws {
        _ = try mediaDirectory()
        let input = tempRoot.appendingPathComponent("media/input.jsonl")
        try Data((fileMessage("cat.png") + "\n").utf8).write(to: input)
        let result = try run(["render", "media/input.jsonl", "--format", "json", "--width", "80"],
                             env: renderEnvironment(), currentDirectory: tempRoot, timeout: 30)
        XCTAssertEqual(result.status, 0, result.stderr)
        let messages = try decodeJSONLines(RenderedMessage.self, from: result.stdout, what: "render")
        XCTAssertEqual(messages.map(content), [["[IMG] cat.png", "449 B · image/png"]])
    }

    func test_stdin_resolves_against_the_current_directory() throws {
        let dir = try mediaDirectory()
        let result = try run(["render", "-", "--format", "json", "--width", "80"], env: renderEnvironment(),
                             stdin: Data((fileMessage("cat.png") + "\n").utf8), currentDirectory: dir, timeout: 30)
        XCTAssertEqual(result.status, 0, result.stderr)
        let messages = try decodeJSONLines(RenderedMessage.self, from: result.stdout, what: "render")
        XCTAssertEqual(messages.map(content), [["[IMG] cat.png", "449 B · image/png"]])
    }

    func test_media_dir_resolves_paths_for_stdin() throws {
        let dir = try mediaDirectory()
        let result = try renderJSON([fileMessage("sunset.jpg")], width: 80,
                                    extraArgs: ["--media-dir", dir.path], env: renderEnvironment())
        XCTAssertEqual(result.messages.map(content), [["[IMG] sunset.jpg", "1.5 KB · image/jpeg"]])
    }

    func test_media_dir_wins_over_the_input_files_directory() throws {
        // The input file's directory has a PNG called pic; --media-dir has
        // a JPEG under the same name.
        let chat = try makeDirectory("chat")
        try FileManager.default.copyItem(at: try mediaDirectory().appendingPathComponent("cat.png"),
                                         to: chat.appendingPathComponent("pic"))
        try copyExample("sunset.jpg", as: "pic")
        let result = try renderInputFile([fileMessage("pic")], in: chat, extraArgs: ["--media-dir", media.path])
        XCTAssertEqual(result.messages.map(content), [["[IMG] pic", "1.5 KB · image/jpeg"]])
    }

    func test_absolute_path_ignores_the_base_directory() throws {
        let url = try copyExample("itinerary.pdf", as: "plan")
        let other = try makeDirectory("elsewhere")
        let result = try renderInputFile([fileMessage(url.path)], in: other)
        XCTAssertEqual(result.messages.map(content), [["[PDF] plan", "1.2 KB · application/pdf"]])
    }

    // MARK: - Formats and other callers

    func test_plain_format_shows_the_type_and_the_mark() throws {
        let dir = try mediaDirectory()
        try copyExample("itinerary.pdf", as: "itinerary.txt")
        let input = dir.appendingPathComponent("input.jsonl")
        let messages = [fileMessage("itinerary.txt", id: "a"), fileMessage("trip-photos.zip", id: "b", size: 18_874_368)]
        try Data((messages.joined(separator: "\n") + "\n").utf8).write(to: input)
        let result = try run(["render", input.path, "--format", "plain", "--width", "80"],
                             env: renderEnvironment(), timeout: 30)
        XCTAssertEqual(result.status, 0, result.stderr)
        let lines = outputLines(result.stdout).map { String($0.dropFirst(2)).trimmingCharacters(in: .whitespaces) }
        XCTAssertEqual(lines, ["[PDF] itinerary.txt", "1.2 KB · application/pdf",
                               "[ZIP] trip-photos.zip", "18 MB · application/zip · missing"])
    }

    func test_reply_quote_uses_the_detected_tag() throws {
        try copyExample("itinerary.pdf", as: "itinerary.txt")
        let reply = #"{"type":"text","id":"r-1","text":"got it","reply_to":"f-1"}"#
        let result = try renderInputFile([fileMessage("itinerary.txt"), reply], in: try mediaDirectory())
        XCTAssertEqual(result.messages.count, 2)
        let quote = result.messages.last?.lines.first { $0.contains("↪") }
        XCTAssertNotNil(quote)
        XCTAssertTrue(quote?.contains("[PDF] itinerary.txt") ?? false, "\(quote ?? "no quote")")
    }

    func test_a_file_named_by_many_messages_shows_the_same_each_time() throws {
        let messages = (0..<500).map { fileMessage("cat.png", id: "m-\($0)") }
        let result = try renderInputFile(messages, in: try mediaDirectory())
        XCTAssertEqual(result.messages.count, 500)
        XCTAssertTrue(result.messages.allSatisfy { content($0) == ["[IMG] cat.png", "449 B · image/png"] })
    }

    func test_without_the_magic_database_types_come_from_names_with_one_warning() throws {
        // $MAGIC names the database libmagic loads; a missing one cannot load.
        try copyExample("cat.png", as: "cat")
        try copyExample("itinerary.pdf", as: "itinerary.txt")
        let messages = [fileMessage("cat", id: "a"), fileMessage("itinerary.txt", id: "b"),
                        fileMessage("cat.png", id: "c")]
        let result = try renderInputFile(messages, in: try mediaDirectory(),
                                         env: ["MAGIC": tempRoot.appendingPathComponent("no-such.mgc").path])
        XCTAssertEqual(result.messages.map(content), [["[FILE] cat", "449 B"],
                                                      ["[TXT] itinerary.txt", "1.2 KB · text/plain"],
                                                      ["[IMG] cat.png", "449 B · image/png"]])
        let warnings = result.stderr.split(separator: "\n").filter { $0.contains("libmagic") }
        XCTAssertEqual(warnings.count, 1, result.stderr)
    }

    func test_check_plugin_passes_for_the_file_cell() throws {
        let plugin = binary.deletingLastPathComponent().appendingPathComponent("libFileCell.so")
        let result = try run(["check-plugin", plugin.path], env: defaultEnvironment, timeout: 120)
        XCTAssertEqual(result.status, 0, "stdout:\n\(result.stdout)\nstderr:\n\(result.stderr)")
    }

    func test_mediaDirThatIsNotADirectory_isAUsageErrorNamingIt() throws {
        let file = try writeFile("plain.txt", Data("x".utf8), in: scratchDir)
        let result = try run(["render", "-", "--media-dir", file.path], env: defaultEnvironment,
                             stdin: Data(#"{"type":"text","text":"hi"}"#.utf8 + [0x0A]))
        XCTAssertEqual(result.status, 2)
        XCTAssertEqual(result.stderr, "cellhost: --media-dir \(file.path): not a directory\n")
        XCTAssertEqual(result.stdout, "")
    }

    func test_imagesKitty_isRefusedSayingWhy() throws {
        let result = try run(["render", "-", "--images", "kitty"], env: defaultEnvironment, stdin: Data())
        XCTAssertEqual(result.status, 2)
        XCTAssertEqual(result.stderr, "cellhost: --images kitty is not supported: cellhost writes only sanitized text, "
                       + "never a terminal graphics protocol; use --images symbols (the default) or none\n")
    }
}

import Foundation
import XCTest

/// docs/cli.md, import.md, install.md, check-plugin.md, reliability.md, the
/// manual page docs/man/cellhost.1 and docs/abi/log.md cannot drift from the
/// host: every diagnostic they quote is a whole line of what the real
/// `cellhost` prints on stderr in the situation the text describes.
/// (docs/plugin-abi.md has PluginABIDocsTests; docs/import/ has
/// ImportDocsQuotesTests.)
///
/// A quote is a line starting `cellhost: ` inside a fenced block, or an
/// inline code span starting `cellhost: ` (a span may run over a line break,
/// which reads as a space); in the manual page, a font macro line (`.B …`)
/// or text line starting `cellhost: ` once its escapes (`\-`, …) are
/// resolved. A bare `cellhost: ` is the prefix, not a quote.
/// Each quote is claimed by exactly one case below, by a marker it contains;
/// the case reproduces the situation in a directory of its own and returns
/// the host's stderr. Where a quote shows a placeholder (`FILE`, `DIR`,
/// `/path`, `…`, the config file's example path), the case says what it
/// stands for in its run, and the quote with those values put in must be a
/// whole line of stderr. A quote no case claims fails the test, and so does a
/// case whose marker no document quotes any more. (The machinery is in
/// Support/QuotedDiagnostics.swift.)
final class QuotedDiagnosticsDocsTests: EndToEndTestCase {

    typealias Case = QuoteCase<QuotedDiagnosticsDocsTests>
    typealias Produced = QuoteProduced

    /// The documents checked here, under docs/, and the cases of their quotes.
    static let checks = QuoteChecks(
        documents: ["cli.md", "import.md", "install.md", "check-plugin.md", "reliability.md", "man/cellhost.1", "abi/log.md"],
        cases: cases)

    // MARK: - Tests

    func test_cliDoc_quotesTheDiagnosticsTheHostPrints() throws {
        try Self.checks.check("cli.md", in: self)
    }

    func test_importDoc_quotesTheDiagnosticsTheHostPrints() throws {
        try Self.checks.check("import.md", in: self)
    }

    func test_installDoc_quotesTheDiagnosticsTheHostPrints() throws {
        try Self.checks.check("install.md", in: self)
    }

    func test_checkPluginDoc_quotesTheDiagnosticsTheHostPrints() throws {
        try Self.checks.check("check-plugin.md", in: self)
    }

    func test_reliabilityDoc_quotesTheDiagnosticsTheHostPrints() throws {
        try Self.checks.check("reliability.md", in: self)
    }

    func test_manPage_quotesTheDiagnosticsTheHostPrints() throws {
        try Self.checks.check("man/cellhost.1", in: self)
    }

    func test_logExtensionDoc_quotesTheWarningTheHostPrints() throws {
        try Self.checks.check("abi/log.md", in: self)
    }

    /// Every quote of these documents is claimed by one case, and every
    /// marker of every case is still quoted. Runs nothing.
    func test_everyQuotedDiagnostic_hasExactlyOneCase_andEveryCaseAQuote() throws {
        try Self.checks.checkCoverage()
    }

    // MARK: - Cases

    static var cases: [Case] {
        usageCases + inputCases + outputCases + pluginCases + configCases + importCases + checkPluginCases + logCases
    }

    /// Options the host refuses (exit status 2).
    private static var usageCases: [Case] {
        [
            /// `render --colr`: an unknown option, one letter off a known one.
            Case(name: "an unknown render option close to a known one", markers: ["unknown option '--colr'"]) { test, _ in
                try test.usageError(["render", "-", "--colr", "never"])
            },
            /// `render --max-rows 0`: below the range of the row cap.
            Case(name: "--max-rows 0", markers: ["--max-rows must be"]) { test, _ in
                try test.usageError(["render", "-", "--max-rows", "0"])
            },
            /// `render --width 5`: below the narrowest layout.
            Case(name: "--width 5", markers: ["--width must be"]) { test, _ in
                try test.usageError(["render", "-", "--width", "5"])
            },
            /// `render --media-dir DIR` where DIR is a regular file.
            Case(name: "--media-dir naming a regular file", markers: ["--media-dir"]) { test, workspace in
                let notADirectory = try test.writeFile("photo.jpg", Data("not a directory\n".utf8), in: workspace)
                var produced = try test.usageError(["render", "-", "--media-dir", notADirectory.path])
                produced.placeholders = ["DIR": notADirectory.path]
                return produced
            },
        ]
    }

    /// Input `render` cannot read (exit status 1), and what `--verbose` says about it.
    private static var inputCases: [Case] {
        [
            /// chat.jsonl whose line 17 is a JSON array instead of a message.
            Case(name: "a JSON array on line 17 of chat.jsonl", markers: ["found an array"]) { test, workspace in
                let lines = (1...16).map { #"{"id":"m\#($0)","type":"text","text":"message \#($0)"}"# } + ["[1, 2]"]
                try test.writeFile("chat.jsonl", Data((lines.joined(separator: "\n") + "\n").utf8), in: workspace)
                return try test.render(["chat.jsonl"], in: workspace, expectStatus: 1)
            },
            /// An input named `bad<BEL>name.jsonl` that does not exist: the
            /// name is shown with the control as a picture.
            Case(name: "a missing input whose name holds a control character", markers: ["No such file or directory"]) { test, workspace in
                try test.render(["bad\u{07}name.jsonl"], in: workspace, expectStatus: 1)
            },
            /// notes.txt, a text file that is neither JSON nor a WhatsApp export.
            Case(name: "a text file that is no chat", markers: [##"first line is "# Notes""##]) { test, workspace in
                try test.writeFile("notes.txt", Data("# Notes\n\nbuy milk\n".utf8), in: workspace)
                return try test.render(["notes.txt"], in: workspace, expectStatus: 1)
            },
            /// chat.jsonl with `--verbose`, whose messages on lines 7 and 8
            /// have times that cannot be read ("yesterday", 30 February).
            Case(name: "two unreadable times in chat.jsonl", markers: [#"(the first: "yesterday")"#]) { test, workspace in
                var lines = (1...6).map { #"{"id":"m\#($0)","type":"text","text":"on time","time":"2026-11-29T10:0\#($0):00Z"}"# }
                lines.append(#"{"id":"m7","type":"text","text":"when?","time":"yesterday"}"#)
                lines.append(#"{"id":"m8","type":"text","text":"never","time":"2026-02-30T10:00:00Z"}"#)
                try test.writeFile("chat.jsonl", Data((lines.joined(separator: "\n") + "\n").utf8), in: workspace)
                return try test.render(["chat.jsonl", "--verbose"], in: workspace, expectStatus: 0)
            },
            /// `render --follow chat.jsonl` while chat.jsonl is rotated (moved
            /// away, a new file in its place) and then truncated.
            Case(name: "a followed file rotated, then truncated",
                 markers: [": replaced; following the new file", ": truncated; reading it from the start"]) { test, workspace in
                try test.followThroughRotationAndTruncation(in: workspace)
            },
            /// `render --paging always` with `CELLHOST_PAGER=most`, and no
            /// `most` on the (empty) PATH.
            Case(name: "a pager that cannot be found", markers: ["pager 'most'"]) { test, workspace in
                let emptyPath = try test.makeDirectory("\(workspace.lastPathComponent)-empty-path")
                let result = try test.run(["render", "-", "--format", "plain", "--paging", "always"],
                                          env: ["CELLHOST_PAGER": "most", "PATH": emptyPath.path],
                                          stdin: Data((#"{"id":"m1","type":"text","text":"still shown"}"# + "\n").utf8))
                XCTAssertEqual(result.status, 0, "stderr:\n\(result.stderr)")
                XCTAssertTrue(result.stdout.contains("still shown"), "the output goes to stdout: \(result.stdout)")
                return Produced(stderr: result.stderr)
            },
        ]
    }

    /// A standard output that cannot be written (exit status 3).
    private static var outputCases: [Case] {
        [
            /// `render` with stdout on /dev/full.
            Case(name: "stdout on a full device", markers: ["No space left on device"]) { test, _ in
                try test.renderWithStdout("", to: XCTUnwrap(FileHandle(forWritingAtPath: "/dev/full")))
            },
            /// `render` with stdout closed (`>&-`).
            Case(name: "stdout closed", markers: ["Bad file descriptor"]) { test, _ in
                try test.renderWithStdout(" >&-", to: XCTUnwrap(FileHandle(forWritingAtPath: "/dev/full")))
            },
            /// `render -` of an endless input, SIGPIPE ignored, into a pipe
            /// whose reader is gone.
            Case(name: "the reader gone with SIGPIPE ignored", markers: ["Broken pipe"]) { test, _ in
                let pipe = Pipe()
                try pipe.fileHandleForReading.close()
                let script = #"trap '' PIPE; yes '{"type":"text","text":"hello there"}' 2>/dev/null | "$CELLHOST" render -"#
                let result = try test.runShell(script, stdout: pipe.fileHandleForWriting)
                try pipe.fileHandleForWriting.close()
                XCTAssertEqual(result.status, 3, "stderr:\n\(result.stderr)")
                return Produced(stderr: result.stderr)
            },
        ]
    }

    /// Plugins that fail, crash or hang, and a search path with bad entries.
    private static var pluginCases: [Case] {
        [
            /// `list-plugins` over a directory holding libfoo.so, a library
            /// without `cellhost_plugin_entry`; `/path` is that directory.
            Case(name: "a plugin without an entry symbol", markers: ["no cellhost_plugin_entry symbol"]) { test, workspace in
                let directory = try test.makeDirectory("\(workspace.lastPathComponent)/path")
                try test.compileFixture("no_entry_symbol.c", as: "libfoo", into: directory)
                let result = try test.run(["list-plugins"], env: ["CELLHOST_PLUGIN_PATH": directory.path])
                XCTAssertEqual(result.status, 1, "list-plugins exits 1 when a plugin failed; stderr:\n\(result.stderr)")
                return Produced(stderr: result.stderr, placeholders: ["/path": directory.path])
            },
            /// `list-plugins` with a file that is not a library on the
            /// search path: FILE is its path, reason what its record says.
            Case(name: "a plugin file that fails to load, and its record", markers: [": FILE: reason"]) { test, workspace in
                let directory = try test.makeDirectory("\(workspace.lastPathComponent)/plugins")
                try test.writeFile("junk.so", Data("not a library\n".utf8), in: directory)
                let listing = try test.listPluginsRun(env: ["CELLHOST_PLUGIN_PATH": directory.path])
                let entry = try XCTUnwrap(listing.report.plugins(fileName: "junk.so").first, "junk.so has a record")
                XCTAssertEqual(entry.state, .failed)
                return Produced(stderr: listing.stderr, placeholders: ["FILE": entry.file, "reason": entry.error ?? "(no error)"])
            },
            /// A plugin cache with one byte flipped, read by the next
            /// `list-plugins`; PATH is the cache file.
            Case(name: "a corrupt plugin cache", markers: ["the plugin cache is corrupt"]) { test, workspace in
                let env = ["XDG_CACHE_HOME": workspace.appendingPathComponent("cache").path]
                let cache = workspace.appendingPathComponent("cache/cellhost/plugins.cache")
                let first = try test.run(["list-plugins"], env: env)
                XCTAssertEqual(first.status, 0, first.stderr)
                var bytes = [UInt8](try Data(contentsOf: cache))
                bytes[bytes.count / 2] ^= 0x55
                try Data(bytes).write(to: cache)
                let second = try test.run(["list-plugins"], env: env)
                XCTAssertEqual(second.status, 0, "a corrupt cache is rebuilt; stderr:\n\(second.stderr)")
                return Produced(stderr: second.stderr, placeholders: ["PATH": cache.path])
            },
            /// `render chat.jsonl` (plugins in a worker) where test.segv's
            /// HostileCell segfaults on m3, line 3; the quote's PLUGIN,
            /// CLASS, ID and FILE:LINE are those.
            Case(name: "a plugin crashing in a worker", markers: ["); disabled"]) { test, workspace in
                let plugins = try test.hostilePlugin("segv", flag: "-DRENDER_SEGV", in: workspace)
                let lines = (1...4).map { #"{"id":"m\#($0)","type":"hostile","n":\#($0),"text":"fallback \#($0)"}"# }
                try test.writeFile("chat.jsonl", Data((lines.joined(separator: "\n") + "\n").utf8), in: workspace)
                let result = try test.run(["render", "chat.jsonl", "--format", "plain", "--width", "60"],
                                          env: ["CELLHOST_PLUGIN_PATH": plugins.path], currentDirectory: workspace)
                XCTAssertEqual(result.status, 0, "a crash in a worker is no error of the run; stderr:\n\(result.stderr)")
                return Produced(stderr: result.stderr, placeholders: [
                    "PLUGIN": "test.segv", "CLASS": "HostileCell", "ID": "m3", "FILE:LINE": "chat.jsonl:3",
                ])
            },
            /// `render - --isolation none` where 500 text messages come
            /// before "boom", on which test.segv's HostileCell segfaults.
            Case(name: "a plugin crashing in the host process", markers: ["on message boom"]) { test, workspace in
                let plugins = try test.hostilePlugin("segv", flag: "-DRENDER_SEGV", in: workspace)
                var lines = (1...500).map { #"{"id":"t\#($0)","type":"text","text":"before \#($0)"}"# }
                lines.append(#"{"id":"boom","type":"hostile","n":3}"#)
                lines.append(#"{"id":"after","type":"text","text":"never"}"#)
                let result = try test.run(["render", "-", "--format", "json", "--isolation", "none"],
                                          env: ["CELLHOST_PLUGIN_PATH": plugins.path],
                                          stdin: Data((lines.joined(separator: "\n") + "\n").utf8))
                XCTAssertEqual(result.status, 4, "stderr:\n\(result.stderr)")
                return Produced(stderr: result.stderr)
            },
            /// `render - --isolation none --plugin-timeout 300` where
            /// test.hang's HostileCell spins on m3.
            Case(name: "a plugin hanging in the host process", markers: ["timed out after 300 ms"]) { test, workspace in
                let plugins = try test.hostilePlugin("hang", flag: "-DRENDER_HANG", in: workspace)
                let lines = (1...5).map { #"{"id":"m\#($0)","type":"hostile","n":\#($0),"text":"fallback \#($0)"}"# }
                let result = try test.run(["render", "-", "--format", "json", "--isolation", "none", "--plugin-timeout", "300"],
                                          env: ["CELLHOST_PLUGIN_PATH": plugins.path],
                                          stdin: Data((lines.joined(separator: "\n") + "\n").utf8), timeout: 30)
                XCTAssertEqual(result.status, 4, "stderr:\n\(result.stderr)")
                return Produced(stderr: result.stderr)
            },
            /// `render` by a copy of `cellhost` with no plugin beside it,
            /// so nothing renders file, image or voice messages.
            Case(name: "an installation without its media plugins", markers: ["no plugin renders"]) { test, workspace in
                let host = workspace.appendingPathComponent("cellhost")
                try FileManager.default.copyItem(at: test.binary, to: host)
                let result = try test.execute(host, ["render", "-", "--format", "plain", "--paging", "never"],
                                              environment: test.cleanEnvironment([:]),
                                              stdin: Data((#"{"id":"f1","type":"file","file":{"name":"a.pdf"}}"# + "\n").utf8),
                                              currentDirectory: workspace, timeout: 60, file: #filePath, line: #line)
                XCTAssertEqual(result.status, 0, "fallbacks are no error; stderr:\n\(result.stderr)")
                return Produced(stderr: result.stderr)
            },
            /// `list-plugins` with the `--plugin-path` entries '', /x (no such
            /// directory) and /etc/passwd (a file), and CELLHOST_PLUGIN_PATH
            /// `::plugins` (empty entries and a relative one).
            Case(name: "a search path with entries that are ignored or cannot be searched",
                 markers: ["--plugin-path ''", "--plugin-path /x:", "--plugin-path /etc/passwd", "CELLHOST_PLUGIN_PATH: "]) { test, workspace in
                XCTAssertFalse(FileManager.default.fileExists(atPath: "/x"), "the documents' missing directory /x exists here")
                let result = try test.run(["list-plugins", "--plugin-path", "", "--plugin-path", "/x", "--plugin-path", "/etc/passwd"],
                                          env: ["CELLHOST_PLUGIN_PATH": "::plugins"], currentDirectory: workspace)
                XCTAssertEqual(result.status, 0, "the run goes on; stderr:\n\(result.stderr)")
                return Produced(stderr: result.stderr)
            },
        ]
    }

    /// Overrides and the config file; the documents' example path
    /// /home/me/.config/cellhost/config is the run's config file.
    private static var configCases: [Case] {
        let example = "/home/me/.config/cellhost/config"
        return [
            /// `--renderer nosuchtype=TextMessageCell`, and the same override
            /// in the config file, for a message class nothing declares.
            Case(name: "overrides for an unknown message class",
                 markers: ["--renderer nosuchtype=", "renderer for 'nosuchtype'"]) { test, workspace in
                let (home, config) = try test.configFile("[renderers]\nnosuchtype = TextMessageCell\n", in: workspace)
                let result = try test.run(["render", "-", "--renderer", "nosuchtype=TextMessageCell"],
                                          env: ["XDG_CONFIG_HOME": home.path], stdin: Data())
                XCTAssertEqual(result.status, 0, "an override with no effect is a warning; stderr:\n\(result.stderr)")
                return Produced(stderr: result.stderr, placeholders: [example: config.path])
            },
            /// A config file that is a directory.
            Case(name: "a config file that is no regular file", markers: ["config: not a regular file"]) { test, workspace in
                let home = workspace.appendingPathComponent("config-home")
                let config = home.appendingPathComponent("cellhost/config")
                try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
                var produced = try test.usageError(["render", "-"], env: ["XDG_CONFIG_HOME": home.path])
                produced.placeholders = [example: config.path]
                return produced
            },
            /// `paging = sometimes` under `[render]` in the config file.
            Case(name: "a bad [render] value in the config file", markers: ["paging must be"]) { test, workspace in
                let (home, config) = try test.configFile("[render]\npaging = sometimes\n", in: workspace)
                var produced = try test.usageError(["render", "-"], env: ["XDG_CONFIG_HOME": home.path])
                produced.placeholders = [example: config.path]
                return produced
            },
        ]
    }

    /// Exports and files `render` cannot import, and what `--verbose` says of one it can.
    private static var importCases: [Case] {
        [
            /// data.json, a JSON document with the keys "version" and "items".
            Case(name: "a JSON document no importer reads", markers: [#"the keys "version", "items""#]) { test, workspace in
                try test.writeFile("data.json", Data("{\n  \"version\": 2,\n  \"items\": [1, 2]\n}\n".utf8), in: workspace)
                return try test.render(["data.json"], in: workspace, expectStatus: 1)
            },
            /// photos/, a directory that is no Slack export.
            Case(name: "a directory that is no Slack export", markers: ["it is a directory without"]) { test, workspace in
                let photos = try test.makeDirectory("\(workspace.lastPathComponent)/photos")
                try test.writeFile("beach.jpg", Data([0xFF, 0xD8, 0xFF]), in: photos)
                return try test.render(["photos"], in: workspace, expectStatus: 1)
            },
            /// result.json, a Telegram Desktop export of one chat with 1203
            /// messages (imported with the heading that opens the chat: 1204),
            /// read with `--verbose`; the messages on lines 118 and 500 have
            /// dates that cannot be read.
            Case(name: "a Telegram export read with --verbose",
                 markers: ["read as Telegram Desktop export", "messages imported", #"(the first: "2020-13-45T99:00:00")"#]) { test, workspace in
                let dates = [118: "2020-13-45T99:00:00", 500: "2020-02-30T10:00:00"]
                let export = TelegramExport(messages: 1203, dates: dates)
                try test.writeFile("result.json", export.data, in: workspace)
                return try test.render(["result.json", "--verbose"], in: workspace, expectStatus: 0)
            },
            /// result.json, a Telegram export cut in the middle of a message
            /// on its line 5123.
            Case(name: "a truncated Telegram export", markers: ["(truncated?)"]) { test, workspace in
                try test.writeFile("result.json", TelegramExport(messages: 6000).cut(atLine: 5123), in: workspace)
                return try test.render(["result.json"], in: workspace, expectStatus: 1)
            },
        ]
    }

    /// What plugins log through the cellhost.log extension.
    private static var logCases: [Case] {
        [
            /// `render -` of a message whose cell (HostileCell of plugin
            /// org.example.poll, Fixtures/hostile.c) logs a warning while it
            /// renders; `…` is that warning's text (log.h's example).
            Case(name: "a warning a plugin logs", markers: ["cellhost: org.example.poll: "]) { test, workspace in
                let warning = "no cache directory; previews are slower"
                let plugins = try test.makeDirectory("\(workspace.lastPathComponent)/plugins")
                try test.compileFixture("hostile.c", as: "libpoll", extraFlags: [#"-DPLUGIN_ID="org.example.poll""#,
                                                                                 #"-DRENDER_WARN="\#(warning)""#], into: plugins)
                let result = try test.run(["render", "-", "--format", "plain"], env: ["CELLHOST_PLUGIN_PATH": plugins.path],
                                          stdin: Data((#"{"id":"m3","type":"hostile","n":3}"# + "\n").utf8))
                XCTAssertEqual(result.status, 0, "a warning is no error; stderr:\n\(result.stderr)")
                XCTAssertTrue(result.stdout.contains("hostile cell rendered 3"), "the message is rendered: \(result.stdout)")
                return Produced(stderr: result.stderr, placeholders: ["…": warning])
            },
        ]
    }

    /// `check-plugin` usage errors (exit status 2).
    private static var checkPluginCases: [Case] {
        [
            /// `check-plugin` with no file.
            Case(name: "check-plugin without a file", markers: ["check-plugin needs a plugin file"]) { test, _ in
                try test.usageError(["check-plugin"])
            },
            /// `check-plugin libTextCell.so --frobnicate`.
            Case(name: "an unknown check-plugin option", markers: ["unknown option '--frobnicate' for 'check-plugin'"]) { test, _ in
                let shipped = test.binary.deletingLastPathComponent().appendingPathComponent("libTextCell.so")
                return try test.usageError(["check-plugin", shipped.path, "--frobnicate"])
            },
        ]
    }

    // MARK: - Running the host

    /// `render` of the demo conversation with stdout on `stdout` and the
    /// shell redirection `redirection` after the command; exit status 3.
    private func renderWithStdout(_ redirection: String, to stdout: FileHandle) throws -> Produced {
        let conversation = Self.examplesDirectory.appendingPathComponent("conversation.jsonl").path
        let result = try runShell(#"exec "$CELLHOST" render "# + "'\(conversation)'" + redirection, stdout: stdout)
        XCTAssertEqual(result.status, 3, "stderr:\n\(result.stderr)")
        return Produced(stderr: result.stderr)
    }

    /// Writes `text` to `<workspace>/config-home/cellhost/config`; returns
    /// the directory to use as XDG_CONFIG_HOME and the file.
    private func configFile(_ text: String, in workspace: URL) throws -> (home: URL, file: URL) {
        let home = workspace.appendingPathComponent("config-home")
        let file = home.appendingPathComponent("cellhost/config")
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: file)
        return (home, file)
    }

    /// Builds Fixtures/hostile.c with `flag` as plugin `test.<name>` into
    /// `<workspace>/plugins`; returns that directory.
    private func hostilePlugin(_ name: String, flag: String, in workspace: URL) throws -> URL {
        let directory = try makeDirectory("\(workspace.lastPathComponent)/plugins")
        try compileFixture("hostile.c", as: name, extraFlags: [flag, "-DPLUGIN_ID=\"test.\(name)\""], into: directory)
        return directory
    }

    /// Follows `<workspace>/chat.jsonl` (named `chat.jsonl`, from the last
    /// line), moves it away and writes a new one, then empties that; each
    /// step waits for the follower's output, never for time. Returns the
    /// lines stderr showed after each change.
    private func followThroughRotationAndTruncation(in workspace: URL) throws -> Produced {
        func message(_ id: String) -> Data { Data((#"{"id":"\#(id)","type":"text","text":"\#(id)"}"# + "\n").utf8) }
        let file = workspace.appendingPathComponent("chat.jsonl")
        try message("a1").write(to: file)
        let process = Process()
        process.executableURL = binary
        process.arguments = ["render", "--follow", "chat.jsonl", "--lines", "1", "--format", "json"]
        process.environment = cleanEnvironment([:])
        process.currentDirectoryURL = workspace
        let stdout = Pipe(), stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        process.standardInput = FileHandle.nullDevice
        try process.run()
        defer {
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
        }
        let output = PipeLines(stdout.fileHandleForReading), errors = PipeLines(stderr.fileHandleForReading)
        var said: [String] = []

        XCTAssertNotNil(output.next(), "the follower shows the file's last message")
        // Rotation: the file is moved away and a new one takes its name.
        try FileManager.default.moveItem(at: file, to: workspace.appendingPathComponent("chat.jsonl.1"))
        try message("b1").write(to: file)
        said.append(errors.next() ?? "(nothing on stderr after the rotation)")
        XCTAssertNotNil(output.next(), "the new file is read")
        // Truncation: the file is emptied.
        try Data().write(to: file)
        said.append(errors.next() ?? "(nothing on stderr after the truncation)")
        XCTAssertTrue(process.isRunning, "--follow keeps going until interrupted")
        return Produced(stderr: said.joined(separator: "\n") + "\n")
    }
}

import Foundation
import XCTest

/// Rendering under supervision: a plugin that crashes, hangs, runs out of
/// memory or returns garbage costs one candidate, never a message; in
/// `--isolation none` a crash still leaves every message before it on stdout.
final class SupervisedRenderTests: EndToEndTestCase {

    /// `count` messages of type "hostile" numbered 1…count (every third one
    /// makes a RENDER_* hostile plugin misbehave), with a fallback text.
    func hostileMessages(_ count: Int) -> [String] {
        (1...count).map { #"{"id":"m\#($0)","type":"hostile","n":\#($0),"text":"fallback \#($0)"}"# }
    }

    @discardableResult
    func hostile(_ name: String, _ flags: [String], id: String? = nil) throws -> URL {
        try compileFixture("hostile.c", as: name, extraFlags: flags + ["-DPLUGIN_ID=\"\(id ?? "test.\(name)")\""])
    }

    func test_pluginThatSegfaultsOnEveryThirdMessage_defaultMode_keepsAllMessagesInOrder() throws {
        try hostile("segv", ["-DRENDER_SEGV"])
        let (messages, stderr) = try renderJSON(hostileMessages(1000))
        XCTAssertEqual(messages.map(\.id), (1...1000).map { "m\($0)" })
        XCTAssertEqual(messages.prefix(2).map(\.className), ["HostileCell", "HostileCell"])
        XCTAssertEqual(messages[2].className, "TextMessageCell", "the crashing message falls back to its parent class")
        XCTAssertEqual(messages[2].fallback?.chain.first?.result, .crashed)
        XCTAssertTrue(messages.dropFirst(2).allSatisfy { $0.className == "TextMessageCell" }, "the plugin stays disabled")
        XCTAssertEqual(messages[3].fallback?.chain.first?.result, .disabled)
        XCTAssertEqual(stderr, "cellhost: test.segv: HostileCell crashed (SIGSEGV) on message m3 (<stdin>:3); disabled\n")
    }

    func test_pluginThatHangs_timesOutAndTheMessageFallsBack() throws {
        try hostile("hang", ["-DRENDER_HANG"])
        let (messages, stderr) = try renderJSON(hostileMessages(6), extraArgs: ["--plugin-timeout", "200"])
        XCTAssertEqual(messages.map(\.id), (1...6).map { "m\($0)" })
        XCTAssertEqual(messages.map(\.className), ["HostileCell", "HostileCell"] + Array(repeating: "TextMessageCell", count: 4))
        XCTAssertEqual(stderr, "cellhost: test.hang: HostileCell timed out after 200 ms on message m3 (<stdin>:3); disabled\n")
    }

    func test_pluginThatAllocatesWithoutEnd_isStoppedAndTheMessageFallsBack() throws {
        try hostile("alloc", ["-DRENDER_ALLOC"])
        let (messages, stderr) = try renderJSON(hostileMessages(4), extraArgs: ["--plugin-memory", "256"])
        XCTAssertEqual(messages.map(\.id), ["m1", "m2", "m3", "m4"])
        XCTAssertEqual(messages[2].className, "TextMessageCell")
        XCTAssertTrue(stderr.hasPrefix("cellhost: test.alloc: HostileCell "), stderr)
        XCTAssertTrue(stderr.hasSuffix(" on message m3 (<stdin>:3); disabled\n"), stderr)
    }

    func test_pluginThatPrintsWhileRendering_cannotReachStdout() throws {
        try hostile("printer", ["-DRENDER_PRINT"])
        let (messages, _) = try renderJSON(hostileMessages(6))
        XCTAssertEqual(messages.map(\.className), Array(repeating: "HostileCell", count: 6),
                       "every line of stdout decoded as a message: nothing else is there")
    }

    func test_pluginThatReturnsGarbage_fallsBackForThatMessageOnly() throws {
        try hostile("garbage", ["-DRENDER_GARBAGE"])
        let (messages, stderr) = try renderJSON(hostileMessages(6))
        XCTAssertEqual(messages.map(\.className), ["HostileCell", "HostileCell", "TextMessageCell",
                                                    "HostileCell", "HostileCell", "TextMessageCell"])
        XCTAssertEqual(messages[2].fallback?.chain.first?.result, .error)
        XCTAssertEqual(stderr, "", "an error result is a normal fallback, not a crash")
    }

    func test_aWorkerClassThatDeclines_passesTheMessageToTheNextCandidateInTheHost() throws {
        try compileFixture("declining_text_cell.c")
        for mode in ["auto", "shared", "each"] {
            let (messages, stderr) = try renderJSON([#"{"id":"1","type":"text","text":"kept"}"#],
                                                    extraArgs: ["--isolation", mode])
            XCTAssertEqual(messages.first?.className, "TextMessageCell", mode)
            XCTAssertEqual(messages.first?.lines.last, "┃ kept", mode)
            XCTAssertEqual(messages.first?.fallback?.chain.map(\.result), [.declined], mode)
            XCTAssertEqual(messages.first?.fallback?.chain.first?.className, "DecliningTextCell", mode)
            XCTAssertEqual(stderr, "", mode)
        }
    }

    func test_eachMode_disablesOnlyThePluginThatCrashed() throws {
        try hostile("segv", ["-DRENDER_SEGV"])
        try compileFixture("text_rank5.c")
        var input = hostileMessages(6)
        input += (1...3).map { #"{"id":"t\#($0)","type":"text","text":"text \#($0)"}"# }
        let (messages, _) = try renderJSON(input, extraArgs: ["--isolation", "each"])
        XCTAssertEqual(messages.count, 9)
        let texts = messages.suffix(3).map(\.className)
        XCTAssertEqual(Set(texts).count, 1, "the other plugin's worker keeps rendering: \(texts)")
        XCTAssertNotEqual(texts.first, "TextMessageCell")
    }

    /// A reply quoting a message a worker rendered, with a class that has no
    /// `plainTextForMessage:context:into:` of its own: the host's summary
    /// (computed in the host, no round trip) is what every mode shows.
    func test_replyToAWorkerRenderedMessage_quotesTheSameTextInEveryMode() throws {
        try hostile("quoted", [])
        let input = Data(([#"{"id":"h1","type":"hostile","n":1,"text":"the original words"}"#,
                           #"{"id":"r1","type":"text","text":"a reply","reply_to":"h1"}"#,
                           #"{"id":"h2","type":"hostile","n":2}"#,
                           #"{"id":"r2","type":"text","text":"another","reply_to":"h2"}"#].joined(separator: "\n") + "\n").utf8)
        let base = ["render", "-", "--format", "plain", "--width", "60"]
        let reference = try run(base + ["--isolation", "none"], env: defaultEnvironment, stdin: input)
        XCTAssertEqual(reference.status, 0, reference.stderr)
        XCTAssertTrue(reference.stdout.contains("the original words"), reference.stdout)
        XCTAssertTrue(reference.stdout.contains("[hostile]"), "a message without text is quoted by its type: \(reference.stdout)")
        for mode in ["auto", "shared", "each"] {
            let result = try run(base + ["--isolation", mode], env: defaultEnvironment, stdin: input)
            XCTAssertEqual(result.status, 0, result.stderr)
            XCTAssertEqual(result.stdout, reference.stdout, "--isolation \(mode)")
        }
    }

    func test_shippedCells_renderTheSameBytesInEveryMode() throws {
        let demo = Self.examplesDirectory.appendingPathComponent("conversation.jsonl").path
        for format in ["json", "ansi"] {
            let base = ["render", demo, "--me", "u-alice", "--width", "72", "--format", format, "--color", "always"]
            let reference = try run(base + ["--isolation", "none"])
            XCTAssertEqual(reference.status, 0, reference.stderr)
            for mode in ["auto", "shared", "each"] {
                let result = try run(base + ["--isolation", mode])
                XCTAssertEqual(result.status, 0, result.stderr)
                XCTAssertEqual(result.stdout, reference.stdout, "\(format) output in --isolation \(mode)")
            }
        }
    }

    func test_isolationNone_crashLeavesEveryEarlierMessageOnStdout_andExits4() throws {
        try hostile("segv", ["-DRENDER_SEGV"])
        var input = (1...500).map { #"{"id":"t\#($0)","type":"text","text":"before \#($0)"}"# }
        input.append(#"{"id":"boom","type":"hostile","n":3}"#)
        input.append(#"{"id":"after","type":"text","text":"never"}"#)
        let stdin = Data((input.joined(separator: "\n") + "\n").utf8)
        let result = try run(["render", "-", "--format", "json", "--isolation", "none"], env: defaultEnvironment, stdin: stdin)
        XCTAssertEqual(result.status, 4)
        let ids = result.stdout.split(separator: "\n").compactMap { line -> String? in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["id"] as? String
        }
        XCTAssertEqual(ids, (1...500).map { "t\($0)" })
        XCTAssertEqual(result.stderr, "cellhost: test.segv: HostileCell crashed (SIGSEGV) on message boom (<stdin>:501); "
                       + "stopped, as --isolation none runs plugins in this process\n")
    }

    func test_configFileIsolation_isTheDefault_andTheOptionWins() throws {
        try hostile("segv", ["-DRENDER_SEGV"])
        let directory = configHome.appendingPathComponent("cellhost", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data("[render]\nisolation = none\n".utf8).write(to: directory.appendingPathComponent("config"))
        let stdin = Data((hostileMessages(3).joined(separator: "\n") + "\n").utf8)
        let configured = try run(["render", "-", "--format", "json"], env: defaultEnvironment, stdin: stdin)
        XCTAssertEqual(configured.status, 4, "the config file chose none: the crash ends the run")
        let overridden = try run(["render", "-", "--format", "json", "--isolation", "shared"], env: defaultEnvironment, stdin: stdin)
        XCTAssertEqual(overridden.status, 0, overridden.stderr)
        XCTAssertEqual(overridden.stdout.split(separator: "\n").count, 3)
    }

    func test_configFileIsolation_withAnUnknownMode_isAUsageErrorNamingTheFile() throws {
        let directory = configHome.appendingPathComponent("cellhost", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let config = directory.appendingPathComponent("config")
        try Data("[render]\nisolation = sometimes\n".utf8).write(to: config)
        let result = try run(["render", "-"], env: defaultEnvironment, stdin: Data())
        XCTAssertEqual(result.status, 2)
        XCTAssertEqual(result.stderr, "cellhost: \(config.path) [render]: isolation must be none, auto, shared or each, not 'sometimes'\n")
    }

    func test_isolationOption_withAnUnknownMode_isAUsageError() throws {
        let result = try run(["render", "-", "--isolation", "maybe"], env: defaultEnvironment, stdin: Data())
        XCTAssertEqual(result.status, 2)
        XCTAssertEqual(result.stderr, "cellhost: --isolation must be none, auto, shared or each, not 'maybe'\n")
    }

    func test_isolationNone_hangLeavesEveryEarlierMessageOnStdout_andExits4() throws {
        try hostile("hang", ["-DRENDER_HANG"])
        let stdin = Data((hostileMessages(5).joined(separator: "\n") + "\n").utf8)
        let result = try run(["render", "-", "--format", "json", "--isolation", "none", "--plugin-timeout", "300"],
                             env: defaultEnvironment, stdin: stdin, timeout: 30)
        XCTAssertEqual(result.status, 4)
        XCTAssertEqual(result.stdout.split(separator: "\n").count, 2, "m1 and m2 were rendered before the hang")
        XCTAssertEqual(result.stderr, "cellhost: test.hang: HostileCell timed out after 300 ms on message m3 (<stdin>:3); "
                       + "stopped, as --isolation none runs plugins in this process\n")
    }

    func test_pluginLogLines_keepTheirPlaceAmongTheMessages() throws {
        try compileFixture("erroring_text_cell.c")
        let input = Examples(["one", "two"]).jsonl
        let inputFile = try writeFile("in.jsonl", Data(input.utf8), in: scratchDir)
        for mode in ["none", "shared"] {
            let script = "\"$0\" render - --format plain --width 40 --isolation \(mode) > \"$1\" 2>&1 < \"$2\""
            let outputFile = scratchDir.appendingPathComponent("both-\(mode).txt")
            let result = try execute(URL(fileURLWithPath: "/bin/sh"), ["-c", script, binary.path, outputFile.path, inputFile.path],
                                     environment: cleanEnvironment(defaultEnvironment), stdin: nil,
                                     currentDirectory: scratchDir, timeout: 60, file: #filePath, line: #line)
            XCTAssertEqual(result.status, 0)
            let lines = try String(contentsOf: outputFile, encoding: .utf8).split(separator: "\n").map(String.init)
            XCTAssertEqual(lines, ["cellhost: test.erroring: this cell always fails", "┃ one",
                                   "cellhost: test.erroring: this cell always fails", "┃ two"], "--isolation \(mode)")
        }
    }
}

/// Text messages as JSON Lines.
private struct Examples {
    let texts: [String]
    init(_ texts: [String]) { self.texts = texts }
    var jsonl: String {
        texts.enumerated().map { #"{"id":"\#($0.offset)","type":"text","text":"\#($0.element)"}"# }.joined(separator: "\n") + "\n"
    }
}

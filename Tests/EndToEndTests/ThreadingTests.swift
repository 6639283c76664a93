import Foundation
import XCTest

/// Rendering on several threads (`CELLHOST_THREADS`): the output is the
/// bytes one thread writes, and a plugin without CELLHOST_PLUGIN_THREAD_SAFE
/// is called from one thread only.
final class ThreadingTests: EndToEndTestCase {
    /// Runs `render` with `threads` render threads.
    private func render(_ args: [String], threads: Int, extra: [String: String] = [:])
        throws -> (status: Int32, stdout: String, stderr: String) {
        var env = renderEnvironment()
        env["CELLHOST_THREADS"] = String(threads)
        env.merge(extra) { _, given in given }
        return try run(["render"] + args, env: env, timeout: 300)
    }

    /// Renders `args` with no render workers (the two-thread split), one
    /// worker (the owning thread wraps) and four, and asserts the three runs
    /// write the same bytes on stdout and stderr and exit alike.
    @discardableResult
    private func assertSameOnOneAndFourThreads(_ args: [String], extra: [String: String] = [:],
                                               file: StaticString = #filePath, line: UInt = #line) throws
        -> (status: Int32, stdout: String, stderr: String) {
        let one = try render(args, threads: 0, extra: extra)
        XCTAssertFalse(one.stdout.isEmpty, "\(args)", file: file, line: line)
        for threads in [1, 4] {
            let other = try render(args, threads: threads, extra: extra)
            XCTAssertEqual(one.status, other.status, "\(args), \(threads) workers", file: file, line: line)
            XCTAssertEqual(one.stderr, other.stderr, "\(args), \(threads) workers", file: file, line: line)
            if one.stdout != other.stdout {
                let a = one.stdout.split(separator: "\n", omittingEmptySubsequences: false)
                let b = other.stdout.split(separator: "\n", omittingEmptySubsequences: false)
                let first = zip(a, b).enumerated().first { $0.element.0 != $0.element.1 }
                XCTFail("\(args), \(threads) workers: output differs from line \((first?.offset ?? min(a.count, b.count)) + 1) "
                        + "(\(a.count) vs \(b.count) lines)", file: file, line: line)
            }
        }
        return one
    }

    // MARK: Same bytes

    func test_demo_isTheSameOnOneAndFourThreads_inEveryFormat() throws {
        let demo = Self.examplesDirectory.appendingPathComponent("conversation.jsonl").path
        for format in ["plain", "ansi", "json", "html"] {
            try assertSameOnOneAndFourThreads([demo, "--format", format, "--width", "72", "--me", "u-alice"],
                                              extra: ["TERM": "xterm-256color"])
        }
    }

    /// Thousands of messages of every kind: replies (quotes come from
    /// earlier records), day changes, plugins with and without the flag,
    /// records that are no JSON and times that cannot be read (reported in
    /// their place with --verbose).
    func test_largeMixedInput_isTheSameOnOneAndFourThreads() throws {
        try compileFixture("thread_probe.c", as: "libserialprobe")
        try compileFixture("thread_probe.c", as: "libsafeprobe", extraFlags: ["-DTHREAD_SAFE"])
        let input = scratchDir.appendingPathComponent("mixed.jsonl")
        try Data(Self.mixedChat(count: 6000).utf8).write(to: input)
        for format in ["plain", "json"] {
            let result = try assertSameOnOneAndFourThreads([input.path, "--format", format, "--width", "64", "--me", "u-1",
                                                            "--verbose", "--isolation", "none"])
            // What makes the input hard is there: problems in their place, quotes, both probes.
            XCTAssertEqual(result.status, 1, "records that are no JSON make the run exit 1")
            XCTAssertTrue(result.stderr.contains("mixed.jsonl:251: "), result.stderr)
            XCTAssertTrue(result.stderr.contains("could not be read"), result.stderr)
            XCTAssertTrue(result.stdout.contains("serial-probe: s") && result.stdout.contains("safe-probe: t"))
        }
        // Two inputs: each one's --verbose summary counts its own records.
        let twice = try assertSameOnOneAndFourThreads([input.path, input.path, "--format", "plain", "--width", "64",
                                                       "--verbose", "--isolation", "none"])
        XCTAssertEqual(twice.stderr.components(separatedBy: "times could not be read").count - 1, 2, twice.stderr)
        // Plugins in worker processes are driven from one thread, as before.
        try assertSameOnOneAndFourThreads([input.path, "--format", "plain", "--width", "64", "--isolation", "shared"])
    }

    // MARK: Which threads call a plugin

    func test_pluginWithoutTheFlag_isCalledFromOneThread_andOneWithIt_fromWorkerThreads() throws {
        try compileFixture("thread_probe.c", as: "libserialprobe")
        try compileFixture("thread_probe.c", as: "libsafeprobe", extraFlags: ["-DTHREAD_SAFE"])
        let input = scratchDir.appendingPathComponent("probes.jsonl")
        var lines: [String] = []
        for index in 0..<3000 {
            let type = ["serial-probe", "safe-probe", "text"][index % 3]
            lines.append(#"{"id":"p-\#(index)","type":"\#(type)","sender":{"id":"u-2","name":"Bob"},"text":"n\#(index)"}"#)
        }
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: input)
        let record = scratchDir.appendingPathComponent("threads.txt")
        let result = try render([input.path, "--format", "plain", "--isolation", "none"], threads: 4,
                                extra: ["THREAD_PROBE_FILE": record.path])
        XCTAssertEqual(result.status, 0, result.stderr)
        let calls = try String(contentsOf: record, encoding: .utf8).split(separator: "\n").map { $0.split(separator: " ") }
        func threads(_ id: String, _ what: String) -> [Substring] {
            calls.filter { $0.count == 3 && $0[0] == Substring(id) && $0[1] == Substring(what) }.map { $0[2] }
        }
        let serialInit = threads("test.threads.serial", "init")
        let serialRenders = threads("test.threads.serial", "render")
        let safeRenders = threads("test.threads.safe", "render")
        XCTAssertEqual(serialInit.count, 1)
        XCTAssertEqual(serialRenders.count, 1000)
        XCTAssertEqual(safeRenders.count, 1000)
        // Without the flag: every call on one thread, the one that loaded it.
        XCTAssertEqual(Set(serialRenders), Set(serialInit), "one thread calls test.threads.serial")
        // With it: the render worker threads too. Its library is opened when
        // first used, on the reading thread (which renders the messages read
        // before that); the ring holds 256 records, so the later ones are
        // read after it and rendered on the workers.
        let reading = Set(serialInit)
        XCTAssertEqual(threads("test.threads.safe", "init"), serialInit, "opened on the reading thread")
        XCTAssertFalse(safeRenders.filter { !reading.contains($0) }.isEmpty,
                       "test.threads.safe is called from the worker threads")
        XCTAssertTrue(result.stdout.contains("serial-probe: n0") && result.stdout.contains("safe-probe: n2998"))
    }

    /// `CELLHOST_THREADS=0`: no render workers; every plugin call on the
    /// reading thread (a thread-safe plugin's too).
    func test_noRenderWorkers_callsEveryPluginFromTheLoadingThread() throws {
        try compileFixture("thread_probe.c", as: "libsafeprobe", extraFlags: ["-DTHREAD_SAFE"])
        let input = scratchDir.appendingPathComponent("probes.jsonl")
        let lines = (0..<50).map { #"{"id":"p-\#($0)","type":"safe-probe","text":"n\#($0)"}"# }
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: input)
        let record = scratchDir.appendingPathComponent("threads.txt")
        let result = try render([input.path, "--format", "plain", "--isolation", "none"], threads: 0,
                                extra: ["THREAD_PROBE_FILE": record.path])
        XCTAssertEqual(result.status, 0, result.stderr)
        let tids = Set(try String(contentsOf: record, encoding: .utf8).split(separator: "\n").compactMap { $0.split(separator: " ").last })
        XCTAssertEqual(tids.count, 1, "init and every render on one thread")
    }

    /// From a worker thread a thread-safe class cannot reach one that is
    /// not: `instance_of` answers NULL and `send` CELLHOST_E_WRONG_THREAD;
    /// on one thread both work.
    func test_aThreadSafeClass_cannotReachAClassWithoutTheFlag_fromAWorkerThread() throws {
        try compileFixture("thread_probe.c", as: "libserialprobe")
        try compileFixture("thread_probe.c", as: "libsafeprobe", extraFlags: ["-DTHREAD_SAFE", "-DASK_HELPER"])
        // m-1 is rendered on the reading thread (which opens the probe's
        // library when first needed) and quoted by m-2 (there too, where the
        // probe keeps the helper); m-400 is read only once m-2 was written
        // (the ring holds 256 records), so it is rendered on a worker and
        // sees the kept helper.
        var lines = [#"{"id":"m-1","type":"safe-probe","text":"first"}"#,
                     #"{"id":"m-2","type":"text","text":"reply","reply_to":"m-1"}"#]
        lines += (3..<400).map { #"{"id":"m-\#($0)","type":"text","text":"filler \#($0)"}"# }
        lines.append(#"{"id":"m-400","type":"safe-probe","text":"last"}"#)
        let input = scratchDir.appendingPathComponent("helper.jsonl")
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: input)
        let args = [input.path, "--format", "plain", "--width", "200", "--isolation", "none"]
        let four = try render(args, threads: 4)
        XCTAssertEqual(four.status, 0, four.stderr)
        XCTAssertTrue(four.stdout.contains("safe-probe: first instance:yes"), four.stdout)
        XCTAssertTrue(four.stdout.contains("safe-probe: last instance:no send:7"), four.stdout)
        let one = try render(args, threads: 0)
        XCTAssertTrue(one.stdout.contains("safe-probe: first instance:yes"), one.stdout)
        XCTAssertTrue(one.stdout.contains("safe-probe: last instance:yesserial-probe: last send:0"), one.stdout)
    }

    // MARK: Crashes and hangs on a worker thread

    /// A thread-safe plugin that crashes on a worker thread ends the run as
    /// on one thread: every message before it written, one line naming it.
    /// (The first hostile message opens the library on the reading thread;
    /// the ring holds 256 records, so "boom", 500 later, is read after that
    /// and rendered on a worker.)
    func test_threadSafePluginCrashingOnAWorker_leavesEveryEarlierMessage_andExits4() throws {
        try compileFixture("hostile.c", as: "segv", extraFlags: ["-DRENDER_SEGV", "-DTHREAD_SAFE", "-DPLUGIN_ID=\"test.segv\""])
        var input = [#"{"id":"t0","type":"hostile","n":1,"text":"opens the library"}"#]
        input += (1...500).map { #"{"id":"t\#($0)","type":"text","text":"before \#($0)"}"# }
        input.append(#"{"id":"boom","type":"hostile","n":3}"#)
        input += (1...300).map { #"{"id":"a\#($0)","type":"text","text":"never \#($0)"}"# }
        var env = defaultEnvironment
        env["CELLHOST_THREADS"] = "4"
        let result = try run(["render", "-", "--format", "json", "--isolation", "none"], env: env,
                             stdin: Data((input.joined(separator: "\n") + "\n").utf8))
        XCTAssertEqual(result.status, 4)
        let ids = result.stdout.split(separator: "\n").compactMap { line -> String? in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["id"] as? String
        }
        XCTAssertEqual(ids, (0...500).map { "t\($0)" })
        XCTAssertEqual(result.stderr, "cellhost: test.segv: HostileCell crashed (SIGSEGV) on message boom (<stdin>:502); "
                       + "stopped, as --isolation none runs plugins in this process\n")
    }

    /// A call that hangs on a worker thread is found by the watchdog.
    func test_threadSafePluginHangingOnAWorker_leavesEveryEarlierMessage_andExits4() throws {
        try compileFixture("hostile.c", as: "hang", extraFlags: ["-DRENDER_HANG", "-DTHREAD_SAFE", "-DPLUGIN_ID=\"test.hang\""])
        // m1 opens the library on the reading thread; m302 is read after it
        // was written (the ring holds 256 records) and hangs on a worker.
        var input = [#"{"id":"m1","type":"hostile","n":1,"text":"opens the library"}"#]
        input += (2...301).map { #"{"id":"m\#($0)","type":"text","text":"before \#($0)"}"# }
        input.append(#"{"id":"m302","type":"hostile","n":3,"text":"hangs"}"#)
        var env = defaultEnvironment
        env["CELLHOST_THREADS"] = "4"
        let result = try run(["render", "-", "--format", "json", "--isolation", "none", "--plugin-timeout", "300"],
                             env: env, stdin: Data((input.joined(separator: "\n") + "\n").utf8), timeout: 30)
        XCTAssertEqual(result.status, 4)
        XCTAssertEqual(result.stdout.split(separator: "\n").count, 301, "m1 to m301 were rendered before the hang")
        XCTAssertEqual(result.stderr, "cellhost: test.hang: HostileCell timed out after 300 ms on message m302 (<stdin>:302); "
                       + "stopped, as --isolation none runs plugins in this process\n")
    }

    // MARK: Listing

    func test_listPlugins_andCheckPlugin_showTheFlag() throws {
        try compileFixture("thread_probe.c", as: "libserialprobe")
        let safe = try compileFixture("thread_probe.c", as: "libsafeprobe", extraFlags: ["-DTHREAD_SAFE"])
        let report = try listPlugins()
        XCTAssertEqual(report.plugins(id: "test.threads.safe").first?.threadSafe, true)
        XCTAssertEqual(report.plugins(id: "test.threads.serial").first?.threadSafe, false)
        XCTAssertEqual(report.plugins(id: "org.cellhost.text").first?.threadSafe, true, "TextCell declares it")
        XCTAssertEqual(report.plugins(id: "org.cellhost.file").first?.threadSafe, true, "FileCell guards libmagic")

        let text = try run(["list-plugins"], env: defaultEnvironment).stdout
        let phrase = "thread-safe: its classes may be called from several threads at once"
        // Each plugin's lines: its "  ID VERSION  loaded" line and the indented ones after it.
        var blocks: [String: [String]] = [:]
        var current = ""
        for line in text.split(separator: "\n").map(String.init) {
            if line.hasPrefix("  ") && !line.hasPrefix("   ") { current = String(line.dropFirst(2).prefix { $0 != " " }) }
            blocks[current, default: []].append(line.trimmingCharacters(in: .whitespaces))
        }
        XCTAssertTrue(blocks["test.threads.safe"]?.contains(phrase) == true, text)
        XCTAssertFalse(blocks["test.threads.serial"]?.contains(phrase) ?? true, text)
        XCTAssertTrue(try document().contains("`\(phrase)`"), "docs/plugin-abi.md quotes the list-plugins line")

        let check = try run(["check-plugin", safe.path], env: defaultEnvironment)
        XCTAssertTrue(check.stdout.contains("thread-safe (CELLHOST_PLUGIN_THREAD_SAFE)"), check.stdout)
    }

    private func document() throws -> String {
        try String(contentsOf: Self.packageRoot.appendingPathComponent("docs/plugin-abi.md"), encoding: .utf8)
    }

    // MARK: Input

    /// `count` messages of every kind, with replies, day changes, probes
    /// of both plugins, a record that is no JSON object every 251 lines and
    /// an unreadable time every 313.
    static func mixedChat(count: Int) -> String {
        let senders = [("u-1", "Alice"), ("u-2", "Bob Nguyễn"), ("u-3", "Карина"), ("u-4", "سارا"), ("u-5", "王芳")]
        let texts = ["See you at *10:30* by the _north_ entrance https://example.org/plan?day=2",
                     "Café? 天气很好，我们去海边吧！ ❤️", "ok", "שלום, מה נשמע? `code` and more words to wrap around the edge",
                     String(repeating: "long words that wrap again and again ", count: 12)]
        var lines: [String] = []
        lines.reserveCapacity(count)
        for index in 0..<count {
            if index % 251 == 250 { lines.append(#"{"id":"bad-\#(index)", not json"#); continue }
            let sender = senders[(index * 7 / 3) % senders.count]
            let day = 1 + index / 700
            let time = index % 313 == 312 ? "yesterday"
                : String(format: "2026-11-%02dT%02d:%02d:00Z", min(day, 28), (index / 30) % 24, index % 60)
            var fields = [#""id":"m-\#(index)""#, #""sender":{"id":"\#(sender.0)","name":"\#(sender.1)"}"#,
                          #""time":"\#(time)""#]
            if index % 17 == 5 && index > 20 { fields.append(#""reply_to":"m-\#(index - 1 - index % 13)""#) }
            let text = texts[index % texts.count]
            switch index % 11 {
            case 0: fields += [#""type":"poll""#, #""text":"Poll: lunch?""#,
                               #""poll":{"question":"Lunch?","options":[{"text":"Café","votes":\#(index % 7)},{"text":"Fish","votes":3}]}"#]
            case 1: fields += [#""type":"voice""#, #""voice":{"duration":\#(index % 90).5,"waveform":[0,3,9,14,22,31,27,18,12,6,2]}"#]
            case 2: fields += [#""type":"file""#, #""text":"report.pdf""#, #""file":{"path":"missing/report-\#(index).pdf","size":12345}"#]
            case 3: fields += [#""type":"location""#, #""text":"somewhere""#]
            case 4: fields += [#""type":"serial-probe""#, #""text":"s\#(index)""#]
            case 5: fields += [#""type":"safe-probe""#, #""text":"t\#(index)""#]
            case 6: fields += [#""type":"image""#, #""text":"a picture""#, #""image":{"path":"missing/pic.png"}"#]
            default: fields += [#""type":"text""#, #""text":"\#(text) #\#(index)""#]
            }
            lines.append("{" + fields.joined(separator: ",") + "}")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

import Foundation
import XCTest

/// The promises of the ABI 2.0 headers, one test each, kept by the real host
/// with real plugins compiled from Tests/EndToEndTests/Fixtures.
final class ContractTests: EndToEndTestCase {

    /// The lines a marker file holds (a fixture appends one per event).
    private func events(_ marker: URL) -> [String] {
        ((try? String(contentsOf: marker, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    private func marker(_ name: String) -> URL { scratchDir.appendingPathComponent(name) }

    /// Renders `messages` as plain text at width 120; returns stdout and stderr.
    private func renderPlain(_ messages: [String], extraArgs: [String] = [], env: [String: String] = [:],
                             file: StaticString = #filePath, line: UInt = #line) throws -> (stdout: String, stderr: String) {
        let input = Data((messages.joined(separator: "\n") + "\n").utf8)
        let result = try run(["render", "-", "--format", "plain", "--width", "120"] + extraArgs,
                             env: defaultEnvironment.merging(env) { _, given in given }, stdin: input, file: file, line: line)
        XCTAssertEqual(result.status, 0, "stderr:\n\(result.stderr)", file: file, line: line)
        return (result.stdout, result.stderr)
    }

    // MARK: Describing without running code

    func test_describingAPlugin_runsItsEntryButNotItsInit() throws {
        try compileFixture("lifecycle.c")
        let lifecycle = marker("lifecycle")
        let (report, _) = try listPluginsRun(env: defaultEnvironment.merging(["LIFECYCLE_MARKER": lifecycle.path]) { _, b in b })
        let entry = try XCTUnwrap(report.plugins(id: "test.lifecycle").first)
        XCTAssertEqual(entry.classes.map(\.name), ["LifecycleCell"])
        XCTAssertFalse(entry.registersAtInit)
        XCTAssertEqual(events(lifecycle), ["entry"])
    }

    func test_aPluginThatRegistersAtInit_isDescribedByRunningInitThenDeinit_andSaysSo() throws {
        try compileFixture("contract_probe.c")
        let probe = marker("probe")
        let result = try run(["list-plugins"], env: defaultEnvironment.merging(["CONTRACT_MARKER": probe.path]) { _, b in b })
        XCTAssertTrue(result.stdout.contains("registers classes at run time (its init runs to describe it)"), result.stdout)
        XCTAssertEqual(events(probe), ["init", "deinit"])
        let (report, _) = try listPluginsRun()
        XCTAssertEqual(report.plugins(id: "test.contract").first?.registersAtInit, true)
    }

    // MARK: init and deinit

    func test_deinitIsCalledOnceForEveryInit_inProcess() throws {
        try compileFixture("lifecycle.c")
        let lifecycle = marker("lifecycle")
        _ = try renderPlain([#"{"type":"lifecycle"}"#, #"{"type":"lifecycle"}"#], extraArgs: ["--isolation", "none"],
                            env: ["LIFECYCLE_MARKER": lifecycle.path])
        XCTAssertEqual(events(lifecycle), ["entry", "entry", "init", "deinit"],
                       "the scanner calls only the entry; the rendering process inits once and deinits once")
    }

    func test_deinitIsCalledOnceForEveryInit_inAWorkerProcess() throws {
        try compileFixture("lifecycle.c")
        let lifecycle = marker("lifecycle")
        let (stdout, _) = try renderPlain([#"{"type":"lifecycle"}"#], extraArgs: ["--isolation", "each"],
                                          env: ["LIFECYCLE_MARKER": lifecycle.path])
        XCTAssertTrue(stdout.contains("alive"), stdout)
        XCTAssertEqual(events(lifecycle).filter { $0 != "entry" }, ["init", "deinit"])
    }

    func test_deinitReceivesTheHostTableInitGot() throws {
        try compileFixture("contract_probe.c")
        let probe = marker("probe")
        _ = try renderPlain([#"{"type":"probe"}"#], extraArgs: ["--isolation", "none"], env: ["CONTRACT_MARKER": probe.path])
        XCTAssertEqual(events(probe), ["init", "deinit", "init", "deinit"], "scanner, then the rendering process")
    }

    // MARK: Status codes

    func test_registrationDuringInit_answersWithTheCodesTheHeaderPromises() throws {
        try compileFixture("contract_probe.c")
        let (_, stderr) = try renderPlain([#"{"type":"probe"}"#], extraArgs: ["--isolation", "none"])
        // register_class(NULL), a bad name, a bad encoding, a nameless message class, a good class.
        XCTAssertTrue(stderr.contains("test.contract: init: 4 5 5 5 0"), stderr)
    }

    func test_refusedRunTimeClasses_areListedUnderTheirOwnNames() throws {
        try compileFixture("contract_probe.c")
        let (report, _) = try listPluginsRun()
        let plugin = try XCTUnwrap(report.plugins(id: "test.contract").first)
        XCTAssertEqual(plugin.classes.map(\.name), ["ContractProbeCell"])
        XCTAssertEqual(Set(plugin.rejectedClasses.map(\.name)), ["has space", "BadEncodingCell", "(message class)"])
        XCTAssertEqual(plugin.rejectedClass("BadEncodingCell")?.reason,
                       "register_class: selector 'renderMessage:context:into:' has encoding 'v@:' but the host expects "
                       + "'i@:r^{cellhost_message}r^{cellhost_context}^{cellhost_builder}'")
    }

    func test_registrationWithoutTheRegistersAtInitFlag_isRejected() throws {
        try compileFixture("contract_probe.c", extraFlags: ["-DNO_FLAG"])
        let (_, stderr) = try renderPlain([#"{"type":"probe"}"#], extraArgs: ["--isolation", "none"])
        XCTAssertTrue(stderr.contains("test.contract: init: 4 5 5 5 5"), stderr)
        XCTAssertTrue(stderr.contains("ContractProbeCell refused: the descriptor does not set CELLHOST_PLUGIN_REGISTERS_AT_INIT"),
                      stderr)
    }

    func test_callsFromARender_answerWithTheCodesTheHeaderPromises() throws {
        try compileFixture("contract_probe.c")
        let (stdout, _) = try renderPlain([#"{"type":"probe"}"#], extraArgs: ["--isolation", "none"])
        // register_class too late, unknown selector, wrong encoding, send_super off the chain, NULL receiver.
        XCTAssertTrue(stdout.contains("render: 6 1 2 3 4"), stdout)
    }

    // MARK: Well-known selectors

    func test_aSummaryThatDeclines_isTheSuperclasssSummary() throws {
        try compileFixture("sub_poll_declining_summary.c")
        let poll = #"{"id":"p1","type":"poll","text":"the poll's text","sender":{"id":"a","name":"Ann"},"#
            + #""poll":{"question":"Lunch?","options":[{"text":"Yes","votes":1}]}}"#
        let reply = #"{"id":"r1","type":"text","text":"yes!","reply_to":"p1","sender":{"id":"b","name":"Bob"}}"#
        for isolation in ["none", "each"] {
            let (stdout, _) = try renderPlain([poll, reply], extraArgs: ["--isolation", isolation])
            XCTAssertTrue(stdout.contains("Poll: Lunch?"), "isolation \(isolation):\n\(stdout)")
            XCTAssertFalse(stdout.contains("the poll's text"), "isolation \(isolation):\n\(stdout)")
        }
    }

    // MARK: Context

    func test_baseDirectory_isTheInputFilesDirectory() throws {
        try compileFixture("contract_probe.c")
        let chats = try makeDirectory("chats")
        let input = try writeFile("conversation.jsonl", Data(#"{"type":"probe"}"#.utf8 + [0x0A]), in: chats)
        let result = try run(["render", input.path, "--format", "plain", "--width", "200", "--isolation", "none"],
                             env: defaultEnvironment)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("base: \(chats.resolvingSymlinksInPath().path)")
                      || result.stdout.contains("base: \(chats.path)"), result.stdout)
    }

    func test_baseDirectory_forStandardInput_isTheCurrentDirectory() throws {
        try compileFixture("contract_probe.c")
        let here = try makeDirectory("here")
        let result = try run(["render", "-", "--format", "plain", "--width", "200", "--isolation", "each"],
                             env: defaultEnvironment, stdin: Data(#"{"type":"probe"}"#.utf8 + [0x0A]), currentDirectory: here)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("base: \(here.resolvingSymlinksInPath().path)")
                      || result.stdout.contains("base: \(here.path)"), result.stdout)
    }

    // MARK: Growing structs

    func test_aPluginCompiledAgainstOlderSmallerStructs_loadsAndRenders() throws {
        try compileFixture("old_structs.c")
        let (report, _) = try listPluginsRun()
        XCTAssertEqual(report.plugins(id: "test.old-structs").first?.classes.map(\.name), ["OldCellA", "OldCellB"])
        let (stdout, _) = try renderPlain([#"{"type":"old"}"#, #"{"type":"older"}"#])
        XCTAssertTrue(stdout.contains("old a: guard intact"), stdout)
        XCTAssertTrue(stdout.contains("older b: guard intact"), stdout)
    }

    func test_classArrayElementsOfDifferentSizes_makeTheDescriptorInvalid() throws {
        let plugin = try compileFixture("odd_struct_sizes.c", as: "oddsize")
        let (report, _) = try listPluginsRun()
        let entry = try XCTUnwrap(report.plugin(atPath: plugin.path))
        XCTAssertEqual(entry.state, .failed)
        XCTAssertEqual(entry.error, "invalid descriptor: classes[1].struct_size is 48 but classes[0]'s is 56; "
                       + "every element must have the same size")
    }

    // MARK: Headers

    func test_noHeaderUsesAnEnumType() throws {
        let headers = try FileManager.default.contentsOfDirectory(at: ABIHeaders.directory, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "h" }
        XCTAssertGreaterThanOrEqual(headers.count, 10)
        let named = try NSRegularExpression(pattern: #"\benum\s+[A-Za-z_]\w*"#)
        let comments = try NSRegularExpression(pattern: #"/\*.*?\*/|//[^\n]*"#, options: [.dotMatchesLineSeparators])
        for header in headers {
            let source = try String(contentsOf: header, encoding: .utf8)
            let text = comments.stringByReplacingMatches(in: source, range: NSRange(source.startIndex..., in: source),
                                                         withTemplate: " ")
            let range = NSRange(text.startIndex..., in: text)
            XCTAssertNil(named.firstMatch(in: text, range: range), "\(header.lastPathComponent) names an enum type")
            XCTAssertFalse(text.contains("typedef enum"), "\(header.lastPathComponent) has a typedef enum")
        }
    }
}

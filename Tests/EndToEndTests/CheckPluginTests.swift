import Foundation
import XCTest

/// `cellhost check-plugin FILE.so`: the shipped plugins pass every check, and
/// plugins that crash, hang, decline everything or write without end fail
/// the check that names the problem (docs/check-plugin.md).
final class CheckPluginTests: EndToEndTestCase {

    /// The check names, in the order they are reported.
    static let checkNames = ["descriptor", "classes-link", "init-deinit", "render-samples", "can-render", "plain-text",
                             "determinism", "time-per-call", "output-bounds", "declines-everything"]

    /// One reported line: `STATUS  name  detail`.
    struct Line {
        var status: String
        var name: String
        var detail: String
    }

    /// The per-check lines of a text report (the first line names the file,
    /// the last one is the summary).
    func checkLines(_ output: String) -> [Line] {
        output.split(separator: "\n").compactMap { line in
            let words = line.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
            guard words.count == 2, ["PASS", "FAIL", "SKIP"].contains(String(words[0])) else { return nil }
            let rest = words[1].trimmingCharacters(in: .whitespaces)
            let name = rest.prefix { $0 != " " }
            return Line(status: String(words[0]), name: String(name),
                        detail: rest.dropFirst(name.count).trimmingCharacters(in: .whitespaces))
        }
    }

    /// Runs `check-plugin FILE args…` with no plugin directory of the test on the path.
    func checkPlugin(_ file: URL, _ args: [String] = [], file source: StaticString = #filePath, line: UInt = #line) throws
        -> (status: Int32, stdout: String, stderr: String) {
        try run(["check-plugin", file.path] + args, env: [:], timeout: 120, file: source, line: line)
    }

    /// A shipped plugin's `.so`, beside the binary.
    func shipped(_ name: String) -> URL {
        binary.deletingLastPathComponent().appendingPathComponent("lib\(name).so")
    }

    /// A limit per render call that a debug or sanitizer build meets on a
    /// busy machine (the shipped poll reads 100 000 options in one sample).
    var generousTimeout: [String] { ["--timeout", String(Int(5000 * Self.timeScale))] }

    func assertEveryCheckPasses(_ name: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let plugin = shipped(name)
        XCTAssertTrue(FileManager.default.fileExists(atPath: plugin.path), "\(plugin.path) is built", file: file, line: line)
        let result = try checkPlugin(plugin, generousTimeout, file: file, line: line)
        XCTAssertEqual(result.status, 0, "check-plugin \(name): \(result.stdout)\(result.stderr)", file: file, line: line)
        let lines = checkLines(result.stdout)
        XCTAssertEqual(lines.map(\.name), Self.checkNames, result.stdout, file: file, line: line)
        XCTAssertEqual(lines.filter { $0.status == "FAIL" }.map(\.name), [], result.stdout, file: file, line: line)
        XCTAssertEqual(lines.first { $0.name == "render-samples" }?.status, "PASS", result.stdout, file: file, line: line)
    }

    // MARK: Shipped plugins

    func test_shippedTextCell_passesEveryCheck() throws { try assertEveryCheckPasses("TextCell") }
    func test_shippedFileCell_passesEveryCheck() throws { try assertEveryCheckPasses("FileCell") }
    func test_shippedImageCell_passesEveryCheck() throws { try assertEveryCheckPasses("ImageCell") }
    func test_shippedVoiceCell_passesEveryCheck() throws { try assertEveryCheckPasses("VoiceCell") }
    func test_shippedPollCell_passesEveryCheck() throws { try assertEveryCheckPasses("PollCell") }

    // MARK: Failing plugins

    func test_pluginThatCrashesInRender_failsRenderSamplesNamingTheSignalAndSample() throws {
        let plugin = try compileFixture("hostile.c", as: "segv", extraFlags: ["-DRENDER_SEGV"], into: scratchDir)
        let result = try checkPlugin(plugin, ["--width", "40"])
        XCTAssertEqual(result.status, 1, result.stdout)
        let lines = checkLines(result.stdout)
        let render = lines.first { $0.name == "render-samples" }
        XCTAssertEqual(render?.status, "FAIL", result.stdout)
        XCTAssertEqual(render?.detail, "killed by SIGSEGV while rendering sample 'zero' at width 40 (HostileCell as 'hostile')",
                       result.stdout)
        // The other checks still ran, on the samples that did not crash.
        XCTAssertEqual(lines.map(\.name), Self.checkNames, result.stdout)
        XCTAssertEqual(lines.first { $0.name == "declines-everything" }?.status, "PASS", result.stdout)
    }

    func test_pluginThatHangsInRender_isReportedAsAHang() throws {
        let plugin = try compileFixture("hostile.c", as: "hang", extraFlags: ["-DRENDER_HANG"], into: scratchDir)
        let result = try checkPlugin(plugin, ["--width", "40"])
        XCTAssertEqual(result.status, 1, result.stdout)
        let lines = checkLines(result.stdout)
        let render = lines.first { $0.name == "render-samples" }
        XCTAssertEqual(render?.status, "FAIL", result.stdout)
        XCTAssertTrue(render?.detail.hasPrefix("hung: no answer within ") == true, result.stdout)
        XCTAssertTrue(render?.detail.hasSuffix(" while rendering sample 'zero' at width 40 (HostileCell as 'hostile')") == true,
                      result.stdout)
        let time = lines.first { $0.name == "time-per-call" }
        XCTAssertEqual(time?.status, "FAIL", result.stdout)
        XCTAssertTrue(time?.detail.hasSuffix("(a hang)") == true, result.stdout)
        XCTAssertEqual(lines.map(\.name), Self.checkNames, result.stdout)
    }

    func test_pluginThatAllocatesWithoutEnd_meetsTheMemoryLimitAndFails() throws {
        let plugin = try compileFixture("hostile.c", as: "alloc", extraFlags: ["-DRENDER_ALLOC"], into: scratchDir)
        let result = try checkPlugin(plugin, ["--width", "40", "--plugin-memory", "128"])
        XCTAssertEqual(result.status, 1, result.stdout)
        let render = checkLines(result.stdout).first { $0.name == "render-samples" }
        XCTAssertEqual(render?.status, "FAIL", result.stdout)
        XCTAssertTrue(render?.detail.contains("while rendering sample 'zero' at width 40") == true, result.stdout)
    }

    func test_pluginFileOthersCanWrite_failsTheDescriptorCheckWithTheFix() throws {
        let plugin = try compileFixture("text_rank5.c", as: "writable", into: scratchDir)
        XCTAssertEqual(chmod(plugin.path, 0o666), 0)
        let refused = try checkPlugin(plugin, ["--width", "40"])
        XCTAssertEqual(refused.status, 1, refused.stdout)
        let descriptor = checkLines(refused.stdout).first { $0.name == "descriptor" }
        XCTAssertEqual(descriptor?.status, "FAIL", refused.stdout)
        XCTAssertTrue(descriptor?.detail.contains("chmod") == true, refused.stdout)
        let allowed = try checkPlugin(plugin, ["--width", "40", "--allow-insecure-plugins"])
        XCTAssertEqual(checkLines(allowed.stdout).first { $0.name == "descriptor" }?.status, "PASS", allowed.stdout)
    }

    func test_pluginThatDeclinesEverything_failsDeclinesEverything() throws {
        let plugin = try compileFixture("declining_text_cell.c", into: scratchDir)
        let result = try checkPlugin(plugin, ["--width", "40"])
        XCTAssertEqual(result.status, 1, result.stdout)
        let lines = checkLines(result.stdout)
        XCTAssertEqual(lines.filter { $0.status == "FAIL" }.map(\.name), ["declines-everything"], result.stdout)
        XCTAssertEqual(lines.first { $0.name == "declines-everything" }?.detail,
                       "DecliningTextCell rendered none of its 15 renders of 'text' samples (15 declined, 0 errors)",
                       result.stdout)
    }

    func test_pluginAppending100000Lines_failsOutputBoundsNamingTheSample() throws {
        let plugin = try compileFixture("endless_rows_cell.c", into: scratchDir)
        let result = try checkPlugin(plugin, ["--width", "40"] + generousTimeout)
        XCTAssertEqual(result.status, 1, result.stdout)
        let bounds = checkLines(result.stdout).first { $0.name == "output-bounds" }
        XCTAssertEqual(bounds?.status, "FAIL", result.stdout)
        XCTAssertTrue(bounds?.detail.hasPrefix("sample 'ordinary' at width 40 (EndlessRowsCell as 'endless') appended 100000 lines")
                      == true, result.stdout)
    }

    func test_pluginAppendingAMillionLines_failsOutputBounds() throws {
        let plugin = try compileFixture("million_rows_cell.c", into: scratchDir)
        let result = try checkPlugin(plugin, ["--width", "40"] + generousTimeout)
        XCTAssertEqual(result.status, 1, result.stdout)
        let bounds = checkLines(result.stdout).first { $0.name == "output-bounds" }
        XCTAssertEqual(bounds?.status, "FAIL", result.stdout)
        XCTAssertTrue(bounds?.detail.hasPrefix("sample 'ordinary' at width 40 (MillionRowsCell as 'million') appended 1000000 lines")
                      == true, result.stdout)
    }

    func test_classWhoseSuperclassExistsNowhere_failsClassesLink() throws {
        let plugin = try compileFixture("missing_superclass.c", into: scratchDir)
        let result = try checkPlugin(plugin)
        XCTAssertEqual(result.status, 1, result.stdout)
        let link = checkLines(result.stdout).first { $0.name == "classes-link" }
        XCTAssertEqual(link?.status, "FAIL", result.stdout)
        XCTAssertEqual(link?.detail, "class 'OrphanCell' rejected: superclass 'NoSuchBaseCell' not found", result.stdout)
    }

    func test_superclassInAShippedPlugin_linksAndRenders() throws {
        let plugin = try compileFixture("sub_text_super.c", into: scratchDir)
        let result = try checkPlugin(plugin, ["--width", "40"] + generousTimeout)
        XCTAssertEqual(result.status, 0, result.stdout)
        XCTAssertEqual(checkLines(result.stdout).first { $0.name == "classes-link" }?.detail,
                       "1 class, 1 method (SuperCallingTextCell : TextMessageCell)", result.stdout)
    }

    func test_pluginWithoutAnEntrySymbol_failsDescriptorAndSkipsTheRest() throws {
        let plugin = try compileFixture("no_entry_symbol.c", into: scratchDir)
        let result = try checkPlugin(plugin)
        XCTAssertEqual(result.status, 1, result.stdout)
        let lines = checkLines(result.stdout)
        XCTAssertEqual(lines.first?.name, "descriptor")
        XCTAssertEqual(lines.first?.status, "FAIL", result.stdout)
        XCTAssertEqual(lines.first?.detail, "no cellhost_plugin_entry symbol", result.stdout)
        XCTAssertEqual(lines.dropFirst().map(\.status), Array(repeating: "SKIP", count: Self.checkNames.count - 1),
                       result.stdout)
    }

    // MARK: Output and usage

    func test_jsonOutput_isOneObjectPerCheckInOrder() throws {
        let plugin = try compileFixture("declining_text_cell.c", into: scratchDir)
        let result = try checkPlugin(plugin, ["--json", "--width", "40"])
        XCTAssertEqual(result.status, 1, result.stdout)
        let objects = try result.stdout.split(separator: "\n").map { line -> [String: Any] in
            let value = try JSONSerialization.jsonObject(with: Data(line.utf8))
            return try XCTUnwrap(value as? [String: Any], "each line is a JSON object: \(line)")
        }
        XCTAssertEqual(objects.map { $0["check"] as? String }, Self.checkNames, result.stdout)
        XCTAssertEqual(Set(objects.map { $0["file"] as? String }), [plugin.path], result.stdout)
        for object in objects {
            XCTAssertTrue(["pass", "fail", "skip"].contains(object["status"] as? String ?? ""), "\(object)")
            XCTAssertNotNil(object["detail"] as? String, "\(object)")
        }
        XCTAssertEqual(objects.last?["status"] as? String, "fail", result.stdout)
    }

    func test_noFile_isAUsageError() throws {
        let result = try run(["check-plugin"], env: [:])
        XCTAssertEqual(result.status, 2)
        XCTAssertEqual(result.stdout, "")
        XCTAssertEqual(result.stderr, "cellhost: check-plugin needs a plugin file (see cellhost check-plugin --help)\n")
    }

    func test_fileThatDoesNotExist_isAUsageError() throws {
        let result = try run(["check-plugin", "/nonexistent/libnothing.so"], env: [:])
        XCTAssertEqual(result.status, 2)
        XCTAssertEqual(result.stderr, "cellhost: /nonexistent/libnothing.so: No such file or directory\n")
    }

    func test_unknownOption_isAUsageError() throws {
        let result = try run(["check-plugin", shipped("TextCell").path, "--frobnicate"], env: [:])
        XCTAssertEqual(result.status, 2)
        XCTAssertEqual(result.stderr, "cellhost: unknown option '--frobnicate' for 'check-plugin' (see cellhost check-plugin --help)\n")
    }

    func test_widthOutOfRange_isAUsageError() throws {
        let result = try run(["check-plugin", shipped("TextCell").path, "--width", "0"], env: [:])
        XCTAssertEqual(result.status, 2)
        XCTAssertEqual(result.stderr, "cellhost: --width must be a whole number from 1 to 1000, not '0'\n")
    }

    func test_help_describesTheCommandAndTheMainHelpListsIt() throws {
        let help = try run(["check-plugin", "--help"], env: [:])
        XCTAssertEqual(help.status, 0)
        XCTAssertTrue(help.stdout.hasPrefix("USAGE: cellhost check-plugin FILE.so"), help.stdout)
        let main = try run(["--help"], env: [:])
        XCTAssertTrue(main.stdout.contains("cellhost check-plugin FILE.so"), main.stdout)
    }
}

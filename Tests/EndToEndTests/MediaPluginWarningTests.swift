import Foundation
import XCTest

/// `render` says once on stderr when no plugin renders `file`, `image` or
/// `voice` messages (docs/cli.md, "Plugins: search path and order"): an
/// installation whose media plugins were not found renders such messages
/// through fallbacks, which is no error (exit status 0) but should not pass
/// unnoticed.
final class MediaPluginWarningTests: EndToEndTestCase {
    static let allMissing = "cellhost: no plugin renders file, image or voice messages; "
        + "they are shown by fallbacks (see cellhost list-plugins)\n"

    /// A copy of `cellhost` with only the named shipped plugins beside it.
    private func installation(with plugins: [String]) throws -> URL {
        let install = try makeDirectory("install")
        let built = binary.deletingLastPathComponent()
        for name in plugins {
            try FileManager.default.copyItem(at: built.appendingPathComponent("lib\(name).so"),
                                             to: install.appendingPathComponent("lib\(name).so"))
        }
        let host = install.appendingPathComponent("cellhost")
        try FileManager.default.copyItem(at: binary, to: host)
        return host
    }

    private func renderDemo(with host: URL, _ extra: [String] = []) throws -> (status: Int32, stdout: String, stderr: String) {
        let demo = Self.examplesDirectory.appendingPathComponent("conversation.jsonl")
        let result = try execute(host, ["render", demo.path, "--format", "json", "--paging", "never"] + extra,
                                 environment: cleanEnvironment(["TZ": "UTC"]), stdin: nil,
                                 currentDirectory: tempRoot, timeout: 120, file: #filePath, line: #line)
        return (result.status, String(decoding: result.stdout, as: UTF8.self), result.stderr)
    }

    func test_withTheShippedPlugins_nothingIsSaid() throws {
        let result = try renderDemo(with: binary)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertFalse(result.stderr.contains("no plugin renders"), result.stderr)
    }

    func test_withOnlyTheTextPlugin_oneLineNamesFileImageAndVoice_andEveryMessageStillRenders() throws {
        let host = try installation(with: ["TextCell"])
        let result = try renderDemo(with: host)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stderr, Self.allMissing)
        let records = try decodeJSONLines(RenderRecord.self, from: result.stdout, what: "render --format json")
        let demoLines = try String(contentsOf: Self.examplesDirectory.appendingPathComponent("conversation.jsonl"), encoding: .utf8)
            .split(separator: "\n").count
        XCTAssertEqual(records.count, demoLines, "every message is rendered")
        let voice = records.filter { $0.type == "voice" }
        XCTAssertFalse(voice.isEmpty)
        XCTAssertTrue(voice.allSatisfy { $0.plugin != "org.cellhost.voice" && $0.fallback != nil },
                      "voice messages are shown by fallbacks: \(voice.map { "\($0.className) (\($0.plugin))" })")
    }

    func test_withTheFilePlugin_onlyTheOthersAreNamed() throws {
        let host = try installation(with: ["TextCell", "FileCell"])
        let result = try renderDemo(with: host)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stderr, "cellhost: no plugin renders image or voice messages; "
            + "they are shown by fallbacks (see cellhost list-plugins)\n")
    }

    func test_aPluginRenderingTheTypes_fromThePluginPath_counts() throws {
        // The shipped media plugins, found through --plugin-path instead of beside the binary.
        let host = try installation(with: ["TextCell"])
        let elsewhere = try makeDirectory("media-plugins")
        for name in ["FileCell", "ImageCell", "VoiceCell"] {
            try FileManager.default.copyItem(at: binary.deletingLastPathComponent().appendingPathComponent("lib\(name).so"),
                                             to: elsewhere.appendingPathComponent("lib\(name).so"))
        }
        let result = try renderDemo(with: host, ["--plugin-path", elsewhere.path])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stderr, "")
    }

    func test_listPlugins_doesNotWarn() throws {
        let host = try installation(with: ["TextCell"])
        let result = try execute(host, ["list-plugins"], environment: cleanEnvironment([:]), stdin: nil,
                                 currentDirectory: tempRoot, timeout: 60, file: #filePath, line: #line)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stderr, "")
    }
}

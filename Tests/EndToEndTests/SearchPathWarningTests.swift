import Foundation
import XCTest

/// Plugin search path entries that would be surprising are ignored with a
/// warning, and a `--plugin-path` that cannot be searched is reported.
final class SearchPathWarningTests: EndToEndTestCase {
    func test_emptyPluginPath_isIgnoredWithAWarning_notTheCurrentDirectory() throws {
        let cwd = try makeDirectory("cwd")
        try compileFixture("hello.c", into: cwd)
        let result = try run(["list-plugins", "--json", "--plugin-path", ""], env: [:], currentDirectory: cwd)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stderr.contains("cellhost: --plugin-path '': empty directory name, ignored\n"), result.stderr)
        let report = try decode(PluginReport.self, from: result.stdout, what: "list-plugins --json")
        XCTAssertFalse(report.plugins.contains { $0.id == "test.hello" })
    }

    func test_pluginPathThatDoesNotExist_isAWarning() throws {
        let missing = tempRoot.appendingPathComponent("missing").path
        let result = try run(["list-plugins", "--plugin-path", missing])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stderr.contains("cellhost: --plugin-path \(missing): no such directory\n"), result.stderr)
    }

    func test_pluginPathThatIsAFile_isAWarning() throws {
        let file = try writeFile("plain.txt", Data("x".utf8), in: scratchDir)
        let result = try run(["list-plugins", "--plugin-path", file.path])
        XCTAssertTrue(result.stderr.contains("cellhost: --plugin-path \(file.path): not a directory\n"), result.stderr)
    }

    func test_relativePluginPathOnTheCommandLine_isTheCurrentDirectorysSubdirectory() throws {
        let cwd = try makeDirectory("cwd")
        let sub = cwd.appendingPathComponent("mine", isDirectory: true)
        try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true)
        try compileFixture("hello.c", into: sub)
        let result = try run(["list-plugins", "--json", "--plugin-path", "mine"], env: [:], currentDirectory: cwd)
        let report = try decode(PluginReport.self, from: result.stdout, what: "list-plugins --json")
        XCTAssertTrue(report.plugins.contains { $0.id == "test.hello" }, result.stderr)
        XCTAssertEqual(result.stderr, "")
    }

    func test_relativeEnvironmentEntry_isIgnoredWithAWarning() throws {
        let cwd = try makeDirectory("cwd")
        let sub = cwd.appendingPathComponent("rel", isDirectory: true)
        try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true)
        try compileFixture("hello.c", into: sub)
        let result = try run(["list-plugins", "--json"], env: ["CELLHOST_PLUGIN_PATH": "rel"], currentDirectory: cwd)
        XCTAssertTrue(result.stderr.contains(
            "cellhost: CELLHOST_PLUGIN_PATH: relative entry 'rel' ignored (entries must be absolute)\n"), result.stderr)
        let report = try decode(PluginReport.self, from: result.stdout, what: "list-plugins --json")
        XCTAssertFalse(report.plugins.contains { $0.id == "test.hello" })
    }

    func test_emptyEnvironmentEntry_isIgnoredWithAWarning() throws {
        let cwd = try makeDirectory("cwd")
        try compileFixture("hello.c", into: cwd)
        let result = try run(["list-plugins", "--json"], env: ["CELLHOST_PLUGIN_PATH": pluginDir.path + "::"],
                             currentDirectory: cwd)
        XCTAssertEqual(result.stderr, "cellhost: CELLHOST_PLUGIN_PATH: empty entry ignored\n"
                       + "cellhost: CELLHOST_PLUGIN_PATH: empty entry ignored\n")
        let report = try decode(PluginReport.self, from: result.stdout, what: "list-plugins --json")
        XCTAssertFalse(report.plugins.contains { $0.id == "test.hello" })
    }
}

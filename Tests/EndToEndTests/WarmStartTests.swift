import Foundation
import XCTest

/// A warm run (every plugin in the plugin cache; classes linked when first
/// used) lists and renders exactly what a cold one does (the cache removed:
/// every plugin described again): the same records, rejections, registry,
/// winners, fallbacks and overrides, with the same diagnostics.
final class WarmStartTests: EndToEndTestCase {
    var cacheFile: URL { tempRoot.appendingPathComponent(".cache/cellhost/plugins.cache") }

    override func setUpWithError() throws {
        try super.setUpWithError()
        let later = try makeDirectory("later")
        try compileFixture("text_rank5.c")
        try compileFixture("declining_text_cell.c")
        try compileFixture("sub_text_plain.c")
        try compileFixture("missing_superclass.c")
        try compileFixture("hostile.c")
        try compileFixture("hostile.c", as: "twin", extraFlags: ["-DPLUGIN_ID=\"test.twin\""], into: later)
        try compileFixture("hostile.c", as: "other", extraFlags: ["-DPLUGIN_ID=\"test.other\"", "-DCLASS_NAME=\"OtherCell\""],
                           into: later)
        try compileFixture("text_rank0.c", into: later)
    }

    private var environment: [String: String] {
        ["CELLHOST_PLUGIN_PATH": pluginDir.path + ":" + tempRoot.appendingPathComponent("later").path]
    }

    /// stdout and stderr of `arguments`, cold (no cache) then warm.
    private func coldAndWarm(_ arguments: [String], stdin: Data? = nil) throws -> [(stdout: String, stderr: String)] {
        try? FileManager.default.removeItem(at: cacheFile)
        return try (0..<2).map { _ in
            let result = try run(arguments, env: environment, stdin: stdin)
            return (result.stdout, result.stderr)
        }
    }

    func test_theWarmListing_isTheColdListing() throws {
        for arguments in [["list-plugins", "--json"], ["list-plugins", "--verbose"]] {
            let runs = try coldAndWarm(arguments)
            XCTAssertEqual(runs[1].stdout, runs[0].stdout, "\(arguments)")
            XCTAssertEqual(runs[1].stderr, runs[0].stderr, "\(arguments)")
            XCTAssertTrue(FileManager.default.fileExists(atPath: cacheFile.path))
        }
        let report = try listPlugins(env: environment)
        XCTAssertEqual(report.row("hostile")?.winner?.className, "HostileCell")
        XCTAssertEqual(report.row("hostile")?.shadowed.map(\.className), ["OtherCell"])
    }

    func test_theWarmRender_isTheColdRender() throws {
        let messages = [
            #"{"id":"1","type":"text","text":"plain"}"#,
            #"{"id":"2","type":"hostile","n":1}"#,
            #"{"id":"3","type":"file","text":"f","file":{"name":"notes.txt"}}"#,
            #"{"id":"4","type":"nosuch","text":"?"}"#,
            #"{"id":"5","type":"text","text":"a reply","reply_to":"1"}"#,
        ]
        let input = Data((messages.joined(separator: "\n") + "\n").utf8)
        for extra in [[], ["--isolation", "none"], ["--renderer", "text=RankZeroTextCell"], ["--renderer", "hostile=OtherCell"]] {
            let runs = try coldAndWarm(["render", "-", "--format", "json", "--width", "60"] + extra, stdin: input)
            XCTAssertEqual(runs[1].stdout, runs[0].stdout, "\(extra)")
            XCTAssertEqual(runs[1].stderr, runs[0].stderr, "\(extra)")
        }
        let (rendered, stderr) = try renderJSON(messages, env: environment)
        // Rank 10 for text: DecliningTextCell and SubTextCell, the later file registered later, so first.
        XCTAssertEqual(rendered.map(\.className), ["SubTextCell", "HostileCell", "FileMessageCell", "UnknownMessageCell", "SubTextCell"])
        XCTAssertTrue(stderr.contains("/hostile.so: class 'HostileCell' rejected: a class of that name is already defined by test.twin"),
                      stderr)
        XCTAssertTrue(stderr.contains("missing_superclass.so: class 'OrphanCell' rejected: superclass 'NoSuchBaseCell' not found"),
                      stderr)
    }
}

import Foundation
import XCTest

/// The effective registry: the message-class tree, which candidate wins a
/// message class (rank, then registration order), and user overrides from
/// `--renderer` and the config file.
final class RegistryTests: EndToEndTestCase {

    // MARK: - The tree and the shipped winners

    func test_hostDeclaresTheMessageClassTree() throws {
        let report = try listPlugins()
        let expectedParents: [String: String?] = [
            "text": nil, "file": nil, "poll": nil,
            "image": "file", "voice": "file", "video": "file",
            "sticker": "image",
        ]
        for (name, parent) in expectedParents {
            guard let declared = report.messageClass(name) else {
                XCTFail("message class \(name) missing from \(report.messageClasses.map(\.name))")
                continue
            }
            XCTAssertEqual(declared.parent, parent, "parent of \(name)")
            XCTAssertEqual(declared.declaredBy, hostPluginID, "\(name) is declared by the host")
            XCTAssertEqual(report.row(name)?.parent, parent, "registry row of \(name) shows its parent")
        }
    }

    func test_shippedClassesWinTheirMessageClassesAtRankZeroWithoutOverride() throws {
        let report = try listPlugins()
        for shipped in shippedPlugins {
            let winner = report.row(shipped.messageClass)?.winner
            XCTAssertEqual(winner?.className, shipped.className, shipped.messageClass)
            XCTAssertEqual(winner?.plugin, shipped.id, shipped.messageClass)
            XCTAssertEqual(winner?.rank, 0, shipped.messageClass)
            XCTAssertEqual(winner?.override, false, shipped.messageClass)
        }
    }

    // MARK: - Rank

    func test_higherRankedPluginClass_beatsTheShippedClass_whichStaysListedAsShadowed() throws {
        try compileFixture("text_rank5.c", as: "librank5")

        let report = try listPlugins()
        assertShippedPluginsLoaded(report)
        let row = try XCTUnwrap(report.row("text"))
        XCTAssertEqual(row.winner?.className, "RankFiveTextCell")
        XCTAssertEqual(row.winner?.plugin, "test.rank5")
        XCTAssertEqual(row.winner?.rank, 5)
        XCTAssertEqual(row.winner?.override, false)
        let shadowed = try XCTUnwrap(row.shadowed("TextMessageCell"), "shadowed: \(row.shadowed.map(\.className))")
        XCTAssertEqual(shadowed.plugin, "org.cellhost.text")
        XCTAssertEqual(shadowed.rank, 0)
    }

    func test_equalRankedPluginClass_beatsTheShippedClass_becauseEarlierDirectoriesRegisterLater() throws {
        // Equal ranks go to the later registration. Plugins are found in
        // search-path order, but registered from the LAST directory to the
        // first (docs/cli.md), so a plugin in CELLHOST_PLUGIN_PATH registers
        // after the shipped ones beside the executable and wins the tie:
        // dropping a .so into a plugin directory is enough to take over.
        try compileFixture("text_rank0.c", as: "librank0")

        let report = try listPlugins()
        assertShippedPluginsLoaded(report)
        let row = try XCTUnwrap(report.row("text"))
        XCTAssertEqual(row.winner?.className, "RankZeroTextCell")
        XCTAssertEqual(row.winner?.plugin, "test.rank0")
        XCTAssertEqual(row.winner?.override, false)
        let shadowed = try XCTUnwrap(row.shadowed("TextMessageCell"), "shadowed: \(row.shadowed.map(\.className))")
        XCTAssertEqual(shadowed.plugin, "org.cellhost.text")
        XCTAssertEqual(shadowed.rank, 0)
    }

    // MARK: - --renderer

    func test_rendererOption_makesTheNamedClassWinWithOverride() throws {
        try compileFixture("hello.c", as: "libhello")

        let report = try listPlugins(["--renderer", "text=HelloCell"])
        let row = try XCTUnwrap(report.row("text"))
        XCTAssertEqual(row.winner?.className, "HelloCell")
        XCTAssertEqual(row.winner?.plugin, "test.hello")
        XCTAssertEqual(row.winner?.override, true)
        XCTAssertNotNil(row.shadowed("TextMessageCell"), "the displaced winner stays listed")

        let (messages, _) = try renderJSON([#"{"id":"1","type":"text","text":"world"}"#],
                                           extraArgs: ["--renderer", "text=HelloCell"])
        XCTAssertEqual(messages.map(\.className), ["HelloCell"])
        XCTAssertEqual(messages.first?.plugin, "test.hello")
    }

    func test_rendererOption_beatsAHigherRank() throws {
        try compileFixture("text_rank5.c", as: "librank5")

        let report = try listPlugins(["--renderer", "text=TextMessageCell"])
        XCTAssertEqual(report.row("text")?.winner?.className, "TextMessageCell")
        XCTAssertEqual(report.row("text")?.winner?.override, true)
        XCTAssertNotNil(report.row("text")?.shadowed("RankFiveTextCell"))
    }

    func test_rendererOptionNamingAnUnknownClass_isAUsageError() throws {
        let result = try run(["render", "-", "--format", "json", "--renderer", "text=NoSuchCell"],
                             env: defaultEnvironment,
                             stdin: Data((#"{"id":"1","type":"text","text":"hi"}"# + "\n").utf8))
        XCTAssertEqual(result.status, 2, "stderr:\n\(result.stderr)")
        XCTAssertTrue(result.stderr.contains("NoSuchCell"), "stderr:\n\(result.stderr)")
    }

    // MARK: - Config file

    func test_configFileRenderers_makeTheNamedClassWinWithOverride() throws {
        try compileFixture("hello.c", as: "libhello")
        try writeConfig("[renderers]\ntext = HelloCell\n")

        let report = try listPlugins()
        let row = try XCTUnwrap(report.row("text"))
        XCTAssertEqual(row.winner?.className, "HelloCell")
        XCTAssertEqual(row.winner?.plugin, "test.hello")
        XCTAssertEqual(row.winner?.override, true)

        let (messages, _) = try renderJSON([#"{"id":"1","type":"text","text":"world"}"#])
        XCTAssertEqual(messages.map(\.className), ["HelloCell"])
    }

    func test_configFileNamingAnUnknownClass_isAnErrorNamingTheFileAndTheClass() throws {
        let config = try writeConfig("[renderers]\ntext = NoSuchConfiguredCell\n")

        let result = try run(["render", "-", "--format", "json"], env: defaultEnvironment,
                             stdin: Data((#"{"id":"1","type":"text","text":"hi"}"# + "\n").utf8))
        XCTAssertEqual(result.status, 2, "stderr:\n\(result.stderr)")
        XCTAssertTrue(result.stderr.contains(config.path), "names the config file; stderr:\n\(result.stderr)")
        XCTAssertTrue(result.stderr.contains("NoSuchConfiguredCell"), "names the class; stderr:\n\(result.stderr)")
    }

    // MARK: - Helpers

    /// Writes `$XDG_CONFIG_HOME/cellhost/config`.
    @discardableResult
    private func writeConfig(_ text: String) throws -> URL {
        let dir = configHome.appendingPathComponent("cellhost", isDirectory: true)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let url = dir.appendingPathComponent("config")
        try Data(text.utf8).write(to: url)
        return url
    }
}

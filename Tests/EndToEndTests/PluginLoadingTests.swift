import Foundation
import XCTest

/// Finding and loading good plugins: what `list-plugins --json` says about
/// them, where the host looks, in which order, and how load problems reach
/// the user whatever the command.
final class PluginLoadingTests: EndToEndTestCase {

    // MARK: - A clean installation

    func test_cleanInstallation_loadsTheShippedPluginsWithoutDiagnostics() throws {
        let listing = try listPluginsRun()
        let report = listing.report

        XCTAssertEqual(report.abi, try ABIHeaders.version())
        assertShippedPluginsLoaded(report)
        XCTAssertEqual(report.diagnostics, [])
        XCTAssertEqual(stderrDiagnostics(listing.stderr, containing: []), [],
                       "nothing to report on stderr")
        for plugin in report.plugins {
            XCTAssertTrue(plugin.file.hasPrefix("/"), "file is absolute: \(plugin.file)")
        }
    }

    func test_hostClasses_belongToPluginCellhost_whichIsNotListedAsAPlugin() throws {
        let report = try listPlugins()

        XCTAssertTrue(report.plugins(id: hostPluginID).isEmpty)
        let classNames = report.plugins.flatMap { $0.classes.map(\.name) }
        XCTAssertFalse(classNames.contains("MessageCell"))
        XCTAssertFalse(classNames.contains("UnknownMessageCell"))
    }

    // MARK: - A good C plugin

    func test_wellFormedCPlugin_isLoadedWithItsClassAndWinsItsNewMessageClass() throws {
        let library = try compileFixture("hello.c", as: "libhello")

        let report = try listPlugins()
        assertShippedPluginsLoaded(report)
        guard let plugin = report.plugin(atPath: library.path) else {
            return XCTFail("libhello.so not listed: \(report.plugins.map(\.file))")
        }
        XCTAssertEqual(plugin.state, .loaded, plugin.error ?? "")
        XCTAssertNil(plugin.error)
        XCTAssertEqual(plugin.id, "test.hello")
        XCTAssertEqual(plugin.version, "1.0.0")
        XCTAssertEqual(plugin.abi, try ABIHeaders.version())
        XCTAssertEqual(plugin.description, "Says hello")
        XCTAssertEqual(plugin.author, "CellHost tests")
        XCTAssertEqual(plugin.license, "MIT")
        XCTAssertEqual(plugin.rejectedClasses.map(\.name), [])

        XCTAssertEqual(plugin.classes.map(\.name), ["HelloCell"])
        let cell = try XCTUnwrap(plugin.class("HelloCell"))
        XCTAssertEqual(cell.superclass, "MessageCell", "a NULL superclass means MessageCell")
        XCTAssertEqual(cell.messageClasses, ["hello"])
        XCTAssertEqual(cell.rank, 0)
        XCTAssertEqual(cell.methods, [MethodEntry(selector: try ABIHeaders.stringMacro("CELLHOST_SEL_RENDER"),
                                                  types: try ABIHeaders.stringMacro("CELLHOST_TYPES_RENDER"))])

        let declared = try XCTUnwrap(report.messageClass("hello"), "hello is in the message-class tree")
        XCTAssertNil(declared.parent)
        XCTAssertEqual(declared.declaredBy, "test.hello")

        let row = try XCTUnwrap(report.row("hello"))
        XCTAssertNil(row.parent)
        XCTAssertEqual(row.winner?.className, "HelloCell")
        XCTAssertEqual(row.winner?.plugin, "test.hello")
        XCTAssertEqual(row.winner?.rank, 0)
        XCTAssertEqual(row.winner?.override, false)
    }

    func test_wellFormedCPlugin_rendersMessagesOfItsClass() throws {
        try compileFixture("hello.c", as: "libhello")

        let (messages, _) = try renderJSON([#"{"id":"h1","type":"hello","text":"world"}"#])
        XCTAssertEqual(messages.count, 1)
        XCTAssertEqual(messages.first?.id, "h1")
        XCTAssertEqual(messages.first?.type, "hello")
        XCTAssertEqual(messages.first?.className, "HelloCell")
        XCTAssertEqual(messages.first?.plugin, "test.hello")
        XCTAssertNil(messages.first?.fallback)
        XCTAssertTrue(messages.first?.lines.contains { $0.contains("Hello, world") } ?? false,
                      "lines: \(messages.first?.lines ?? [])")
    }

    func test_pluginRegisteringAClassFromInit_isListedWithThatClass() throws {
        let library = try compileFixture("registers_at_init.c", as: "libruntime")

        let report = try listPlugins()
        assertShippedPluginsLoaded(report)
        let plugin = try XCTUnwrap(report.plugin(atPath: library.path))
        XCTAssertEqual(plugin.state, .loaded, plugin.error ?? "")
        XCTAssertEqual(plugin.id, "test.runtime")
        XCTAssertEqual(plugin.classes.map(\.name), ["RuntimeCell"])
        XCTAssertEqual(plugin.class("RuntimeCell")?.messageClasses, ["runtime"])
        XCTAssertEqual(report.messageClass("runtime")?.declaredBy, "test.runtime")
        XCTAssertEqual(report.row("runtime")?.winner?.className, "RuntimeCell")
        XCTAssertEqual(report.row("runtime")?.winner?.plugin, "test.runtime")
    }

    // MARK: - Search path and load order

    func test_searchPath_isPluginPathThenEnvironmentThenXDGDataThenExecutableDirectoryLast() throws {
        let optionDir = try makeDirectory("option-plugins")
        let envDirs = [try makeDirectory("env-plugins-1"), try makeDirectory("env-plugins-2")]
        let xdgDir = try makeDirectory("xdg-data/cellhost/plugins")

        let report = try listPlugins(["--plugin-path", optionDir.path],
                                     env: ["CELLHOST_PLUGIN_PATH": envDirs.map(\.path).joined(separator: ":")])

        let searched = report.searchPath.map(canonicalDirectory)
        let expectedOrder = [optionDir] + envDirs + [xdgDir]
        let positions = expectedOrder.map { searched.firstIndex(of: canonicalDirectory($0.path)) }
        XCTAssertFalse(positions.contains(nil), "all of \(expectedOrder.map(\.path)) in \(report.searchPath)")
        let found = positions.compactMap { $0 }
        XCTAssertEqual(found, found.sorted(), "search order; search_path: \(report.searchPath)")
        XCTAssertEqual(found.first, 0, "--plugin-path comes first")
        XCTAssertEqual(searched.last, canonicalDirectory(binary.deletingLastPathComponent().path),
                       "the directory of the executable comes last")
        for dir in report.searchPath {
            XCTAssertTrue(dir.hasPrefix("/"), "search_path entries are absolute: \(dir)")
        }
    }

    func test_plugins_areListedInSearchPathOrderThenFileName() throws {
        // Failed files are listed in load order too, so damaged files serve as
        // cheap markers around one real plugin.
        try writeFile("z_junk.so", Data("junk".utf8))
        try compileFixture("hello.c", as: "m_hello")
        try writeFile("a_empty.so", Data())

        let report = try listPlugins()
        let names = report.plugins.map { ($0.file as NSString).lastPathComponent }
        let ours = ["a_empty.so", "m_hello.so", "z_junk.so"]
        XCTAssertEqual(names.filter(ours.contains), ours, "file-name order within a directory")
        let lastOfOurs = try XCTUnwrap(names.firstIndex(of: "z_junk.so"))
        for shipped in shippedPlugins {
            let index = try XCTUnwrap(report.plugins.firstIndex { $0.id == shipped.id })
            XCTAssertGreaterThan(index, lastOfOurs,
                                 "\(shipped.id) sits beside the executable, last in the search path")
        }
    }

    func test_pluginPathOption_isSearchedBeforeTheEnvironment_soItsCopyOfADuplicateIDWins() throws {
        let optionDir = try makeDirectory("option-plugins")
        let envDir = try makeDirectory("env-plugins")
        let fromOption = try compileFixture("duplicate_id.c", as: "dup", into: optionDir)
        let fromEnv = try compileFixture("duplicate_id.c", as: "dup", into: envDir)

        let listing = try listPluginsRun(["--plugin-path", optionDir.path],
                                         env: ["CELLHOST_PLUGIN_PATH": envDir.path])
        let report = listing.report
        assertShippedPluginsLoaded(report)

        let winner = try XCTUnwrap(report.plugin(atPath: fromOption.path), "\(report.plugins.map(\.file))")
        XCTAssertEqual(winner.state, .loaded, winner.error ?? "")
        XCTAssertEqual(winner.id, "test.dup")

        let loser = try XCTUnwrap(report.plugin(atPath: fromEnv.path), "\(report.plugins.map(\.file))")
        XCTAssertEqual(loser.state, .failed)
        XCTAssertTrue(loser.error?.contains("duplicate plugin id") ?? false, loser.error ?? "null error")
        XCTAssertTrue(report.diagnostics.contains { $0.contains(fromEnv.path) && $0.contains("duplicate plugin id") },
                      "\(report.diagnostics)")

        let optionIndex = try XCTUnwrap(report.plugins.firstIndex { $0.file == winner.file })
        let envIndex = try XCTUnwrap(report.plugins.firstIndex { $0.file == loser.file })
        XCTAssertLessThan(optionIndex, envIndex, "load order follows the search path")
    }

    // MARK: - Diagnostics reach every command

    func test_loadDiagnostic_isTheFileAndReason_andEveryCommandPrintsItOnStderr() throws {
        let junk = try writeFile("junk.so", Data("not a library".utf8))

        let listing = try listPluginsRun()
        let entry = try XCTUnwrap(listing.report.plugin(atPath: junk.path))
        let error = try XCTUnwrap(entry.error)
        let diagnostic = "\(entry.file): \(error)"
        XCTAssertEqual(listing.report.diagnostics, [diagnostic], "diagnostics are \"<file>: <reason>\"")
        XCTAssertTrue(listing.stderr.contains("cellhost: \(diagnostic)"), "list-plugins --json stderr:\n\(listing.stderr)")

        let human = try run(["list-plugins"], env: defaultEnvironment)
        XCTAssertEqual(human.status, 1, "a failed plugin makes list-plugins exit 1")
        XCTAssertTrue(human.stderr.contains("cellhost: \(diagnostic)"), "list-plugins stderr:\n\(human.stderr)")

        // A broken plugin does not stop rendering either.
        let (messages, renderStderr) = try renderJSON([#"{"id":"1","type":"text","text":"still here"}"#])
        XCTAssertTrue(renderStderr.contains("cellhost: \(diagnostic)"), "render stderr:\n\(renderStderr)")
        XCTAssertEqual(messages.map(\.className), ["TextMessageCell"])
        XCTAssertEqual(messages.first?.plugin, "org.cellhost.text")
    }
}

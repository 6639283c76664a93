import Foundation
import XCTest

/// The plugin cache: a warm `list-plugins` opens no plugin, `render` opens
/// only the plugins its messages need, changed files are scanned again,
/// failed ones are not retried, and a broken cache is rebuilt with one warning.
final class PluginCacheTests: EndToEndTestCase {
    var marker: URL { tempRoot.appendingPathComponent("opened.log") }
    var cacheFile: URL { tempRoot.appendingPathComponent(".cache/cellhost/plugins.cache") }

    var environment: [String: String] {
        defaultEnvironment.merging(["HOSTILE_MARKER": marker.path]) { $1 }
    }

    /// How many times a hostile plugin's library was opened (its constructor ran).
    var opens: Int {
        ((try? String(contentsOf: marker, encoding: .utf8)) ?? "").split(separator: "\n").count
    }

    @discardableResult
    func listPlugins(_ extra: [String] = []) throws -> (status: Int32, stdout: String, stderr: String) {
        let result = try run(["list-plugins", "--json"] + extra, env: environment)
        return (result.status, result.stdout, result.stderr)
    }

    func test_warmListPlugins_opensNoPlugin() throws {
        try compileFixture("hostile.c", as: "good")
        try listPlugins()
        XCTAssertEqual(opens, 1, "the cold run describes the plugin once (in the scanner)")
        let warm = try listPlugins()
        XCTAssertEqual(warm.status, 0)
        XCTAssertEqual(opens, 1, "the warm run answers from the cache")
        XCTAssertTrue(warm.stdout.contains("\"HostileCell\""), "the cached classes are listed")
    }

    func test_render_opensOnlyThePluginsItsMessagesNeed() throws {
        try compileFixture("hostile.c", as: "good")
        try listPlugins()
        let (text, _) = try renderJSON([#"{"id":"1","type":"text","text":"plain"}"#], env: environment)
        XCTAssertEqual(text.map(\.className), ["TextMessageCell"])
        XCTAssertEqual(opens, 1, "a text message does not open the hostile plugin")
        let (hostile, _) = try renderJSON([#"{"id":"2","type":"hostile","n":1}"#, #"{"id":"3","type":"hostile","n":2}"#],
                                          env: environment)
        XCTAssertEqual(hostile.map(\.className), ["HostileCell", "HostileCell"])
        XCTAssertEqual(opens, 2, "the first hostile message opens it, once")
    }

    func test_changedFile_isScannedAgain() throws {
        try compileFixture("hostile.c", as: "good")
        try listPlugins()
        try compileFixture("hostile.c", as: "good", extraFlags: ["-DPLUGIN_ID=\"test.rebuilt\""])
        let result = try listPlugins()
        XCTAssertEqual(opens, 2)
        XCTAssertTrue(result.stdout.contains("\"test.rebuilt\""), result.stdout)
    }

    func test_failedPlugin_isNotRetriedUntilItsFileChanges() throws {
        try compileFixture("hostile.c", as: "exits", extraFlags: ["-DCTOR_EXIT=3"])
        let first = try listPlugins()
        let second = try listPlugins()
        XCTAssertEqual(opens, 1, "the failure is cached")
        XCTAssertEqual(first.status, 1)
        XCTAssertEqual(second.status, 1)
        XCTAssertTrue(second.stderr.contains("exits.so: exited with status 3 while loading"), second.stderr)
    }

    func test_rescan_scansEveryPluginAgain() throws {
        try compileFixture("hostile.c", as: "good")
        try listPlugins()
        try listPlugins(["--rescan"])
        XCTAssertEqual(opens, 2)
    }

    func test_corruptCache_isRebuiltWithOneWarning() throws {
        try compileFixture("hostile.c", as: "good")
        try listPlugins()
        var bytes = [UInt8](try Data(contentsOf: cacheFile))
        bytes[bytes.count / 2] ^= 0x55
        try Data(bytes).write(to: cacheFile)
        let broken = try listPlugins()
        XCTAssertEqual(broken.status, 0)
        XCTAssertEqual(broken.stderr, "cellhost: \(cacheFile.path): the plugin cache is corrupt; rebuilding it\n")
        XCTAssertEqual(opens, 2)
        let after = try listPlugins()
        XCTAssertEqual(after.stderr, "", "the rebuilt cache is read without a warning")
        XCTAssertEqual(opens, 2)
    }

    func test_foreignFile_isRebuiltWithOneWarning() throws {
        try compileFixture("hostile.c", as: "good")
        try FileManager.default.createDirectory(at: cacheFile.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(#"{"format":1,"entries":[]}"#.utf8).write(to: cacheFile)
        let result = try listPlugins()
        XCTAssertEqual(result.stderr, "cellhost: \(cacheFile.path): the plugin cache is corrupt; rebuilding it\n")
        XCTAssertEqual(opens, 1)
    }

    func test_truncatedCache_isRebuiltWithOneWarning() throws {
        try compileFixture("hostile.c", as: "good")
        try listPlugins()
        let whole = try Data(contentsOf: cacheFile)
        try whole.prefix(whole.count / 2).write(to: cacheFile)
        let broken = try listPlugins()
        XCTAssertEqual(broken.stderr, "cellhost: \(cacheFile.path): the plugin cache is corrupt; rebuilding it\n")
        XCTAssertEqual(try Data(contentsOf: cacheFile), whole, "the rebuilt cache equals the original")
    }

    func test_cacheOfAnotherFormat_isReplacedSilently() throws {
        try compileFixture("hostile.c", as: "good")
        try FileManager.default.createDirectory(at: cacheFile.deletingLastPathComponent(), withIntermediateDirectories: true)
        // The header of a format-999 cache, with a valid checksum.
        var bytes = Array("CELLHOST-PLUGINS".utf8) + [0xE7, 0x03, 0, 0]
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        bytes += (0..<8).map { UInt8(truncatingIfNeeded: hash >> (8 * $0)) }
        try Data(bytes).write(to: cacheFile)
        let result = try listPlugins()
        XCTAssertEqual(result.stderr, "")
        XCTAssertEqual(opens, 1)
        try listPlugins()
        XCTAssertEqual(opens, 1, "it was rewritten in this host's format")
    }

    func test_concurrentScans_neverSeeATornCache() throws {
        try compileFixture("hostile.c", as: "good")
        try compileFixture("hello.c")
        let processes: [Process] = try (0..<6).map { _ in
            let process = Process()
            process.executableURL = binary
            process.arguments = ["list-plugins", "--json", "--rescan"]
            process.environment = cleanEnvironment(environment)
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            return process
        }
        for process in processes { process.waitUntilExit() }
        XCTAssertEqual(processes.map(\.terminationStatus), Array(repeating: 0, count: 6))
        let after = try listPlugins()
        XCTAssertEqual(after.stderr, "", "the cache left behind is whole")
        XCTAssertEqual(opens, 6, "and answers the next run")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: cacheFile.deletingLastPathComponent().path)
        XCTAssertEqual(leftovers, ["plugins.cache"], "no temporary file is left behind")
    }
}

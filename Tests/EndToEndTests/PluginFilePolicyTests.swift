import Foundation
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// Plugin files someone else could have written are refused, like OpenSSH's
/// StrictModes; `--allow-insecure-plugins` accepts them.
final class PluginFilePolicyTests: EndToEndTestCase {

    func test_groupWritablePluginFile_isRefusedWithHowToFixIt() throws {
        let plugin = try compileFixture("hello.c")
        XCTAssertEqual(chmod(plugin.path, 0o664), 0)
        let report = try listPlugins()
        let entry = try XCTUnwrap(report.plugin(atPath: plugin.path))
        XCTAssertEqual(entry.error, "refused: the file is writable by group or others; fix with `chmod go-w '\(plugin.path)'`, "
                       + "or pass --allow-insecure-plugins")
    }

    func test_worldWritablePluginDirectory_isRefused() throws {
        let plugin = try compileFixture("hello.c")
        XCTAssertEqual(chmod(pluginDir.path, 0o777), 0)
        let entry = try XCTUnwrap(try listPlugins().plugin(atPath: plugin.path))
        XCTAssertEqual(entry.error, "refused: its directory \(pluginDir.path) is writable by group or others; "
                       + "fix with `chmod go-w '\(pluginDir.path)'`, or pass --allow-insecure-plugins")
    }

    func test_pluginOwnedByAnotherUser_isRefused() throws {
        let plugin = try compileFixture("hello.c")
        guard geteuid() == 0 else { throw XCTSkip("giving a file to another user needs root") }
        XCTAssertEqual(chown(plugin.path, 65534, 65534), 0)
        let entry = try XCTUnwrap(try listPlugins().plugin(atPath: plugin.path))
        XCTAssertEqual(entry.error, "refused: the file is owned by uid 65534, not by root or you (uid 0); "
                       + "fix with `chown 0 '\(plugin.path)'`, or pass --allow-insecure-plugins")
    }

    func test_allowInsecurePlugins_loadsARefusedFile() throws {
        let plugin = try compileFixture("hello.c")
        XCTAssertEqual(chmod(plugin.path, 0o666), 0)
        let entry = try XCTUnwrap(try listPlugins(["--allow-insecure-plugins"]).plugin(atPath: plugin.path))
        XCTAssertEqual(entry.state, .loaded)
        let (messages, _) = try renderJSON([#"{"id":"1","type":"hello","text":"you"}"#], extraArgs: ["--allow-insecure-plugins"])
        XCTAssertEqual(messages.map(\.className), ["HelloCell"])
    }

    func test_refusedPlugin_isNotUsedByRender() throws {
        let plugin = try compileFixture("hello.c")
        XCTAssertEqual(chmod(plugin.path, 0o666), 0)
        let (messages, stderr) = try renderJSON([#"{"id":"1","type":"hello","text":"you"}"#])
        XCTAssertEqual(messages.map(\.className), ["UnknownMessageCell"])
        XCTAssertTrue(stderr.contains("\(plugin.path): refused: the file is writable by group or others"), stderr)
    }
}

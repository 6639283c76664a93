import Foundation
import XCTest

/// Plugins are described in a scanner child process: a plugin whose
/// constructor or `init` crashes, aborts, exits, hangs or prints is recorded
/// as failed with a one-line reason, nothing it writes reaches stdout, and
/// every other plugin still loads.
final class PluginScanTests: EndToEndTestCase {

    /// Compiles `hostile.c` with `flags` as `<name>.so` in the plugin directory.
    @discardableResult
    func hostile(_ name: String, _ flags: [String], id: String? = nil) throws -> URL {
        try compileFixture("hostile.c", as: name, extraFlags: flags + ["-DPLUGIN_ID=\"\(id ?? "test.\(name)")\""])
    }

    /// Lists plugins; asserts that `hello` still loaded and that stdout is the
    /// JSON report alone; returns the reason recorded for `file`.
    func reason(for file: URL, file callerFile: StaticString = #filePath, line: UInt = #line) throws -> String? {
        try compileFixture("hello.c")
        let result = try run(["list-plugins", "--json"], env: defaultEnvironment, timeout: 30)
        XCTAssertEqual(result.status, 1, "a failed plugin makes list-plugins exit 1", file: callerFile, line: line)
        let report = try decode(PluginReport.self, from: result.stdout, what: "list-plugins --json", file: callerFile, line: line)
        XCTAssertEqual(report.plugins(id: "test.hello").first?.state, .loaded, "the other plugin still loads", file: callerFile, line: line)
        let entry = try XCTUnwrap(report.plugin(atPath: file.path), file: callerFile, line: line)
        XCTAssertEqual(entry.state, .failed, file: callerFile, line: line)
        XCTAssertTrue(result.stderr.contains("cellhost: \(file.path): \(entry.error ?? "")"), "stderr:\n\(result.stderr)",
                      file: callerFile, line: line)
        return entry.error
    }

    func test_constructorThatSegfaults_isKilledBySIGSEGVWhileLoading() throws {
        let plugin = try hostile("ctor_segv", ["-DCTOR_SEGV"])
        XCTAssertEqual(try reason(for: plugin), "killed by SIGSEGV while loading")
    }

    func test_constructorThatAborts_isKilledBySIGABRTWhileLoading() throws {
        let plugin = try hostile("ctor_abort", ["-DCTOR_ABORT"])
        XCTAssertEqual(try reason(for: plugin), "killed by SIGABRT while loading")
    }

    func test_constructorThatCallsExit_exitedWithItsStatusWhileLoading() throws {
        let plugin = try hostile("ctor_exit", ["-DCTOR_EXIT=3"])
        XCTAssertEqual(try reason(for: plugin), "exited with status 3 while loading")
    }

    func test_constructorThatCallsUnderscoreExitZero_isStillAFailure() throws {
        let plugin = try hostile("ctor_uexit", ["-DCTOR_UNDERSCORE_EXIT=0"])
        XCTAssertEqual(try reason(for: plugin), "exited with status 0 while loading")
    }

    func test_constructorThatRaisesASignal_isKilledByThatSignal() throws {
        let plugin = try hostile("ctor_raise", ["-DCTOR_RAISE=SIGUSR1"])
        XCTAssertEqual(try reason(for: plugin), "killed by SIGUSR1 while loading")
    }

    func test_constructorThatHangs_didNotFinishLoadingWithinTwoSeconds() throws {
        let plugin = try hostile("ctor_hang", ["-DCTOR_HANG"])
        XCTAssertEqual(try reason(for: plugin), "did not finish loading within 2 s")
    }

    func test_constructorThatPrintsEscapes_failsAndNothingReachesStdout() throws {
        let plugin = try hostile("ctor_print", ["-DCTOR_PRINT"])
        let reason = try XCTUnwrap(try reason(for: plugin))
        XCTAssertTrue(reason.hasPrefix("wrote "), reason)
        XCTAssertTrue(reason.hasSuffix(" bytes to standard output while loading"), reason)
    }

    func test_constructorThatPrintsToStderr_fails() throws {
        let plugin = try hostile("ctor_stderr", ["-DCTOR_PRINT_STDERR"])
        XCTAssertEqual(try reason(for: plugin), "wrote 27 bytes to standard error while loading")
    }

    func test_initThatSegfaults_inAPluginThatIsNotDescribedByItsInit_doesNotRunWhileScanning() throws {
        let plugin = try hostile("init_segv_unflagged", ["-DINIT_SEGV"])
        let (report, _) = try listPluginsRun()
        XCTAssertEqual(report.plugin(atPath: plugin.path)?.state, .loaded, "describing a plugin does not run its init")
    }

    func test_initThatSegfaults_isKilledBySIGSEGVWhileLoading() throws {
        let plugin = try hostile("init_segv", ["-DINIT_SEGV", "-DREGISTERS_AT_INIT"])
        XCTAssertEqual(try reason(for: plugin), "killed by SIGSEGV while loading")
    }

    func test_initThatHangs_didNotFinishLoadingWithinTwoSeconds() throws {
        let plugin = try hostile("init_hang", ["-DINIT_HANG", "-DREGISTERS_AT_INIT"])
        XCTAssertEqual(try reason(for: plugin), "did not finish loading within 2 s")
    }

    func test_initThatPrints_failsAndNothingReachesStdout() throws {
        let plugin = try hostile("init_print", ["-DINIT_PRINT", "-DREGISTERS_AT_INIT"])
        XCTAssertEqual(try reason(for: plugin), "wrote 14 bytes to standard output while loading")
    }

    func test_manyHostilePlugins_eachGetsItsReason_andTheRestLoadInOrder() throws {
        try hostile("a_segv", ["-DCTOR_SEGV"])
        try hostile("b_good", [])
        try hostile("c_exit", ["-DCTOR_EXIT=7"])
        try hostile("d_good", [])
        try hostile("e_init_segv", ["-DINIT_SEGV", "-DREGISTERS_AT_INIT"])
        try hostile("f_good", [])
        let result = try run(["list-plugins", "--json"], env: defaultEnvironment, timeout: 30)
        let report = try decode(PluginReport.self, from: result.stdout, what: "list-plugins --json")
        let mine = report.plugins.filter { $0.file.hasPrefix(pluginDir.path) }
        XCTAssertEqual(mine.map { ($0.file as NSString).lastPathComponent },
                       ["a_segv.so", "b_good.so", "c_exit.so", "d_good.so", "e_init_segv.so", "f_good.so"])
        let shipped = report.plugins.filter { !$0.file.hasPrefix(pluginDir.path) }
        XCTAssertEqual(shipped.count, 5, "the shipped plugins are listed")
        XCTAssertTrue(shipped.allSatisfy { $0.state == .loaded }, "and loaded")
        XCTAssertEqual(mine.map { $0.error ?? "loaded" }, [
            "killed by SIGSEGV while loading", "loaded", "exited with status 7 while loading", "loaded",
            "killed by SIGSEGV while loading", "loaded",
        ])
    }

    func test_elfHeaderThatCrashesTheDynamicLoader_isContainedByTheScanner() throws {
        // A PT_DYNAMIC p_vaddr far outside the mapping passes the probe and
        // makes ld.so itself segfault inside dlopen.
        let source = try compileFixture("hello.c", as: "source", into: scratchDir)
        var bytes = [UInt8](try Data(contentsOf: source))
        func u16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
        func u64(_ at: Int) -> Int { (0..<8).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) } }
        let table = u64(0x20), entrySize = u16(0x36), count = u16(0x38)
        let dynamic = try XCTUnwrap((0..<count).map { table + $0 * entrySize }.first { bytes[$0] == 2 && u16($0 + 2) == 0 })
        for index in 0..<8 { bytes[dynamic + 16 + index] = UInt8(truncatingIfNeeded: 0x1000_0000_0000 >> (8 * index)) }
        let broken = try writeFile("broken.so", Data(bytes))
        XCTAssertEqual(try reason(for: broken), "killed by SIGSEGV while loading")
    }

    func test_renderWithACrashingPluginOnThePath_rendersEveryMessage() throws {
        try hostile("ctor_segv", ["-DCTOR_SEGV"])
        let (messages, stderr) = try renderJSON([#"{"id":"1","type":"text","text":"one"}"#,
                                                 #"{"id":"2","type":"text","text":"two"}"#])
        XCTAssertEqual(messages.map(\.id), ["1", "2"])
        XCTAssertTrue(stderr.contains("killed by SIGSEGV while loading"), stderr)
    }
}

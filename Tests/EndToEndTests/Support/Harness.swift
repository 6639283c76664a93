import Foundation
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// Why a harness step gave up. Each is thrown right after an `XCTFail` that
/// says what went wrong, so a test stops at the first broken step instead of
/// piling up follow-on failures.
enum HarnessError: Error {
    case binaryMissing
    case fixtureMissing(String)
    case compileFailed(String)
    case launchFailed(String)
    case undecodableOutput(String)
}

/// The base class of every end-to-end test: it finds the built `cellhost`,
/// gives each test a private temporary directory (home, XDG directories, a
/// plugin directory, scratch space), compiles C fixtures into plugins and runs
/// the binary in a clean environment.
///
/// Layout of the per-test directory (removed in tearDown):
///
///     <root>/             HOME
///     <root>/xdg-data/    XDG_DATA_HOME (empty)
///     <root>/xdg-config/  XDG_CONFIG_HOME (empty)
///     <root>/plugins/     the test's plugin directory (see `defaultEnvironment`)
///     <root>/scratch/     C sources, helper libraries, captured output
class EndToEndTestCase: XCTestCase {

    // MARK: - Where things are

    /// The package root, found from this file's own path:
    /// `<root>/Tests/EndToEndTests/Support/Harness.swift`.
    static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent() // Support
        .deletingLastPathComponent() // EndToEndTests
        .deletingLastPathComponent() // Tests
        .deletingLastPathComponent()

    static var fixturesDirectory: URL {
        packageRoot.appendingPathComponent("Tests/EndToEndTests/Fixtures", isDirectory: true)
    }

    static var abiIncludeDirectory: URL {
        packageRoot.appendingPathComponent("Sources/CellHostABI/include", isDirectory: true)
    }

    static var examplesDirectory: URL {
        packageRoot.appendingPathComponent("Examples", isDirectory: true)
    }

    /// The binary under test: `$CELLHOST_BIN`, else `<root>/.build/debug/cellhost`.
    static var binaryLocation: URL {
        if let path = ProcessInfo.processInfo.environment["CELLHOST_BIN"], !path.isEmpty {
            return URL(fileURLWithPath: path)
        }
        return packageRoot.appendingPathComponent(".build/debug/cellhost")
    }

    /// Multiplies every run's time limit: `CELLHOST_TEST_TIME_SCALE` (say 8
    /// under a sanitizer, which makes the binary several times slower),
    /// else 1. The limits only stop a run that hangs; no test asserts speed.
    static let timeScale: Double = {
        guard let text = ProcessInfo.processInfo.environment["CELLHOST_TEST_TIME_SCALE"],
              let value = Double(text), value >= 1, value <= 1000 else { return 1 }
        return value
    }()

    // MARK: - Per-test state

    private(set) var binary: URL!
    private(set) var tempRoot: URL!
    private(set) var pluginDir: URL!
    private(set) var dataHome: URL!
    private(set) var configHome: URL!
    private(set) var scratchDir: URL!
    private var runCount = 0

    /// `CELLHOST_PLUGIN_PATH` pointing at this test's plugin directory: the
    /// environment the convenience commands use unless given another.
    var defaultEnvironment: [String: String] {
        ["CELLHOST_PLUGIN_PATH": pluginDir.path]
    }

    override func setUpWithError() throws {
        try super.setUpWithError()
        let fm = FileManager.default
        let root = fm.temporaryDirectory
            .appendingPathComponent("cellhost-e2e-\(UUID().uuidString)", isDirectory: true)
        tempRoot = root
        pluginDir = root.appendingPathComponent("plugins", isDirectory: true)
        dataHome = root.appendingPathComponent("xdg-data", isDirectory: true)
        configHome = root.appendingPathComponent("xdg-config", isDirectory: true)
        scratchDir = root.appendingPathComponent("scratch", isDirectory: true)
        for dir in [root, pluginDir!, dataHome!, configHome!, scratchDir!] {
            try fm.createDirectory(at: dir, withIntermediateDirectories: true)
        }

        let location = Self.binaryLocation
        guard fm.isExecutableFile(atPath: location.path) else {
            XCTFail("cellhost binary not found at \(location.path): run `swift build` first "
                    + "(or set CELLHOST_BIN)")
            throw HarnessError.binaryMissing
        }
        binary = location
    }

    override func tearDownWithError() throws {
        if let root = tempRoot {
            try? FileManager.default.removeItem(at: root)
        }
        try super.tearDownWithError()
    }

    // MARK: - Directories and files

    /// A new empty directory `<root>/<name>`.
    @discardableResult
    func makeDirectory(_ name: String) throws -> URL {
        let dir = tempRoot.appendingPathComponent(name, isDirectory: true)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    /// Writes `contents` to `<directory>/<name>` (the plugin directory by default).
    @discardableResult
    func writeFile(_ name: String, _ contents: Data, in directory: URL? = nil) throws -> URL {
        let url = (directory ?? pluginDir).appendingPathComponent(name)
        try contents.write(to: url)
        return url
    }

    /// Creates the symbolic link `<directory>/<name>` pointing at `target`
    /// (stored exactly as given, so it may be relative or dangling).
    @discardableResult
    func makeSymlink(_ name: String, to target: String, in directory: URL? = nil) throws -> URL {
        let url = (directory ?? pluginDir).appendingPathComponent(name)
        try FileManager.default.createSymbolicLink(atPath: url.path, withDestinationPath: target)
        return url
    }

    // MARK: - Compiling plugins

    /// The text of `Fixtures/<name>`.
    func fixture(_ name: String, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let url = Self.fixturesDirectory.appendingPathComponent(name)
        guard let text = try? String(contentsOf: url, encoding: .utf8) else {
            XCTFail("missing fixture \(url.path)", file: file, line: line)
            throw HarnessError.fixtureMissing(name)
        }
        return text
    }

    /// Writes `source` to the scratch directory and compiles it into
    /// `<directory>/<name>.so` (the plugin directory by default) with
    ///
    ///     cc -std=c99 -Wall -Werror -shared -fPIC -I <root>/Sources/CellHostABI/include \
    ///        src.c -o <directory>/<name>.so <extraFlags>
    ///
    /// `extraFlags` come after the source so that `-L`/`-l` resolve. Fails the
    /// test with cc's output when the compiler does.
    @discardableResult
    func compilePlugin(source: String, name: String, extraFlags: [String] = [],
                       into directory: URL? = nil,
                       file: StaticString = #filePath, line: UInt = #line) throws -> URL {
        let sourceDir = scratchDir.appendingPathComponent("src", isDirectory: true)
        try FileManager.default.createDirectory(at: sourceDir, withIntermediateDirectories: true)
        let sourceURL = sourceDir.appendingPathComponent("\(name).c")
        try source.write(to: sourceURL, atomically: true, encoding: .utf8)
        let output = (directory ?? pluginDir).appendingPathComponent("\(name).so")

        let arguments = ["cc", "-std=c99", "-Wall", "-Werror", "-shared", "-fPIC",
                         "-I", Self.abiIncludeDirectory.path,
                         sourceURL.path, "-o", output.path] + extraFlags
        let result = try execute(URL(fileURLWithPath: "/usr/bin/env"), arguments,
                                 environment: ProcessInfo.processInfo.environment,
                                 stdin: nil, currentDirectory: scratchDir, timeout: 120,
                                 file: file, line: line)
        guard result.status == 0 else {
            XCTFail("cc failed for \(name).c (status \(result.status)):\n\(result.stderr)\(String(decoding: result.stdout, as: UTF8.self))",
                    file: file, line: line)
            throw HarnessError.compileFailed(name)
        }
        return output
    }

    /// Compiles `Fixtures/<fixtureName>` into `<directory>/<name>.so`; `name`
    /// defaults to the fixture's base name.
    @discardableResult
    func compileFixture(_ fixtureName: String, as name: String? = nil, extraFlags: [String] = [],
                        into directory: URL? = nil,
                        file: StaticString = #filePath, line: UInt = #line) throws -> URL {
        let source = try fixture(fixtureName, file: file, line: line)
        let base = name ?? (fixtureName as NSString).deletingPathExtension
        return try compilePlugin(source: source, name: base, extraFlags: extraFlags,
                                 into: directory, file: file, line: line)
    }

    // MARK: - Running cellhost

    /// Runs the cellhost binary with `args` in a clean environment: `PATH`,
    /// `HOME` (the test directory), `XDG_DATA_HOME` and `XDG_CONFIG_HOME`
    /// (empty test directories), then `env` on top. stdout and stderr go to
    /// files, so neither pipe can fill up and block the child. A run that
    /// exceeds `timeout` is killed and fails the test.
    func run(_ args: [String], env: [String: String] = [:], stdin: Data? = nil,
             currentDirectory: URL? = nil, timeout: TimeInterval = 60,
             file: StaticString = #filePath, line: UInt = #line) throws
        -> (status: Int32, stdout: String, stderr: String) {
        let result = try execute(binary, args, environment: cleanEnvironment(env), stdin: stdin,
                                 currentDirectory: currentDirectory ?? tempRoot, timeout: timeout,
                                 file: file, line: line)
        return (result.status, String(decoding: result.stdout, as: UTF8.self), result.stderr)
    }

    /// The environment every run starts from: PATH, and HOME and the XDG
    /// directories pointing into the test's scratch space, the sanitizer
    /// options when set; `env` on top.
    func cleanEnvironment(_ env: [String: String]) -> [String: String] {
        var environment = [
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin",
            "HOME": tempRoot.path,
            "XDG_DATA_HOME": dataHome.path,
            "XDG_CONFIG_HOME": configHome.path,
        ]
        // Sanitizer settings (Scripts/sanitize.sh) reach the sanitized binary.
        for name in ["ASAN_OPTIONS", "LSAN_OPTIONS", "TSAN_OPTIONS", "SWIFT_BACKTRACE"] {
            if let value = ProcessInfo.processInfo.environment[name] { environment[name] = value }
        }
        environment.merge(env) { _, given in given }
        return environment
    }

    /// Runs any executable; stdin, stdout and stderr are files in the scratch
    /// directory.
    func execute(_ executable: URL, _ args: [String], environment: [String: String],
                 stdin: Data?, currentDirectory: URL, timeout: TimeInterval,
                 file: StaticString, line: UInt) throws
        -> (status: Int32, stdout: Data, stderr: String) {
        runCount += 1
        let fm = FileManager.default
        let ioDir = scratchDir.appendingPathComponent("run-\(runCount)", isDirectory: true)
        try fm.createDirectory(at: ioDir, withIntermediateDirectories: true)
        let inURL = ioDir.appendingPathComponent("stdin")
        let outURL = ioDir.appendingPathComponent("stdout")
        let errURL = ioDir.appendingPathComponent("stderr")
        try (stdin ?? Data()).write(to: inURL)
        try Data().write(to: outURL)
        try Data().write(to: errURL)

        let inHandle = try FileHandle(forReadingFrom: inURL)
        let outHandle = try FileHandle(forWritingTo: outURL)
        let errHandle = try FileHandle(forWritingTo: errURL)
        defer {
            try? inHandle.close()
            try? outHandle.close()
            try? errHandle.close()
        }

        let process = Process()
        process.executableURL = executable
        process.arguments = args
        process.environment = environment
        process.currentDirectoryURL = currentDirectory
        process.standardInput = stdin == nil ? FileHandle.nullDevice : inHandle
        process.standardOutput = outHandle
        process.standardError = errHandle

        let finished = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in finished.signal() }
        do {
            try process.run()
        } catch {
            XCTFail("cannot launch \(executable.path): \(error)", file: file, line: line)
            throw HarnessError.launchFailed(executable.path)
        }

        var timedOut = false
        // The child's wait status when this function reaped it itself.
        var reaped: Int32?
        if finished.wait(timeout: .now() + timeout * Self.timeScale) == .timedOut {
            let pid = process.processIdentifier
            var status: Int32 = 0
            // Under heavy load Foundation was seen to miss a child's exit (a
            // zombie child, a termination handler never called), and waiting
            // for it hung the whole test run: a child that has exited is
            // reaped here instead, and one that is still running is killed.
            if waitpid(pid, &status, WNOHANG) == pid {
                reaped = status
            } else {
                timedOut = true
                kill(pid, SIGTERM)
                if finished.wait(timeout: .now() + 5) == .timedOut {
                    kill(pid, SIGKILL)
                    if finished.wait(timeout: .now() + 5) == .timedOut, waitpid(pid, &status, 0) == pid {
                        reaped = status
                    }
                }
            }
        }
        if reaped == nil { process.waitUntilExit() }

        let stdout = (try? Data(contentsOf: outURL)) ?? Data()
        let stderr = String(decoding: (try? Data(contentsOf: errURL)) ?? Data(), as: UTF8.self)
        try? FileManager.default.removeItem(at: ioDir)
        if timedOut {
            XCTFail("\(executable.lastPathComponent) \(args.joined(separator: " ").prefix(300)) did not finish "
                    + "within \(Int(timeout)) s; stderr:\n\(stderr.prefix(2000))", file: file, line: line)
        }
        // As Foundation reports it: the exit code, or the number of the signal.
        let exitStatus = reaped.map { ($0 & 0x7f) == 0 ? ($0 >> 8) & 0xff : $0 & 0x7f } ?? process.terminationStatus
        return (exitStatus, stdout, stderr)
    }

    // MARK: - list-plugins

    /// Runs `cellhost list-plugins --json <extraArgs>`, decodes its report and
    /// checks the exit status: 1 when a plugin failed or a class was rejected, else 0. `env` defaults to `defaultEnvironment`.
    func listPluginsRun(_ extraArgs: [String] = [], env: [String: String]? = nil,
                        file: StaticString = #filePath, line: UInt = #line) throws
        -> (report: PluginReport, stderr: String) {
        let result = try run(["list-plugins", "--json"] + extraArgs, env: env ?? defaultEnvironment,
                             file: file, line: line)
        let report = try decode(PluginReport.self, from: result.stdout, what: "list-plugins --json",
                                file: file, line: line)
        let clean = report.plugins.allSatisfy { $0.state == .loaded && $0.rejectedClasses.isEmpty }
        XCTAssertEqual(result.status, clean ? 0 : 1,
                       "list-plugins exits 1 exactly when a plugin failed or a class was rejected; stderr:\n\(result.stderr)",
                       file: file, line: line)
        return (report, result.stderr)
    }

    /// `listPluginsRun(...).report`.
    func listPlugins(_ extraArgs: [String] = [], env: [String: String]? = nil,
                     file: StaticString = #filePath, line: UInt = #line) throws -> PluginReport {
        try listPluginsRun(extraArgs, env: env, file: file, line: line).report
    }

    // MARK: - render --format json

    /// Runs `cellhost render - --format json --width <width> <extraArgs>` with
    /// `messages` (one JSON object each) as JSON Lines on stdin, checks the
    /// exit status and decodes one object per output line.
    func renderJSON(_ messages: [String], width: Int = 60, extraArgs: [String] = [],
                    env: [String: String]? = nil, expectStatus: Int32 = 0,
                    file: StaticString = #filePath, line: UInt = #line) throws
        -> (messages: [RenderedMessage], stderr: String) {
        let input = Data((messages.joined(separator: "\n") + "\n").utf8)
        let result = try run(["render", "-", "--format", "json", "--width", String(width)] + extraArgs,
                             env: env ?? defaultEnvironment, stdin: input, file: file, line: line)
        XCTAssertEqual(result.status, expectStatus, "render exit status; stderr:\n\(result.stderr)",
                       file: file, line: line)
        let rendered = try decodeJSONLines(RenderedMessage.self, from: result.stdout,
                                           what: "render --format json", file: file, line: line)
        return (rendered, result.stderr)
    }

    // MARK: - Decoding

    func decode<T: Decodable>(_ type: T.Type, from text: String, what: String,
                              file: StaticString = #filePath, line: UInt = #line) throws -> T {
        do {
            return try JSONDecoder().decode(T.self, from: Data(text.utf8))
        } catch {
            XCTFail("cannot decode the output of \(what) as \(T.self): \(error)\n"
                    + "output:\n\(text.prefix(4000))", file: file, line: line)
            throw HarnessError.undecodableOutput(what)
        }
    }

    /// Decodes each non-empty line of `text` as one `T`.
    func decodeJSONLines<T: Decodable>(_ type: T.Type, from text: String, what: String,
                                       file: StaticString = #filePath, line: UInt = #line) throws -> [T] {
        try text.split(separator: "\n", omittingEmptySubsequences: true).map {
            try decode(T.self, from: String($0), what: what, file: file, line: line)
        }
    }
}

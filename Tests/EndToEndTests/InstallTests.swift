import Foundation
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// `.ci/install.sh` end to end (docs/install.md): one release build and
/// install into a temporary prefix per test run (the class's `setUp`), shared
/// by the tests, which run the installed `cellhost` with nothing from the
/// build or the Swift toolchain in its environment.
///
/// The release build goes to `.build-release` and is incremental: when it is
/// fresh, the install takes seconds. `CELLHOST_SKIP_INSTALL_TESTS=1` skips
/// these tests (a quick local `swift test`); CI runs them.
final class InstallTests: EndToEndTestCase {

    /// The shared installation, or why there is none.
    private static var prefix: URL?
    private static var installFailure: String?
    private static var installSeconds: Double = 0

    static var skipped: Bool { ProcessInfo.processInfo.environment["CELLHOST_SKIP_INSTALL_TESTS"] == "1" }
    static var script: URL { packageRoot.appendingPathComponent(".ci/install.sh") }

    override class func setUp() {
        super.setUp()
        guard !skipped else { return }
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("cellhost-install-\(UUID().uuidString)", isDirectory: true)
        let prefix = directory.appendingPathComponent("prefix", isDirectory: true)
        try? FileManager.default.createDirectory(at: prefix, withIntermediateDirectories: true)
        let started = Date()
        let result = runScript(["--prefix", prefix.path], log: directory.appendingPathComponent("install.log"))
        installSeconds = Date().timeIntervalSince(started)
        if result.status == 0 {
            self.prefix = prefix
            print("InstallTests: .ci/install.sh took \(Int(installSeconds)) s")
        } else {
            installFailure = ".ci/install.sh --prefix \(prefix.path) exited \(result.status):\n\(result.output.suffix(6000))"
        }
    }

    override class func tearDown() {
        if let prefix { try? FileManager.default.removeItem(at: prefix.deletingLastPathComponent()) }
        super.tearDown()
    }

    /// Runs `.ci/install.sh ARGS` (its stdout and stderr into `log`); at most an hour.
    @discardableResult
    static func runScript(_ arguments: [String], log: URL) -> (status: Int32, output: String) {
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        guard let handle = try? FileHandle(forWritingTo: log) else { return (-1, "cannot write \(log.path)") }
        defer { try? handle.close() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [script.path] + arguments
        process.currentDirectoryURL = packageRoot
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = handle
        process.standardError = handle
        let finished = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in finished.signal() }
        do { try process.run() } catch { return (-1, "cannot run \(script.path): \(error)") }
        if finished.wait(timeout: .now() + 3600) == .timedOut {
            kill(-process.processIdentifier, SIGKILL)
            process.terminate()
            finished.wait()
        }
        process.waitUntilExit()
        return (process.terminationStatus, (try? String(contentsOf: log, encoding: .utf8)) ?? "")
    }

    /// The installation prefix; fails the test when the install failed.
    private func installed(file: StaticString = #filePath, line: UInt = #line) throws -> URL {
        if Self.skipped { throw XCTSkip("CELLHOST_SKIP_INSTALL_TESTS=1") }
        guard let prefix = Self.prefix else {
            XCTFail(Self.installFailure ?? "no installation", file: file, line: line)
            throw HarnessError.binaryMissing
        }
        return prefix
    }

    /// An environment with nothing from the build or the toolchain: no
    /// `LD_LIBRARY_PATH`, `PATH` only `/usr/bin:/bin`, the test's own home.
    private func bareEnvironment(_ extra: [String: String] = [:]) -> [String: String] {
        ["PATH": "/usr/bin:/bin", "HOME": tempRoot.path, "XDG_DATA_HOME": dataHome.path,
         "XDG_CONFIG_HOME": configHome.path, "XDG_CACHE_HOME": tempRoot.appendingPathComponent("cache").path,
         "TZ": "UTC"].merging(extra) { _, new in new }
    }

    /// Runs `program ARGS` in `bareEnvironment`.
    private func runBare(_ program: URL, _ args: [String], env: [String: String] = [:], stdin: Data? = nil,
                         currentDirectory: URL? = nil, timeout: TimeInterval = 120,
                         file: StaticString = #filePath, line: UInt = #line) throws -> (status: Int32, stdout: String, stderr: String) {
        let result = try execute(program, args, environment: bareEnvironment(env), stdin: stdin,
                                 currentDirectory: currentDirectory ?? tempRoot, timeout: timeout, file: file, line: line)
        return (result.status, String(decoding: result.stdout, as: UTF8.self), result.stderr)
    }

    private func cellhost(_ prefix: URL) -> URL { prefix.appendingPathComponent("bin/cellhost") }

    /// The directory the toolchain's Swift runtime is in: where this test
    /// process's own libswiftCore.so comes from.
    private func toolchainRuntimeDirectory() throws -> String {
        let maps = try Self.readProcFile("/proc/self/maps")
        for line in maps.split(separator: "\n") {
            guard let slash = line.firstIndex(of: "/") else { continue }
            let path = String(line[slash...])
            if path.hasSuffix("/libswiftCore.so") { return String(path[..<path.lastIndex(of: "/")!]) }
        }
        throw XCTSkip("this test process has no libswiftCore.so mapped")
    }

    /// A file of /proc, read to its end (its size says 0, which
    /// `String(contentsOfFile:)` believes).
    static func readProcFile(_ path: String) throws -> String {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw HarnessError.fixtureMissing(path) }
        defer { try? handle.close() }
        return String(decoding: try handle.readToEnd() ?? Data(), as: UTF8.self)
    }

    /// The demo conversation's message types and the cell class each must be
    /// rendered by: every shipped type through its own plugin.
    static let cellForType = ["text": ("TextMessageCell", "org.cellhost.text"), "file": ("FileMessageCell", "org.cellhost.file"),
                              "image": ("ImageMessageCell", "org.cellhost.image"), "voice": ("VoiceMessageCell", "org.cellhost.voice"),
                              "poll": ("PollMessageCell", "org.cellhost.poll")]

    private func assertDemoRenderedByOwnCells(_ stdout: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let records = try decodeJSONLines(RenderRecord.self, from: stdout, what: "render --format json", file: file, line: line)
        let demo = try String(contentsOf: Self.examplesDirectory.appendingPathComponent("conversation.jsonl"), encoding: .utf8)
        XCTAssertEqual(records.count, demo.split(separator: "\n").count, "every demo message is rendered", file: file, line: line)
        var types = Set<String>()
        for record in records {
            let type = record.type ?? "(none)"
            types.insert(type)
            if let (className, plugin) = Self.cellForType[type] {
                XCTAssertEqual(record.className, className, "\(record.id ?? "?") (\(type))", file: file, line: line)
                XCTAssertEqual(record.plugin, plugin, "\(record.id ?? "?") (\(type))", file: file, line: line)
            } else {
                // The demo's one unregistered type, on purpose.
                XCTAssertEqual(type, "location", file: file, line: line)
                XCTAssertEqual(record.className, "UnknownMessageCell", file: file, line: line)
            }
        }
        XCTAssertEqual(types, Set(Self.cellForType.keys).union(["location"]), "the demo covers every shipped type", file: file, line: line)
    }

    // MARK: - The installed binary

    func test_demo_rendersEveryMessageThroughItsOwnCell_withoutTheBuildOrTheToolchainInTheEnvironment() throws {
        let prefix = try installed()
        let demo = Self.examplesDirectory.appendingPathComponent("conversation.jsonl")
        let arguments = ["render", demo.path, "--format", "json", "--width", "80", "--me", "u-alice"]
        let result = try runBare(cellhost(prefix), arguments)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stderr, "", "no warning: the plugins for file, image and voice are found")
        try assertDemoRenderedByOwnCells(result.stdout)
        // The same bytes as the build tree's cellhost.
        let built = try run(arguments, env: ["TZ": "UTC"])
        XCTAssertEqual(result.stdout, built.stdout, "the installed cellhost renders as the built one")
        // And the demo installed with the documentation, from anywhere.
        let installedDemo = try runBare(cellhost(prefix), ["render", prefix.path + "/share/doc/cellhost/examples/conversation.jsonl",
                                                           "--format", "json", "--width", "80", "--me", "u-alice"])
        XCTAssertEqual(installedDemo.status, 0, installedDemo.stderr)
        XCTAssertEqual(installedDemo.stdout, result.stdout)
    }

    func test_searchPath_endsWithThePrefixPluginDirectory_andTheShippedPluginsLoadFromIt() throws {
        let prefix = try installed()
        let listing = try runBare(cellhost(prefix), ["list-plugins", "--json"])
        XCTAssertEqual(listing.status, 0, listing.stderr)
        let report = try decode(PluginReport.self, from: listing.stdout, what: "list-plugins --json")
        let pluginsDirectory = prefix.path + "/lib/cellhost/plugins"
        XCTAssertEqual(Array(report.searchPath.suffix(2)), [pluginsDirectory, prefix.path + "/bin"])
        assertShippedPluginsLoaded(report)
        for shipped in shippedPlugins {
            XCTAssertEqual(report.plugins(id: shipped.id).first?.file.hasPrefix(pluginsDirectory + "/"), true, shipped.id)
        }
    }

    func test_runpaths_areOriginRelative_andTheRuntimeIsInstalled() throws {
        let prefix = try installed()
        func runpath(_ path: String) throws -> String {
            let result = try runBare(URL(fileURLWithPath: "/usr/bin/readelf"), ["-d", path])
            XCTAssertEqual(result.status, 0, result.stderr)
            XCTAssertFalse(result.stdout.contains("(RPATH)"), "\(path) has an RPATH, not a RUNPATH")
            guard let line = result.stdout.split(separator: "\n").first(where: { $0.contains("(RUNPATH)") }),
                  let open = line.firstIndex(of: "["), let close = line.lastIndex(of: "]") else { return "" }
            return String(line[line.index(after: open)..<close])
        }
        XCTAssertEqual(try runpath(cellhost(prefix).path), "$ORIGIN/../lib/cellhost/swift")
        let plugins = prefix.appendingPathComponent("lib/cellhost/plugins")
        for name in try FileManager.default.contentsOfDirectory(atPath: plugins.path) {
            XCTAssertEqual(try runpath(plugins.path + "/" + name), "$ORIGIN/../swift", name)
        }
        let runtime = prefix.appendingPathComponent("lib/cellhost/swift")
        let libraries = try FileManager.default.contentsOfDirectory(atPath: runtime.path)
        XCTAssertTrue(libraries.contains("libswiftCore.so"), "\(libraries)")
        for name in libraries { XCTAssertEqual(try runpath(runtime.path + "/" + name), "$ORIGIN", name) }
        // ldd finds every library: nothing is missing, nothing comes from the toolchain.
        let toolchain = try toolchainRuntimeDirectory()
        for file in [cellhost(prefix).path] + (try FileManager.default.contentsOfDirectory(atPath: plugins.path)).map({ plugins.path + "/" + $0 }) {
            let ldd = try runBare(URL(fileURLWithPath: "/usr/bin/ldd"), [file])
            XCTAssertFalse(ldd.stdout.contains("not found"), ldd.stdout)
            XCTAssertFalse(ldd.stdout.contains(toolchain), ldd.stdout)
        }
    }

    /// Reads `/proc/PID/maps` of an installed `cellhost render -` that has
    /// rendered one text message and waits for more input.
    private func mappedFiles(of prefix: URL, isolation: String) throws -> [String] {
        let process = Process()
        process.executableURL = cellhost(prefix)
        process.arguments = ["render", "-", "--format", "plain", "--paging", "never", "--isolation", isolation]
        process.environment = bareEnvironment()
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer {
            try? input.fileHandleForWriting.close()
            process.waitUntilExit()
        }
        input.fileHandleForWriting.write(Data(#"{"id":"1","type":"text","text":"hello","sender":{"id":"b","name":"Bob"}}"#.utf8 + [10]))
        // The message is written once rendered (output is flushed when the
        // input would block): its plugin is loaded by then.
        let rendered = DispatchSemaphore(value: 0)
        let reader = output.fileHandleForReading
        DispatchQueue.global().async {
            _ = reader.availableData
            rendered.signal()
        }
        guard rendered.wait(timeout: .now() + 60 * Self.timeScale) == .success else {
            kill(process.processIdentifier, SIGKILL)
            XCTFail("cellhost render - wrote nothing within 60 s")
            return []
        }
        let maps = try Self.readProcFile("/proc/\(process.processIdentifier)/maps")
        return maps.split(separator: "\n").compactMap { line in line.firstIndex(of: "/").map { String(line[$0...]) } }
    }

    func test_theSwiftPluginsShareTheHostsOneRuntime_inProcess_andNothingComesFromTheToolchain() throws {
        let prefix = try installed()
        let toolchain = try toolchainRuntimeDirectory()
        for isolation in ["none", "auto"] { // auto: the installed plugins count as installed with the host
            let files = Set(try mappedFiles(of: prefix, isolation: isolation))
            XCTAssertTrue(files.contains(prefix.path + "/lib/cellhost/plugins/libTextCell.so"),
                          "--isolation \(isolation): the Swift plugin TextCell runs in the cellhost process: \(files.sorted())")
            let cores = files.filter { $0.hasSuffix("/libswiftCore.so") }
            XCTAssertEqual(cores, [prefix.path + "/lib/cellhost/swift/libswiftCore.so"], "one Swift runtime, the installed one")
            XCTAssertEqual(files.filter { $0.hasPrefix(toolchain) }, [], "nothing from the toolchain")
            XCTAssertEqual(files.filter { $0.contains("/.build") }, [], "nothing from the build")
        }
    }

    func test_theToolchainHidden_theDemoStillRenders() throws {
        let prefix = try installed()
        let toolchain = try toolchainRuntimeDirectory()
        let demo = Self.examplesDirectory.appendingPathComponent("conversation.jsonl")
        // A mount namespace where an empty tmpfs covers the toolchain's runtime.
        let unshare = ["/usr/bin/unshare", getuid() == 0 ? "-m" : "-rm"]
        let probe = try runBare(URL(fileURLWithPath: unshare[0]), Array(unshare.dropFirst()) + ["sh", "-c", "mount -t tmpfs none \"$1\" && ! test -e \"$1/libswiftCore.so\"", "sh", toolchain])
        guard probe.status == 0 else { throw XCTSkip("cannot hide \(toolchain) in a mount namespace: \(probe.stderr)") }
        let script = #"mount -t tmpfs none "$1" && shift && exec "$@""#
        // The hiding works: the build tree's cellhost, which uses the toolchain's runtime, cannot start.
        let control = try runBare(URL(fileURLWithPath: unshare[0]),
                                  Array(unshare.dropFirst()) + ["sh", "-c", script, "sh", toolchain, binary.path, "--version"])
        XCTAssertNotEqual(control.status, 0, "the toolchain is hidden")
        XCTAssertTrue(control.stderr.contains("libswift"), control.stderr)
        let result = try runBare(URL(fileURLWithPath: unshare[0]),
                                 Array(unshare.dropFirst()) + ["sh", "-c", script, "sh", toolchain, cellhost(prefix).path,
                                                               "render", demo.path, "--format", "json", "--width", "80", "--isolation", "none"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stderr, "")
        try assertDemoRenderedByOwnCells(result.stdout)
    }

    func test_theDynamicLoader_neverLooksIntoTheToolchain_inAnyProcess() throws {
        let prefix = try installed()
        let toolchain = try toolchainRuntimeDirectory()
        let demo = Self.examplesDirectory.appendingPathComponent("conversation.jsonl")
        // The toolchain is there; LD_DEBUG=libs writes every library search
        // and load to LD_DEBUG_OUTPUT.PID, for cellhost and its children (the
        // plugin scanner, workers). Not to stderr: the scanner reports a
        // plugin that prints while loading.
        for isolation in ["auto", "each"] {
            let traces = try makeDirectory("ld-debug-\(isolation)")
            let traced = try runBare(cellhost(prefix), ["render", demo.path, "--isolation", isolation, "--format", "json"],
                                     env: ["LD_DEBUG": "libs", "LD_DEBUG_OUTPUT": traces.path + "/trace",
                                           "XDG_CACHE_HOME": traces.path + "/cache"])
            XCTAssertEqual(traced.status, 0, traced.stderr)
            XCTAssertEqual(traced.stderr, "")
            try assertDemoRenderedByOwnCells(traced.stdout)
            let files = try FileManager.default.contentsOfDirectory(atPath: traces.path).filter { $0.hasPrefix("trace.") }
            XCTAssertGreaterThan(files.count, isolation == "each" ? 2 : 1, "cellhost and its children: \(files)")
            let trace = try files.map { try String(contentsOfFile: traces.path + "/" + $0, encoding: .utf8) }.joined()
            XCTAssertTrue(trace.contains("calling init: \(prefix.path)/bin/../lib/cellhost/swift/libswiftCore.so"), String(trace.prefix(3000)))
            XCTAssertTrue(trace.contains("calling init: \(prefix.path)/lib/cellhost/plugins/libVoiceCell.so"), String(trace.prefix(3000)))
            let fromToolchain = trace.split(separator: "\n").filter { $0.contains(toolchain) }
            XCTAssertEqual(Array(fromToolchain.prefix(5)), [], "--isolation \(isolation)")
        }
    }

    // MARK: - Plugin authors

    func test_pkgConfig_andAPluginBuiltWithIt_isLoadedByTheInstalledCellhost() throws {
        let prefix = try installed()
        let pkgConfig = ["PKG_CONFIG_PATH": prefix.path + "/lib/pkgconfig"]
        func variable(_ arguments: [String]) throws -> String {
            let result = try runBare(URL(fileURLWithPath: "/usr/bin/pkg-config"), arguments + ["cellhost"], env: pkgConfig)
            XCTAssertEqual(result.status, 0, result.stderr)
            return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        XCTAssertEqual(try variable(["--cflags"]), "-I\(prefix.path)/include")
        XCTAssertEqual(try variable(["--variable=pluginsdir"]), prefix.path + "/lib/cellhost/plugins")
        XCTAssertEqual(try variable(["--variable=includedir"]), prefix.path + "/include")
        XCTAssertEqual(try variable(["--variable=abi_version"]), try ABIHeaders.version())
        XCTAssertEqual(try variable(["--libs"]), "")
        let version = try runBare(cellhost(prefix), ["--version"])
        XCTAssertTrue(version.stdout.hasPrefix("cellhost \(try variable(["--modversion"])) "), version.stdout)

        // The issue's command, as written.
        let hello = Self.examplesDirectory.appendingPathComponent("plugins/hello.c").path
        let plugin = prefix.appendingPathComponent("lib/cellhost/plugins/libhello.so")
        defer { try? FileManager.default.removeItem(at: plugin) }
        let build = try runBare(URL(fileURLWithPath: "/bin/sh"),
                                ["-c", #"cc $(pkg-config --cflags cellhost) -shared -fPIC "$1" -o "$(pkg-config --variable=pluginsdir cellhost)/libhello.so""#,
                                 "sh", hello], env: pkgConfig)
        XCTAssertEqual(build.status, 0, build.stderr)
        let result = try runBare(cellhost(prefix), ["render", "-", "--format", "json"],
                                 stdin: Data(#"{"id":"h","type":"hello","hello":{"name":"Ann"}}"#.utf8 + [10]))
        XCTAssertEqual(result.status, 0, result.stderr)
        let record = try XCTUnwrap(try decodeJSONLines(RenderRecord.self, from: result.stdout, what: "render").first)
        XCTAssertEqual(record.className, "HelloMessageCell")
        XCTAssertTrue(record.lines.joined().contains("Hello, Ann! (greeting 1)"), "\(record.lines)")
    }

    func test_newPlugin_fromTheInstallation_usesTheInstalledHeaders() throws {
        let prefix = try installed()
        let made = try runBare(cellhost(prefix), ["new-plugin", "demo", "--lang", "c"], currentDirectory: scratchDir)
        XCTAssertEqual(made.status, 0, made.stderr)
        let directory = scratchDir.appendingPathComponent("demo")
        let source = try String(contentsOf: directory.appendingPathComponent("demo.c"), encoding: .utf8)
        XCTAssertTrue(source.contains("-I \(prefix.path)/include "), source)
        let readme = try String(contentsOf: directory.appendingPathComponent("README.md"), encoding: .utf8)
        guard let start = readme.range(of: "```sh\n"), let end = readme.range(of: "\n```", range: start.upperBound..<readme.endIndex) else {
            return XCTFail("README.md has no sh block:\n\(readme)")
        }
        // The README's build, check and render, with nothing but the installation.
        let result = try runBare(URL(fileURLWithPath: "/bin/sh"), ["-c", "set -e\n" + readme[start.upperBound..<end.lowerBound]],
                                 currentDirectory: directory, timeout: 300)
        XCTAssertEqual(result.status, 0, result.stderr + result.stdout)
        XCTAssertTrue(result.stdout.contains("Hello from demo  #1"), result.stdout)

        // A Swift plugin needs CellKit, which is not installed.
        let swift = try runBare(cellhost(prefix), ["new-plugin", "swifty", "--lang", "swift"], currentDirectory: scratchDir)
        XCTAssertEqual(swift.status, 2)
        XCTAssertEqual(swift.stderr, "cellhost: new-plugin: a Swift plugin needs CellKit, which is not installed: "
            + "pass --sdk DIR (a CellHost checkout)\n")
    }

    // MARK: - The manual and the completions

    /// The long options `cellhost COMMAND --help` lists in its OPTIONS.
    private func helpOptions(_ prefix: URL, _ command: String) throws -> Set<String> {
        let help = try runBare(cellhost(prefix), [command, "--help"])
        XCTAssertEqual(help.status, 0, help.stderr)
        guard let options = help.stdout.range(of: "OPTIONS:\n") else {
            XCTFail("no OPTIONS in \(command) --help")
            return []
        }
        var found = Set<String>()
        for line in help.stdout[options.upperBound...].split(separator: "\n", omittingEmptySubsequences: false) {
            if line.isEmpty { break }
            let words = line.split(separator: " ")
            for word in words.prefix(2) where word.hasPrefix("--") {
                found.insert(String(word.prefix { $0 != "," && $0 != "=" }))
            }
        }
        XCTAssertTrue(found.contains("--help"), "\(command): \(found)")
        return found
    }

    static let commands = ["render", "list-plugins", "check-plugin", "new-plugin"]

    func test_manPage_rendersWithoutWarnings_andHoldsEveryOption() throws {
        let prefix = try installed()
        let page = prefix.appendingPathComponent("share/man/man1/cellhost.1")
        let man = try runBare(URL(fileURLWithPath: "/usr/bin/man"), ["-l", page.path], env: ["MANWIDTH": "80", "MAN_KEEP_FORMATTING": ""])
        XCTAssertEqual(man.status, 0, man.stderr)
        XCTAssertEqual(man.stderr, "", "man -l warns")
        XCTAssertTrue(man.stdout.contains("CELLHOST(1)"), man.stdout)
        let groff = try runBare(URL(fileURLWithPath: "/usr/bin/groff"), ["-man", "-Tutf8", "-ww", "-z", page.path])
        XCTAssertEqual(groff.status, 0)
        XCTAssertEqual(groff.stderr, "", "groff -ww warns")

        // The source, unescaped: every option of every command's --help is in it.
        let source = try String(contentsOf: page, encoding: .utf8)
            .replacingOccurrences(of: "\\-", with: "-")
            .replacingOccurrences(of: "\\fB", with: "").replacingOccurrences(of: "\\fI", with: "")
            .replacingOccurrences(of: "\\fP", with: "").replacingOccurrences(of: "\\fR", with: "")
        for command in Self.commands {
            XCTAssertTrue(source.contains(".SS \(command)"), "the page has a section for \(command)")
            for option in try helpOptions(prefix, command) {
                XCTAssertTrue(source.contains(option), "\(command) \(option) is not in the man page")
            }
        }
        // Every environment variable docs/cli.md lists.
        let cli = try String(contentsOf: Self.packageRoot.appendingPathComponent("docs/cli.md"), encoding: .utf8)
        let environment = cli[cli.range(of: "## Environment")!.upperBound...]
        let variables = environment.split(separator: "`").enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
            .map { $0.split(separator: "=").first.map(String.init) ?? $0 }
            .filter { $0.allSatisfy { $0.isUppercase || $0 == "_" } }
        XCTAssertTrue(variables.contains("CELLHOST_PLUGIN_PATH"), "\(variables)")
        for name in variables { XCTAssertTrue(source.contains(name), "\(name) is not in the man page") }
        // The warning quoted in the page is the one render prints.
        XCTAssertTrue(source.contains(MediaPluginWarningTests.allMissing.trimmingCharacters(in: .newlines)), "the warning is quoted")
    }

    /// COMPREPLY of the installed bash completion for `words` (the last is the word being completed).
    private func bashCompletions(_ prefix: URL, _ words: [String]) throws -> [String] {
        let quoted = words.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        let script = """
            source "$1" || exit 9
            complete -p cellhost >/dev/null || exit 8
            COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1); COMP_LINE="${COMP_WORDS[*]}"; COMP_POINT=${#COMP_LINE}
            _cellhost
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        let result = try runBare(URL(fileURLWithPath: "/bin/bash"),
                                 ["--norc", "--noprofile", "-c", script, "bash",
                                  prefix.path + "/share/bash-completion/completions/cellhost"], currentDirectory: scratchDir)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stderr, "")
        return result.stdout.split(separator: "\n").map(String.init)
    }

    func test_bashCompletion_completesCommandsOptionsAndValues() throws {
        let prefix = try installed()
        XCTAssertEqual(Set(try bashCompletions(prefix, ["cellhost", ""])), Set(Self.commands + ["help"]))
        XCTAssertEqual(try bashCompletions(prefix, ["cellhost", "li"]), ["list-plugins"])
        XCTAssertEqual(Set(try bashCompletions(prefix, ["cellhost", "-"])), ["--help", "--version"])
        for command in Self.commands {
            XCTAssertEqual(Set(try bashCompletions(prefix, ["cellhost", command, "--"])), try helpOptions(prefix, command),
                           "cellhost \(command) --<TAB> offers the options of \(command) --help")
        }
        XCTAssertEqual(try bashCompletions(prefix, ["cellhost", "render", "chat.jsonl", "--format", ""]), ["ansi", "plain", "json", "html"])
        XCTAssertEqual(try bashCompletions(prefix, ["cellhost", "render", "--isolation", "=", "s"]), ["shared"])
        XCTAssertEqual(try bashCompletions(prefix, ["cellhost", "new-plugin", "x", "--lang", ""]), ["c", "swift"])
        XCTAssertEqual(try bashCompletions(prefix, ["cellhost", "render", "--width", ""]), [])
        // Files for render, .so files (and directories) for check-plugin.
        try Data().write(to: scratchDir.appendingPathComponent("chat.jsonl"))
        try Data().write(to: scratchDir.appendingPathComponent("libx.so"))
        XCTAssertEqual(try bashCompletions(prefix, ["cellhost", "render", "cha"]), ["chat.jsonl"])
        XCTAssertEqual(try bashCompletions(prefix, ["cellhost", "check-plugin", "l"]), ["libx.so"])
    }

    func test_zshAndFishCompletions_parse_andFishOffersTheHelpOptions() throws {
        let prefix = try installed()
        let zshFile = prefix.path + "/share/zsh/site-functions/_cellhost"
        let fishFile = prefix.path + "/share/fish/vendor_completions.d/cellhost.fish"
        XCTAssertTrue(FileManager.default.fileExists(atPath: zshFile))
        XCTAssertTrue(FileManager.default.fileExists(atPath: fishFile))
        var checked = 0
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/zsh") {
            let syntax = try runBare(URL(fileURLWithPath: "/usr/bin/zsh"), ["-n", zshFile])
            XCTAssertEqual(syntax.status, 0, syntax.stderr)
            // compinit finds it on $fpath and binds it to cellhost.
            let bound = try runBare(URL(fileURLWithPath: "/usr/bin/zsh"),
                                    ["-f", "-c", "fpath=(\"$1\" $fpath); autoload -Uz compinit; compinit -u -d \"$2\"; print -r -- $_comps[cellhost]",
                                     "zsh", prefix.path + "/share/zsh/site-functions", scratchDir.appendingPathComponent("zcompdump").path])
            XCTAssertEqual(bound.stdout, "_cellhost\n", bound.stderr)
            checked += 1
        }
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/fish") {
            let syntax = try runBare(URL(fileURLWithPath: "/usr/bin/fish"), ["--no-config", "-n", fishFile])
            XCTAssertEqual(syntax.status, 0, syntax.stderr)
            for command in Self.commands {
                let completed = try runBare(URL(fileURLWithPath: "/usr/bin/fish"),
                                            ["--no-config", "-c", "source $argv[1]; complete -C \"cellhost \(command) --\"", fishFile])
                XCTAssertEqual(completed.status, 0, completed.stderr)
                let options = Set(completed.stdout.split(separator: "\n").map { String($0.prefix { $0 != "\t" }) })
                XCTAssertEqual(options, try helpOptions(prefix, command), "fish: cellhost \(command) --<TAB>")
            }
            checked += 1
        }
        if checked == 0 { throw XCTSkip("neither zsh nor fish is installed (.ci/install-deps.sh installs both)") }
    }

    // MARK: - What is installed, and uninstalling it

    /// Every file and symbolic link under `directory`, relative to it.
    private func files(under directory: URL) throws -> Set<String> {
        var found = Set<String>()
        guard let walker = FileManager.default.enumerator(atPath: directory.path) else { return found }
        while let path = walker.nextObject() as? String {
            var info = stat()
            if lstat(directory.path + "/" + path, &info) == 0, info.st_mode & S_IFMT != S_IFDIR { found.insert(path) }
        }
        return found
    }

    func test_theManifest_listsEveryInstalledFile_andTheDocumentationIsThere() throws {
        let prefix = try installed()
        let manifest = try String(contentsOf: prefix.appendingPathComponent("share/doc/cellhost/MANIFEST"), encoding: .utf8)
        let listed = Set(manifest.split(separator: "\n").filter { $0.hasPrefix("f ") }.map { String($0.dropFirst(2)) })
        XCTAssertEqual(listed, try files(under: prefix))
        for path in ["bin/cellhost", "include/cellhost/cellhost.h", "include/cellhost/version.h", "lib/pkgconfig/cellhost.pc",
                     "share/man/man1/cellhost.1", "share/bash-completion/completions/cellhost",
                     "share/zsh/site-functions/_cellhost", "share/fish/vendor_completions.d/cellhost.fish",
                     "share/doc/cellhost/README.md", "share/doc/cellhost/docs/install.md", "share/doc/cellhost/docs/cli.md",
                     "share/doc/cellhost/examples/plugins/hello.c", "lib/cellhost/swift/libswiftCore.so"]
            + shippedPlugins.map({ "lib/cellhost/plugins/lib\($0.className.replacingOccurrences(of: "MessageCell", with: "Cell")).so" }) {
            XCTAssertTrue(listed.contains(path), "\(path) is installed")
        }
        // --help points to the manual, not to files of the source tree.
        for command in [["--help"]] + Self.commands.map({ [$0, "--help"] }) {
            let help = try runBare(cellhost(prefix), command)
            XCTAssertFalse(help.stdout.contains("docs/"), "\(command): \(help.stdout)")
        }
        XCTAssertTrue(try runBare(cellhost(prefix), ["--help"]).stdout.contains("man cellhost"))
        print("InstallTests: installed \(listed.count) files; install took \(Int(Self.installSeconds)) s")
    }

    func test_reinstall_thenUninstall_removesExactlyWhatWasInstalled() throws {
        _ = try installed() // the build is fresh: these installs take seconds
        let other = try makeDirectory("uninstall/prefix")
        let log = scratchDir.appendingPathComponent("install.log")
        for _ in 0..<2 { // a second install over the first (an upgrade) leaves nothing behind either
            let install = Self.runScript(["--prefix", other.path], log: log)
            XCTAssertEqual(install.status, 0, install.output)
        }
        // Something that is not CellHost's: kept, with the directory holding it.
        let foreign = other.appendingPathComponent("lib/cellhost/plugins/libmine.so")
        try Data("mine".utf8).write(to: foreign)
        let existing = try makeDirectory("uninstall/prefix/share/man/man7")
        let uninstall = Self.runScript(["--uninstall", "--prefix", other.path], log: log)
        XCTAssertEqual(uninstall.status, 0, uninstall.output)
        XCTAssertTrue(uninstall.output.contains("kept \(other.path)/lib/cellhost/plugins: not empty (libmine.so"), uninstall.output)
        XCTAssertEqual(try files(under: other), ["lib/cellhost/plugins/libmine.so"])
        XCTAssertTrue(FileManager.default.fileExists(atPath: existing.path), "a directory the install did not make is kept")
        // The man7 directory existed before: its parents were not the install's to remove.
        XCTAssertEqual(Set(try FileManager.default.contentsOfDirectory(atPath: other.path)), ["lib", "share"])
        let again = Self.runScript(["--uninstall", "--prefix", other.path], log: log)
        XCTAssertEqual(again.status, 2, "nothing left to uninstall")
    }

    func test_destdir_stagesUnderDestdir_withPathsThatReferToThePrefix() throws {
        _ = try installed()
        let stage = try makeDirectory("stage")
        let install = Self.runScript(["--destdir", stage.path, "--prefix", "/opt/cellhost-staged"],
                                     log: scratchDir.appendingPathComponent("install.log"))
        XCTAssertEqual(install.status, 0, install.output)
        let staged = stage.appendingPathComponent("opt/cellhost-staged")
        XCTAssertEqual(Set(try FileManager.default.contentsOfDirectory(atPath: stage.path)), ["opt"])
        let pc = try String(contentsOf: staged.appendingPathComponent("lib/pkgconfig/cellhost.pc"), encoding: .utf8)
        XCTAssertTrue(pc.hasPrefix("prefix=/opt/cellhost-staged\n"), pc)
        XCTAssertFalse(pc.contains(stage.path), pc)
        let manifest = try String(contentsOf: staged.appendingPathComponent("share/doc/cellhost/MANIFEST"), encoding: .utf8)
        XCTAssertFalse(manifest.contains(stage.path), manifest)
        // Relocatable: the staged tree runs where it is, plugins and runtime found from $ORIGIN.
        let demo = Self.examplesDirectory.appendingPathComponent("conversation.jsonl")
        let result = try runBare(staged.appendingPathComponent("bin/cellhost"), ["render", demo.path, "--format", "json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stderr, "")
        try assertDemoRenderedByOwnCells(result.stdout)
    }
}

import Foundation
import XCTest

/// The example plugin in three languages (Examples/plugins/hello.c,
/// hello.cpp, hello.rs) and the hand-written Rust binding of the headers
/// (Sources/CellHostABI/bindings/rust/cellhost.rs).
///
/// Each example is compiled from its place in the checkout into its own
/// temporary directory, with the command Examples/README.md gives, then
/// listed and rendered by the real host; all three must render the same
/// bytes. The stand-in host test and the layout test need no host features
/// and catch binding mistakes with a precise message.
///
/// Compilers are looked up on PATH only: `cc` for C, `g++` for C++ and
/// `rustc` for Rust. A test that needs a missing one is skipped (XCTSkip)
/// and says which. To run every test:
///
///     apt-get install -y g++ rustc      # Debian bookworm's rustc is 1.63, the oldest the binding supports
///     swift build && swift test --filter BindingsTests
///
/// or, with a rustup toolchain: `PATH=$HOME/.cargo/bin:$PATH swift test --filter BindingsTests`.
final class BindingsTests: EndToEndTestCase {

    // MARK: - The three languages

    enum Language: String, CaseIterable {
        case c = "C"
        case cpp = "C++"
        case rust = "Rust"

        var sourceName: String {
            switch self {
            case .c: return "hello.c"
            case .cpp: return "hello.cpp"
            case .rust: return "hello.rs"
            }
        }

        var compiler: String {
            switch self {
            case .c: return "cc"
            case .cpp: return "g++"
            case .rust: return "rustc"
            }
        }

        /// The build command of Examples/README.md, with warnings made errors.
        func arguments(source: URL, output: URL, include: URL) -> [String] {
            switch self {
            case .c:
                return ["-std=c99", "-Wall", "-Werror", "-shared", "-fPIC", "-I", include.path,
                        source.path, "-o", output.path]
            case .cpp:
                return ["-std=c++17", "-Wall", "-Werror", "-shared", "-fPIC", "-I", include.path,
                        source.path, "-o", output.path]
            case .rust:
                return ["--edition", "2021", "--crate-type", "cdylib", "-O", "-D", "warnings",
                        source.path, "-o", output.path]
            }
        }
    }

    static let pluginID = "org.example.hello"
    static let className = "HelloMessageCell"

    /// One conversation: a name, no name (the default), a name of the wrong
    /// type (the cell logs and fails, the host falls back, the counter stays),
    /// and a name again (the per-instance counter went on).
    static let messages = [
        #"{"id":"h1","type":"hello","text":"hi","sender":{"id":"u-bob","name":"Bob"},"hello":{"name":"Ann"}}"#,
        #"{"id":"h2","type":"hello","text":"hi again","sender":{"id":"u-bob","name":"Bob"}}"#,
        #"{"id":"h3","type":"hello","text":"broken","sender":{"id":"u-bob","name":"Bob"},"hello":{"name":42}}"#,
        #"{"id":"h4","type":"hello","text":"bye","sender":{"id":"u-bob","name":"Bob"},"hello":{"name":"Zoë"}}"#,
    ]

    /// `render - --format plain --width 60` of `messages`, whichever language
    /// the plugin is in. The third message is shown by the host's fallback.
    static let expectedPlain = """
        Bob
        ┃ Hello, Ann! (greeting 1)
        ┃ Hello, world! (greeting 2)
        ┃ Unsupported message type “hello”
        │ broken
        ┃ Hello, Zoë! (greeting 3)

        """

    // MARK: - Each language under the real host

    func test_helloC_isListedLoaded_andRendersItsGreetings() throws {
        try assertListedAndRendered(.c)
    }

    func test_helloCpp_isListedLoaded_andRendersItsGreetings() throws {
        try assertListedAndRendered(.cpp)
    }

    func test_helloRust_isListedLoaded_andRendersItsGreetings() throws {
        try assertListedAndRendered(.rust)
    }

    func test_helloInCCppAndRust_renderByteForByteTheSameOutput() throws {
        let missing = Language.allCases.filter { Self.findOnPath($0.compiler) == nil }
        if !missing.isEmpty {
            throw XCTSkip("cannot compare the three languages: "
                          + missing.map { "\($0.compiler) (for \($0.rawValue)) is not on PATH" }.joined(separator: "; "))
        }
        var outputs: [(Language, RenderOutputs)] = []
        for language in Language.allCases {
            let directory = try makeDirectory("hello-\(language)")
            try build(language, into: directory)
            outputs.append((language, try renderOutputs(pluginDirectory: directory)))
        }
        let (_, reference) = outputs[0]
        XCTAssertFalse(reference.plain.isEmpty)
        for (language, output) in outputs.dropFirst() {
            XCTAssertEqual(output.plain, reference.plain, "--format plain of \(language.rawValue) vs C")
            XCTAssertEqual(output.json, reference.json, "--format json of \(language.rawValue) vs C")
        }
    }

    // MARK: - Each language under a stand-in host

    /// What Fixtures/bindings/minihost.c prints for each hello plugin: the
    /// descriptor as the host reads it (every struct_size equal to the C
    /// sizeof), the samples, and the render calls with the styles appended
    /// (`{style:text}`), two conversations of fresh instance variables.
    static let standInHostOutput = """
        abi 2.0 compatible 1
        descriptor struct_size sizeof flags 0
        id org.example.hello
        version 2.0.0
        description Says hello to the name in a hello message
        author CellHost examples
        license MIT
        init yes deinit no get_extension yes
        message class hello parent (null) struct_size sizeof
        class HelloMessageCell superclass MessageCell rank 0 flags 0 instance_size 4 struct_size sizeof
          renders hello
          method renderMessage:context:into: i@:r^{cellhost_message}r^{cellhost_context}^{cellhost_builder} imp set struct_size sizeof
        unknown extension NULL
        samples struct_size sizeof count 1
          sample {"type":"hello","text":"hi","hello":{"name":"Ann"}}
        init 0 (null)
        conversation 1
          render 0 {0:Hello, }{1:Ann}{16:! (greeting 1)}
          render 0 {0:Hello, }{1:world}{16:! (greeting 2)}
          log 3: hello.name is not a string
          render 2 
          render 0 {0:Hello, }{1:Zoë}{16:! (greeting 3)}
        conversation 2
          render 0 {0:Hello, }{1:Ann}{16:! (greeting 1)}
        done

        """

    func test_helloC_underAStandInHost_describesAndRendersExactlyAsExpected() throws {
        try assertStandInHostOutput(.c)
    }

    func test_helloCpp_underAStandInHost_describesAndRendersExactlyAsExpected() throws {
        try assertStandInHostOutput(.cpp)
    }

    func test_helloRust_underAStandInHost_describesAndRendersExactlyAsExpected() throws {
        try assertStandInHostOutput(.rust)
    }

    // MARK: - The Rust binding's layout

    /// layout.c prints sizeof, _Alignof, offsetof and field sizes of every
    /// struct, the typedefs and every constant from the headers; layout.rs
    /// prints the same from the binding (offsets from MaybeUninit +
    /// addr_of!). The two outputs must be equal, and the C one must cover
    /// every struct, field, typedef and constant the headers declare.
    func test_rustBinding_layoutAndConstants_matchTheCHeaders() throws {
        let cc = try compilerURL("cc", for: .c)
        let rustc = try compilerURL("rustc", for: .rust)
        let cLayout = scratchDir.appendingPathComponent("layout-c")
        let rustLayout = scratchDir.appendingPathComponent("layout-rust")
        try runTool(cc, ["-std=c11", "-Wall", "-Werror", "-I", Self.abiIncludeDirectory.path,
                         Self.bindingsFixture("layout.c").path, "-o", cLayout.path], what: "cc layout.c")
        try runTool(rustc, ["--edition", "2021", "-D", "warnings", Self.bindingsFixture("layout.rs").path,
                            "-o", rustLayout.path], what: "rustc layout.rs")
        let fromC = try runTool(cLayout, [], what: "layout (C)")
        let fromRust = try runTool(rustLayout, [], what: "layout (Rust)")

        assertSameLines(fromRust, fromC, "Rust binding (<) vs C headers (>)")
        try assertCovers(fromC, HeaderInventory.read(from: ABIHeaders.directory))
    }

    // MARK: - Steps

    /// Builds the stand-in host and the plugin, runs one on the other and
    /// compares the output with `standInHostOutput`.
    private func assertStandInHostOutput(_ language: Language) throws {
        let cc = try compilerURL("cc", for: .c)
        let directory = try makeDirectory("standin-\(language)")
        let library = try build(language, into: directory)
        let minihost = scratchDir.appendingPathComponent("minihost")
        try runTool(cc, ["-std=c99", "-Wall", "-Werror", "-I", Self.abiIncludeDirectory.path,
                         Self.bindingsFixture("minihost.c").path, "-o", minihost.path, "-ldl"],
                    what: "cc minihost.c")
        let output = try runTool(minihost, [library.path], what: "minihost \(language.sourceName)")
        assertSameLines(output, Self.standInHostOutput, "stand-in host with \(language.rawValue) (<) vs expected (>)")
    }

    /// list-plugins shows the plugin loaded with its class and message
    /// class; render shows the greetings, the fallback after the error, and
    /// the log line on stderr.
    private func assertListedAndRendered(_ language: Language,
                                         file: StaticString = #filePath, line: UInt = #line) throws {
        let directory = try makeDirectory("hello-\(language)")
        let library = try build(language, into: directory, file: file, line: line)

        let report = try listPlugins(["--plugin-path", directory.path], file: file, line: line)
        assertShippedPluginsLoaded(report, file: file, line: line)
        let plugin = try XCTUnwrap(report.plugin(atPath: library.path),
                                   "\(library.lastPathComponent) not listed: \(report.plugins.map(\.file))",
                                   file: file, line: line)
        XCTAssertEqual(plugin.state, .loaded, plugin.error ?? "", file: file, line: line)
        XCTAssertNil(plugin.error, file: file, line: line)
        XCTAssertEqual(plugin.id, Self.pluginID, file: file, line: line)
        XCTAssertEqual(plugin.version, "2.0.0", file: file, line: line)
        XCTAssertEqual(plugin.abi, try ABIHeaders.version(), file: file, line: line)
        XCTAssertEqual(plugin.description, "Says hello to the name in a hello message", file: file, line: line)
        XCTAssertEqual(plugin.author, "CellHost examples", file: file, line: line)
        XCTAssertEqual(plugin.license, "MIT", file: file, line: line)
        XCTAssertEqual(plugin.rejectedClasses.map(\.name), [], file: file, line: line)
        XCTAssertEqual(plugin.classes.map(\.name), [Self.className], file: file, line: line)
        let cell = try XCTUnwrap(plugin.class(Self.className), file: file, line: line)
        XCTAssertEqual(cell.superclass, "MessageCell", file: file, line: line)
        XCTAssertEqual(cell.messageClasses, ["hello"], file: file, line: line)
        XCTAssertEqual(cell.rank, 0, file: file, line: line)
        XCTAssertEqual(cell.methods, [MethodEntry(selector: try ABIHeaders.stringMacro("CELLHOST_SEL_RENDER"),
                                                  types: try ABIHeaders.stringMacro("CELLHOST_TYPES_RENDER"))],
                       file: file, line: line)
        let declared = try XCTUnwrap(report.messageClass("hello"), "hello is in the message-class tree",
                                     file: file, line: line)
        XCTAssertNil(declared.parent, file: file, line: line)
        XCTAssertEqual(declared.declaredBy, Self.pluginID, file: file, line: line)
        XCTAssertEqual(report.row("hello")?.winner?.className, Self.className, file: file, line: line)
        XCTAssertEqual(report.row("hello")?.winner?.plugin, Self.pluginID, file: file, line: line)

        let (rendered, stderr) = try renderJSON(Self.messages, extraArgs: ["--plugin-path", directory.path],
                                                file: file, line: line)
        XCTAssertEqual(rendered.map(\.id), ["h1", "h2", "h3", "h4"], file: file, line: line)
        let greeted = [(0, "Hello, Ann! (greeting 1)"), (1, "Hello, world! (greeting 2)"),
                       (3, "Hello, Zoë! (greeting 3)")]
        for (index, greeting) in greeted where index < rendered.count {
            let message = rendered[index]
            XCTAssertEqual(message.className, Self.className, "message \(index + 1)", file: file, line: line)
            XCTAssertEqual(message.plugin, Self.pluginID, "message \(index + 1)", file: file, line: line)
            XCTAssertNil(message.fallback, "message \(index + 1)", file: file, line: line)
            XCTAssertTrue(message.lines.contains { $0.contains(greeting) },
                          "message \(index + 1) shows \"\(greeting)\"; lines: \(message.lines)", file: file, line: line)
        }
        if rendered.count > 2 {
            let failed = rendered[2]
            XCTAssertNotEqual(failed.className, Self.className, "h3 is shown by a fallback", file: file, line: line)
            let first = failed.fallback?.chain.first
            XCTAssertEqual(first?.className, Self.className, file: file, line: line)
            XCTAssertEqual(first?.plugin, Self.pluginID, file: file, line: line)
            XCTAssertEqual(first?.result, .error, file: file, line: line)
            XCTAssertTrue(failed.fallback?.reason.contains("hello.name is not a string") ?? false,
                          "the logged error is the reason: \(failed.fallback?.reason ?? "no fallback")",
                          file: file, line: line)
            XCTAssertFalse(failed.lines.contains { $0.contains("greeting") }, "\(failed.lines)", file: file, line: line)
        }
        XCTAssertTrue(stderr.contains("\(Self.pluginID): hello.name is not a string"),
                      "the plugin's error log reaches stderr:\n\(stderr)", file: file, line: line)

        let plain = try renderOutputs(pluginDirectory: directory).plain
        assertSameLines(plain, Self.expectedPlain, "render --format plain with \(language.rawValue) (<) vs expected (>)",
                        file: file, line: line)
    }

    struct RenderOutputs {
        let plain: String
        let json: String
    }

    /// stdout of `render - --format plain` and `--format json` of the
    /// conversation with the plugins of `pluginDirectory`.
    private func renderOutputs(pluginDirectory: URL,
                               file: StaticString = #filePath, line: UInt = #line) throws -> RenderOutputs {
        let input = Data((Self.messages.joined(separator: "\n") + "\n").utf8)
        var stdouts: [String] = []
        for format in ["plain", "json"] {
            let result = try run(["render", "-", "--format", format, "--width", "60",
                                  "--plugin-path", pluginDirectory.path],
                                 env: defaultEnvironment, stdin: input, file: file, line: line)
            XCTAssertEqual(result.status, 0, "render --format \(format); stderr:\n\(result.stderr)",
                           file: file, line: line)
            stdouts.append(result.stdout)
        }
        return RenderOutputs(plain: stdouts[0], json: stdouts[1])
    }

    /// Compiles Examples/plugins/<source> in place into `<directory>/libhello.so`.
    @discardableResult
    private func build(_ language: Language, into directory: URL,
                       file: StaticString = #filePath, line: UInt = #line) throws -> URL {
        let compiler = try compilerURL(language.compiler, for: language)
        let source = Self.examplesDirectory.appendingPathComponent("plugins/\(language.sourceName)")
        let output = directory.appendingPathComponent("libhello.so")
        try runTool(compiler, language.arguments(source: source, output: output, include: Self.abiIncludeDirectory),
                    what: "\(language.compiler) \(language.sourceName)", file: file, line: line)
        return output
    }

    /// Runs a compiler or a compiled program in the test's environment and
    /// returns its stdout; fails the test with its output when it fails.
    @discardableResult
    private func runTool(_ tool: URL, _ arguments: [String], what: String,
                         file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let result = try execute(tool, arguments, environment: ProcessInfo.processInfo.environment,
                                 stdin: nil, currentDirectory: scratchDir, timeout: 300, file: file, line: line)
        let stdout = String(decoding: result.stdout, as: UTF8.self)
        guard result.status == 0 else {
            XCTFail("\(what) failed (status \(result.status)):\n\(result.stderr)\(stdout)", file: file, line: line)
            throw HarnessError.compileFailed(what)
        }
        return stdout
    }

    /// The compiler `name` on PATH, or XCTSkip naming it.
    private func compilerURL(_ name: String, for language: Language) throws -> URL {
        guard let url = Self.findOnPath(name) else {
            throw XCTSkip("\(name) is not on PATH, so the \(language.rawValue) part is not tested "
                          + "(apt-get install \(name == "cc" ? "gcc" : name))")
        }
        return url
    }

    static func findOnPath(_ name: String) -> URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        for directory in path.split(separator: ":") where !directory.isEmpty {
            let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return nil
    }

    static func bindingsFixture(_ name: String) -> URL {
        fixturesDirectory.appendingPathComponent("bindings/\(name)")
    }

    /// Equal texts, or a failure naming the first line that differs.
    private func assertSameLines(_ actual: String, _ expected: String, _ what: String,
                                 file: StaticString = #filePath, line: UInt = #line) {
        guard actual != expected else { return }
        let a = actual.components(separatedBy: "\n")
        let e = expected.components(separatedBy: "\n")
        let index = (0..<min(a.count, e.count)).first { a[$0] != e[$0] } ?? min(a.count, e.count)
        XCTFail("\(what): line \(index + 1) differs (\(a.count) vs \(e.count) lines)\n"
                + "< \(index < a.count ? a[index] : "<end>")\n> \(index < e.count ? e[index] : "<end>")",
                file: file, line: line)
    }

    /// The C layout output names every struct (with its fields, in order),
    /// typedef and constant the headers declare, so the comparison with the
    /// Rust output leaves none out.
    private func assertCovers(_ output: String, _ headers: HeaderInventory,
                              file: StaticString = #filePath, line: UInt = #line) throws {
        var structs: [String: [String]] = [:]
        var names = Set<String>()
        for row in output.split(separator: "\n") {
            let words = row.split(separator: " ").map(String.init)
            guard words.count >= 2 else { continue }
            names.insert(words[1])
            if words[0] == "struct" { structs[words[1], default: []] = [] }
            if words[0] == "field", let dot = words[1].firstIndex(of: ".") {
                structs[String(words[1][..<dot]), default: []].append(String(words[1][words[1].index(after: dot)...]))
            }
        }
        XCTAssertGreaterThanOrEqual(headers.structs.count, 14, "the header scan found the structs", file: file, line: line)
        XCTAssertEqual(Set(structs.keys), Set(headers.structs.keys), "structs in layout.c vs the headers",
                       file: file, line: line)
        for (name, fields) in headers.structs {
            XCTAssertEqual(structs[name], fields, "fields of \(name) in layout.c vs the headers", file: file, line: line)
        }
        XCTAssertGreaterThanOrEqual(headers.constants.count, 50, "the header scan found the constants",
                                    file: file, line: line)
        let missing = headers.constants.union(headers.typedefs).subtracting(names)
        XCTAssertEqual(missing, [], "constants and typedefs of the headers that layout.c does not print",
                       file: file, line: line)
    }
}

/// What the headers declare, read from their text: structs with their
/// fields, non-struct typedefs, and constants (`#define CELLHOST_X value`
/// that is not function-like, and the members of `enum { ... }` blocks).
/// The headers' regular style (one declaration per statement) is what makes
/// this simple scan enough.
struct HeaderInventory {
    var structs: [String: [String]] = [:]
    var typedefs = Set<String>()
    var constants = Set<String>()

    static func read(from directory: URL) throws -> HeaderInventory {
        var inventory = HeaderInventory()
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".h") }
        for name in files {
            let raw = try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
            for row in raw.split(separator: "\n") {
                let words = row.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
                if words.count >= 3, words[0] == "#define", words[1].hasPrefix("CELLHOST_"), !words[1].contains("("),
                   !words[2].hasPrefix("__attribute__") {
                    inventory.constants.insert(words[1])
                }
            }
            let code = replace(#"/\*[\s\S]*?\*/|//[^\n]*|#[^\n]*"#, in: raw, with: " ")
            for match in matches(#"struct\s+(\w+)\s*\{([^}]*)\}"#, in: code) {
                inventory.structs[match[1]] = match[2].split(separator: ";").compactMap { fieldName(String($0)) }
            }
            for match in matches(#"enum\s*\{([^}]*)\}"#, in: code) {
                for constant in matches(#"\b(CELLHOST_\w+)\s*="#, in: match[1]) { inventory.constants.insert(constant[1]) }
            }
            for match in matches(#"\btypedef\s+([^;{}]*);"#, in: code) where !match[1].contains("struct") {
                if let name = fieldName(match[1]) { inventory.typedefs.insert(name) }
            }
        }
        return inventory
    }

    /// The declared name of one declaration: after `(*` for a function
    /// pointer, else its last identifier.
    static func fieldName(_ declaration: String) -> String? {
        let text = declaration.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { return nil }
        if let pointer = matches(#"\(\s*\*\s*(\w+)\s*\)"#, in: text).first { return pointer[1] }
        return matches(#"(\w+)\s*(\[[^\]]*\])?\s*$"#, in: text).first?[1]
    }

    private static func matches(_ pattern: String, in text: String) -> [[String]] {
        guard let regex = try? NSRegularExpression(pattern: pattern) else { return [] }
        let ns = text as NSString
        return regex.matches(in: text, range: NSRange(location: 0, length: ns.length)).map { match in
            (0..<match.numberOfRanges).map {
                let range = match.range(at: $0)
                return range.location == NSNotFound ? "" : ns.substring(with: range)
            }
        }
    }

    private static func replace(_ pattern: String, in text: String, with replacement: String) -> String {
        guard let regex = try? NSRegularExpression(pattern: pattern) else { return text }
        return regex.stringByReplacingMatches(in: text, range: NSRange(location: 0, length: (text as NSString).length),
                                              withTemplate: replacement)
    }
}

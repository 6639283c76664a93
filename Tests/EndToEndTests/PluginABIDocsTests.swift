import Foundation
import XCTest

/// docs/plugin-abi.md cannot drift from the host: every diagnostic it quotes
/// is printed, word for word, by the real `cellhost` for the plugin the line
/// names; its complete minimal plugin compiles and renders as it says; the
/// `list-plugins` line it quotes for a plugin that registers at init is the
/// host's.
///
/// The document quotes diagnostics only inside fenced blocks whose info
/// string is `diagnostics`, one line each, exactly as stderr shows them,
/// with `DIR` standing for the directory of the plugin file. Each quoted line
/// is claimed by exactly one scenario below (by a marker it contains); the
/// scenario builds the plugins from Tests/EndToEndTests/Fixtures (or a small
/// source kept here), runs the host, and the line must be a whole line of
/// its stderr. A quoted line no scenario claims fails the test, and so does
/// a scenario the document no longer quotes.
final class PluginABIDocsTests: EndToEndTestCase {

    static var documentURL: URL { packageRoot.appendingPathComponent("docs/plugin-abi.md") }

    // MARK: - Reading the document

    private func document(file: StaticString = #filePath, line: UInt = #line) throws -> String {
        guard let text = try? String(contentsOf: Self.documentURL, encoding: .utf8) else {
            XCTFail("cannot read \(Self.documentURL.path)", file: file, line: line)
            throw HarnessError.fixtureMissing("docs/plugin-abi.md")
        }
        return text
    }

    /// Every quoted diagnostic, once each, in document order.
    private func quotedDiagnostics(file: StaticString = #filePath, line: UInt = #line) throws -> [String] {
        var seen = Set<String>()
        var lines: [String] = []
        for block in DiagnosticBlocks.parse(try document(file: file, line: line)) {
            for quoted in block where !quoted.trimmingCharacters(in: .whitespaces).isEmpty {
                if seen.insert(quoted).inserted { lines.append(quoted) }
            }
        }
        return lines
    }

    // MARK: - Scenarios

    /// One way of making the host speak: plugins built into a directory of
    /// their own, one run of the host, its stderr.
    private struct Scenario {
        /// Quoted lines containing one of these belong to this scenario.
        var markers: [String]
        /// Builds the plugins into the directory and runs the host there;
        /// returns stderr.
        var produce: (PluginABIDocsTests, URL) throws -> String
    }

    /// Plugins that fail to load, or lose a class, when they are described:
    /// `cellhost list-plugins` over one directory holding them all.
    private static let loadTimePlugins: [(name: String, fixture: String?, source: String?, flags: [String])] = [
        ("abi_major_1", "abi_major_1.c", nil, []),
        ("abi_minor_7", "abi_minor_7.c", nil, []),
        ("no_entry_symbol", "no_entry_symbol.c", nil, []),
        ("entry_returns_null", "entry_returns_null.c", nil, []),
        ("descriptor_id_null", "descriptor_id_null.c", nil, []),
        ("descriptor_id_empty", "descriptor_id_empty.c", nil, []),
        ("descriptor_classes_null", "descriptor_classes_null.c", nil, []),
        ("oddsize", "odd_struct_sizes.c", nil, []),
        ("duplicate_id_a", "duplicate_id.c", nil, []),
        ("duplicate_id_b", "duplicate_id.c", nil, []),
        ("hostile_ctor_segv", "hostile.c", nil, ["-DCTOR_SEGV"]),
        ("hostile_ctor_print", "hostile.c", nil, ["-DCTOR_PRINT"]),
        ("hostile_ctor_hang", "hostile.c", nil, ["-DCTOR_HANG"]),
        ("malformed_encoding", "malformed_encoding.c", nil, []),
        ("void_render_encoding", "void_render_encoding.c", nil, []),
        ("missing_superclass", "missing_superclass.c", nil, []),
    ]

    private static var scenarios: [Scenario] {
        [
            Scenario(markers: loadTimePlugins.filter { $0.name != "duplicate_id_a" }.map { "DIR/\($0.name).so:" }
                     + ["DIR/junk.so:"]) { test, directory in
                try test.writeFile("junk.so", Data("not a library\n".utf8), in: directory)
                for plugin in loadTimePlugins {
                    if let fixture = plugin.fixture {
                        try test.compileFixture(fixture, as: plugin.name, extraFlags: plugin.flags, into: directory)
                    } else {
                        try test.compilePlugin(source: plugin.source!, name: plugin.name, extraFlags: plugin.flags,
                                               into: directory)
                    }
                }
                let result = try test.run(["list-plugins"], env: ["CELLHOST_PLUGIN_PATH": directory.path])
                XCTAssertEqual(result.status, 1, "list-plugins exits 1 when a plugin failed")
                return result.stderr
            },
            Scenario(markers: ["DIR/init_refuses.so:"]) { test, directory in
                try test.compilePlugin(source: initRefusesSource, name: "init_refuses", into: directory)
                return try test.renderText(pluginDirectory: directory)
            },
            Scenario(markers: ["test.unflagged:"]) { test, directory in
                try test.compilePlugin(source: unflaggedSource, name: "unflagged", into: directory)
                return try test.renderText(pluginDirectory: directory)
            },
            Scenario(markers: ["HostileCell crashed"]) { test, directory in
                try test.compileFixture("hostile.c", as: "hostile_render_segv", extraFlags: ["-DRENDER_SEGV"], into: directory)
                let messages = (1...4).map { #"{"type":"hostile","id":"m\#($0)","n":\#($0)}"# }
                try test.writeFile("chat.jsonl", Data((messages.joined(separator: "\n") + "\n").utf8), in: test.scratchDir)
                let result = try test.run(["render", "chat.jsonl", "--format", "plain", "--width", "80", "--isolation", "each"],
                                          env: ["CELLHOST_PLUGIN_PATH": directory.path], currentDirectory: test.scratchDir)
                XCTAssertEqual(result.status, 0, "a crash in a worker is not an error of the run; stderr:\n\(result.stderr)")
                return result.stderr
            },
        ]
    }

    /// Renders one text message with the plugins of `pluginDirectory` in
    /// the host process; returns stderr.
    private func renderText(pluginDirectory: URL) throws -> String {
        let result = try run(["render", "-", "--format", "plain", "--width", "80", "--isolation", "none"],
                             env: ["CELLHOST_PLUGIN_PATH": pluginDirectory.path],
                             stdin: Data(#"{"type":"text","id":"m1","text":"hi"}"#.utf8 + [0x0A]))
        XCTAssertEqual(result.status, 0, "stderr:\n\(result.stderr)")
        XCTAssertTrue(result.stdout.contains("hi"), "the message still renders: \(result.stdout)")
        return result.stderr
    }

    // MARK: - Tests

    func test_everyQuotedDiagnostic_isWhatTheHostPrints() throws {
        let quoted = try quotedDiagnostics()
        XCTAssertGreaterThanOrEqual(quoted.count, 15, "docs/plugin-abi.md quotes its diagnostics in ```diagnostics blocks")
        let scenarios = Self.scenarios

        var claimed: [Int: [String]] = [:]
        for line in quoted {
            let owners = scenarios.indices.filter { index in scenarios[index].markers.contains { line.contains($0) } }
            guard owners.count == 1 else {
                XCTFail("docs/plugin-abi.md quotes a diagnostic that \(owners.isEmpty ? "no" : "more than one") scenario "
                        + "of PluginABIDocsTests produces; add one that makes the host print it:\n\(line)")
                continue
            }
            claimed[owners[0], default: []].append(line)
        }
        for (index, scenario) in scenarios.enumerated() {
            for marker in scenario.markers where !quoted.contains(where: { $0.contains(marker) }) {
                XCTFail("docs/plugin-abi.md no longer quotes a diagnostic containing \(marker); remove it from the scenarios")
            }
            guard let lines = claimed[index] else { continue }
            let directory = try makeDirectory("docs-scenario-\(index)")
            let stderr = try scenario.produce(self, directory)
            let printed = Set(stderr.split(separator: "\n").map(String.init))
            for line in lines {
                let candidates = [directory.path, canonicalDirectory(directory.path)].map {
                    line.replacingOccurrences(of: "DIR/", with: $0 + "/")
                }
                XCTAssertTrue(candidates.contains(where: printed.contains),
                              "docs/plugin-abi.md quotes\n  \(line)\nbut the host printed:\n\(stderr)")
            }
        }
    }

    func test_theCompleteMinimalPlugin_compilesAndRendersAsDescribed() throws {
        let text = try document()
        let examples = DiagnosticBlocks.parse(text, info: "c").filter { $0.first?.hasPrefix("/* hello.c") ?? false }
        XCTAssertEqual(examples.count, 1, "docs/plugin-abi.md has one C block starting with /* hello.c")
        let source = try XCTUnwrap(examples.first).joined(separator: "\n") + "\n"
        try compilePlugin(source: source, name: "libhello", extraFlags: ["-Wextra", "-Wmissing-prototypes"])

        let listing = try run(["list-plugins"], env: defaultEnvironment)
        XCTAssertTrue(listing.stdout.contains("org.example.hello 1.0.0  loaded  ABI 2.0"), listing.stdout)
        XCTAssertTrue(listing.stdout.contains("HelloMessageCell : MessageCell  → hello  rank 0"), listing.stdout)

        let rendered = try run(["render", "-", "--format", "plain", "--width", "60"], env: defaultEnvironment,
                               stdin: Data(#"{"type":"hello","sender":{"name":"Ann"}}"#.utf8 + [0x0A]))
        XCTAssertEqual(rendered.status, 0, rendered.stderr)
        XCTAssertTrue(rendered.stdout.contains("Hello, Ann"), rendered.stdout)
    }

    func test_aPluginThatRegistersAtInit_isListedAsTheDocumentSays() throws {
        let phrase = "registers classes at run time (its init runs to describe it)"
        XCTAssertTrue(try document().contains("`\(phrase)`"), "docs/plugin-abi.md quotes the list-plugins line")
        try compileFixture("registers_at_init.c")
        let listing = try run(["list-plugins"], env: defaultEnvironment)
        XCTAssertTrue(listing.stdout.split(separator: "\n").contains { $0.trimmingCharacters(in: .whitespaces) == phrase },
                      listing.stdout)
    }

    // MARK: - Sources kept here

    /// LicensedCell (rank 100, for "text") whose init refuses: the failure
    /// shows when a text message first needs the class.
    static let initRefusesSource = """
    #include <cellhost/cellhost.h>
    static int32_t render(cellhost_object *s, cellhost_sel c, const cellhost_message *m,
                          const cellhost_context *x, cellhost_builder *o) { return CELLHOST_DECLINED; }
    static int32_t init(const cellhost_host *host, const char **reason) { *reason = "no licence key"; return 1; }
    static const cellhost_method methods[] = { CELLHOST_METHOD(CELLHOST_SEL_RENDER, CELLHOST_TYPES_RENDER, render) };
    static const char *const renders[] = { "text", NULL };
    static const cellhost_class classes[] = {
        { .struct_size = sizeof(cellhost_class), .name = "LicensedCell", .message_classes = renders, .rank = 100,
          .methods = methods, .method_count = 1 },
    };
    static const cellhost_plugin_descriptor descriptor = {
        .abi = CELLHOST_ABI_VERSION_INIT, .struct_size = sizeof descriptor, .id = "test.licensed", .version = "1",
        .init = init, .classes = classes, .class_count = 1,
    };
    CELLHOST_EXPORT const cellhost_plugin_descriptor *cellhost_plugin_entry(void) { return &descriptor; }
    """

    /// ListedCell (rank 100, for "text", declines) from the descriptor; init
    /// registers LateCell without CELLHOST_PLUGIN_REGISTERS_AT_INIT.
    static let unflaggedSource = """
    #include <cellhost/cellhost.h>
    static int32_t render(cellhost_object *s, cellhost_sel c, const cellhost_message *m,
                          const cellhost_context *x, cellhost_builder *o) { return CELLHOST_DECLINED; }
    static const cellhost_method methods[] = { CELLHOST_METHOD(CELLHOST_SEL_RENDER, CELLHOST_TYPES_RENDER, render) };
    static const char *const renders[] = { "text", NULL };
    static const cellhost_class classes[] = {
        { .struct_size = sizeof(cellhost_class), .name = "ListedCell", .message_classes = renders, .rank = 100,
          .methods = methods, .method_count = 1 },
    };
    static const cellhost_class late = {
        .struct_size = sizeof(cellhost_class), .name = "LateCell", .methods = methods, .method_count = 1,
    };
    static int32_t init(const cellhost_host *host, const char **reason) {
        (void)reason;
        host->register_class(host, &late);
        return 0;
    }
    static const cellhost_plugin_descriptor descriptor = {
        .abi = CELLHOST_ABI_VERSION_INIT, .struct_size = sizeof descriptor, .id = "test.unflagged", .version = "1",
        .init = init, .classes = classes, .class_count = 1,
    };
    CELLHOST_EXPORT const cellhost_plugin_descriptor *cellhost_plugin_entry(void) { return &descriptor; }
    """
}

/// Fenced blocks of a Markdown text.
enum DiagnosticBlocks {
    /// The bodies of the fenced blocks whose info string is `info`
    /// (`diagnostics` by default), in order. Other blocks are skipped whole.
    static func parse(_ text: String, info: String = "diagnostics") -> [[String]] {
        var blocks: [[String]] = []
        var body: [String] = []
        var open: String?
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = String(raw)
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if let tag = open {
                if trimmed == "```" {
                    if tag == info { blocks.append(body) }
                    open = nil
                    body = []
                } else {
                    body.append(line)
                }
            } else if trimmed.hasPrefix("```") {
                open = String(trimmed.dropFirst(3)).trimmingCharacters(in: .whitespaces)
            }
        }
        return blocks
    }
}

import Foundation
import XCTest

/// Class chains that cross languages and plugins, through the real
/// `cellhost`: a C class subclassing a CellKit class, and a CellKit class
/// subclassing a C class. Every class of each chain keeps its own instance
/// variables (a render count and whether its `conversationWillBegin:` ran)
/// and every method calls super, so the rendered text shows that each class
/// found its own block, kept it across messages, and had its hook called.
///
/// The Swift classes are Tests/Plugins/MixedSwiftCells (a target without a
/// product, linked here from the objects `swift build` made); the C classes
/// are Fixtures/mixed_c_cells.c.
final class MixedSubclassTests: EndToEndTestCase {

    override func setUpWithError() throws {
        try super.setUpWithError()
        try linkSwiftTestPlugin()
        try compileFixture("mixed_c_cells.c", as: "libmixedc")
    }

    func test_chainsAcrossPluginsAndLanguagesAreLinked() throws {
        let report = try listPlugins()
        let swift = try XCTUnwrap(report.plugins(id: "test.mixed.swift").first)
        let c = try XCTUnwrap(report.plugins(id: "test.mixed.c").first)
        XCTAssertEqual(swift.class("SwiftOnCCell")?.superclass, "CBaseCell")
        XCTAssertEqual(c.class("COnSwiftCell")?.superclass, "SwiftBaseCell")
        XCTAssertTrue(swift.rejectedClasses.isEmpty && c.rejectedClasses.isEmpty,
                      "\(swift.rejectedClasses) \(c.rejectedClasses)")
        XCTAssertEqual(report.row("mixa")?.winner?.className, "COnSwiftCell")
        XCTAssertEqual(report.row("mixb")?.winner?.className, "SwiftOnCCell")
    }

    func test_cSubclassOfACellKitClass_eachClassKeepsItsOwnIvarsAndCallsSuper() throws {
        let rendered = try renderJSON([message("a1", "mixa"), message("a2", "mixa")])
        XCTAssertEqual(rendered.messages.map(\.className), ["COnSwiftCell", "COnSwiftCell"], rendered.stderr)
        XCTAssertEqual(rendered.messages.map(\.lines), [["┃ swift-base#1 began c-sub#1 began"],
                                                        ["┃ swift-base#2 began c-sub#2 began"]])
        XCTAssertEqual(rendered.stderr, "")
    }

    func test_cellKitSubclassOfACClass_eachClassKeepsItsOwnIvarsAndCallsSuper() throws {
        let rendered = try renderJSON([message("b1", "mixb"), message("b2", "mixb")])
        XCTAssertEqual(rendered.messages.map(\.className), ["SwiftOnCCell", "SwiftOnCCell"], rendered.stderr)
        XCTAssertEqual(rendered.messages.map(\.lines), [["┃ c-base#1 began swift-sub#1 began"],
                                                        ["┃ c-base#2 began swift-sub#2 began"]])
        XCTAssertEqual(rendered.stderr, "")
    }

    func test_bothChainsInOneConversation_keepSeparateInstances() throws {
        let rendered = try renderJSON([message("a1", "mixa"), message("b1", "mixb"),
                                       message("a2", "mixa"), message("b2", "mixb")])
        XCTAssertEqual(rendered.messages.map(\.lines), [["┃ swift-base#1 began c-sub#1 began"],
                                                        ["┃ c-base#1 began swift-sub#1 began"],
                                                        ["┃ swift-base#2 began c-sub#2 began"],
                                                        ["┃ c-base#2 began swift-sub#2 began"]])
    }

    func test_bothPluginsOfTheMixedChains_passCheckPlugin() throws {
        for name in ["libMixedSwiftCells.so", "libmixedc.so"] {
            let file = pluginDir.appendingPathComponent(name).path
            let result = try run(["check-plugin", file, "--timeout", "5000"], env: defaultEnvironment, timeout: 300)
            XCTAssertEqual(result.status, 0, "\(name):\n\(result.stdout)\(result.stderr)")
            XCTAssertTrue(result.stdout.contains("PASS  classes-link"), result.stdout)
            XCTAssertTrue(result.stdout.contains("PASS  render-samples"), result.stdout)
        }
    }

    // MARK: - Helpers

    // The lines of `--format json` carry the chrome: "┃ " before incoming content.

    private func message(_ id: String, _ type: String) -> String {
        #"{"id":"\#(id)","type":"\#(type)","text":"fallback text"}"#
    }

    /// Links the objects of MixedSwiftCells and CellKit (built by `swift
    /// build` beside `cellhost`) into `<plugins>/libMixedSwiftCells.so`: one
    /// `<file>.swift.o` per source file of each target, so an object left
    /// over from a deleted source is never linked.
    private func linkSwiftTestPlugin(file: StaticString = #filePath, line: UInt = #line) throws {
        let buildDirectory = binary.deletingLastPathComponent()
        var objects: [String] = []
        for (target, sources) in [("MixedSwiftCells", "Tests/Plugins/MixedSwiftCells"), ("CellKit", "Sources/CellKit")] {
            let sourceDirectory = Self.packageRoot.appendingPathComponent(sources, isDirectory: true)
            let objectDirectory = buildDirectory.appendingPathComponent("\(target).build", isDirectory: true)
            let names = FileManager.default.enumerator(atPath: sourceDirectory.path)?.compactMap { $0 as? String } ?? []
            let swiftFiles = names.filter { $0.hasSuffix(".swift") }.map { ($0 as NSString).lastPathComponent }
            for name in swiftFiles.sorted() {
                let object = objectDirectory.appendingPathComponent(name + ".o").path
                guard FileManager.default.fileExists(atPath: object) else {
                    XCTFail("\(object) missing: run `swift build` first", file: file, line: line)
                    throw HarnessError.fixtureMissing(object)
                }
                objects.append(object)
            }
        }
        let output = pluginDir.appendingPathComponent("libMixedSwiftCells.so")
        let result = try execute(URL(fileURLWithPath: "/usr/bin/env"),
                                 ["swiftc", "-emit-library", "-o", output.path] + objects + ["-lffi"],
                                 environment: ProcessInfo.processInfo.environment, stdin: nil,
                                 currentDirectory: scratchDir, timeout: 300, file: file, line: line)
        guard result.status == 0 else {
            XCTFail("linking libMixedSwiftCells.so failed (status \(result.status)):\n\(result.stderr)",
                    file: file, line: line)
            throw HarnessError.compileFailed("libMixedSwiftCells")
        }
    }
}

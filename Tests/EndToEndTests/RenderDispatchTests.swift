import Foundation
import XCTest

/// Rendering through plugin classes: C subclasses of a shipped Swift class
/// (inherited methods and `send_super`), declines and errors falling back to
/// the next candidate, and the libffi path giving exactly what the direct
/// fast path gives.
final class RenderDispatchTests: EndToEndTestCase {

    private let message = #"{"id":"1","type":"text","text":"hi *there*"}"#

    // MARK: - Subclassing a shipped Swift class from C

    func test_cSubclassOverridingOnlyPlainText_rendersThroughTheInheritedRender() throws {
        let baseline = try baselineRendering(of: message)
        try compileFixture("sub_text_plain.c", as: "libsubtext")

        let report = try listPlugins()
        let cell = try XCTUnwrap(report.plugins(id: "test.subtext").first?.class("SubTextCell"),
                                 "\(report.plugins.map { "\($0.file): \($0.error ?? "loaded")" })")
        XCTAssertEqual(cell.superclass, "TextMessageCell")
        XCTAssertEqual(cell.rank, 10)
        XCTAssertEqual(cell.methods.map(\.selector), [try ABIHeaders.stringMacro("CELLHOST_SEL_PLAIN_TEXT")])
        XCTAssertEqual(report.row("text")?.winner?.className, "SubTextCell")

        let rendered = try XCTUnwrap(try renderJSON([message]).messages.first)
        XCTAssertEqual(rendered.className, "SubTextCell", "the subclass is the renderer")
        XCTAssertEqual(rendered.plugin, "test.subtext")
        XCTAssertNil(rendered.fallback)
        XCTAssertFalse(rendered.lines.isEmpty)
        XCTAssertEqual(rendered.lines, baseline.lines,
                       "renderMessage:context:into: is inherited from TextMessageCell")
    }

    func test_cSubclassCallingSuper_rendersTheParentsContentThenItsOwn() throws {
        let baseline = try baselineRendering(of: message)
        try compileFixture("sub_text_super.c", as: "libsupertext")

        let rendered = try XCTUnwrap(try renderJSON([message]).messages.first)
        XCTAssertEqual(rendered.className, "SuperCallingTextCell")
        XCTAssertEqual(rendered.plugin, "test.supertext")
        XCTAssertNil(rendered.fallback)

        let parentText = baseline.lines.joined(separator: "\n")
        let text = rendered.lines.joined(separator: "\n")
        for word in ["hi", "there"] {
            XCTAssertTrue(parentText.contains(word), "baseline: \(baseline.lines)")
            XCTAssertTrue(text.contains(word), "the parent's content is kept: \(rendered.lines)")
        }
        let parentEnd = try XCTUnwrap(text.range(of: "there"))
        let own = try XCTUnwrap(text.range(of: "[sub]"), "the subclass appends [sub]: \(rendered.lines)")
        XCTAssertLessThan(parentEnd.lowerBound, own.lowerBound, "[sub] comes after the parent's content")
    }

    // MARK: - Declines and errors fall back

    func test_decliningClass_passesTheMessageToTheNextCandidate_andFallbackShowsTheDecline() throws {
        let baseline = try baselineRendering(of: message)
        try compileFixture("declining_text_cell.c", as: "libdeclining")

        let rendered = try XCTUnwrap(try renderJSON([message]).messages.first)
        XCTAssertEqual(rendered.className, "TextMessageCell")
        XCTAssertEqual(rendered.plugin, "org.cellhost.text")
        XCTAssertEqual(rendered.lines, baseline.lines, "what the declining cell appended is discarded")

        let fallback = try XCTUnwrap(rendered.fallback, "a decline is a fallback")
        let step = try XCTUnwrap(fallback.chain.first { $0.className == "DecliningTextCell" },
                                 "chain: \(fallback.chain.map(\.className))")
        XCTAssertEqual(step.plugin, "test.declining")
        XCTAssertEqual(step.result, .declined)
        XCTAssertFalse(fallback.reason.isEmpty)
    }

    func test_erroringClass_passesTheMessageToTheNextCandidate_andFallbackShowsTheError() throws {
        let baseline = try baselineRendering(of: message)
        try compileFixture("erroring_text_cell.c", as: "liberroring")

        let (messages, stderr) = try renderJSON([message])
        let rendered = try XCTUnwrap(messages.first)
        XCTAssertEqual(rendered.className, "TextMessageCell")
        XCTAssertEqual(rendered.plugin, "org.cellhost.text")
        XCTAssertEqual(rendered.lines, baseline.lines, "what the failing cell appended is discarded")

        let fallback = try XCTUnwrap(rendered.fallback, "an error is a fallback")
        let step = try XCTUnwrap(fallback.chain.first { $0.className == "ErroringTextCell" },
                                 "chain: \(fallback.chain.map(\.className))")
        XCTAssertEqual(step.plugin, "test.erroring")
        XCTAssertEqual(step.result, .error)
        // selectors.h: "Log the reason with cellhost_host.log first. [...] the
        // reason is shown in --format json"; host.h: errors are shown on
        // stderr, prefixed with the plugin id.
        XCTAssertTrue(fallback.reason.contains("this cell always fails"), "reason: \(fallback.reason)")
        XCTAssertTrue(stderr.split(separator: "\n").contains {
            $0.contains("test.erroring") && $0.contains("this cell always fails")
        }, "stderr:\n\(stderr)")
    }

    // MARK: - libffi versus the direct fast path

    func test_ffiDispatchAndDirectFastPath_printIdenticalOutput_forTheExampleConversation() throws {
        let (direct, ffi) = try renderExampleConversationBothWays()
        assertIdentical(direct, ffi)

        let input = try String(contentsOf: exampleConversation, encoding: .utf8)
        let ids = input.split(separator: "\n").compactMap { line -> String? in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            else { return nil }
            return object["id"] as? String
        }
        let rendered = try decodeJSONLines(RenderedMessage.self, from: direct, what: "render --format json")
        XCTAssertEqual(rendered.compactMap(\.id), ids, "every message rendered, in input order")
    }

    func test_ffiDispatchAndDirectFastPath_printIdenticalOutput_withACSubclassCallingSuper() throws {
        try compileFixture("sub_text_super.c", as: "libsupertext")

        let (direct, ffi) = try renderExampleConversationBothWays()
        assertIdentical(direct, ffi)
        let rendered = try decodeJSONLines(RenderedMessage.self, from: direct, what: "render --format json")
        let texts = rendered.filter { $0.type == "text" }
        XCTAssertFalse(texts.isEmpty)
        for message in texts {
            XCTAssertEqual(message.className, "SuperCallingTextCell", message.id ?? "?")
            XCTAssertTrue(message.lines.joined().contains("[sub]"), "\(message.id ?? "?"): \(message.lines)")
        }
    }

    // MARK: - Helpers

    private var exampleConversation: URL {
        Self.examplesDirectory.appendingPathComponent("conversation.jsonl")
    }

    /// How `message` renders with no test plugin at all (shipped plugins only).
    private func baselineRendering(of message: String,
                                   file: StaticString = #filePath, line: UInt = #line) throws -> RenderedMessage {
        let empty = try makeDirectory("no-plugins")
        let (messages, _) = try renderJSON([message], env: ["CELLHOST_PLUGIN_PATH": empty.path],
                                           file: file, line: line)
        XCTAssertEqual(messages.count, 1, file: file, line: line)
        return try XCTUnwrap(messages.first, file: file, line: line)
    }

    /// Renders Examples/conversation.jsonl as JSON, once with the default
    /// dispatch (direct calls for exactly matching well-known selectors) and
    /// once with CELLHOST_DISPATCH=ffi (libffi for every call). Runs in
    /// Examples/ so relative media paths resolve.
    private func renderExampleConversationBothWays(file: StaticString = #filePath, line: UInt = #line)
        throws -> (direct: String, ffi: String) {
        let args = ["render", exampleConversation.path, "--format", "json", "--width", "80", "--me", "u-alice"]
        let direct = try run(args, env: defaultEnvironment, currentDirectory: Self.examplesDirectory,
                             file: file, line: line)
        var ffiEnvironment = defaultEnvironment
        ffiEnvironment["CELLHOST_DISPATCH"] = "ffi"
        let ffi = try run(args, env: ffiEnvironment, currentDirectory: Self.examplesDirectory,
                          file: file, line: line)
        XCTAssertEqual(direct.status, 0, "direct dispatch; stderr:\n\(direct.stderr)", file: file, line: line)
        XCTAssertEqual(ffi.status, 0, "ffi dispatch; stderr:\n\(ffi.stderr)", file: file, line: line)
        XCTAssertFalse(direct.stdout.isEmpty, file: file, line: line)
        return (direct.stdout, ffi.stdout)
    }

    /// Byte-for-byte equality, reporting the first differing line rather than
    /// two whole outputs.
    private func assertIdentical(_ direct: String, _ ffi: String,
                                 file: StaticString = #filePath, line: UInt = #line) {
        guard Data(direct.utf8) != Data(ffi.utf8) else { return }
        let a = direct.split(separator: "\n", omittingEmptySubsequences: false)
        let b = ffi.split(separator: "\n", omittingEmptySubsequences: false)
        let index = zip(a, b).enumerated().first { $0.element.0 != $0.element.1 }?.offset
            ?? min(a.count, b.count)
        let left = index < a.count ? String(a[index]) : "<end of output>"
        let right = index < b.count ? String(b[index]) : "<end of output>"
        XCTFail("direct and ffi dispatch differ at output line \(index + 1):\n"
                + "direct: \(left)\nffi:    \(right)", file: file, line: line)
    }
}

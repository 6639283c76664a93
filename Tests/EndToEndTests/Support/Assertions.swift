import Foundation
import XCTest

/// A plugin built with the host and installed beside the binary.
struct ShippedPlugin {
    let id: String
    let className: String
    let messageClass: String
}

/// The shipped plugins: always present, and a broken third-party plugin must
/// never hide any of them.
let shippedPlugins: [ShippedPlugin] = [
    ShippedPlugin(id: "org.cellhost.text", className: "TextMessageCell", messageClass: "text"),
    ShippedPlugin(id: "org.cellhost.file", className: "FileMessageCell", messageClass: "file"),
    ShippedPlugin(id: "org.cellhost.image", className: "ImageMessageCell", messageClass: "image"),
    ShippedPlugin(id: "org.cellhost.voice", className: "VoiceMessageCell", messageClass: "voice"),
    ShippedPlugin(id: "org.cellhost.poll", className: "PollMessageCell", messageClass: "poll"),
]

/// The plugin id the host's own classes (MessageCell, UnknownMessageCell) belong to.
let hostPluginID = "cellhost"

/// Asserts that each shipped plugin appears exactly once, loaded, with its class.
func assertShippedPluginsLoaded(_ report: PluginReport,
                                file: StaticString = #filePath, line: UInt = #line) {
    for shipped in shippedPlugins {
        let entries = report.plugins(id: shipped.id)
        guard entries.count == 1, let entry = entries.first else {
            XCTFail("expected exactly one plugin with id \(shipped.id), found \(entries.count); "
                    + "plugins: \(report.plugins.map { "\($0.file) [\($0.state)]" })",
                    file: file, line: line)
            continue
        }
        XCTAssertEqual(entry.state, .loaded,
                       "shipped plugin \(shipped.id) (\(entry.file)) not loaded: \(entry.error ?? "-")",
                       file: file, line: line)
        XCTAssertNil(entry.error, "shipped plugin \(shipped.id)", file: file, line: line)
        XCTAssertNotNil(entry.class(shipped.className),
                        "shipped plugin \(shipped.id) lacks \(shipped.className); "
                        + "classes: \(entry.classes.map(\.name))", file: file, line: line)
    }
}

/// True when `text` contains every one of `parts` (case-sensitive).
func containsAll(_ text: String, _ parts: [String]) -> Bool {
    parts.allSatisfy { text.contains($0) }
}

/// The lines of `stderr` that are host diagnostics (`cellhost: <file>: <reason>`)
/// and contain every one of `parts`.
func stderrDiagnostics(_ stderr: String, containing parts: [String]) -> [String] {
    stderr.split(separator: "\n").map(String.init).filter {
        $0.hasPrefix("cellhost: ") && containsAll($0, parts)
    }
}

/// Asserts that `report.diagnostics` has an entry, and `stderr` a
/// `cellhost: ` line, containing `fileName` and every one of `parts`.
func assertDiagnosed(_ report: PluginReport, stderr: String, fileName: String, _ parts: [String],
                     file: StaticString = #filePath, line: UInt = #line) {
    let wanted = [fileName] + parts
    XCTAssertTrue(report.diagnostics.contains { containsAll($0, wanted) },
                  "no diagnostic containing \(wanted); diagnostics: \(report.diagnostics)",
                  file: file, line: line)
    XCTAssertFalse(stderrDiagnostics(stderr, containing: wanted).isEmpty,
                   "no `cellhost: ` line on stderr containing \(wanted); stderr:\n\(stderr)",
                   file: file, line: line)
}

/// Asserts the whole story of a plugin file that must not load: exactly one
/// entry for `fileName`, state "failed", an error containing every one of
/// `phrases`, no classes registered from it, the same reason among the
/// diagnostics and on stderr, and all shipped plugins still loaded.
/// Returns the entry for further checks.
@discardableResult
func assertLoadFailure(_ listing: (report: PluginReport, stderr: String), fileName: String,
                       _ phrases: [String],
                       file: StaticString = #filePath, line: UInt = #line) -> PluginEntry? {
    let report = listing.report
    assertShippedPluginsLoaded(report, file: file, line: line)
    let entries = report.plugins(fileName: fileName)
    guard entries.count == 1, let entry = entries.first else {
        XCTFail("expected exactly one plugin entry for \(fileName), found \(entries.count); "
                + "plugins: \(report.plugins.map(\.file))", file: file, line: line)
        return nil
    }
    XCTAssertEqual(entry.state, .failed, "\(fileName)", file: file, line: line)
    XCTAssertTrue(entry.file.hasPrefix("/"), "file is absolute: \(entry.file)", file: file, line: line)
    if let error = entry.error {
        XCTAssertTrue(containsAll(error, phrases),
                      "error of \(fileName) should contain \(phrases); it is: \(error)",
                      file: file, line: line)
    } else {
        XCTFail("failed plugin \(fileName) has a null error", file: file, line: line)
    }
    XCTAssertTrue(entry.classes.isEmpty, "a failed plugin registers no class; \(fileName) has "
                  + "\(entry.classes.map(\.name))", file: file, line: line)
    assertDiagnosed(report, stderr: listing.stderr, fileName: fileName, phrases, file: file, line: line)
    return entry
}

/// Asserts that the plugin file `fileName` loaded but its class `className`
/// was refused with a reason containing every one of `phrases`: the class is
/// in `rejected_classes`, not in `classes`, nowhere in the registry, and a
/// diagnostic naming the file and the class is reported. All shipped plugins
/// still load.
@discardableResult
func assertClassRejected(_ listing: (report: PluginReport, stderr: String), fileName: String,
                         className: String, _ phrases: [String],
                         file: StaticString = #filePath, line: UInt = #line) -> PluginEntry? {
    let report = listing.report
    assertShippedPluginsLoaded(report, file: file, line: line)
    let entries = report.plugins(fileName: fileName)
    guard entries.count == 1, let entry = entries.first else {
        XCTFail("expected exactly one plugin entry for \(fileName), found \(entries.count)",
                file: file, line: line)
        return nil
    }
    XCTAssertEqual(entry.state, .loaded, "rejecting a class does not fail its plugin; error: "
                   + "\(entry.error ?? "-")", file: file, line: line)
    XCTAssertNil(entry.error, file: file, line: line)
    XCTAssertNil(entry.class(className), "\(className) must not be registered", file: file, line: line)
    if let rejected = entry.rejectedClass(className) {
        XCTAssertTrue(containsAll(rejected.reason, phrases),
                      "rejection reason should contain \(phrases); it is: \(rejected.reason)",
                      file: file, line: line)
    } else {
        XCTFail("\(className) missing from rejected_classes: \(entry.rejectedClasses.map(\.name))",
                file: file, line: line)
    }
    for row in report.registry {
        XCTAssertNotEqual(row.winner?.className, className, "rejected class wins \(row.messageClass)",
                          file: file, line: line)
        XCTAssertNil(row.shadowed(className), "rejected class is a candidate for \(row.messageClass)",
                     file: file, line: line)
    }
    assertDiagnosed(report, stderr: listing.stderr, fileName: fileName, [className] + phrases,
                    file: file, line: line)
    return entry
}

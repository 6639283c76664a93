import Foundation
import XCTest

/// Byte-for-byte golden renderings of `Examples/conversation.jsonl` (viewed
/// as Alice, `--me u-alice`) in the three terminal formats at widths 40 and
/// 100, and as an HTML page (`--format html`, width 80; piped, so its links to
/// media are relative to `Examples/`).
///
/// The goldens live in `Tests/EndToEndTests/Fixtures/golden/`. Each run is
///
///     cd Examples && TZ=UTC cellhost render conversation.jsonl --me u-alice \
///         --format <ansi|plain|json> --width <40|100> [--color always]
///
/// in a clean environment (the ansi run adds `TERM=xterm-256color`; COLORTERM,
/// NO_COLOR and CLICOLOR_FORCE are unset).
///
/// To regenerate the goldens after an intended change of the rendering, run
/// the tests with `CELLHOST_UPDATE_GOLDENS=1`: each test then rewrites its file
/// instead of comparing (and passes). Review the diff of the golden files
/// before committing them — see Fixtures/golden/README.md.
final class RenderGoldenTests: EndToEndTestCase {

    private enum Format: String {
        case ansi, plain, json, html

        var fileExtension: String {
            switch self {
            case .json: return "jsonl"
            case .html: return "html"
            case .ansi, .plain: return "txt"
            }
        }
    }

    func test_golden_w40_plain() throws { try checkGolden(.plain, width: 40) }
    func test_golden_w100_plain() throws { try checkGolden(.plain, width: 100) }
    func test_golden_w40_ansi() throws { try checkGolden(.ansi, width: 40) }
    func test_golden_w100_ansi() throws { try checkGolden(.ansi, width: 100) }
    func test_golden_w40_json() throws { try checkGolden(.json, width: 40) }
    func test_golden_w100_json() throws { try checkGolden(.json, width: 100) }
    func test_golden_html() throws { try checkGolden(.html, width: 80) }

    // MARK: -

    static var goldenDirectory: URL {
        fixturesDirectory.appendingPathComponent("golden", isDirectory: true)
    }

    private static var updating: Bool {
        ProcessInfo.processInfo.environment["CELLHOST_UPDATE_GOLDENS"] == "1"
    }

    private func checkGolden(_ format: Format, width: Int,
                             file: StaticString = #filePath, line: UInt = #line) throws {
        var args = ["conversation.jsonl", "--me", "u-alice", "--format", format.rawValue,
                    "--width", String(width)]
        if format == .ansi { args += ["--color", "always"] }
        let result: RawRun
        if format == .html {
            // Through a pipe, as when the page is viewed or piped on: links to
            // media are then relative to the current directory (into a file,
            // they would be relative to that file's directory).
            let run = try execute(URL(fileURLWithPath: "/bin/sh"),
                                  ["-c", #"{ "$0" render "$@"; echo "exit status $?" >&2; } | cat"#, binary.path] + args,
                                  environment: cleanEnvironment(renderEnvironment()), stdin: nil,
                                  currentDirectory: Self.examplesDirectory, timeout: 60, file: file, line: line)
            result = RawRun(status: run.status, stdout: run.stdout,
                            stderr: run.stderr.replacingOccurrences(of: "exit status 0\n", with: ""))
        } else {
            result = try renderRaw(args, ansi: format == .ansi,
                                   currentDirectory: Self.examplesDirectory, file: file, line: line)
        }
        XCTAssertEqual(result.stderr, "", "a clean render writes nothing to stderr", file: file, line: line)
        XCTAssertFalse(result.stdout.isEmpty, "no output", file: file, line: line)

        let name = format == .html ? "conversation.html" : "conversation-w\(width).\(format.rawValue).\(format.fileExtension)"
        let url = Self.goldenDirectory.appendingPathComponent(name)
        if Self.updating {
            try FileManager.default.createDirectory(at: Self.goldenDirectory, withIntermediateDirectories: true)
            try result.stdout.write(to: url)
            print("CELLHOST_UPDATE_GOLDENS=1: wrote \(url.path) (\(result.stdout.count) bytes)")
            return
        }
        guard let expected = try? Data(contentsOf: url) else {
            XCTFail("missing golden \(url.path); run the tests with CELLHOST_UPDATE_GOLDENS=1 to create it",
                    file: file, line: line)
            return
        }
        if expected != result.stdout {
            XCTFail("`cellhost render \(args.joined(separator: " "))` differs from golden \(name) "
                    + "(expected \(expected.count) bytes, got \(result.stdout.count)); "
                    + "if the change is intended, rerun with CELLHOST_UPDATE_GOLDENS=1 and review the diff.\n"
                    + goldenDiff(expected: expected, actual: result.stdout),
                    file: file, line: line)
        }
    }
}

/// A short unified-style diff from the first differing line: three lines of
/// context, then line by line the expected (`-`) and actual (`+`) versions of
/// up to six differing lines. Escape sequences and controls are shown visibly
/// (`␛[1m`).
func goldenDiff(expected: Data, actual: Data) -> String {
    let old = outputLines(String(decoding: expected, as: UTF8.self))
    let new = outputLines(String(decoding: actual, as: UTF8.self))
    var first = 0
    while first < old.count, first < new.count, old[first] == new[first] { first += 1 }
    if first == old.count && first == new.count {
        return "(the lines are equal; the difference is in line endings or invalid UTF-8)"
    }
    var out = ["@@ first difference at line \(first + 1) (expected \(old.count) lines, got \(new.count)) @@"]
    for index in max(0, first - 3)..<first {
        out.append("  \(visible(old[index]))")
    }
    // Line by line from there (a positional diff: enough to see what changed).
    var shown = 0
    var index = first
    while index < max(old.count, new.count), shown < 6 {
        let was = index < old.count ? old[index] : nil
        let now = index < new.count ? new[index] : nil
        if was == now {
            out.append("  \(visible(was ?? ""))")
        } else {
            if let was { out.append("- \(visible(was))") }
            if let now { out.append("+ \(visible(now))") }
            shown += 1
        }
        index += 1
    }
    if index < max(old.count, new.count) { out.append("  …") }
    return out.joined(separator: "\n")
}

import Foundation
import XCTest

/// `cellhost new-plugin` writes a plugin directory whose README's commands,
/// run as written, build a plugin that passes `check-plugin` and renders its
/// sample conversation.
final class NewPluginTests: EndToEndTestCase {

    /// Runs `cellhost new-plugin ARGS` in the scratch directory; returns the new directory.
    private func generate(_ args: [String], file: StaticString = #filePath, line: UInt = #line) throws -> URL {
        let result = try run(["new-plugin"] + args, currentDirectory: scratchDir, file: file, line: line)
        XCTAssertEqual(result.status, 0, result.stderr, file: file, line: line)
        return scratchDir.appendingPathComponent(args[0], isDirectory: true)
    }

    /// The commands of the README's `sh` block, one per line.
    private func readmeCommands(_ directory: URL) throws -> [String] {
        let readme = try String(contentsOf: directory.appendingPathComponent("README.md"), encoding: .utf8)
        guard let start = readme.range(of: "```sh\n"), let end = readme.range(of: "\n```", range: start.upperBound..<readme.endIndex) else {
            XCTFail("README.md has no sh block:\n\(readme)")
            return []
        }
        return readme[start.upperBound..<end.lowerBound].split(separator: "\n").map(String.init)
    }

    /// Runs the README's commands in `directory`, each checked; returns the last one's stdout.
    private func runReadme(_ directory: URL, timeout: TimeInterval, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let commands = try readmeCommands(directory)
        XCTAssertEqual(commands.count, 3, "build, check, render", file: file, line: line)
        var last = ""
        for command in commands {
            let out = scratchDir.appendingPathComponent("readme-\(UUID().uuidString).out")
            FileManager.default.createFile(atPath: out.path, contents: nil)
            let handle = try FileHandle(forWritingTo: out)
            let result = try runShell("cd '\(directory.path)' && \(command)", stdout: handle,
                                      env: ["XDG_CACHE_HOME": scratchDir.appendingPathComponent("cache").path],
                                      timeout: timeout, file: file, line: line)
            try handle.close()
            last = (try? String(contentsOf: out, encoding: .utf8)) ?? ""
            XCTAssertEqual(result.status, 0, "`\(command)` failed:\n\(last)\(result.stderr)", file: file, line: line)
        }
        return last
    }

    func test_cTemplate_runAsItsReadmeSays_buildsPassesCheckPluginAndRenders() throws {
        let directory = try generate(["demo", "--lang", "c"])
        let rendered = try runReadme(directory, timeout: 120)
        XCTAssertTrue(rendered.contains("Hello from demo  #1"), rendered)
        XCTAssertTrue(rendered.contains("no payload: the next renderer shows this"), rendered)
    }

    func test_swiftTemplate_runAsItsReadmeSays_buildsPassesCheckPluginAndRenders() throws {
        let directory = try generate(["demo-swift", "--lang", "swift", "--type", "demo"])
        let rendered = try runReadme(directory, timeout: 900)
        XCTAssertTrue(rendered.contains("Hello from demo-swift  #1"), rendered)
    }

    func test_aTypeTheHostKnows_isNotDeclaredAgain() throws {
        let directory = try generate(["quote", "--lang", "c", "--type", "text"])
        let source = try String(contentsOf: directory.appendingPathComponent("quote.c"), encoding: .utf8)
        XCTAssertFalse(source.contains("cellhost_message_class tree"), source)
        XCTAssertTrue(source.contains(#"static const char *const renders[] = { "text", NULL };"#), source)
    }

    func test_anExistingDirectory_isNotOverwritten() throws {
        _ = try makeDirectory("scratch/taken")
        let result = try run(["new-plugin", "taken"], currentDirectory: scratchDir)
        XCTAssertEqual(result.status, 2)
        XCTAssertEqual(result.stderr, "cellhost: taken: already exists; choose another NAME or --output DIR\n")
    }

    func test_aNameThatIsNotAnIdentifier_isAUsageError() throws {
        let result = try run(["new-plugin", "Bad Name"], currentDirectory: scratchDir)
        XCTAssertEqual(result.status, 2)
        XCTAssertTrue(result.stderr.contains("NAME must start with a-z"), result.stderr)
    }
}

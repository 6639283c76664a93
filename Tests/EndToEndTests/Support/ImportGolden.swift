import Foundation
import XCTest

/// Golden renderings of the importers' fixtures.
///
/// Each format keeps its fixtures in `Tests/EndToEndTests/Fixtures/import/<format>/`
/// and their goldens in `…/import/<format>/golden/<fixture>.w<width>.<format>.<txt|jsonl>`.
/// A run is `cd <fixture dir> && TZ=UTC cellhost render <fixture> --format F --width W
/// [--color always] [extra…]` in a clean environment, with no `--from` (the
/// format must be detected). `CELLHOST_UPDATE_GOLDENS=1` rewrites the files.
extension EndToEndTestCase {
    /// The directory of one importer's fixtures.
    static func importFixtures(_ format: String) -> URL {
        fixturesDirectory.appendingPathComponent("import/\(format)", isDirectory: true)
    }

    /// Renders `fixture` (a file or directory in `import/<format>/`) in the
    /// output `kind` (`ansi`, `plain` or `json`) and compares with its golden.
    /// Returns the run, so a test can check stderr and the status too.
    @discardableResult
    func checkImportGolden(format: String, fixture: String, kind: String, width: Int = 80, extraArgs: [String] = [],
                           expectStatus: Int32? = 0, tz: String = "UTC",
                           file: StaticString = #filePath, line: UInt = #line) throws -> RawRun {
        let directory = Self.importFixtures(format)
        var args = [fixture, "--format", kind, "--width", String(width)] + extraArgs
        if kind == "ansi" { args += ["--color", "always"] }
        let result = try renderRaw(args, tz: tz, ansi: kind == "ansi", currentDirectory: directory,
                                   expectStatus: expectStatus, file: file, line: line)
        let base = (fixture as NSString).lastPathComponent
        let name = "\(base).w\(width).\(kind).\(kind == "json" ? "jsonl" : "txt")"
        let goldens = directory.appendingPathComponent("golden", isDirectory: true)
        let url = goldens.appendingPathComponent(name)
        if ProcessInfo.processInfo.environment["CELLHOST_UPDATE_GOLDENS"] == "1" {
            try FileManager.default.createDirectory(at: goldens, withIntermediateDirectories: true)
            try result.stdout.write(to: url)
            return result
        }
        guard let expected = try? Data(contentsOf: url) else {
            XCTFail("missing golden \(url.path); run the tests with CELLHOST_UPDATE_GOLDENS=1 to create it", file: file, line: line)
            return result
        }
        if expected != result.stdout {
            XCTFail("`cellhost render \(args.joined(separator: " "))` differs from golden \(format)/golden/\(name); "
                    + "if intended, rerun with CELLHOST_UPDATE_GOLDENS=1 and review the diff.\n"
                    + goldenDiff(expected: expected, actual: result.stdout), file: file, line: line)
        }
        return result
    }
}

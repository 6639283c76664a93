import Foundation
import XCTest

/// Usage errors: on stderr, exit status 2, with the closest known option or
/// command suggested.
final class UsageErrorTests: EndToEndTestCase {
    func test_noCommandPrintsTheUsageOnStderrAndExitsTwo() throws {
        let result = try run([])
        XCTAssertEqual(result.status, 2)
        XCTAssertEqual(result.stdout, "", "nothing on stdout: a pipe reading it gets no usage text as data")
        XCTAssertTrue(result.stderr.hasPrefix("cellhost — render chat messages"), result.stderr)
    }

    func test_aMistypedCommandSuggestsTheClosest() throws {
        let result = try run(["rendr"])
        XCTAssertEqual(result.status, 2)
        XCTAssertEqual(result.stderr, "cellhost: unknown command 'rendr' (did you mean 'render'? commands: render, list-plugins, "
                       + "check-plugin, new-plugin; see cellhost --help)\n")
    }

    func test_aMistypedOptionSuggestsTheClosestOfThatCommand() throws {
        let render = try run(["render", "--colr", "never"], stdin: Data())
        XCTAssertEqual(render.status, 2)
        XCTAssertEqual(render.stderr, "cellhost: unknown option '--colr' for 'render' (did you mean '--color'? see cellhost render --help)\n")
        let list = try run(["list-plugins", "--jsno"])
        XCTAssertEqual(list.stderr, "cellhost: unknown option '--jsno' for 'list-plugins' (did you mean '--json'? see cellhost list-plugins --help)\n")
        let scaffold = try run(["new-plugin", "x", "--lnag", "c"])
        XCTAssertEqual(scaffold.stderr, "cellhost: unknown option '--lnag' for 'new-plugin' (did you mean '--lang'? see cellhost new-plugin --help)\n")
    }

    func test_nothingIsSuggestedWhenNothingIsClose() throws {
        let result = try run(["render", "--frobnicate"], stdin: Data())
        XCTAssertEqual(result.stderr, "cellhost: unknown option '--frobnicate' for 'render' (see cellhost render --help)\n")
    }
}

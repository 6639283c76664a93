import Foundation
import XCTest
@testable import CellHostCore

/// `ConfigFile.parse` and `RendererOverride(argument:)`.
final class ConfigFileTests: XCTestCase {

    private func pairs(_ config: ConfigFile) -> [String] {
        config.renderers.map { "\($0.messageClass)=\($0.className)" }
    }

    private func problem(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> ConfigFile.Problem? {
        do {
            let config = try ConfigFile.parse(text, path: "/etc/cellhost.conf")
            XCTFail("accepted: \(pairs(config))", file: file, line: line)
        } catch let problem as ConfigFile.Problem {
            return problem
        } catch {
            XCTFail("unexpected \(error)", file: file, line: line)
        }
        return nil
    }

    func test_rendererSection_keyValuePairs_inOrder() throws {
        let config = try ConfigFile.parse("[renderers]\nimage = MyImageCell\nvoice=WaveCell\n", path: "cfg")
        XCTAssertEqual(pairs(config), ["image=MyImageCell", "voice=WaveCell"])
        XCTAssertEqual(config.path, "cfg")
    }

    func test_renderSection_givesOptionDefaults() throws {
        let config = try ConfigFile.parse("[render]\nisolation = shared\nplugin-timeout = 250\n", path: "cfg")
        XCTAssertEqual(config.render, ["isolation": "shared", "plugin-timeout": "250"])
        XCTAssertEqual(pairs(config), [])
    }

    func test_renderSection_unknownKey_isAnErrorNamingTheKnownOnes() {
        XCTAssertThrowsError(try ConfigFile.parse("[render]\nisolate = none\n", path: "cfg")) { error in
            XCTAssertEqual("\(error)", "cfg:2: unknown key 'isolate' in [render] (known: me, width, color, paging, width-mode, images, bubble-width, isolation, plugin-timeout, plugin-memory)")
        }
    }

    func test_commentsAndBlankLines_areIgnored() throws {
        let text = "# a comment\n\n; another\n[renderers]\n  # indented comment\nimage = A\n\n"
        XCTAssertEqual(pairs(try ConfigFile.parse(text, path: "cfg")), ["image=A"])
    }

    func test_whitespaceAroundKeysValuesAndSectionNames_isTrimmed() throws {
        let config = try ConfigFile.parse("  [ renderers ]  \n\t image\t=\t  A  \n", path: "cfg")
        XCTAssertEqual(pairs(config), ["image=A"])
    }

    func test_emptyText_isAnEmptyConfiguration() throws {
        XCTAssertEqual(pairs(try ConfigFile.parse("", path: "cfg")), [])
    }

    func test_unknownSection_isAnErrorWithItsLineNumber() {
        let found = problem("[renderers]\nimage = A\n[colours]\nred = 1\n")
        XCTAssertEqual(found?.line, 3)
        XCTAssertTrue(found?.reason.contains("unknown section [colours]") ?? false, found?.reason ?? "")
        XCTAssertEqual(found?.path, "/etc/cellhost.conf")
    }

    func test_keyOutsideASection_isAnErrorWithItsLineNumber() {
        let found = problem("# settings\nimage = A\n")
        XCTAssertEqual(found?.line, 2)
        XCTAssertTrue(found?.reason.contains("outside a section") ?? false, found?.reason ?? "")
    }

    func test_lineWithoutEquals_isAnError() {
        let found = problem("[renderers]\nimage A\n")
        XCTAssertEqual(found?.line, 2)
        XCTAssertTrue(found?.reason.contains("KEY = VALUE") ?? false, found?.reason ?? "")
    }

    func test_emptyKeyOrValue_isAnError() {
        XCTAssertEqual(problem("[renderers]\n= A\n")?.line, 2)
        XCTAssertEqual(problem("[renderers]\nimage =\n")?.line, 2)
    }

    func test_unterminatedSectionHeader_isAnError() {
        let found = problem("[renderers\n")
        XCTAssertEqual(found?.line, 1)
        XCTAssertTrue(found?.reason.contains("unterminated") ?? false)
    }

    func test_problemDescription_isPathLineReason() {
        XCTAssertEqual(problem("x = y\n")?.description, "/etc/cellhost.conf:1: 'x' outside a section (put it under [renderers])")
    }

    func test_problemReason_isSanitized() {
        let found = problem("[\u{1B}[31mevil]\n")
        XCTAssertFalse(found?.reason.unicodeScalars.contains("\u{1B}") ?? true)
    }

    func test_load_ofMissingFile_isEmpty() throws {
        XCTAssertEqual(pairs(try ConfigFile.load(path: "/nonexistent/cellhost/config")), [])
    }

    func test_load_readsTheFile() throws {
        let path = NSTemporaryDirectory() + "cellhost-config-\(getpid())-\(UUID().uuidString)"
        try "[renderers]\nimage = FromFile\n".write(toFile: path, atomically: true, encoding: .utf8)
        defer { unlink(path) }
        let config = try ConfigFile.load(path: path)
        XCTAssertEqual(pairs(config), ["image=FromFile"])
        XCTAssertEqual(config.path, path)
    }

    func test_defaultPath_prefersXDGConfigHome() {
        XCTAssertEqual(ConfigFile.defaultPath(environment: ["XDG_CONFIG_HOME": "/xdg", "HOME": "/home/u"]), "/xdg/cellhost/config")
        XCTAssertEqual(ConfigFile.defaultPath(environment: ["HOME": "/home/u"]), "/home/u/.config/cellhost/config")
        XCTAssertEqual(ConfigFile.defaultPath(environment: ["XDG_CONFIG_HOME": "relative", "HOME": "/home/u"]),
                       "/home/u/.config/cellhost/config")
        XCTAssertNil(ConfigFile.defaultPath(environment: [:]))
    }
}

/// `--renderer TYPE=CLASS`.
final class RendererOverrideTests: XCTestCase {

    func test_typeEqualsClass_isParsed() {
        XCTAssertEqual(RendererOverride(argument: "image=MyImageCell"), RendererOverride(messageClass: "image", className: "MyImageCell"))
    }

    func test_missingEquals_isRejected() {
        XCTAssertNil(RendererOverride(argument: "image"))
    }

    func test_emptyTypeOrClass_isRejected() {
        XCTAssertNil(RendererOverride(argument: "=MyImageCell"))
        XCTAssertNil(RendererOverride(argument: "image="))
        XCTAssertNil(RendererOverride(argument: "="))
    }

    func test_splitsAtTheFirstEquals() {
        XCTAssertEqual(RendererOverride(argument: "a=b=c"), RendererOverride(messageClass: "a", className: "b=c"))
    }
}

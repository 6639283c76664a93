import Foundation
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// Overrides and the config file never fail silently: an override for a
/// message class nothing knows is a warning, a config file that is not a
/// regular file is an error (never a hang), and a byte order mark is fine.
final class ConfigAndOverrideWarningTests: EndToEndTestCase {
    private var configFile: URL { configHome.appendingPathComponent("cellhost/config") }

    private func writeConfig(_ bytes: [UInt8]) throws {
        try FileManager.default.createDirectory(at: configFile.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(bytes).write(to: configFile)
    }

    func test_rendererOptionForAnUnknownMessageClass_isAWarning() throws {
        let result = try run(["render", "--renderer", "nosuchtype=MessageCell"], stdin: Data())
        XCTAssertEqual(result.status, 0)
        XCTAssertEqual(result.stderr, "cellhost: --renderer nosuchtype=MessageCell: no message class 'nosuchtype' "
                       + "is declared or registered, so this override has no effect\n")
    }

    func test_rendererOptionForADeclaredMessageClass_isSilent() throws {
        let result = try run(["render", "--renderer", "voice=MessageCell"], stdin: Data())
        XCTAssertEqual(result.stderr, "")
    }

    func test_configEntryForAnUnknownMessageClass_isAWarningNamingTheFile() throws {
        try writeConfig(Array("[renderers]\nnosuchtype = MessageCell\n".utf8))
        let result = try run(["render"], stdin: Data())
        XCTAssertEqual(result.status, 0)
        XCTAssertEqual(result.stderr, "cellhost: \(configFile.path): renderer for 'nosuchtype': no message class "
                       + "'nosuchtype' is declared or registered, so this override has no effect\n")
    }

    func test_configFileThatIsAFIFO_isAnError_notAHang() throws {
        try FileManager.default.createDirectory(at: configFile.deletingLastPathComponent(), withIntermediateDirectories: true)
        XCTAssertEqual(mkfifo(configFile.path, 0o600), 0)
        let result = try run(["list-plugins"], timeout: 20)
        XCTAssertEqual(result.status, 2)
        XCTAssertEqual(result.stderr, "cellhost: \(configFile.path): not a regular file\n")
    }

    func test_configFileStartingWithAByteOrderMark_isRead() throws {
        try writeConfig([0xEF, 0xBB, 0xBF] + Array("[renderers]\ntext = MessageCell\n".utf8))
        let (report, stderr) = try listPluginsRun()
        XCTAssertEqual(stderr, "")
        let text = report.registry.first { $0.messageClass == "text" }
        XCTAssertEqual(text?.winner?.className, "MessageCell")
        XCTAssertEqual(text?.winner?.override, true)
    }

    func test_configFileThatIsADirectory_isAnError() throws {
        try FileManager.default.createDirectory(at: configFile, withIntermediateDirectories: true)
        let result = try run(["list-plugins"])
        XCTAssertEqual(result.status, 2)
        XCTAssertEqual(result.stderr, "cellhost: \(configFile.path): not a regular file\n")
    }
}

import Foundation
import XCTest
@testable import CellHostCore

/// `RFC3339.parse`: message times.
final class RFC3339Tests: XCTestCase {
    /// 2026-11-29T10:02:00Z (date -u -d … +%s).
    private let reference = 1_795_946_520.0

    func test_utcWithZ_isSecondsSinceTheEpoch() {
        XCTAssertEqual(RFC3339.parse("2026-11-29T10:02:00Z"), reference)
        XCTAssertEqual(RFC3339.parse("1970-01-01T00:00:00Z"), 0)
    }

    func test_lowercaseTAndZ_andASpaceSeparator_areAccepted() {
        XCTAssertEqual(RFC3339.parse("2026-11-29t10:02:00z"), reference)
        XCTAssertEqual(RFC3339.parse("2026-11-29 10:02:00Z"), reference)
    }

    func test_positiveOffset_isSubtracted() {
        XCTAssertEqual(RFC3339.parse("2026-11-29T11:02:00+01:00"), reference)
        XCTAssertEqual(RFC3339.parse("2026-11-29T15:32:00+05:30"), reference)
    }

    func test_negativeOffset_isAdded() {
        XCTAssertEqual(RFC3339.parse("2026-11-29T05:02:00-05:00"), reference)
    }

    func test_zeroOffsets_equalZ() {
        XCTAssertEqual(RFC3339.parse("2026-11-29T10:02:00+00:00"), reference)
        XCTAssertEqual(RFC3339.parse("2026-11-29T10:02:00-00:00"), reference)
    }

    func test_fraction_isAdded() throws {
        XCTAssertEqual(try XCTUnwrap(RFC3339.parse("2026-11-29T10:02:00.5Z")), reference + 0.5, accuracy: 1e-6)
        XCTAssertEqual(try XCTUnwrap(RFC3339.parse("2026-11-29T10:02:00.123456+00:00")), reference + 0.123456, accuracy: 1e-6)
    }

    func test_leapDayAndBeforeTheEpoch() {
        XCTAssertEqual(RFC3339.parse("2000-02-29T12:00:00Z"), 951_825_600)
        XCTAssertEqual(RFC3339.parse("1969-12-31T23:59:59Z"), -1)
    }

    func test_missingZone_isRejected() {
        XCTAssertNil(RFC3339.parse("2026-11-29T10:02:00"))
    }

    func test_dateOnly_isRejected() {
        XCTAssertNil(RFC3339.parse("2026-11-29"))
    }

    func test_outOfRangeFields_areRejected() {
        XCTAssertNil(RFC3339.parse("2026-13-01T00:00:00Z"))
        XCTAssertNil(RFC3339.parse("2026-00-01T00:00:00Z"))
        XCTAssertNil(RFC3339.parse("2026-11-32T00:00:00Z"))
        XCTAssertNil(RFC3339.parse("2026-11-29T24:00:00Z"))
        XCTAssertNil(RFC3339.parse("2026-11-29T10:60:00Z"))
        XCTAssertNil(RFC3339.parse("2026-11-29T10:02:61Z"))
    }

    func test_malformedInput_isRejected() {
        for text in ["", "garbage", "2026/11/29T10:02:00Z", "2026-11-29X10:02:00Z", "2026-11-29T10:02:00.Z",
                     "2026-11-29T10:02:00Zjunk", "2026-11-29T10:02:00+0100", "2026-11-29T10:02:00+01", "2026-1a-29T10:02:00Z",
                     "２０２６-11-29T10:02:00Z"] {
            XCTAssertNil(RFC3339.parse(text), text)
        }
    }

    // MARK: The day cache of a stream

    /// `parse(_:days:)` over `texts` in turn, with one cache, as a stream reads them.
    private func parsedInTurn(_ texts: [String]) -> [Double?] {
        var cache = RFC3339.DayCache()
        return texts.map { text in
            var text = text
            return text.withUTF8 { RFC3339.parse($0, days: &cache) }
        }
    }

    func test_dayCache_givesWhatTheWholeParseGives_acrossDatesAndForms() {
        let texts = ["2026-11-29T10:02:00Z", "2026-11-29T23:59:60Z", "2026-11-30T00:00:00Z", "2026-11-30T11:02:00+01:00",
                     "2026-11-30T10:02:00.5Z", "2026-11-29T10:02:00Z", "1970-01-01T00:00:00Z", "2000-02-29T12:00:00Z"]
        XCTAssertEqual(parsedInTurn(texts), texts.map { RFC3339.parse($0) })
    }

    func test_dayCache_checksTheTimeOfDay_ofAKnownDate() {
        let texts = ["2026-11-29T10:02:00Z", "2026-11-29T24:00:00Z", "2026-11-29T10:60:00Z", "2026-11-29T10:02:61Z",
                     "2026-11-29T1x:02:00Z", "2026-11-29T10:02:00Z"]
        XCTAssertEqual(parsedInTurn(texts), [reference, nil, nil, nil, nil, reference])
    }

    /// The cached date's time of day is read as one word: every time of a
    /// day, and every time with one byte of its `HH:MM:SS` replaced (digits,
    /// the bytes around them, a colon, NUL, non-ASCII), give what the whole
    /// parse gives.
    func test_dayCache_timeOfDayWord_givesWhatTheWholeParseGives() {
        let date = "2026-11-29T"
        var cases: [[UInt8]] = []
        for second in stride(from: 0, to: 86_400, by: 7) {
            cases.append(Array((date + String(format: "%02d:%02d:%02dZ", second / 3600, second / 60 % 60, second % 60)).utf8))
        }
        for text in ["23:59:60Z", "24:00:00Z", "99:99:99Z", "00:00:00Z"] { cases.append(Array((date + text).utf8)) }
        let replacements: [UInt8] = [0x00, 0x2F, 0x30, 0x35, 0x39, 0x3A, 0x3B, 0x2E, 0x20, 0x61, 0x7F, 0x80, 0x89, 0x8A, 0xC3, 0xFF]
        for index in 11..<19 {
            for byte in replacements {
                var bytes = Array((date + "10:02:59Z").utf8)
                bytes[index] = byte
                cases.append(bytes)
            }
        }
        let warm = Array((date + "10:02:00Z").utf8)
        for bytes in cases {
            // Each right after the plain date, so that its date is the cached one.
            var cache = RFC3339.DayCache()
            XCTAssertEqual(warm.withUnsafeBufferPointer { RFC3339.parse($0, days: &cache) }, reference)
            let cached = bytes.withUnsafeBufferPointer { RFC3339.parse($0, days: &cache) }
            XCTAssertEqual(cached, bytes.withUnsafeBufferPointer { RFC3339.parse($0) }, "\(bytes)")
        }
    }

    func test_dayCache_neverRemembersAnImpossibleDate() {
        // 2026-02-30 is refused each time, not taken from the cache after a first read.
        XCTAssertEqual(parsedInTurn(["2026-02-30T10:00:00Z", "2026-02-30T10:00:00Z", "2026-02-28T10:00:00Z"]),
                       [nil, nil, RFC3339.parse("2026-02-28T10:00:00Z")])
    }
}

/// `PluginSearchPath.standard`: where plugins are looked for, in order.
final class PluginSearchPathTests: XCTestCase {
    private let system = ["/usr/local/lib/cellhost/plugins", "/usr/lib/cellhost/plugins"]

    private func standard(_ commandLine: [String] = [], _ environment: [String: String] = [:],
                          executable: String? = nil) -> [String] {
        PluginSearchPath.standard(commandLine: commandLine, environment: environment, executableDirectory: executable).directories
    }

    func test_fullOrder_commandLine_environment_userData_system_prefix_executable() {
        let directories = standard(["/cli/one", "/cli/two"],
                                   ["CELLHOST_PLUGIN_PATH": "/env/a:/env/b", "XDG_DATA_HOME": "/xdg", "HOME": "/home/u"],
                                   executable: "/opt/cellhost/bin")
        XCTAssertEqual(directories, ["/cli/one", "/cli/two", "/env/a", "/env/b", "/xdg/cellhost/plugins"] + system
                       + ["/opt/cellhost/lib/cellhost/plugins", "/opt/cellhost/bin"])
    }

    func test_prefixDirectory_isOriginDotDotLibCellhostPlugins_withoutDotDot() {
        XCTAssertEqual(PluginSearchPath.prefixDirectory(executableDirectory: "/opt/cellhost/bin"), "/opt/cellhost/lib/cellhost/plugins")
        XCTAssertEqual(PluginSearchPath.prefixDirectory(executableDirectory: "/opt/cellhost/bin/"), "/opt/cellhost/lib/cellhost/plugins")
        XCTAssertEqual(PluginSearchPath.prefixDirectory(executableDirectory: "/usr/bin"), "/usr/lib/cellhost/plugins")
        XCTAssertEqual(PluginSearchPath.prefixDirectory(executableDirectory: "/bin"), "/lib/cellhost/plugins")
    }

    func test_installedDirectories_holdThePrefixPluginDirectory() {
        let installed = PluginSearchPath.installedDirectories(executableDirectory: "/tmp/p/bin")
        XCTAssertEqual(installed, Set(system + ["/tmp/p/bin", "/tmp/p/lib/cellhost/plugins"]))
        // Every installed directory is on the search path, so what `auto` runs in-process is found.
        XCTAssertTrue(installed.isSubset(of: standard(executable: "/tmp/p/bin")))
    }

    func test_aPrefixInstalledInTheSystemPrefix_isSearchedOnce() {
        XCTAssertEqual(standard(executable: "/usr/local/bin"), system + ["/usr/local/bin"])
    }

    func test_pluginPathVariable_isSplitOnColons_skippingEmptyEntries() {
        XCTAssertEqual(standard([], ["CELLHOST_PLUGIN_PATH": ":/a::/b:"]), ["/a", "/b"] + system)
    }

    func test_withoutXDGDataHome_theHomeDefaultIsUsed() {
        XCTAssertEqual(standard([], ["HOME": "/home/u"]), ["/home/u/.local/share/cellhost/plugins"] + system)
    }

    func test_relativeXDGDataHome_isIgnored_inFavourOfTheHomeDefault() {
        XCTAssertEqual(standard([], ["XDG_DATA_HOME": "relative/data", "HOME": "/home/u"]),
                       ["/home/u/.local/share/cellhost/plugins"] + system)
    }

    func test_withoutHomeOrXDG_onlySystemDirectories() {
        XCTAssertEqual(standard(), system)
        XCTAssertEqual(standard([], ["HOME": ""]), system)
    }

    func test_duplicates_keepTheirFirstPosition() {
        let directories = standard(["/usr/lib/cellhost/plugins", "/same"],
                                   ["CELLHOST_PLUGIN_PATH": "/same:/other", "HOME": "/home/u"],
                                   executable: "/same")
        XCTAssertEqual(directories, ["/usr/lib/cellhost/plugins", "/same", "/other",
                                     "/home/u/.local/share/cellhost/plugins", "/usr/local/lib/cellhost/plugins",
                                     "/lib/cellhost/plugins"])
    }

    func test_relativeDirectories_areMadeAbsolute() {
        let cwd = FileManagerless.currentDirectory()
        XCTAssertEqual(standard(["plugins"]).first, cwd == "/" ? "/plugins" : cwd + "/plugins")
    }

    func test_candidates_areSharedObjectsSortedBytewise() throws {
        let directory = "/tmp/cellhost-search-\(getpid())"
        mkdir(directory, 0o700)
        defer {
            for name in ["b.so", "a.so", "B.so", "notes.txt", ".so", "c.so.1"] { unlink(directory + "/" + name) }
            rmdir(directory)
        }
        for name in ["b.so", "a.so", "B.so", "notes.txt", ".so", "c.so.1"] {
            let fd = open(directory + "/" + name, O_CREAT | O_WRONLY, 0o600)
            XCTAssertGreaterThanOrEqual(fd, 0)
            close(fd)
        }
        XCTAssertEqual(PluginSearchPath.candidates(in: directory).map(\.path), [directory + "/B.so", directory + "/a.so", directory + "/b.so"])
        XCTAssertEqual(PluginSearchPath.candidates(in: directory + "/").map(\.path),
                       [directory + "/B.so", directory + "/a.so", directory + "/b.so"])
        XCTAssertTrue(PluginSearchPath.candidates(in: directory).allSatisfy { $0.status != nil }, "each file is stat'ed")
    }

    func test_candidates_ofAMissingDirectory_areNone() {
        XCTAssertTrue(PluginSearchPath.candidates(in: "/nonexistent/cellhost/plugins").isEmpty)
    }
}

/// The working directory without Foundation's FileManager.
enum FileManagerless {
    static func currentDirectory() -> String {
        var buffer = [CChar](repeating: 0, count: 4096)
        return getcwd(&buffer, buffer.count).map { String(cString: $0) } ?? ""
    }
}

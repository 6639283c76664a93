@testable import CellHostCore
import Foundation
import XCTest

/// How importers spell messages (`ImportedMessage`, `RecordWriter`) and read
/// text and times (`ImportText`, `ImportTime`).
final class ImportRecordTests: XCTestCase {
    private func record(_ message: ImportedMessage) throws -> [String: Any] {
        var writer = RecordWriter()
        message.write(to: &writer)
        let object = try JSONSerialization.jsonObject(with: Data(writer.bytes))
        return try XCTUnwrap(object as? [String: Any])
    }

    func test_aMessageIsOneCellHostRecordWithItsPayloadUnderItsType() throws {
        var message = ImportedMessage()
        message.id = "42"
        message.type = "voice"
        message.senderID = "u1"
        message.senderName = "Zoë \"Z\""
        message.time = 1_577_836_800.5
        message.text = "line 1\nline 2\t\u{1}"
        message.replyTo = "41"
        message.edited = true
        message.addReaction("👍", count: 2)
        message.addReaction("👍")
        var media = ImportedMessage.Media()
        media.path = "media/a.ogg"
        media.duration = 4.5
        media.waveform = [0, 512, 1024]
        message.media = media
        let object = try record(message)
        XCTAssertEqual(object["id"] as? String, "42")
        XCTAssertEqual(object["type"] as? String, "voice")
        XCTAssertEqual((object["sender"] as? [String: Any])?["name"] as? String, "Zoë \"Z\"")
        XCTAssertEqual(object["time"] as? Double, 1_577_836_800.5)
        XCTAssertEqual(object["text"] as? String, "line 1\nline 2\t\u{1}")
        XCTAssertEqual(object["reply_to"] as? String, "41")
        XCTAssertEqual(object["edited"] as? Bool, true)
        let reactions = try XCTUnwrap(object["reactions"] as? [[String: Any]])
        XCTAssertEqual(reactions.count, 1)
        XCTAssertEqual(reactions.first?["count"] as? Int, 3)
        let voice = try XCTUnwrap(object["voice"] as? [String: Any])
        XCTAssertEqual(voice["path"] as? String, "media/a.ogg")
        XCTAssertEqual(voice["waveform"] as? [Double], [0, 512, 1024])
    }

    func test_anUnreadableTimeIsKeptAsTextSoTheHostReportsIt() throws {
        var message = ImportedMessage()
        message.unreadableTime = "yesterday"
        XCTAssertEqual(try record(message)["time"] as? String, "yesterday")
    }

    func test_aSystemMessageNamesItsEvent() throws {
        var message = ImportedMessage()
        message.type = "system"
        message.systemEvent = "conversation"
        XCTAssertEqual((try record(message)["system"] as? [String: Any])?["event"] as? String, "conversation")
    }

    func test_nonFiniteNumbersAreWrittenAsZeroSoTheRecordStaysJSON() throws {
        var message = ImportedMessage()
        message.location = .init(latitude: .nan, longitude: .infinity)
        let location = try XCTUnwrap(try record(message)["location"] as? [String: Any])
        XCTAssertEqual(location["lat"] as? Double, 0)
    }

    func test_escapedLeavesMarkersInsideWordsAlone() {
        XCTAssertEqual(ImportText.escaped("snake_case and 2*3*4"), "snake_case and 2*3*4")
    }

    func test_escapedMakesBoundaryMarkersLiteral() {
        XCTAssertEqual(ImportText.escaped("*not bold* and _not it_ `x`"), "\\*not bold\\* and \\_not it\\_ \\`x\\`")
        XCTAssertEqual(ImportText.escaped("C:\\path \\*"), "C:\\path \\\\\\*")
    }

    func test_styledWrapsTheCoreAndKeepsSpacesOutside() {
        XCTAssertEqual(ImportText.styled(" bold ", marker: "*"), " *bold* ")
        XCTAssertEqual(ImportText.styled("a `b`", marker: "`"), "`a 'b'`")
        XCTAssertEqual(ImportText.styled("   ", marker: "_"), "   ")
    }

    func test_timesWithAZoneWithoutOneAndAsDecimalText() {
        setenv("TZ", "Europe/Paris", 1)
        tzset()
        defer { setenv("TZ", "UTC", 1); tzset() }
        XCTAssertEqual(ImportTime.parse("2020-01-29T11:41:46Z"), 1_580_298_106)
        XCTAssertEqual(ImportTime.parse("2020-01-29T11:41:46"), 1_580_294_506, "local time in the run's TZ (UTC+1 in January)")
        XCTAssertEqual(ImportTime.parse("2020-07-29 11:41"), 1_596_015_660, "summer time is UTC+2")
        XCTAssertEqual(ImportTime.parse("1512085950.000216") ?? 0, 1_512_085_950.000216, accuracy: 1e-6)
        XCTAssertNil(ImportTime.parse("2020-02-30T00:00:00"))
        XCTAssertNil(ImportTime.parse("yesterday"))
        XCTAssertNil(ImportTime.parse("1e400"))
    }
}

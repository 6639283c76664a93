@testable import CellHostCore
import Foundation
import XCTest

/// `FormatDetector`: which format an input is, from its content alone.
final class FormatDetectorTests: XCTestCase {
    private func detect(_ text: String, atEnd: Bool = true) -> FormatDetector.Outcome? {
        FormatDetector.detect(Array(text.utf8), atEnd: atEnd)
    }

    func test_cellhostJSONLinesIsDecidedOnItsFirstLineWithoutWaitingForMore() {
        XCTAssertEqual(detect("{\"id\":\"m-1\",\"type\":\"text\",\"text\":\"hi\"}\n", atEnd: false), .format(.cellhost))
        XCTAssertNil(detect("{\"id\":\"m-1\",\"type\":", atEnd: false), "half a first line waits for the rest")
    }

    func test_aJSONArrayOfRecordsIsCellHost() {
        XCTAssertEqual(detect("[\n {\"id\":\"a\",\"type\":\"text\"}\n]"), .format(.cellhost))
    }

    func test_aBrokenFirstLineOfJSONLinesStaysCellHostSoTheLineIsReportedWhereItIs() {
        XCTAssertEqual(detect("{\"id\": \"x\", oops\n{\"id\":\"y\"}\n"), .format(.cellhost))
    }

    func test_telegramSingleChatByItsChatType() {
        XCTAssertEqual(detect("{\n \"name\": \"Bob\",\n \"type\": \"personal_chat\",\n \"id\": 42,\n \"messages\": []\n}"), .format(.telegram))
    }

    func test_telegramSingleChatByItsMessageFields() {
        let text = "{\n \"name\": \"X\",\n \"type\": \"something_new\",\n \"messages\": [\n  {\"id\": 1, \"type\": \"message\", \"date\": \"2020-01-01T00:00:00\", \"date_unixtime\": \"1577836800\"}"
        XCTAssertEqual(detect(text, atEnd: true), .format(.telegram))
    }

    func test_telegramFullAccountExport() {
        XCTAssertEqual(detect("{\n \"about\": \"…\",\n \"personal_information\": {\"user_id\": 1},\n \"chats\": {\"list\": []}\n}"), .format(.telegram))
    }

    func test_discordChatExporter() {
        XCTAssertEqual(detect("{\n  \"guild\": {\"id\": \"1\"},\n  \"channel\": {\"id\": \"2\"},\n  \"messages\": []\n}"), .format(.discord))
    }

    func test_elementExport() {
        XCTAssertEqual(detect("{\n \"room_name\": \"Trip\",\n \"exported_by\": \"@alice:example.org\",\n \"messages\": []\n}"), .format(.matrix))
    }

    func test_matrixMessagesPageSyncAndSingleEvents() {
        XCTAssertEqual(detect("{\"chunk\": [], \"start\": \"t1\", \"end\": \"t2\"}"), .format(.matrix))
        XCTAssertEqual(detect("{\"next_batch\": \"s1\", \"rooms\": {\"join\": {}}}"), .format(.matrix))
        XCTAssertEqual(detect("{\"type\":\"m.room.message\",\"event_id\":\"$1\",\"sender\":\"@a:b\",\"origin_server_ts\":1,\"content\":{}}\n"), .format(.matrix))
        XCTAssertEqual(detect("[{\"type\":\"m.room.message\",\"event_id\":\"$1\",\"origin_server_ts\":1}]"), .format(.matrix))
    }

    func test_aSlackDayFile() {
        XCTAssertEqual(detect("[\n {\"type\": \"message\", \"user\": \"U1\", \"text\": \"hi\", \"ts\": \"1512085950.000216\"}\n]"), .format(.slack))
    }

    func test_whatsAppAndroidAndIOSLines() {
        XCTAssertEqual(detect("12/31/20, 11:59 PM - Alice: Happy new year\n"), .format(.whatsapp))
        XCTAssertEqual(detect("\u{200E}[31/12/2020, 23:59:59] Alice: hi\r\n"), .format(.whatsapp))
        XCTAssertEqual(detect("\u{FEFF}31.12.20, 23:59 - Alice: Hallo\n"), .format(.whatsapp))
    }

    func test_anUnknownJSONDocumentIsDescribedByItsKeys() {
        XCTAssertEqual(detect("{\n  \"version\": 2,\n  \"items\": []\n}"),
                       .unknown("a JSON document with the keys \"version\", \"items\", which no importer reads"))
    }

    func test_textIsDescribedByItsFirstLine() {
        XCTAssertEqual(detect("# Notes\nsecond line\n"),
                       .unknown("text whose first line is \"# Notes\", not JSON nor a WhatsApp export"))
    }

    func test_binaryDataIsCalledThat() {
        XCTAssertEqual(FormatDetector.detect([0x7F, 0x45, 0x4C, 0x46, 0x02, 0x01, 0x00, 0x00, 0x0A], atEnd: true),
                       .unknown("binary data, not text"))
    }

    func test_anEmptyInputIsCellHostWithNothingInIt() {
        XCTAssertEqual(detect(""), .format(.cellhost))
        XCTAssertNil(detect("", atEnd: false))
    }

    func test_aDocumentIsDecidedWithinThePrefixLimitEvenWhenItIsLonger() {
        let long = "{\n \"name\": \"X\",\n \"type\": \"personal_chat\",\n \"messages\": [" + String(repeating: "{\"id\": 1, \"text\": \"aaaaaaaa\"},", count: 10_000)
        XCTAssertEqual(FormatDetector.detect(Array(long.utf8.prefix(FormatDetector.prefixLimit)), atEnd: false), .format(.telegram))
    }

    func test_aDirectoryIsASlackExportOnlyWithItsIndexFiles() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("detect-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        XCTAssertEqual(FormatDetector.detect(directory: directory.path),
                       .unknown("a directory without users.json or channels.json (only a Slack export is read as a directory)"))
        try Data("[]".utf8).write(to: directory.appendingPathComponent("users.json"))
        XCTAssertEqual(FormatDetector.detect(directory: directory.path), .format(.slack))
    }
}

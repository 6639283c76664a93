import Foundation
import Glibc
import XCTest
@testable import CellHostCore

/// The WhatsApp text-export importer, run on in-memory exports (a stream,
/// read once) and on temporary files (read twice), its records parsed back.
final class WhatsAppImporterTests: XCTestCase {
    private var savedTZ: String?

    override func setUp() {
        savedTZ = getenv("TZ").map { String(cString: $0) }
        setenv("TZ", "UTC", 1)
        tzset()
    }

    override func tearDown() {
        if let savedTZ { setenv("TZ", savedTZ, 1) } else { unsetenv("TZ") }
        tzset()
    }

    /// What one import handed over.
    struct Run {
        var records: [[String: Any]] = []
        var lines: [Int] = []
        var problems: [(line: Int?, reason: String)] = []
        var warnings: [String] = []
        var notes: [String] = []

        var ids: [String] { records.map { $0["id"] as? String ?? "?" } }
        var types: [String] { records.map { $0["type"] as? String ?? "?" } }
        var texts: [String?] { records.map { $0["text"] as? String } }
        var senders: [String?] { records.map { ($0["sender"] as? [String: Any])?["id"] as? String } }
        func payload(_ index: Int) -> [String: Any]? {
            guard index < records.count, let type = records[index]["type"] as? String else { return nil }
            return records[index][type] as? [String: Any]
        }
        func event(_ index: Int) -> String? { (records[index]["system"] as? [String: Any])?["event"] as? String }
    }

    private func importing(bytes: [UInt8], me: String? = nil, file: Bool = false) throws -> Run {
        var run = Run()
        let sink = ImportSink(record: { buffer, line, _ in
            let data = Data(buffer)
            if let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] {
                run.records.append(object)
            } else {
                run.records.append(["id": "unparseable"])
            }
            run.lines.append(line)
        }, problem: { line, reason in run.problems.append((line, reason)) },
           warning: { run.warnings.append($0) })
        let source: ByteSource
        var fd: Int32 = -1
        if file {
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("wa-\(UUID().uuidString).txt").path
            XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
            fd = open(path, O_RDONLY)
            unlink(path)
            XCTAssertGreaterThanOrEqual(fd, 0)
            source = ByteSource(fd: fd)
            XCTAssertTrue(source.isSeekable)
        } else {
            source = ByteSource(bytes: bytes)
        }
        defer { if fd >= 0 { close(fd) } }
        try WhatsAppImporter.run(ImportInput(name: "chat.txt", source: source), options: ImportOptions(me: me), sink: sink)
        run.notes = sink.notes
        return run
    }

    private func importing(_ text: String, me: String? = nil, file: Bool = false) throws -> Run {
        try importing(bytes: Array(text.utf8), me: me, file: file)
    }

    /// Seconds since the epoch of a UTC wall-clock time.
    private func utc(_ year: Int, _ month: Int, _ day: Int, _ hour: Int, _ minute: Int, _ second: Int = 0) -> Double {
        ImportTime.local(year: year, month: month, day: day, hour: hour, minute: minute, second: second) ?? -1
    }

    // MARK: Headers and detection

    func testEveryLocaleStyleOfTheSameMinuteReadsToTheSameTime() throws {
        let styles = [
            "12/31/20, 11:59 PM - Alice: x", "31/12/2020, 23:59 - Alice: x", "31.12.20, 23:59 - Alice: x",
            "2020-12-31, 23:59 - Alice: x", "31/12/20, 11:59\u{202F}p.\u{00A0}m. - Alice: x",
            "31/12/20, 11:59\u{00A0}p. m. - Alice: x", "31/12/20, 11:59 pm - Alice: x", "31/12/20, 11:59 p.m. - Alice: x",
            "31.12.20, 11:59 nachm. - Alice: x", "12/31/20, 11:59\u{202F}PM - Alice: x",
            "[31/12/2020, 23:59:00] Alice: x", "[12/31/20, 11:59:00 PM] Alice: x", "\u{200E}[31/12/2020, 23:59:00] Alice: x",
        ]
        for style in styles {
            let run = try importing(style + "\n")
            XCTAssertEqual(run.records.first?["time"] as? Double, utc(2020, 12, 31, 23, 59), style)
            XCTAssertEqual(run.senders.first, "Alice", style)
            XCTAssertEqual(run.texts.first, "x", style)
        }
    }

    func testTwelveAMIsMidnightAndTwelvePMIsNoon() throws {
        let run = try importing("13/01/21, 12:15 a. m. - A: night\n13/01/21, 12:15 p. m. - A: noon\n")
        XCTAssertEqual(run.records.map { $0["time"] as? Double }, [utc(2021, 1, 13, 0, 15), utc(2021, 1, 13, 12, 15)])
    }

    func testDetectorTakesEveryStyleAndStillTakesJSON() {
        for line in ["12/31/20, 11:59 PM - Alice: hi", "[31/12/2020, 23:59:59] Alice: hi", "\u{200E}[31/12/2020, 23:59:59] Alice: hi",
                     "\u{FEFF}31.12.20, 23:59 - Alice: hi", "31/12/20, 11:59\u{202F}p.\u{00A0}m. - Los mensajes"] {
            XCTAssertEqual(FormatDetector.detect(Array((line + "\r\n").utf8), atEnd: true), .format(.whatsapp), line)
        }
        XCTAssertEqual(FormatDetector.detect(Array("[{\"id\":\"m-1\",\"type\":\"text\"}]\n".utf8), atEnd: true), .format(.cellhost))
        XCTAssertEqual(FormatDetector.detect(Array("[1, 2]\n".utf8), atEnd: true), .format(.cellhost))
        XCTAssertNotEqual(FormatDetector.detect(Array("12/31/20 was a good day\n".utf8), atEnd: true), .format(.whatsapp))
    }

    // MARK: Day and month order

    func testDayFirstIsDecidedFromALaterDateInAFile() throws {
        let text = "03/04/20, 9:00 AM - A: first\n03/04/20, 9:01 AM - A: second\n15/04/20, 9:00 AM - A: later\n"
        let run = try importing(text, file: true)
        XCTAssertEqual(run.records.map { $0["time"] as? Double }, [utc(2020, 4, 3, 9, 0), utc(2020, 4, 3, 9, 1), utc(2020, 4, 15, 9, 0)])
        XCTAssertEqual(run.notes, ["dates read day first (as \"15/04/20, 9:00 AM\" on line 3 shows)"])
        XCTAssertTrue(run.warnings.isEmpty)
    }

    func testMonthFirstIsDecidedFromALaterDateOnAStream() throws {
        let text = "03/04/20, 09:00 - A: first\n03/14/20, 09:00 - A: later\n"
        let run = try importing(text)
        XCTAssertEqual(run.records.map { $0["time"] as? Double }, [utc(2020, 3, 4, 9, 0), utc(2020, 3, 14, 9, 0)])
        XCTAssertEqual(run.notes, ["dates read month first (as \"03/14/20, 09:00\" on line 2 shows)"])
    }

    func testOrderNoDateTellsIsTheUsualOneForTheStyleAndSaysSo() throws {
        let dayFirst = try importing("01/02/20, 10:00 - A: x\n", file: true)
        XCTAssertEqual(dayFirst.records.first?["time"] as? Double, utc(2020, 2, 1, 10, 0))
        XCTAssertEqual(dayFirst.notes, ["dates read day first: none tells the order (no day above 12), and day first is the usual order with this date style"])
        let monthFirst = try importing("01/02/20, 10:00 AM - A: x\n", file: true)
        XCTAssertEqual(monthFirst.records.first?["time"] as? Double, utc(2020, 1, 2, 10, 0))
        XCTAssertEqual(monthFirst.notes, ["dates read month first: none tells the order (no day above 12), and month first is the usual order with '/' and AM/PM"])
        for lowercase in ["01/02/20, 10:00 pm - A: x\n", "01/02/20, 10:00\u{202F}p.\u{00A0}m. - A: x\n"] {
            XCTAssertEqual(try importing(lowercase, file: true).records.first?["time"] as? Double, utc(2020, 2, 1, 22, 0), lowercase)
        }
        let stream = try importing("01/02/20, 10:00 AM - A: x\n")
        XCTAssertEqual(stream.notes.first?.hasSuffix("with '/' and AM/PM (of the first 1 message of a stream)"), true)
    }

    func testAStreamGuessIsChangedByALaterDateWithAWarning() throws {
        var text = ""
        for _ in 0..<WhatsAppImporter.streamDecisionMessages { text += "01/02/20, 10:00 AM - A: x\n" }
        text += "13/02/20, 10:00 AM - A: telling\n01/02/20, 10:00 AM - A: after\n"
        let run = try importing(text)
        XCTAssertEqual(run.records.count, WhatsAppImporter.streamDecisionMessages + 2)
        XCTAssertEqual(run.records.first?["time"] as? Double, utc(2020, 1, 2, 10, 0))
        XCTAssertEqual(run.records.last?["time"] as? Double, utc(2020, 2, 1, 10, 0))
        XCTAssertEqual(run.records[run.records.count - 2]["time"] as? Double, utc(2020, 2, 13, 10, 0))
        XCTAssertEqual(run.warnings.count, 1)
        XCTAssertTrue(run.warnings.first?.hasPrefix("line 1001: \"13/02/20, 10:00 AM\" shows the dates are written day first") == true)
    }

    func testYearFirstDatesNeedNoOrder() throws {
        let run = try importing("2020-02-01, 10:00 - A: x\n")
        XCTAssertEqual(run.records.first?["time"] as? Double, utc(2020, 2, 1, 10, 0))
        XCTAssertTrue(run.notes.isEmpty)
    }

    func testImpossibleDateOrUnknownClockKeepsTheTimeAsWritten() throws {
        let run = try importing("31/12/20, 10:00 - A: ok\n31/02/2020, 10:00 - A: no such day\n31/12/20, 25:00 - A: no such hour\n31/12/20, 11:00 xyz - A: odd clock\n")
        XCTAssertEqual(run.texts, ["ok", "no such day", "no such hour", "odd clock"])
        XCTAssertEqual(run.records.map { $0["time"] as? String }, [nil, "31/02/2020, 10:00", "31/12/20, 25:00", "31/12/20, 11:00 xyz"])
        XCTAssertTrue(run.problems.isEmpty)
    }

    // MARK: Lines and messages

    func testContinuationLinesKeepTheirNewlinesAndIdsAreHeaderLines() throws {
        let run = try importing("31/12/20, 10:00 - A: one\ntwo\n\nfour\n31/12/20, 10:01 - B: next\n")
        XCTAssertEqual(run.texts, ["one\ntwo\n\nfour", "next"])
        XCTAssertEqual(run.ids, ["L1", "L5"])
        XCTAssertEqual(run.lines, [1, 5])
    }

    func testCRLFAndByteOrderMarkAreDropped() throws {
        let run = try importing(bytes: [0xEF, 0xBB, 0xBF] + Array("31/12/20, 10:00 - A: one\r\ntwo\r\n31/12/20, 10:01 - B: next\r\n".utf8))
        XCTAssertEqual(run.texts, ["one\ntwo", "next"])
        XCTAssertEqual(run.senders, ["A", "B"])
    }

    func testLinesBeforeTheFirstMessageAreReportedOnce() throws {
        let run = try importing("garbage\nmore garbage\n\n31/12/20, 10:00 - A: one\n")
        XCTAssertEqual(run.texts, ["one"])
        XCTAssertEqual(run.problems.count, 1)
        XCTAssertEqual(run.problems.first?.line, 1)
        XCTAssertEqual(run.problems.first?.reason, "2 lines up to line 2 come before the first message (no date and time starts them); left out")
    }

    func testTruncatedLastLineIsKeptAsPartOfTheLastMessage() throws {
        let run = try importing("31/12/20, 10:00 - A: one\n31/12/20, 10:01 - B: two\n31/12/20, 10:")
        XCTAssertEqual(run.texts, ["one", "two\n31/12/20, 10:"])
        XCTAssertTrue(run.problems.isEmpty)
    }

    func testInvalidUTF8IsReportedAndShownAsReplacement() throws {
        let bytes = Array("31/12/20, 10:00 - A: bad ".utf8) + [0xFF, 0xC3] + Array("\n31/12/20, 10:01 - B: good\n".utf8)
        let run = try importing(bytes: bytes)
        XCTAssertEqual(run.texts, ["bad \u{FFFD}\u{FFFD}", "good"])
        XCTAssertEqual(run.problems.map(\.line), [1])
        XCTAssertEqual(run.problems.first?.reason, "not valid UTF-8; the bad bytes are shown as U+FFFD")
    }

    func testEnormousLineIsCutAndTheNextMessageKept() throws {
        var bytes = Array("31/12/20, 10:00 - A: ".utf8)
        bytes += [UInt8](repeating: UInt8(ascii: "x"), count: 3 << 20)
        bytes += Array("\n31/12/20, 10:01 - B: next\n".utf8)
        let run = try importing(bytes: bytes)
        XCTAssertEqual(run.records.count, 2)
        XCTAssertEqual(run.texts.last, "next")
        XCTAssertLessThanOrEqual((run.texts.first ?? nil)?.utf8.count ?? 0, WhatsAppAssembler.messageLimit)
        XCTAssertEqual(run.problems.map(\.line), [1])
        XCTAssertEqual(run.problems.first?.reason, "line longer than 1 MiB; its last \((3 << 20) + 21 - (1 << 20)) bytes are left out")
    }

    func testManyContinuationLinesAreCappedOnce() throws {
        var text = "31/12/20, 10:00 - A: start\n"
        let line = String(repeating: "y", count: 1000) + "\n"
        for _ in 0..<1200 { text += line }
        text += "31/12/20, 10:01 - B: next\n"
        let run = try importing(text)
        XCTAssertEqual(run.texts.last, "next")
        XCTAssertEqual(run.problems.count, 1)
        XCTAssertEqual(run.problems.first?.reason, "message longer than 1 MiB; the rest of it is left out")
    }

    // MARK: Senders and system lines

    func testAndroidSystemLinesHaveEventsAndNoSender() throws {
        let run = try importing("""
        12/31/20, 11:59 PM - Messages and calls are end-to-end encrypted. No one outside of this chat, not even WhatsApp, can read or listen to them. Tap to learn more.
        12/31/20, 11:59 PM - You created group "Trip"
        12/31/20, 11:59 PM - Alice added Bob
        12/31/20, 11:59 PM - Alice removed Carol
        12/31/20, 11:59 PM - Dave joined using this group's invite link
        12/31/20, 11:59 PM - Alice changed the subject from "Trip" to "Trip: 2021"
        12/31/20, 11:59 PM - Alice changed this group's icon
        12/31/20, 11:59 PM - Alice changed the subject to "Bob added sugar"
        12/31/20, 11:59 PM - Bob left
        12/31/20, 11:59 PM - Something WhatsApp says that we do not know

        """)
        XCTAssertEqual(run.types, Array(repeating: "system", count: 10))
        XCTAssertEqual((0..<10).map(run.event), ["notice", "created", "added", "removed", "joined", "subject", "icon", "subject", "left", "notice"])
        XCTAssertEqual(run.senders, Array(repeating: nil, count: 10))
        XCTAssertEqual(run.texts[5], "Alice changed the subject from \"Trip\" to \"Trip: 2021\"")
    }

    func testNameBeforeColonIsTheSenderEvenWhenTheTextLooksLikeASystemLine() throws {
        let run = try importing("12/31/20, 11:59 PM - Bob: Alice left\n12/31/20, 11:59 PM - Bob: Messages and calls are end-to-end encrypted, they say\n")
        XCTAssertEqual(run.types, ["text", "text"])
        XCTAssertEqual(run.senders, ["Bob", "Bob"])
        XCTAssertEqual(run.texts.first, "Alice left")
    }

    func testIOSSystemLinesAreFromTheChatNameWithAMark() throws {
        let run = try importing("""
        [31/12/2020, 23:59:59] Trip: \u{200E}Messages and calls are end-to-end encrypted.
        [31/12/2020, 23:59:59] Trip: \u{200E}Alice added Bob
        [31/12/2020, 23:59:59] Trip: Alice added Bob
        [31/12/2020, 23:59:59] Bob: \u{200E}Missed voice call

        """)
        XCTAssertEqual(run.types, ["system", "system", "text", "system"])
        XCTAssertEqual([run.event(0), run.event(1), run.event(3)], ["notice", "added", "call"])
        XCTAssertEqual(run.senders, [nil, nil, "Trip", "Bob"])
        XCTAssertEqual(run.texts[3], "Missed voice call (Bob)")
    }

    func testPhoneNumberSendersLoseTheirDirectionMarks() throws {
        let run = try importing("31/12/20, 10:00 - \u{202A}+1 555 0100\u{202C}: hi\n")
        XCTAssertEqual(run.senders, ["+1 555 0100"])
        XCTAssertEqual((run.records.first?["sender"] as? [String: Any])?["name"] as? String, "+1 555 0100")
    }

    func testDirectionIsLeftToTheHostWithOrWithoutMe() throws {
        for me in [nil, "Alice"] {
            let run = try importing("31/12/20, 10:00 - Alice: hi\n", me: me)
            XCTAssertNil(run.records.first?["direction"])
        }
    }

    // MARK: Content

    func testAndroidMediaOmittedIsAFileMarkedUnavailable() throws {
        let run = try importing("31/12/20, 10:00 - A: <Media omitted>\n")
        XCTAssertEqual(run.types, ["file"])
        XCTAssertEqual(run.payload(0)?["unavailable"] as? String, "not included in the export")
        XCTAssertNil(run.payload(0)?["path"])
        XCTAssertNil(run.texts[0])
    }

    func testIOSOmittedMediaKeepTheirClass() throws {
        let kinds = ["image omitted": "image", "video omitted": "video", "audio omitted": "voice", "sticker omitted": "sticker",
                     "GIF omitted": "video", "document omitted": "file"]
        for (placeholder, type) in kinds {
            let run = try importing("\u{200E}[31/12/2020, 23:59:59] Alice: \u{200E}\(placeholder)\n")
            XCTAssertEqual(run.types, [type], placeholder)
            XCTAssertEqual(run.payload(0)?["unavailable"] as? String, "not included in the export", placeholder)
        }
        let document = try importing("[31/12/2020, 23:59:59] Alice: Plan.pdf • \u{200E}3 pages \u{200E}document omitted\n")
        XCTAssertEqual(document.payload(0)?["name"] as? String, "Plan.pdf")
    }

    func testAttachmentsNameTheFileBesideTheExportAndTheirClass() throws {
        let run = try importing("""
        31/12/20, 10:00 - A: IMG-20201231-WA0001.jpg (file attached)
        Sunset
        31/12/20, 10:01 - A: PTT-20201231-WA0002.opus (file attached)
        31/12/20, 10:02 - A: VID-20201231-WA0003.mp4 (file attached)
        31/12/20, 10:03 - A: STK-20201231-WA0004.webp (file attached)
        31/12/20, 10:04 - A: Report 2020.pdf (file attached)
        31/12/20, 10:05 - A: song.mp3 (file attached)
        31/12/20, 10:06 - A: AUD-20201231-WA0005.m4a (file attached)
        [31/12/2020, 10:07:00] A: \u{200E}<attached: 00000012-PHOTO-2020-12-31-10-07-00.jpg>
        [31/12/2020, 10:08:00] A: \u{200E}<attached: 00000013-AUDIO-2020-12-31-10-08-00.opus>
        [31/12/2020, 10:09:00] A: \u{200E}<attached: 00000014-STICKER-2020-12-31-10-09-00.webp>
        [31/12/2020, 10:10:00] A: \u{200E}<attached: 00000015-Itinerary.pdf> the plan

        """)
        XCTAssertEqual(run.types, ["image", "voice", "video", "sticker", "file", "file", "voice", "image", "voice", "sticker", "file"])
        XCTAssertEqual(run.payload(0)?["path"] as? String, "IMG-20201231-WA0001.jpg")
        XCTAssertEqual(run.texts[0], "Sunset")
        XCTAssertEqual(run.payload(4)?["name"] as? String, "Report 2020.pdf")
        XCTAssertEqual(run.payload(7)?["path"] as? String, "00000012-PHOTO-2020-12-31-10-07-00.jpg")
        XCTAssertEqual(run.payload(10)?["path"] as? String, "00000015-Itinerary.pdf")
        XCTAssertEqual(run.payload(10)?["name"] as? String, "Itinerary.pdf")
        XCTAssertEqual(run.texts[10], "the plan")
        XCTAssertTrue(run.records.allSatisfy { ($0[$0["type"] as? String ?? ""] as? [String: Any])?["unavailable"] == nil })
    }

    func testAttachmentNamesThatArePathsStayText() throws {
        let run = try importing("[31/12/2020, 10:07:00] A: <attached: ../../etc/passwd>\n31/12/20, 10:00 - A: /etc/passwd (file attached)\n")
        XCTAssertEqual(run.types, ["text", "text"])
    }

    func testDeletedMessagesAreItalicTextAfterAMark() throws {
        let run = try importing("31/12/20, 10:00 - A: This message was deleted\n31/12/20, 10:01 - A: You deleted this message\n[31/12/2020, 10:02:00] B: \u{200E}This message was deleted.\n")
        XCTAssertEqual(run.types, ["text", "text", "text"])
        XCTAssertEqual(run.texts, ["🚫 _This message was deleted_", "🚫 _You deleted this message_", "🚫 _This message was deleted_"])
    }

    func testEditMarkSetsEditedAndIsRemoved() throws {
        let run = try importing("31/12/20, 10:00 - A: See you at 8 <This message was edited>\n31/12/20, 10:01 - A: plain\n")
        XCTAssertEqual(run.texts, ["See you at 8", "plain"])
        XCTAssertEqual(run.records.map { $0["edited"] as? Bool }, [true, nil])
    }

    func testViewOnceNullIsAnUnavailableFile() throws {
        let run = try importing("31/12/20, 10:00 - A: null\n")
        XCTAssertEqual(run.types, ["file"])
        XCTAssertEqual(run.payload(0)?["unavailable"] as? String, "view-once media, never included in the export")
    }

    func testLocationSharesHaveCoordinates() throws {
        let run = try importing("""
        31/12/20, 10:00 - A: location: https://maps.google.com/?q=48.6,-2.02
        [31/12/2020, 10:01:00] B: \u{200E}Location: https://maps.google.com/?q=-33.85,151.2
        31/12/20, 10:02 - A: Harbour Café: https://maps.google.com/?q=48.65,-2.03
        31/12/20, 10:03 - A: location: https://maps.google.com/?q=999,0
        31/12/20, 10:04 - A: see https://maps.google.com/?q=48.6,-2.02 there

        """)
        XCTAssertEqual(run.types, ["location", "location", "location", "text", "text"])
        XCTAssertEqual(run.payload(0)?["lat"] as? Double, 48.6)
        XCTAssertEqual(run.payload(0)?["lon"] as? Double, -2.02)
        XCTAssertEqual(run.payload(1)?["lat"] as? Double, -33.85)
        XCTAssertEqual(run.payload(2)?["name"] as? String, "Harbour Café")
        XCTAssertEqual(run.texts[0], "https://maps.google.com/?q=48.6,-2.02")
    }

    func testPollsHaveOptionsAndVotes() throws {
        let run = try importing("""
        31/12/20, 10:00 - A: POLL:
        Lunch?
        OPTION: Crêpes (2 votes)
        OPTION: Fish (1 vote)
        OPTION: Huge (99999999999999999999999 votes)
        31/12/20, 10:01 - A: POLL:
        not a poll after all

        """)
        XCTAssertEqual(run.types, ["poll", "text"])
        XCTAssertEqual(run.payload(0)?["question"] as? String, "Lunch?")
        let options = run.payload(0)?["options"] as? [[String: Any]] ?? []
        XCTAssertEqual(options.map { $0["text"] as? String }, ["Crêpes", "Fish", "Huge"])
        XCTAssertEqual(options.map { ($0["votes"] as? NSNumber)?.int64Value }, [2, 1, Int64.max])
    }

    func testWhatsAppMarkupIsKeptAndBackslashesAreEscaped() throws {
        let run = try importing("31/12/20, 10:00 - A: *bold* _it_ ```code``` C:\\_x\n")
        XCTAssertEqual(run.texts, ["*bold* _it_ `code` C:\\\\_x"])
    }

    func testSystemTextIsLiteral() throws {
        let run = try importing("31/12/20, 10:00 - Alice changed the subject to \"*Trip*\"\n")
        XCTAssertEqual(run.texts, ["Alice changed the subject to \"\\*Trip\\*\""])
    }

    // MARK: Hostile input

    func testRandomLinesNeverTrapNorLoseHeaders() throws {
        var state: UInt64 = 7
        func next() -> UInt64 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return state >> 33
        }
        let pieces = ["31/12/20, ", "99/99/99, ", "[", "]", " - ", "23:59", "11:59 PM", ": ", "\u{200E}", "<attached: ", ">",
                      " (file attached)", "POLL:", "OPTION: ", "(", " votes)", "location: https://maps.google.com/?q=", "1e308,",
                      "<This message was edited>", "null", "\u{202F}", "p. m.", "\"", "\r", "x", "🎉", "\\", "*"]
        var bytes: [UInt8] = []
        var headers = 0
        for _ in 0..<2000 {
            if next() % 3 == 0 {
                bytes += Array("31/12/20, 10:00 - A: ".utf8)
                headers += 1
            }
            for _ in 0..<(next() % 8) { bytes += Array(pieces[Int(next() % UInt64(pieces.count))].utf8) }
            if next() % 17 == 0 { bytes.append(UInt8(truncatingIfNeeded: next())) }
            bytes.append(0x0A)
        }
        let run = try importing(bytes: bytes)
        XCTAssertGreaterThanOrEqual(run.records.count, headers)
        XCTAssertFalse(run.ids.contains("unparseable"))
    }
}

import Foundation
import XCTest

/// `cellhost render` on WhatsApp text exports (Android and iOS, English,
/// Spanish and German): detected without `--from`, every message in order,
/// dates on the right day, media beside the export rendered, omitted media
/// marked missing, and a hostile export rendered as far as it goes.
final class WhatsAppImportTests: EndToEndTestCase {
    private let format = "whatsapp"
    private var fixtures: URL { Self.importFixtures(format) }

    // MARK: Goldens

    func testAndroidEnglishGoldens() throws {
        for kind in ["plain", "ansi", "json"] {
            try checkImportGolden(format: format, fixture: "android-en.txt", kind: kind, extraArgs: ["--me", "Alice"])
        }
    }

    func testAndroidSpanishGoldens() throws {
        for kind in ["plain", "ansi", "json"] {
            try checkImportGolden(format: format, fixture: "android-es.txt", kind: kind, extraArgs: ["--me", "Bruno"])
        }
    }

    func testIOSEnglishGoldens() throws {
        for kind in ["plain", "ansi", "json"] {
            try checkImportGolden(format: format, fixture: "ios-en/_chat.txt", kind: kind, extraArgs: ["--me", "Alice"])
        }
    }

    func testGermanGoldens() throws {
        for kind in ["plain", "ansi", "json"] {
            try checkImportGolden(format: format, fixture: "de-24h.txt", kind: kind, extraArgs: ["--me", "Lena"])
        }
    }

    func testHostileGolden() throws {
        let run = try checkImportGolden(format: format, fixture: "hostile.txt", kind: "plain", expectStatus: 1)
        XCTAssertEqual(run.diagnostics, ["cellhost: hostile.txt:3: not valid UTF-8; the bad bytes are shown as U+FFFD"])
    }

    // MARK: Detection and order

    func testEveryFixtureIsDetectedWithoutFromAndVerboseSaysSo() throws {
        for fixture in ["android-en.txt", "android-es.txt", "ios-en/_chat.txt", "de-24h.txt"] {
            let run = try renderRaw([fixture, "--format", "plain", "--verbose"], currentDirectory: fixtures)
            XCTAssertTrue(run.stderr.contains("cellhost: \(fixture): read as WhatsApp chat export (text)\n"), run.stderr)
        }
    }

    func testAndroidMessagesComeInOrderWithMultiLineTextKept() throws {
        let records = try self.records(renderRaw(["android-en.txt", "--format", "json"], currentDirectory: fixtures))
        XCTAssertEqual(records.map { $0.id ?? "" }, ["L1", "L2", "L3", "L4", "L5", "L8", "L9", "L10", "L11", "L12", "L13", "L14",
                                                    "L18", "L19", "L20", "L21", "L22"])
        let multiLine = try XCTUnwrap(records.first { $0.id == "L5" }).lines.joined(separator: "\n")
        XCTAssertTrue(multiLine.contains("Yes! Definitely still on.\n│ I'll bring snacks 🍙\n│ and the big thermos"), multiLine)
        XCTAssertEqual(records.first { $0.id == "L14" }?.type, "poll")
        XCTAssertEqual(records.first { $0.id == "L14" }?.plugin, "org.cellhost.poll")
        XCTAssertTrue(try XCTUnwrap(records.first { $0.id == "L11" }).lines.contains("│ edited"))
    }

    func testDayFirstDecidedFromTheWholeFilePutsTheThirdOfAprilOnItsDay() throws {
        let records = try self.records(renderRaw(["android-es.txt", "--format", "json"], currentDirectory: fixtures))
        XCTAssertEqual(records.first?.lines.first?.contains("Friday, 3 April 2026"), true)
        XCTAssertEqual(records.first { $0.id == "L7" }?.lines.first { $0.contains("──") }?.contains("Sunday, 5 April 2026"), true)
        XCTAssertTrue(try XCTUnwrap(records.first { $0.id == "L9" }).lines.contains { $0.contains("00:15") })
        XCTAssertTrue(try XCTUnwrap(records.first { $0.id == "L10" }).lines.contains { $0.contains("Wednesday, 15 April 2026") })
    }

    func testMonthFirstAndIOSDatesLandOnTheThirdOfDecember() throws {
        for (fixture, id) in [("android-en.txt", "L21"), ("ios-en/_chat.txt", "L15")] {
            let records = try self.records(renderRaw([fixture, "--format", "json"], currentDirectory: fixtures))
            XCTAssertTrue(try XCTUnwrap(records.first { $0.id == id }).lines.contains { $0.contains("Thursday, 3 December 2026") }, fixture)
        }
    }

    func testAPipeIsReadLikeTheFile() throws {
        let file = try renderRaw(["android-es.txt", "--format", "json"], currentDirectory: fixtures)
        let outURL = scratchDir.appendingPathComponent("piped.jsonl")
        try Data().write(to: outURL)
        let out = try FileHandle(forWritingTo: outURL)
        let path = fixtures.appendingPathComponent("android-es.txt").path
        let piped = try runShell(#"cat '\#(path)' | "$CELLHOST" render --format json --verbose"#, stdout: out, env: ["TZ": "UTC"])
        try out.close()
        XCTAssertEqual(piped.status, 0, piped.stderr)
        XCTAssertEqual(String(decoding: try Data(contentsOf: outURL), as: UTF8.self), file.text)
        XCTAssertTrue(piped.stderr.contains("cellhost: <stdin>: 10 messages imported; dates read day first (as \"15/04/26, 8:00\u{202F}p.\u{00A0}m.\" on line 10 shows)"), piped.stderr)
    }

    // MARK: Media and system lines

    func testIOSAttachmentsBesideTheExportAreRendered() throws {
        let records = try self.records(renderRaw(["ios-en/_chat.txt", "--format", "json"], currentDirectory: fixtures))
        let image = try XCTUnwrap(records.first { $0.id == "L5" })
        XCTAssertEqual(image.plugin, "org.cellhost.image")
        XCTAssertTrue(image.lines.contains { $0.contains("00000003-PHOTO-2026-11-28-10-45-00.jpg · 80×60") }, "\(image.lines)")
        let voice = try XCTUnwrap(records.first { $0.id == "L7" })
        XCTAssertEqual(voice.plugin, "org.cellhost.voice")
        XCTAssertTrue(voice.lines.contains { $0.contains("▶ 0:03") }, "\(voice.lines)")
        let document = try XCTUnwrap(records.first { $0.id == "L10" })
        XCTAssertEqual(document.plugin, "org.cellhost.file")
        XCTAssertTrue(document.lines.contains { $0.contains("Itinerary.pdf") })
        for record in [image, voice, document] {
            XCTAssertFalse(record.lines.joined().contains("missing"), "\(record.lines)")
        }
    }

    func testAndroidAttachmentsBesideTheExportAreRendered() throws {
        let records = try self.records(renderRaw(["de-24h.txt", "--format", "json"], currentDirectory: fixtures))
        XCTAssertEqual(records.first { $0.id == "L6" }?.plugin, "org.cellhost.image")
        XCTAssertTrue(try XCTUnwrap(records.first { $0.id == "L6" }).lines.contains("│ Blick vom Balkon"))
        XCTAssertEqual(records.first { $0.id == "L8" }?.plugin, "org.cellhost.voice")
        XCTAssertTrue(try XCTUnwrap(records.first { $0.id == "L8" }).lines.contains { $0.contains("▶ 0:05") })
    }

    func testOmittedMediaIsMarkedMissing() throws {
        let android = try self.records(renderRaw(["android-en.txt", "--format", "json"], currentDirectory: fixtures))
        let ios = try self.records(renderRaw(["ios-en/_chat.txt", "--format", "json"], currentDirectory: fixtures))
        let expected: [(RenderRecord?, String)] = [
            (android.first { $0.id == "L8" }, "[FILE] file\n│ missing: not included in the export"),
            (android.first { $0.id == "L18" }, "[FILE] file\n│ missing: view-once media, never included in the export"),
            (ios.first { $0.id == "L8" }, "[IMG] image\n│ missing: not included in the export"),
            (ios.first { $0.id == "L9" }, "[IMG] sticker\n│ missing: not included in the export"),
            (ios.first { $0.id == "L11" }, "[PDF] Tickets.pdf\n│ application/pdf · missing: not included in the export"),
        ]
        for (record, text) in expected {
            let lines = try XCTUnwrap(record).lines.joined(separator: "\n")
            XCTAssertTrue(lines.contains(text), lines)
        }
    }

    func testSystemLinesArePresentWithTheirText() throws {
        let android = try self.records(renderRaw(["android-en.txt", "--format", "json"], currentDirectory: fixtures))
        XCTAssertEqual(android.filter { $0.type == "system" }.map { $0.id ?? "" }, ["L1", "L2", "L3", "L10", "L22"])
        XCTAssertTrue(try XCTUnwrap(android.first { $0.id == "L22" }).lines.contains { $0.contains("Carol left") })
        let ios = try self.records(renderRaw(["ios-en/_chat.txt", "--format", "json"], currentDirectory: fixtures))
        XCTAssertEqual(ios.filter { $0.type == "system" }.map { $0.id ?? "" }, ["L1", "L2", "L3", "L12", "L17"])
        XCTAssertTrue(try XCTUnwrap(ios.first { $0.id == "L12" }).lines.contains { $0.contains("Missed voice call (Bob)") })
    }

    // MARK: Hostile input

    func testHostileExportRendersWhatItCanAndExitsOne() throws {
        let run = try renderRaw(["hostile.txt", "--format", "json", "--verbose"], currentDirectory: fixtures, expectStatus: 1)
        let records = try self.records(run)
        XCTAssertEqual(records.map { $0.id ?? "" }, ["L1", "L3", "L4", "L5", "L6", "L7", "L8", "L9", "L13", "L14", "L15", "L16",
                                                    "L17", "L18", "L19"])
        XCTAssertTrue(run.stderr.contains("hostile.txt:4: 4 times could not be read (the first: \"02/31/21, 10:00 AM\"); shown without a time"), run.stderr)
        // Paths out of the export's directory are text, never files.
        XCTAssertEqual(records.first { $0.id == "L7" }?.type, "text")
        XCTAssertEqual(records.first { $0.id == "L8" }?.type, "text")
    }

    func testFromWhatsAppReadsAnExportThatStartsWithOtherLines() throws {
        let url = try writeInput("notes.txt", bytes: Data("Exported by hand\n\n31/12/20, 10:00 - Alice: hi\n".utf8))
        let detected = try renderRaw([url.path, "--format", "json"], expectStatus: 1)
        XCTAssertTrue(detected.stderr.contains("not a chat CellHost can read"), detected.stderr)
        let run = try renderRaw([url.path, "--from", "whatsapp", "--format", "json"], expectStatus: 1)
        XCTAssertEqual(try records(run).map { $0.id ?? "" }, ["L3"])
        XCTAssertEqual(run.diagnostics, ["cellhost: \(url.path):1: this line comes before the first message (no date and time starts it); left out"])
    }

    func testEnormousAndInvalidLinesCostNoOtherMessage() throws {
        var bytes = Data("12/31/20, 11:59 PM - Alice: before\n12/31/20, 11:59 PM - Bob: ".utf8)
        bytes.append(Data(repeating: UInt8(ascii: "z"), count: 3 << 20))
        bytes.append(Data("\n12/31/20, 11:59 PM - Carol: \u{1F600}".utf8))
        bytes.append(contentsOf: [0xF0, 0x9F])
        bytes.append(Data("\n12/31/20, 11:59 PM - Dave: after\n".utf8))
        let url = try writeInput("big.txt", bytes: bytes)
        let run = try renderRaw([url.path, "--format", "json"], expectStatus: 1)
        XCTAssertEqual(try records(run).map { $0.id ?? "" }, ["L1", "L2", "L3", "L4"])
        XCTAssertEqual(run.diagnostics.count, 2, run.stderr)
        XCTAssertTrue(run.stderr.contains("big.txt:2: line longer than 1 MiB; its last \((3 << 20) + 26 - (1 << 20)) bytes are left out"), run.stderr)
        XCTAssertTrue(run.stderr.contains("big.txt:3: not valid UTF-8; the bad bytes are shown as U+FFFD"), run.stderr)
    }
}

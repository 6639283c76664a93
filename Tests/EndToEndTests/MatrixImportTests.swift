import Foundation
import XCTest

/// `cellhost render` on Matrix inputs: Element's export, a `/messages` page,
/// a `/sync` response, single events, and hostile ones; detected without
/// `--from`, compared with goldens and checked message by message.
final class MatrixImportTests: EndToEndTestCase {
    private var fixtures: URL { Self.importFixtures("matrix") }

    private func renderFixture(_ name: String, _ extra: [String] = [], expectStatus: Int32? = 0,
                               file: StaticString = #filePath, line: UInt = #line) throws -> (run: RawRun, records: [RenderRecord]) {
        let run = try renderRaw([name, "--format", "json", "--width", "80"] + extra, currentDirectory: fixtures,
                                expectStatus: expectStatus, file: file, line: line)
        return (run, try records(run, file: file, line: line))
    }

    private func lines(_ records: [RenderRecord], _ id: String) -> String {
        records.filter { $0.id == id }.map { $0.lines.joined(separator: "\n") }.joined(separator: "\n---\n")
    }

    /// Runs `script` with `sh` in the fixtures directory (TZ=UTC) and returns stdout, stderr and the status.
    private func shell(_ script: String) throws -> (status: Int32, stdout: String, stderr: String) {
        let out = scratchDir.appendingPathComponent("shell-stdout-\(UUID().uuidString)")
        try Data().write(to: out)
        let handle = try FileHandle(forWritingTo: out)
        let result = try runShell("cd '\(fixtures.path)' && " + script, stdout: handle, env: ["TZ": "UTC"])
        try handle.close()
        return (result.status, String(decoding: try Data(contentsOf: out), as: UTF8.self), result.stderr)
    }

    // MARK: Goldens

    func test_elementExport_goldens() throws {
        for kind in ["plain", "ansi", "json"] {
            try checkImportGolden(format: "matrix", fixture: "element-export.json", kind: kind)
        }
    }

    func test_messagesPage_goldens() throws {
        for kind in ["plain", "ansi", "json"] {
            try checkImportGolden(format: "matrix", fixture: "messages-page.json", kind: kind)
        }
    }

    func test_sync_goldens() throws {
        for kind in ["plain", "ansi", "json"] {
            try checkImportGolden(format: "matrix", fixture: "sync.json", kind: kind)
        }
    }

    func test_singleEvents_goldens() throws {
        for kind in ["plain", "ansi", "json"] {
            try checkImportGolden(format: "matrix", fixture: "events.jsonl", kind: kind)
        }
    }

    func test_hostile_golden_exits1() throws {
        try checkImportGolden(format: "matrix", fixture: "hostile.json", kind: "plain", expectStatus: 1)
    }

    // MARK: Detection

    func test_everyFixture_isDetectedAsMatrix_withoutFrom() throws {
        for name in ["element-export.json", "messages-page.json", "sync.json", "events.jsonl", "hostile.json"] {
            let run = try renderRaw([name, "--format", "plain", "--verbose"], currentDirectory: fixtures, expectStatus: nil)
            XCTAssertTrue(run.stderr.contains("cellhost: \(name): read as Matrix events (Element export, /messages, /sync or single events)\n"),
                          "\(name): \(run.stderr)")
        }
    }

    // MARK: Element export

    func test_elementExport_messagesInOrder_editsAppliedOnce_editEventsNotShown() throws {
        let (_, records) = try renderFixture("element-export.json")
        let ids = records.compactMap(\.id)
        XCTAssertEqual(ids.first, "$create")
        XCTAssertEqual(ids.last, "$carol-leave")
        XCTAssertEqual(ids.filter { $0 == "$t6" }.count, 1)
        for hidden in ["$edit-t6", "$edit-t6-by-bob", "$r1", "$r2", "$r3", "$r4", "$redact-r4", "$redact-t7", "$whiteboard"] {
            XCTAssertFalse(ids.contains(hidden), hidden)
        }
        let edited = lines(records, "$t6")
        XCTAssertTrue(edited.contains("I can book the train if nobody else has yet"), edited)
        XCTAssertTrue(edited.contains("edited"), edited)
        XCTAssertFalse(edited.contains("trian"), edited)
        XCTAssertFalse(edited.contains("Bob was here"), edited)
        XCTAssertTrue(lines(records, "$t13").contains("See you at 8:15"))
    }

    func test_elementExport_reactionsCounted_replyQuoted_deletionsShown() throws {
        let (_, records) = try renderFixture("element-export.json")
        XCTAssertTrue(lines(records, "$t5").contains("👍 2"), lines(records, "$t5"))
        XCTAssertFalse(lines(records, "$t5").contains("🎉"), "the deleted reaction is not counted")
        XCTAssertTrue(lines(records, "$t12").contains("🎉 3"))
        XCTAssertTrue(lines(records, "$t2").contains("↪ Bob: Morning! Are we still on"), lines(records, "$t2"))
        XCTAssertFalse(lines(records, "$t2").contains("<@bob:example.org>"), "the reply fallback is removed")
        XCTAssertTrue(lines(records, "$thread-1").contains("↪ Bob: Draft plan"))
        for id in ["$t7", "$t8"] {
            XCTAssertTrue(lines(records, id).contains("🗑 Message deleted"), lines(records, id))
        }
        XCTAssertFalse(lines(records, "$t7").contains("wrong room"))
    }

    func test_elementExport_mediaBesideTheExport_areFound_othersMarkedNotDownloaded() throws {
        let (_, records) = try renderFixture("element-export.json")
        XCTAssertEqual(records.first { $0.id == "$img-cat" }?.renderedAs, "image")
        XCTAssertTrue(lines(records, "$img-cat").contains("cat-28-11-2026 at 10-02-00.png"), lines(records, "$img-cat"))
        XCTAssertTrue(lines(records, "$file-pdf").contains("itinerary.pdf"))
        XCTAssertEqual(records.first { $0.id == "$voice" }?.type, "voice")
        XCTAssertFalse(lines(records, "$img-cat").contains("missing"))
        XCTAssertTrue(lines(records, "$img-beach").contains("missing: not downloaded"), lines(records, "$img-beach"))
        XCTAssertTrue(lines(records, "$img-beach").contains("(mxc://matrix.org/BeachBeach)"), lines(records, "$img-beach"))
    }

    func test_elementExport_namesFollowRenames_andExporterIsOutgoing() throws {
        let run = try renderRaw(["element-export.json", "--format", "plain", "--width", "80"], currentDirectory: fixtures)
        let text = run.text
        XCTAssertTrue(text.contains("Bob changed their name to Bobby"))
        XCTAssertTrue(text.contains("Bobby · 12:20"), text)
        XCTAssertTrue(text.contains("dave · 11:20"), "a member without a display name is shown by the localpart")
        // Alice exported the chat: her messages are on the right.
        let aliceLine = try XCTUnwrap(run.lines.first { $0.contains("I can book the train") })
        XCTAssertTrue(aliceLine.hasPrefix("   "), aliceLine)
    }

    func test_elementExport_verboseSummary() throws {
        let run = try renderRaw(["element-export.json", "--format", "plain", "--verbose"], currentDirectory: fixtures)
        XCTAssertTrue(run.stderr.contains("element-export.json: 37 messages imported; 2 edits applied; 3 reactions counted; "
                                          + "2 deleted messages shown as deleted; 1 event of other types skipped (org.example.whiteboard)"),
                      run.stderr)
    }

    // MARK: /messages and /sync

    func test_messagesPage_newestFirst_isShownOldestFirst_withItsRelations() throws {
        let (run, records) = try renderFixture("messages-page.json")
        XCTAssertEqual(records.compactMap(\.id), ["$p1", "$p2", "$p3", "$p4", "$p5", "$p-dave", "$p6"])
        XCTAssertTrue(lines(records, "$p2").contains("👍 2"))
        XCTAssertTrue(lines(records, "$p2").contains("↪ Alice: Are we taking"))
        XCTAssertTrue(lines(records, "$p3").contains("the tent and the stove"))
        XCTAssertTrue(lines(records, "$p3").contains("edited"))
        XCTAssertTrue(lines(records, "$p4").contains("🗑 Message deleted"))
        XCTAssertEqual(run.diagnostics, [])
    }

    func test_messagesPage_fromAPipe_isHeld_andStillInOrder_withoutWarning() throws {
        let result = try shell(#"cat messages-page.json | "$CELLHOST" render - --format json --width 80"#)
        XCTAssertEqual(result.status, 0, result.stderr)
        let ids = outputLines(result.stdout).compactMap { line -> String? in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["id"] as? String
        }
        XCTAssertEqual(ids, ["$p1", "$p2", "$p3", "$p4", "$p5", "$p-dave", "$p6"])
        XCTAssertEqual(result.stderr, "")
    }

    func test_sync_eachRoomStartsAConversation() throws {
        let (_, records) = try renderFixture("sync.json")
        XCTAssertEqual(records.compactMap(\.id), ["!coast:example.org", "$s1", "$s2", "!family:example.org", "$f-join", "$f1", "$f2"])
        XCTAssertTrue(lines(records, "!family:example.org").contains("Family"))
        XCTAssertTrue(lines(records, "$s1").contains("Bobby"), "the name from the room's state")
        XCTAssertTrue(lines(records, "$s2").contains("Photos tomorrow"))
    }

    // MARK: Read once

    func test_singleEvents_fromAFile_applyRelationsAfterTheirMessage() throws {
        let (run, records) = try renderFixture("events.jsonl")
        XCTAssertEqual(records.compactMap(\.id), ["$l-bob", "$l1", "$l2", "$l3"])
        XCTAssertTrue(lines(records, "$l1").contains("🏊 2"))
        XCTAssertTrue(lines(records, "$l2").contains("16 °C"))
        XCTAssertTrue(lines(records, "$l3").contains("🗑 Message deleted"))
        XCTAssertEqual(run.diagnostics, [])
    }

    func test_singleEvents_fromAPipe_warnOnce_withTheCounts() throws {
        let result = try shell(#"cat events.jsonl | "$CELLHOST" render - --format plain --width 80"#)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stderr, "cellhost: <stdin>: 1 edit, 2 reactions and 1 deletion not applied: they came after their message "
                       + "(or it is not in the input), and this input cannot be read twice; give the file's path instead to apply them\n")
        XCTAssertTrue(result.stdout.contains("above 15 °C"), "the edit is not applied")
        XCTAssertTrue(result.stdout.contains("Count me out"), "the deletion is not applied")
    }

    // MARK: Damage

    func test_hostile_rendersWhatItCan_reportsTheRest_exits1() throws {
        let run = try renderRaw(["hostile.json", "--format", "json", "--width", "80"], currentDirectory: fixtures, expectStatus: 1)
        let ids = try records(run).compactMap(\.id)
        XCTAssertEqual(ids.first, "$h1")
        XCTAssertTrue(ids.contains("$h-relations"))
        XCTAssertFalse(ids.contains("$h-last"))
        XCTAssertTrue(run.stderr.contains("cellhost: hostile.json:2: not a Matrix event: a \"type\" that is not a string\n"), run.stderr)
        XCTAssertTrue(run.stderr.contains("cellhost: hostile.json:16: the file ends in the middle of 'content' (truncated?)\n"), run.stderr)
        XCTAssertFalse(run.stderr.contains("Fatal error"))
    }

    func test_truncatedElementExport_showsEverythingBefore_andNamesTheLine() throws {
        let data = try Data(contentsOf: fixtures.appendingPathComponent("element-export.json"))
        let text = String(decoding: data, as: UTF8.self)
        let cut = try XCTUnwrap(text.range(of: "\"event_id\": \"$t6\""))
        let url = try writeInput("truncated.json", bytes: Data(text[..<cut.upperBound].utf8))
        let run = try renderRaw([url.path, "--format", "json", "--width", "80"], expectStatus: 1)
        let ids = try records(run).compactMap(\.id)
        XCTAssertEqual(ids.last, "$t5")
        let line = text[..<cut.upperBound].split(separator: "\n", omittingEmptySubsequences: false).count
        XCTAssertTrue(run.stderr.contains("truncated.json:\(line): the file ends in the middle of 'messages' (truncated?)"), run.stderr)
    }

    func test_enormousValues_renderWithoutTrouble() throws {
        let body = String(repeating: "sea ", count: 1 << 20)
        let html = String(repeating: "<blockquote><b><i>", count: 50_000) + "deep" + String(repeating: "&lt;", count: 100_000)
        let name = String(repeating: "N", count: 1 << 16)
        let events = [
            #"{"type":"m.room.member","event_id":"$m","sender":"@a:x","state_key":"@a:x","origin_server_ts":1000,"content":{"membership":"join","displayname":"\#(name)"}}"#,
            #"{"type":"m.room.message","event_id":"$big","sender":"@a:x","origin_server_ts":2000,"content":{"msgtype":"m.text","body":"\#(body)"}}"#,
            #"{"type":"m.room.message","event_id":"$html","sender":"@a:x","origin_server_ts":3000,"content":{"msgtype":"m.text","body":"b","format":"org.matrix.custom.html","formatted_body":"\#(html)"}}"#,
        ].joined(separator: "\n")
        let url = try writeInput("enormous.jsonl", bytes: Data(events.utf8))
        let run = try renderRaw([url.path, "--format", "json", "--width", "80"], timeout: 120)
        XCTAssertEqual(try records(run).compactMap(\.id), ["$m", "$big", "$html"])
    }
}

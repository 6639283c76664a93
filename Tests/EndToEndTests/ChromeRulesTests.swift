import Foundation
import XCTest

/// The chrome the host lays out around each cell (docs/cli.md, "Layout"):
/// grouping of consecutive messages by sender within 5 minutes, day
/// separators by local date, reply quotes, alignment by direction, the status
/// footer of outgoing messages, the edited mark, reactions, and messages with
/// no sender, time or status. Small inline inputs, plain format, width 60.
final class ChromeRulesTests: EndToEndTestCase {

    private let width = 60

    // MARK: - Building inputs

    private static let senders = [
        "bob": #"{"id":"u-bob","name":"Bob"}"#,
        "cy": #"{"id":"u-cy","name":"Cy"}"#,
        "alice": #"{"id":"u-alice","name":"Alice"}"#,
    ]

    /// One text message as a JSON line. `at` is a full RFC 3339 time, or
    /// "HH:MM[:SS]" on 2026-01-01 UTC; nil leaves `time` out, as `from: nil`
    /// leaves out `sender`. `extra` is spliced in verbatim (`"edited":true`).
    private func msg(_ id: String, from sender: String? = "bob", at time: String? = "10:00",
                     _ text: String, _ extra: String = "") -> String {
        var fields = [#""id":"\#(id)""#, #""type":"text""#]
        if let sender { fields.append(#""sender":\#(Self.senders[sender]!)"#) }
        if let time {
            let full = time.count <= 8 ? "2026-01-01T\(time.count == 5 ? time + ":00" : time)Z" : time
            fields.append(#""time":"\#(full)""#)
        }
        fields.append(#""text":\#(jsonString(text))"#)
        if !extra.isEmpty { fields.append(extra) }
        return "{" + fields.joined(separator: ",") + "}"
    }

    private var inputCount = 0

    /// Writes `lines` to a new input file and renders it as plain text.
    private func plain(_ lines: [String], me: String? = nil, tz: String = "UTC",
                       file: StaticString = #filePath, line: UInt = #line) throws -> [String] {
        inputCount += 1
        let url = try writeInput("chrome-\(inputCount).jsonl", lines: lines)
        let output = try plainLines(url, width: width, extraArgs: me.map { ["--me", $0] } ?? [], tz: tz,
                                    file: file, line: line)
        assertNoLineWider(than: width, output, "plain output", file: file, line: line)
        return output
    }

    /// Writes `lines` to a new input file and renders it as JSON; the records
    /// by id.
    private func json(_ lines: [String], me: String? = nil, tz: String = "UTC",
                      file: StaticString = #filePath, line: UInt = #line) throws -> [String: RenderRecord] {
        inputCount += 1
        let url = try writeInput("chrome-\(inputCount).jsonl", lines: lines)
        let rendered = try jsonRecords(url, width: width, extraArgs: me.map { ["--me", $0] } ?? [], tz: tz,
                                       file: file, line: line)
        XCTAssertEqual(rendered.count, lines.count, "one record per message", file: file, line: line)
        var byID: [String: RenderRecord] = [:]
        for record in rendered { byID[record.id ?? ""] = record }
        return byID
    }

    private func headers(_ lines: [String], of name: String) -> [String] {
        lines.filter { $0.hasPrefix("\(name) · ") || $0 == name }
    }

    private func daySeparators(_ lines: [String]) -> [String] {
        lines.filter { $0.hasPrefix("─") && $0.hasSuffix("─") && $0.contains("2026") }
    }

    private func dump(_ lines: [String]) -> String { "\n" + lines.joined(separator: "\n") }

    // MARK: - Grouping

    func test_grouping_sameSenderFourMinutesApart_sharesOneHeader() throws {
        let out = try plain([msg("g1", at: "10:00", "first"), msg("g2", at: "10:04", "second")])
        XCTAssertEqual(headers(out, of: "Bob"), ["Bob · 10:00"], dump(out))
        let records = try json([msg("g1", at: "10:00", "first"), msg("g2", at: "10:04", "second")])
        XCTAssertFalse(try XCTUnwrap(records["g2"]).lines.contains { $0.contains("Bob") },
                       "the second message of a group has no header: \(records["g2"]?.lines ?? [])")
    }

    func test_grouping_sameSenderSixMinutesApart_getsTwoHeaders() throws {
        let out = try plain([msg("g1", at: "10:00", "first"), msg("g2", at: "10:06", "second")])
        XCTAssertEqual(headers(out, of: "Bob"), ["Bob · 10:00", "Bob · 10:06"], dump(out))
    }

    func test_grouping_anotherSenderInBetween_breaksTheGroup() throws {
        let out = try plain([msg("g1", at: "10:00", "first"),
                             msg("g2", from: "cy", at: "10:01", "between"),
                             msg("g3", at: "10:02", "third")])
        XCTAssertEqual(headers(out, of: "Bob"), ["Bob · 10:00", "Bob · 10:02"], dump(out))
        XCTAssertEqual(headers(out, of: "Cy"), ["Cy · 10:01"], dump(out))
    }

    func test_grouping_outgoingMessagesGroupToo() throws {
        let records = try json([msg("o1", from: "alice", at: "10:00", "first mine"),
                                msg("o2", from: "alice", at: "10:03", "second mine"),
                                msg("o3", from: "alice", at: "10:20", "third mine")], me: "u-alice")
        let timeLine = { (id: String) in records[id]?.lines.contains { $0.hasSuffix("10:00") || $0.hasSuffix("10:03")
            || $0.hasSuffix("10:20") } ?? false }
        XCTAssertTrue(timeLine("o1"), "\(records["o1"]?.lines ?? [])")
        XCTAssertFalse(timeLine("o2"), "3 minutes later: same group, no time line: \(records["o2"]?.lines ?? [])")
        XCTAssertTrue(timeLine("o3"), "20 minutes later: a new group: \(records["o3"]?.lines ?? [])")
    }

    // MARK: - Day separators

    func test_daySeparator_onceForMessagesOfOneDay() throws {
        let out = try plain([msg("d1", at: "00:00:00", "just after midnight"),
                             msg("d2", at: "12:00", "noon"),
                             msg("d3", at: "23:59:59", "just before midnight")])
        let separators = daySeparators(out)
        XCTAssertEqual(separators.count, 1, dump(out))
        XCTAssertTrue(separators.first?.contains("1 January 2026") ?? false, dump(out))
        XCTAssertEqual(out.first, separators.first, "the separator comes first")
    }

    func test_daySeparator_whenTheUTCDateChanges() throws {
        let lines = [msg("d1", at: "2026-01-01T23:59:00Z", "late"),
                     msg("d2", at: "2026-01-02T00:01:00Z", "early")]
        let out = try plain(lines)
        let separators = daySeparators(out)
        XCTAssertEqual(separators.count, 2, dump(out))
        XCTAssertTrue(separators.last?.contains("2 January 2026") ?? false, dump(out))
        let late = try XCTUnwrap(out.firstIndex { $0.contains("late") })
        let early = try XCTUnwrap(out.firstIndex { $0.contains("early") })
        let second = try XCTUnwrap(out.lastIndex(of: separators.last!))
        XCTAssertTrue(late < second && second < early, "the separator sits between the two days" + dump(out))

        let records = try json(lines)
        XCTAssertTrue(records["d2"]?.lines.contains(separators.last!) ?? false,
                      "the separator belongs to the first message of the day: \(records["d2"]?.lines ?? [])")
    }

    func test_daySeparator_followsTheLocalTimeZone() throws {
        // 14:59Z and 15:01Z straddle midnight in UTC+9; 23:59Z and 00:01Z do not.
        let acrossTokyoMidnight = [msg("t1", at: "14:59", "before"), msg("t2", at: "15:01", "after")]
        let acrossUTCMidnight = [msg("u1", at: "2026-01-01T23:59:00Z", "before"),
                                 msg("u2", at: "2026-01-02T00:01:00Z", "after")]
        XCTAssertEqual(daySeparators(try plain(acrossTokyoMidnight)).count, 1, "UTC: one day")
        let tokyo = try plain(acrossTokyoMidnight, tz: "JST-9")
        XCTAssertEqual(daySeparators(tokyo).count, 2, "UTC+9: two days" + dump(tokyo))
        XCTAssertTrue(tokyo.contains("Bob · 23:59"), "times are local" + dump(tokyo))
        XCTAssertTrue(tokyo.contains("Bob · 00:01"), "times are local" + dump(tokyo))
        XCTAssertEqual(daySeparators(try plain(acrossUTCMidnight, tz: "JST-9")).count, 1, "UTC+9: one day")
    }

    func test_time_acceptsRFC3339OffsetsFractionsAndUnixSeconds() throws {
        let out = try plain([msg("t1", at: "2026-01-01T12:00:00+02:00", "offset"),
                             msg("t2", from: "cy", at: "2026-01-01T11:30:00.750Z", "fraction"),
                             #"{"id":"t3","type":"text","sender":{"id":"u-bob","name":"Bob"},"time":1767276000,"text":"unix"}"#])
        XCTAssertTrue(out.contains("Bob · 10:00"), "+02:00 is converted to UTC" + dump(out))
        XCTAssertTrue(out.contains("Cy · 11:30"), dump(out))
        XCTAssertTrue(out.contains("Bob · 14:00"), "1767276000 is 2026-01-01T14:00:00Z" + dump(out))
        XCTAssertEqual(daySeparators(out).count, 1, dump(out))
    }

    // MARK: - Replies

    func test_reply_toAnEarlierMessage_quotesItsSenderAndText() throws {
        let records = try json([msg("r1", at: "10:00", "the original words"),
                                msg("r2", from: "cy", at: "10:01", "my answer", #""reply_to":"r1""#)])
        let lines = try XCTUnwrap(records["r2"]).lines
        let quote = try XCTUnwrap(lines.firstIndex { $0.contains("↪ Bob: the original words") }, "\(lines)")
        let body = try XCTUnwrap(lines.firstIndex { $0.contains("my answer") }, "\(lines)")
        XCTAssertLessThan(quote, body, "the quote comes before the body: \(lines)")
    }

    func test_reply_toAnUnknownId_showsTheId() throws {
        let records = try json([msg("r1", at: "10:00", "hello"),
                                msg("r2", at: "10:01", "answer", #""reply_to":"nope-42""#),
                                msg("r3", at: "10:02", "forward", #""reply_to":"r4""#),
                                msg("r4", at: "10:03", "later")])
        XCTAssertTrue(records["r2"]?.lines.contains { $0.contains("↪ reply to nope-42") } ?? false,
                      "\(records["r2"]?.lines ?? [])")
        XCTAssertTrue(records["r3"]?.lines.contains { $0.contains("↪ reply to r4") } ?? false,
                      "a message not read yet is unknown: \(records["r3"]?.lines ?? [])")
    }

    func test_reply_onlyTheLast4096MessagesAreRemembered() throws {
        var lines = [msg("old", at: "09:00", "ancient history")]
        for index in 0..<5000 {
            lines.append(#"{"id":"f\#(index)","type":"text","text":"filler"}"#)
        }
        lines.append(msg("recent", at: "10:00", "fresh news"))
        for index in 0..<10 {
            lines.append(#"{"id":"g\#(index)","type":"text","text":"filler"}"#)
        }
        lines.append(msg("to-old", at: "10:01", "a", #""reply_to":"old""#))
        lines.append(msg("to-recent", at: "10:02", "b", #""reply_to":"recent""#))
        let records = try json(lines)
        XCTAssertTrue(records["to-old"]?.lines.contains { $0.contains("↪ reply to old") } ?? false,
                      "5000 messages back is forgotten: \(records["to-old"]?.lines ?? [])")
        XCTAssertTrue(records["to-recent"]?.lines.contains { $0.contains("↪ Bob: fresh news") } ?? false,
                      "11 messages back is remembered: \(records["to-recent"]?.lines ?? [])")
    }

    // MARK: - Alignment

    private func assertOutgoing(_ record: RenderRecord?, _ what: String,
                                file: StaticString = #filePath, line: UInt = #line) {
        guard let record else { return XCTFail("\(what): not rendered", file: file, line: line) }
        // Day separators span the width whatever the direction.
        let lines = record.lines.filter { !$0.isEmpty && daySeparators([$0]).isEmpty }
        XCTAssertFalse(lines.isEmpty, what, file: file, line: line)
        for text in lines {
            XCTAssertEqual(displayWidth(text), width, "\(what): an outgoing line ends at the right edge: “\(text)”",
                           file: file, line: line)
            XCTAssertTrue(text.hasPrefix(" "), "\(what): an outgoing line does not start at column 0: “\(text)”",
                          file: file, line: line)
            XCTAssertFalse(text.hasSuffix(" "), "\(what): “\(text)”", file: file, line: line)
        }
    }

    private func assertIncoming(_ record: RenderRecord?, body: String, _ what: String,
                                file: StaticString = #filePath, line: UInt = #line) {
        guard let record else { return XCTFail("\(what): not rendered", file: file, line: line) }
        let lines = record.lines.filter { !$0.isEmpty && daySeparators([$0]).isEmpty }
        XCTAssertFalse(lines.isEmpty, what, file: file, line: line)
        for text in lines {
            XCTAssertFalse(text.hasPrefix(" "), "\(what): an incoming line starts at column 0: “\(text)”",
                           file: file, line: line)
        }
        let bodyLine = lines.first { $0.contains(body) }
        XCTAssertNotNil(bodyLine, "\(what): body “\(body)” in \(lines)", file: file, line: line)
        if let bodyLine {
            XCTAssertTrue(bodyLine.hasPrefix("┃ ") || bodyLine.hasPrefix("│ "),
                          "\(what): the body has a gutter: “\(bodyLine)”", file: file, line: line)
        }
    }

    func test_alignment_byMe_outgoingRightIncomingLeft() throws {
        let lines = [msg("a1", from: "alice", at: "10:00", "from alice"),
                     msg("a2", from: "bob", at: "10:01", "from bob")]
        let records = try json(lines, me: "u-alice")
        assertOutgoing(records["a1"], "alice with --me u-alice")
        assertIncoming(records["a2"], body: "from bob", "bob with --me u-alice")
        XCTAssertFalse(records["a1"]?.lines.contains { $0.contains("Alice") } ?? true,
                       "no name on one's own messages: \(records["a1"]?.lines ?? [])")

        let swapped = try json(lines, me: "u-bob")
        assertIncoming(swapped["a1"], body: "from alice", "alice with --me u-bob")
        assertOutgoing(swapped["a2"], "bob with --me u-bob")
    }

    func test_alignment_withoutMe_everythingIsIncoming() throws {
        let records = try json([msg("a1", from: "alice", at: "10:00", "from alice"),
                                msg("a2", from: "bob", at: "10:01", "from bob")])
        assertIncoming(records["a1"], body: "from alice", "alice without --me")
        assertIncoming(records["a2"], body: "from bob", "bob without --me")
        XCTAssertTrue(records["a1"]?.lines.contains("Alice · 10:00") ?? false, "\(records["a1"]?.lines ?? [])")
    }

    func test_alignment_explicitDirectionBeatsMe() throws {
        let records = try json([msg("e1", from: "bob", at: "10:00", "forced out", #""direction":"outgoing""#),
                                msg("e2", from: "alice", at: "10:01", "forced in", #""direction":"incoming""#),
                                msg("e3", from: nil, at: nil, "anonymous out", #""direction":"outgoing""#)],
                               me: "u-alice")
        assertOutgoing(records["e1"], "bob with direction outgoing")
        assertIncoming(records["e2"], body: "forced in", "alice with direction incoming")
        assertOutgoing(records["e3"], "no sender, direction outgoing")

        let withoutMe = try json([msg("e1", from: "bob", at: "10:00", "forced out", #""direction":"outgoing""#)])
        assertOutgoing(withoutMe["e1"], "direction outgoing without --me")
    }

    // MARK: - Footer: status, edited, reactions

    func test_status_isShownForOutgoingMessagesOnly() throws {
        let statuses = [("sending", "◌ sending"), ("sent", "✓ sent"), ("delivered", "✓✓ delivered"),
                        ("read", "✓✓ read"), ("failed", "✗ failed")]
        var lines: [String] = []
        for (index, (status, _)) in statuses.enumerated() {
            lines.append(msg("out-\(status)", from: "alice", at: "10:0\(index)", "mine \(index)",
                             #""status":"\#(status)""#))
        }
        for (index, (status, _)) in statuses.enumerated() {
            lines.append(msg("in-\(status)", from: "bob", at: "11:0\(index)", "theirs \(index)",
                             #""status":"\#(status)""#))
        }
        let records = try json(lines, me: "u-alice")
        for (status, shown) in statuses {
            let outgoing = records["out-\(status)"]?.lines ?? []
            XCTAssertTrue(outgoing.contains { $0.contains(shown) }, "outgoing \(status) shows “\(shown)”: \(outgoing)")
            assertOutgoing(records["out-\(status)"], "outgoing \(status)")
            let incoming = records["in-\(status)"]?.lines.joined(separator: "\n") ?? ""
            for mark in ["✓", "✗", "◌", status] {
                XCTAssertFalse(incoming.contains(mark), "incoming \(status) shows no status (“\(mark)”):\n\(incoming)")
            }
        }

        // Without --me the same messages are all incoming: no status at all.
        let anonymous = try plain(lines).joined(separator: "\n")
        for mark in ["✓", "✗", "◌"] {
            XCTAssertFalse(anonymous.contains(mark), "no status on incoming messages:\n\(anonymous)")
        }
    }

    func test_editedMark() throws {
        let records = try json([msg("ed1", at: "10:00", "changed my mind", #""edited":true"#),
                                msg("ed2", at: "10:01", "as first written", #""edited":false"#),
                                msg("ed3", from: "alice", at: "10:02", "mine too", #""edited":true,"status":"read""#)],
                               me: "u-alice")
        XCTAssertTrue(records["ed1"]?.lines.contains { $0.contains("edited") } ?? false, "\(records["ed1"]?.lines ?? [])")
        XCTAssertFalse(records["ed2"]?.lines.contains { $0.contains("edited") } ?? true, "\(records["ed2"]?.lines ?? [])")
        XCTAssertTrue(records["ed3"]?.lines.contains { $0.contains("edited") } ?? false, "\(records["ed3"]?.lines ?? [])")
        let body = records["ed1"]?.lines.firstIndex { $0.contains("changed my mind") } ?? Int.max
        let mark = records["ed1"]?.lines.firstIndex { $0.contains("edited") } ?? -1
        XCTAssertGreaterThan(mark, body, "the mark is in the footer, after the body")
    }

    func test_reactions() throws {
        let records = try json([msg("re1", at: "10:00", "nice view",
                                    #""reactions":[{"emoji":"👍","count":3},{"emoji":"🎉","count":1}]"#),
                                msg("re2", from: "alice", at: "10:01", "thanks",
                                    #""status":"read","reactions":[{"emoji":"❤️","count":2}]"#),
                                msg("re3", at: "10:02", "no reactions", #""reactions":[]"#)],
                               me: "u-alice")
        let first = records["re1"]?.lines ?? []
        XCTAssertTrue(first.contains { $0.contains("👍 3") }, "\(first)")
        XCTAssertTrue(first.contains { $0.contains("🎉") }, "\(first)")
        let body = first.firstIndex { $0.contains("nice view") } ?? Int.max
        let footer = first.firstIndex { $0.contains("👍") } ?? -1
        XCTAssertGreaterThan(footer, body, "reactions are in the footer, after the body")
        XCTAssertTrue(records["re2"]?.lines.contains { $0.contains("❤️ 2") } ?? false, "\(records["re2"]?.lines ?? [])")
        XCTAssertEqual(records["re3"]?.lines.filter { !$0.isEmpty }.count, 2,
                       "an empty reaction list adds no footer: \(records["re3"]?.lines ?? [])")
    }

    // MARK: - Missing fields

    func test_missingSenderTimeAndStatus_renderWithoutThem() throws {
        let lines = [#"{"id":"bare","type":"text","text":"bare text"}"#,
                     msg("no-time", from: "bob", at: nil, "sender but no time"),
                     msg("no-sender", from: nil, at: "10:00", "time but no sender"),
                     #"{"id":"no-name","type":"text","sender":{"id":"u-zed"},"time":"2026-01-01T10:30:00Z","text":"id but no name"}"#,
                     msg("no-status", from: "alice", at: nil, "outgoing without status")]
        let records = try json(lines, me: "u-alice")
        for (id, body) in [("bare", "bare text"), ("no-time", "sender but no time"),
                           ("no-sender", "time but no sender"), ("no-name", "id but no name"),
                           ("no-status", "outgoing without status")] {
            let rendered = try XCTUnwrap(records[id], id)
            let text = rendered.lines.joined(separator: "\n")
            XCTAssertTrue(text.contains(body), "\(id):\n\(text)")
            for junk in ["null", "nil", "(null)", "undefined", "1970", "NaN"] {
                XCTAssertFalse(text.contains(junk), "\(id) shows “\(junk)”:\n\(text)")
            }
            XCTAssertEqual(rendered.className, "TextMessageCell", id)
        }
        let bare = records["bare"]!.lines.joined(separator: "\n")
        XCTAssertFalse(bare.contains(" · "), "no time, so no “· HH:MM”:\n\(bare)")
        let noTime = records["no-time"]!.lines
        XCTAssertTrue(noTime.contains("Bob"), "the header is the name alone: \(noTime)")
        XCTAssertTrue(records["no-sender"]!.lines.contains { $0.hasSuffix("10:00") },
                      "the time is still shown: \(records["no-sender"]!.lines)")
        XCTAssertTrue(records["no-name"]!.lines.contains { $0.contains("10:30") }, "\(records["no-name"]!.lines)")
        let noStatus = records["no-status"]!.lines.joined(separator: "\n")
        for mark in ["✓", "✗", "◌"] {
            XCTAssertFalse(noStatus.contains(mark), "no status, no mark:\n\(noStatus)")
        }
        assertOutgoing(records["no-status"], "outgoing without status or time")
    }
}

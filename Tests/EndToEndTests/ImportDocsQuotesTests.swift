import Foundation
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// The importer documents (docs/import/telegram.md, discord.md, slack.md,
/// matrix.md, whatsapp.md) cannot drift from the host: every diagnostic they
/// quote is a whole line of what the real `cellhost` prints on stderr in the
/// situation the text describes. How quotes are found, claimed by the cases
/// below (one case each, by a marker) and checked is QuotedDiagnosticsDocsTests'
/// way, shared in Support/QuotedDiagnostics.swift. Each case writes the
/// export it needs (or copies one of the importers' fixtures under the name
/// the document uses) into a directory of its own and runs the host there.
final class ImportDocsQuotesTests: EndToEndTestCase {

    typealias Case = QuoteCase<ImportDocsQuotesTests>
    typealias Produced = QuoteProduced

    /// The documents checked here, under docs/, and the cases of their quotes.
    static let checks = QuoteChecks(
        documents: ["import/telegram.md", "import/discord.md", "import/slack.md", "import/matrix.md", "import/whatsapp.md"],
        cases: telegramCases + discordCases + slackCases + matrixCases + whatsAppCases)

    // MARK: - Tests

    func test_telegramDoc_quotesTheDiagnosticsTheHostPrints() throws {
        try Self.checks.check("import/telegram.md", in: self)
    }

    func test_discordDoc_quotesTheDiagnosticsTheHostPrints() throws {
        try Self.checks.check("import/discord.md", in: self)
    }

    func test_slackDoc_quotesTheDiagnosticsTheHostPrints() throws {
        try Self.checks.check("import/slack.md", in: self)
    }

    func test_matrixDoc_quotesTheDiagnosticsTheHostPrints() throws {
        try Self.checks.check("import/matrix.md", in: self)
    }

    func test_whatsAppDoc_quotesTheDiagnosticsTheHostPrints() throws {
        try Self.checks.check("import/whatsapp.md", in: self)
    }

    /// Every quote of these documents is claimed by one case, and every
    /// marker of every case is still quoted. Runs nothing.
    func test_everyQuotedDiagnostic_hasExactlyOneCase_andEveryCaseAQuote() throws {
        try Self.checks.checkCoverage()
    }

    // MARK: - Telegram

    /// result.json, a Telegram Desktop export of one chat (see
    /// Support/TelegramExport.swift: message k on line k + 5).
    private static var telegramCases: [Case] {
        [
            /// 44 messages (45 with the chat's heading), read with `--verbose`.
            Case(name: "a Telegram export of 44 messages read with --verbose",
                 markers: ["result.json: read as Telegram Desktop export", "result.json: 45 messages imported"]) { test, workspace in
                try test.writeFile("result.json", TelegramExport(messages: 44).data, in: workspace)
                return try test.render(["result.json", "--verbose"], in: workspace, expectStatus: 0)
            },
            /// `--verbose`; the dates on lines 118 ("yesterday") and 500
            /// (30 February) cannot be read.
            Case(name: "two unreadable Telegram dates", markers: ["result.json:118: 2 times could not be read"]) { test, workspace in
                let export = TelegramExport(messages: 600, dates: [118: "yesterday", 500: "2020-02-30T10:00:00"])
                try test.writeFile("result.json", export.data, in: workspace)
                return try test.render(["result.json", "--verbose"], in: workspace, expectStatus: 0)
            },
            /// Telegram's `\xNN` escapes in 12 texts: one on line 4711, then
            /// two each on lines 4712 to 4714 and one each on 4715 to 4722.
            Case(name: "Telegram's \\xNN escapes in 12 values",
                 markers: ["line 4711: 1 invalid escape (\\xNN)", "12 values in all had invalid \\xNN escapes"]) { test, workspace in
                var replacing = [4711: TelegramExport.message(4706, text: #"a\x01b"#)]
                for line in 4712...4722 {
                    replacing[line] = TelegramExport.message(line - 5, text: line <= 4714 ? #"a\x02b\x03"# : #"a\x02b"#)
                }
                try test.writeFile("result.json", TelegramExport(messages: 4800, replacing: replacing).data, in: workspace)
                return try test.render(["result.json"], in: workspace, expectStatus: 0)
            },
            /// Messages that cannot be read: a number on line 5120, broken
            /// JSON (an unquoted word at column 40) on line 5133, a text over
            /// 16 MiB on line 6001.
            Case(name: "Telegram messages that cannot be read",
                 markers: ["result.json:5120: a message is a number", "result.json:5133: a message is not valid JSON",
                           "result.json:6001: value longer than 16 MiB"]) { test, workspace in
                let export = TelegramExport(messages: 6000, replacing: [
                    5120: "  42",
                    5133: #"  {"id": 5128, "type": "message", "xyz": nope}"#,
                    6001: TelegramExport.message(5996, text: String(repeating: "a", count: 16 << 20 + 1)),
                ])
                try test.writeFile("result.json", export.data, in: workspace)
                return try test.render(["result.json"], in: workspace, expectStatus: 1)
            },
            /// An export cut in the middle of the message on its line 5123.
            Case(name: "a truncated Telegram export", markers: ["result.json:5123: the file ends"]) { test, workspace in
                try test.writeFile("result.json", TelegramExport(messages: 6000).cut(atLine: 5123), in: workspace)
                return try test.render(["result.json"], in: workspace, expectStatus: 1)
            },
            /// `--from telegram` of data.json, a JSON array.
            Case(name: "--from telegram of a JSON array", markers: ["data.json:1: not a Telegram export"]) { test, workspace in
                try test.writeFile("data.json", Data("[1, 2]\n".utf8), in: workspace)
                return try test.render(["data.json", "--from", "telegram"], in: workspace, expectStatus: 1)
            },
            /// `--from telegram` of data.json, an object with neither
            /// "messages" nor "chats".
            Case(name: "--from telegram of an object that is no export",
                 markers: [#"it has neither "messages" nor "chats""#]) { test, workspace in
                try test.writeFile("data.json", Data(#"{"version": 2}"#.utf8 + [0x0A]), in: workspace)
                return try test.render(["data.json", "--from", "telegram"], in: workspace, expectStatus: 1)
            },
        ]
    }

    // MARK: - Discord

    /// general.json, a DiscordChatExporter export of one channel.
    private static var discordCases: [Case] {
        [
            /// The importer's fixture channel.json (21 message objects, 23
            /// messages with the heading and a second attachment), read with
            /// `--verbose`.
            Case(name: "a DiscordChatExporter export read with --verbose",
                 markers: ["general.json: read as DiscordChatExporter JSON", "general.json: 23 messages imported"]) { test, workspace in
                try test.copyImportFixture("discord/channel.json", as: "general.json", into: workspace)
                return try test.render(["general.json", "--verbose"], in: workspace, expectStatus: 0)
            },
            /// 45 messages, one a line: on line 6 one without an id, on 15 a
            /// string, on 16 a text with the escape `\xe9`, on 40 an unquoted
            /// word at column 41 (the reason `…` stands for).
            Case(name: "DiscordChatExporter messages with problems",
                 markers: ["general.json:6: a message without an", "general.json:15: a message that is not",
                           "general.json:40: a message is not valid JSON", "general.json: line 16: invalid escapes"]) { test, workspace in
                let lines = discordExport(messages: 45, replacing: [
                    6: #"    {"type": "Default", "timestamp": "2024-03-01T09:00:00+00:00", "content": "no id"}"#,
                    15: #"    "just a string""#,
                    16: discordMessage(13, content: #"caf\xe9"#),
                    40: #"    {"id": "400000000000000037", "content": nope}"#,
                ])
                try test.writeLines("general.json", lines, in: workspace)
                var produced = try test.render(["general.json"], in: workspace, expectStatus: 1)
                produced.placeholders = ["…": "invalid literal at column 41"]
                return produced
            },
            /// An export whose "messages" is an object.
            Case(name: "a DiscordChatExporter export whose messages are no array",
                 markers: [#"general.json: "messages" is not an array"#]) { test, workspace in
                let text = #"{"channel": {"id": "2", "name": "general"}, "messages": {"a": 1}}"#
                try test.writeLines("general.json", [text], in: workspace)
                return try test.render(["general.json"], in: workspace, expectStatus: 1)
            },
            /// An export cut in the middle of the message on its line 19.
            Case(name: "a truncated DiscordChatExporter export", markers: ["general.json:19: the file ends"]) { test, workspace in
                var lines = Array(discordExport(messages: 30).prefix(19))
                lines[18] = String(lines[18].prefix(30))
                try test.writeFile("general.json", Data(lines.joined(separator: "\n").utf8), in: workspace)
                return try test.render(["general.json"], in: workspace, expectStatus: 1)
            },
            /// `--from discord` of a JSON array.
            Case(name: "--from discord of a JSON array", markers: ["general.json: not a DiscordChatExporter export"]) { test, workspace in
                try test.writeLines("general.json", ["[1, 2]"], in: workspace)
                return try test.render(["general.json", "--from", "discord"], in: workspace, expectStatus: 1)
            },
        ]
    }

    /// The lines of an export of channel "general" with `messages`
    /// messages, one a line (message k on line k + 3); `replacing` gives the
    /// whole text of a line (without its comma).
    private static func discordExport(messages: Int, replacing: [Int: String] = [:]) -> [String] {
        let head = ["{", #"  "channel": {"id": "200000000000000001", "type": "GuildTextChat", "name": "general"},"#, #"  "messages": ["#]
        let body = (1...messages).map { id in
            (replacing[head.count + id] ?? discordMessage(id, content: "message \(id)")) + (id < messages ? "," : "")
        }
        return head + body + ["  ]", "}"]
    }

    /// A message of alice's; `content` is put into the JSON string as it is.
    private static func discordMessage(_ id: Int, content: String) -> String {
        #"    {"id": "\#(400_000_000_000_000_000 + id)", "type": "Default", "timestamp": "2024-03-01T09:00:00+00:00", "#
            + #""author": {"id": "1", "name": "alice"}, "content": "\#(content)"}"#
    }

    // MARK: - Slack

    /// acme, a Slack export directory.
    private static var slackCases: [Case] {
        [
            /// The importer's fixture export, read with `--verbose`.
            Case(name: "a Slack export read with --verbose",
                 markers: ["acme: read as Slack export", "acme: 26 messages imported"]) { test, workspace in
                try test.copyImportFixture("slack/export", as: "acme", into: workspace)
                return try test.render(["acme", "--verbose"], in: workspace, expectStatus: 0)
            },
            /// An export with a bad day file of each kind: in
            /// general/2024-03-01.json a message without a "ts" string (line
            /// 3), an invalid escape (line 7), a number (line 9) and a
            /// message_changed event without its message (line 11); broken
            /// JSON in broken/2024-03-01.json and a cut in 2024-03-02.json,
            /// both on line 3; an object in notarray/2024-03-01.json.
            Case(name: "a Slack export with bad day files",
                 markers: ["acme: general/2024-03-01.json:", "acme: broken/2024-03-01.json:3:", "acme: broken/2024-03-02.json:3:",
                           "acme: notarray/2024-03-01.json:"]) { test, workspace in
                let acme = try test.slackExport(in: workspace)
                try test.writeLines("general/2024-03-01.json", slackDay([
                    3: #"  {"type": "message", "user": "U01ALICE", "text": "no ts"}"#,
                    7: slackMessage(7, text: #"caf\xe9"#),
                    9: "  42",
                    11: #"  {"type": "message", "subtype": "message_changed", "ts": "1709283611.000100"}"#,
                ]), in: acme)
                let broken = #"  {"type": "message", "user": "U01OK", "text": "broken" "ts": "1709287260.000200"}"#
                try test.writeLines("broken/2024-03-01.json", slackDay([3: broken]), in: acme)
                let day = slackDay([:])
                let cut = day.prefix(2).joined(separator: "\n") + "\n" + day[2].prefix(40)
                try test.writeFile("broken/2024-03-02.json", Data(cut.utf8), in: acme)
                try test.writeLines("notarray/2024-03-01.json", [#"{"type": "message", "text": "an object", "ts": "1.1"}"#], in: acme)
                return try test.render(["acme"], in: workspace, expectStatus: 1)
            },
            /// An export whose general/2024-03-09.json cannot be opened (mode
            /// 000; as root, the host runs as nobody to be refused).
            Case(name: "a Slack day file that cannot be read",
                 markers: ["acme: general/2024-03-09.json: cannot be read"]) { test, workspace in
                let acme = try test.slackExport(in: workspace)
                let day = try test.writeLines("general/2024-03-09.json", slackDay([:]), in: acme)
                XCTAssertEqual(chmod(day.path, 0), 0)
                let unprivileged = geteuid() == 0 ? "setpriv --reuid=65534 --regid=65534 --clear-groups " : ""
                return try test.renderInShell(unprivileged + #""$CELLHOST" render acme"#, in: workspace, expectStatus: 1)
            },
            /// `--verbose` on an export whose general/2024-03-05.json has the
            /// `ts` "yesterday" on its line 10.
            Case(name: "an unreadable Slack ts", markers: ["acme: general/2024-03-05.json:10: 1 time could not be read"]) { test, workspace in
                let acme = try test.slackExport(in: workspace)
                let unreadable = #"  {"type": "message", "user": "U01ALICE", "text": "when?", "ts": "yesterday"}"#
                try test.writeLines("general/2024-03-05.json", slackDay([10: unreadable]), in: acme)
                return try test.render(["acme", "--verbose"], in: workspace, expectStatus: 0)
            },
            /// The day file 2024-03-04.json alone, a number on its line 12.
            Case(name: "a single Slack day file with a bad message", markers: ["cellhost: 2024-03-04.json:12:"]) { test, workspace in
                try test.writeLines("2024-03-04.json", slackDay([12: "  42"]), in: workspace)
                return try test.render(["2024-03-04.json"], in: workspace, expectStatus: 1)
            },
        ]
    }

    /// The lines of a day file of 12 messages of U01ALICE's, message k on
    /// line k + 1; `replacing` gives the whole text of a line (without its comma).
    private static func slackDay(_ replacing: [Int: String]) -> [String] {
        let body = (2...13).map { line in (replacing[line] ?? slackMessage(line, text: "message \(line)")) + (line < 13 ? "," : "") }
        return ["["] + body + ["]"]
    }

    /// A message of U01ALICE's; `text` is put into the JSON string as it is.
    private static func slackMessage(_ number: Int, text: String) -> String {
        #"  {"type": "message", "user": "U01ALICE", "text": "\#(text)", "ts": "\#(1_709_283_600 + number).000100"}"#
    }

    /// `<workspace>/acme`, an export with users.json, channels.json and the
    /// empty folders general, broken and notarray.
    private func slackExport(in workspace: URL) throws -> URL {
        let acme = try makeDirectory("\(workspace.lastPathComponent)/acme")
        for folder in ["general", "broken", "notarray"] {
            try makeDirectory("\(workspace.lastPathComponent)/acme/\(folder)")
        }
        try writeLines("users.json", [#"[{"id": "U01ALICE", "name": "alice"}]"#], in: acme)
        try writeLines("channels.json", [#"[{"id": "C01", "name": "general"}, {"id": "C02", "name": "broken"}, "#
                                         + #"{"id": "C03", "name": "notarray"}]"#], in: acme)
        return acme
    }

    // MARK: - Matrix

    private static var matrixCases: [Case] {
        [
            /// The importer's fixture Element export as export.json, read
            /// with `--verbose`.
            Case(name: "an Element export read with --verbose",
                 markers: ["export.json: read as Matrix events", "export.json: 37 messages imported"]) { test, workspace in
                try test.copyImportFixture("matrix/element-export.json", as: "export.json", into: workspace)
                return try test.render(["export.json", "--verbose"], in: workspace, expectStatus: 0)
            },
            /// The importer's fixture events.jsonl through a pipe: an edit,
            /// two reactions and a deletion that come after their message.
            Case(name: "Matrix relations after their message on a pipe",
                 markers: ["<stdin>: 1 edit, 2 reactions and 1 deletion not applied"]) { test, workspace in
                try test.copyImportFixture("matrix/events.jsonl", as: "events.jsonl", into: workspace)
                return try test.renderInShell(#"cat events.jsonl | "$CELLHOST" render -"#, in: workspace, expectStatus: 0)
            },
            /// events.json, an array of ten messages, one a line; the one on
            /// line 9 has the escape `\xe9` in its body.
            Case(name: "an invalid escape in a Matrix event", markers: ["events.json: line 9: an invalid escape"]) { test, workspace in
                let events = (1...10).map { id -> String in
                    let body = id == 8 ? #"caf\xe9"# : "message \(id)"
                    return #"  {"type": "m.room.message", "event_id": "$e\#(id)", "sender": "@alice:example.org", "#
                        + #""origin_server_ts": \#(1_709_283_600_000 + id * 60_000), "content": {"msgtype": "m.text", "body": "\#(body)"}}"#
                        + (id < 10 ? "," : "")
                }
                try test.writeLines("events.json", ["["] + events + ["]"], in: workspace)
                return try test.render(["events.json"], in: workspace, expectStatus: 0)
            },
        ]
    }

    // MARK: - WhatsApp

    private static var whatsAppCases: [Case] {
        [
            /// The importer's fixture iOS export _chat.txt, read with `--verbose`.
            Case(name: "a WhatsApp export read with --verbose",
                 markers: ["_chat.txt: read as WhatsApp", "_chat.txt: 16 messages imported"]) { test, workspace in
                try test.copyImportFixture("whatsapp/ios-en/_chat.txt", as: "_chat.txt", into: workspace)
                return try test.render(["_chat.txt", "--verbose"], in: workspace, expectStatus: 0)
            },
            /// `--from whatsapp` of notes.txt, one line before the first message.
            Case(name: "one line before the first WhatsApp message",
                 markers: ["notes.txt:1: this line comes before"]) { test, workspace in
                try test.writeLines("notes.txt", ["a note", "12/31/20, 11:59 PM - Alice: hi"], in: workspace)
                return try test.render(["notes.txt", "--from", "whatsapp"], in: workspace, expectStatus: 1)
            },
            /// `--from whatsapp` of notes.txt, three lines and a blank one
            /// before the first message.
            Case(name: "lines before the first WhatsApp message", markers: ["notes.txt:1: 3 lines up to line 4"]) { test, workspace in
                try test.writeLines("notes.txt", ["a note", "", "more", "and more", "12/31/20, 11:59 PM - Alice: hi"], in: workspace)
                return try test.render(["notes.txt", "--from", "whatsapp"], in: workspace, expectStatus: 1)
            },
            /// Through a pipe: 1000 messages dated 1 to 12 January 2020, read
            /// month first, then one of 13 February 2020 written day first.
            Case(name: "a WhatsApp stream whose order is contradicted",
                 markers: [#"<stdin>: line 1001: "13/02/20, 10:00 AM""#]) { test, workspace in
                let lines = (0..<1000).map { "01/\(twoDigits(1 + $0 % 12))/20, 10:\(twoDigits($0 % 60)) AM - Alice: m\($0)" }
                try test.writeLines("chat.txt", lines + ["13/02/20, 10:00 AM - Bob: day first"], in: workspace)
                return try test.renderInShell(#"cat chat.txt | "$CELLHOST" render -"#, in: workspace, expectStatus: 0)
            },
            /// The importer's fixture hostile.txt, read with `--verbose`.
            Case(name: "the hostile WhatsApp fixture read with --verbose",
                 markers: ["hostile.txt:4: 4 times could not be read", "hostile.txt:3: not valid UTF-8"]) { test, workspace in
                try test.copyImportFixture("whatsapp/hostile.txt", as: "hostile.txt", into: workspace)
                return try test.render(["hostile.txt", "--verbose"], in: workspace, expectStatus: 1)
            },
            /// big.txt, whose line 2 (the first message's second line) is
            /// 1 MiB + 2097178 bytes long.
            Case(name: "a WhatsApp line over 1 MiB", markers: ["big.txt:2: line longer than 1 MiB"]) { test, workspace in
                let long = String(repeating: "x", count: 1 << 20 + 2_097_178)
                try test.writeLines("big.txt", ["12/31/20, 11:59 PM - Alice: hi", long], in: workspace)
                return try test.render(["big.txt"], in: workspace, expectStatus: 1)
            },
            /// chat.txt, whose message starting on line 5119 passes 1 MiB
            /// with its second line, 5120 (each line 600,000 bytes).
            Case(name: "a WhatsApp message over 1 MiB", markers: ["chat.txt:5120: message longer than 1 MiB"]) { test, workspace in
                var lines = (0..<5118).map { "12/\(twoDigits(1 + $0 % 12))/20, 10:\(twoDigits($0 % 60)) AM - Alice: m\($0)" }
                lines.append("12/31/20, 11:00 AM - Bob: " + String(repeating: "y", count: 600_000))
                lines.append(String(repeating: "z", count: 600_000))
                lines.append("12/31/20, 11:01 AM - Bob: after")
                try test.writeLines("chat.txt", lines, in: workspace)
                return try test.render(["chat.txt"], in: workspace, expectStatus: 1)
            },
        ]
    }

    /// `number` (0 to 99) in two digits.
    private static func twoDigits(_ number: Int) -> String { number < 10 ? "0\(number)" : "\(number)" }

    // MARK: - Files and runs

    /// Writes `lines`, each ended by a line feed, to `<directory>/<name>`.
    @discardableResult
    private func writeLines(_ name: String, _ lines: [String], in directory: URL) throws -> URL {
        try writeFile(name, Data((lines.joined(separator: "\n") + "\n").utf8), in: directory)
    }

    /// Copies `Fixtures/import/<path>` (a file or a directory) to
    /// `<workspace>/<name>`.
    private func copyImportFixture(_ path: String, as name: String, into workspace: URL) throws {
        try FileManager.default.copyItem(at: Self.fixturesDirectory.appendingPathComponent("import/\(path)"),
                                         to: workspace.appendingPathComponent(name))
    }

    /// Runs `command` (a shell command naming the host `"$CELLHOST"`) in
    /// `workspace` with `--format json` after it and stdout discarded; checks
    /// the exit status.
    private func renderInShell(_ command: String, in workspace: URL, expectStatus: Int32) throws -> Produced {
        let script = "cd '\(workspace.path)' && \(command) --format json"
        let result = try runShell(script, stdout: FileHandle.nullDevice)
        XCTAssertEqual(result.status, expectStatus, "`\(command)`; stderr:\n\(result.stderr)")
        return Produced(stderr: result.stderr)
    }
}

import Foundation

/// A Telegram Desktop export of one personal chat ("Alice"), one message a
/// line, so that message k is on line k + 5 of the file. Read as 1 + the
/// number of messages: the chat's heading comes first.
struct TelegramExport {
    /// The lines before the first message.
    static let head = ["{", #" "name": "Alice","#, #" "type": "personal_chat","#, #" "id": 1001,"#, #" "messages": ["#]

    /// The file's lines.
    let lines: [String]

    /// `messages` messages; `dates` gives the `date` of the message on
    /// each of the lines named (the others: 2024-03-01T09:15:00), and
    /// `replacing` the whole text of a line (without its comma), for a
    /// message Telegram would not write.
    init(messages: Int, dates: [Int: String] = [:], replacing: [Int: String] = [:]) {
        let body = (1...messages).map { id -> String in
            let line = Self.head.count + id
            let date = dates[line] ?? "2024-03-01T09:15:00"
            return (replacing[line] ?? Self.message(id, date: date, text: "message \(id)")) + (id < messages ? "," : "")
        }
        lines = Self.head + body + [" ]", "}"]
    }

    /// A message of Alice's; `text` is put into the JSON string as it is
    /// (so it may hold escapes).
    static func message(_ id: Int, date: String = "2024-03-01T09:15:00", text: String) -> String {
        #"  {"id": \#(id), "type": "message", "date": "\#(date)", "from": "Alice", "from_id": "user1001", "text": "\#(text)"}"#
    }

    /// The file: its lines, each ended by a line feed.
    var data: Data { Data((lines.joined(separator: "\n") + "\n").utf8) }

    /// The file cut in the middle of the message on line `line`: the lines
    /// before it, then the first 20 characters of that line.
    func cut(atLine line: Int) -> Data {
        let kept = lines.prefix(line)
        return Data((kept.dropLast().joined(separator: "\n") + "\n" + String(kept.last!.prefix(20))).utf8)
    }
}

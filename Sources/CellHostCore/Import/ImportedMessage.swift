/// One message of an export, mapped to CellHost's message model: what every
/// importer fills in, and the one place that spells it as a CellHost record
/// (`{"id":…,"type":…,"sender":{…},"time":…,"text":…}`), so every cell,
/// fallback and output format works on imported chats unchanged.
public struct ImportedMessage {
    /// The export's id for the message (duplicates are kept as they are).
    public var id = ""
    /// The message class: `text`, `file`, `image`, `voice`, `video`,
    /// `sticker`, `poll`, `location`, `system`, or the export's own name for
    /// something CellHost has no class for (shown by the fallbacks).
    public var type = "text"
    public var senderID: String?
    public var senderName: String?
    /// Seconds since the Unix epoch.
    public var time: Double?
    /// The export's time text when it could not be read: written as `time`
    /// so the host reports it (`--verbose`) and counts it, instead of the
    /// message silently having no time.
    public var unreadableTime: String?
    /// The body, in CellHost markup (`ImportText.escaped` for literal text).
    public var text: String?
    /// The id of the message this one answers.
    public var replyTo: String?
    public var edited = false
    /// `sending`, `sent`, `delivered`, `read` or `failed`, where the export says.
    public var status: String?
    /// `outgoing` or `incoming`, when the importer knows whose side the export
    /// is from and the user gave no `--me`.
    public var direction: String?
    /// Reactions in order of first appearance.
    public var reactions: [(emoji: String, count: Int)] = []
    /// The payload of a media message, written under the message's type.
    public var media: Media?
    public var poll: Poll?
    public var location: Location?
    /// For `system` messages: what happened (`join`, `rename`, `call`,
    /// `conversation`, …), so the chrome can draw a conversation header.
    public var systemEvent: String?

    public init() {}

    /// A file, image, voice note, video or sticker.
    public struct Media {
        /// Relative to the export (the host resolves it against the export's directory).
        public var path: String?
        public var name: String?
        public var size: Int64?
        public var mime: String?
        public var width: Int64?
        public var height: Int64?
        /// Seconds.
        public var duration: Double?
        public var waveform: [Double] = []
        /// Why the export has no file for it ("not included in the export"):
        /// cells show it as a missing-file mark instead of a path.
        public var unavailable: String?
        public init() {}
    }

    public struct Poll {
        public var question = ""
        public var options: [(text: String, votes: Int64, chosen: Bool)] = []
        public var closed = false
        public var totalVoters: Int64?
        public init() {}
    }

    public struct Location {
        public var latitude: Double
        public var longitude: Double
        public var name: String?
        public init(latitude: Double, longitude: Double, name: String? = nil) {
            self.latitude = latitude
            self.longitude = longitude
            self.name = name
        }
    }

    /// The message that carries this one's attachment number `number` (2, 3,
    /// …) when an export gives one message several: id `ID#number`, the same
    /// sender, time and direction, nothing else.
    public func attachmentMessage(number: Int) -> ImportedMessage {
        var message = ImportedMessage()
        message.id = "\(id)#\(number)"
        message.senderID = senderID
        message.senderName = senderName
        message.time = time
        message.unreadableTime = unreadableTime
        message.direction = direction
        return message
    }

    /// Adds `count` of `emoji`, merged with an earlier reaction of the same emoji.
    public mutating func addReaction(_ emoji: String, count: Int = 1) {
        guard count > 0, !emoji.isEmpty else { return }
        if let index = reactions.firstIndex(where: { $0.emoji == emoji }) {
            reactions[index].count = reactions[index].count.addingReportingOverflow(count).overflow ? Int.max : reactions[index].count + count
        } else {
            reactions.append((emoji, count))
        }
    }

    /// Spells the message as one CellHost record into `writer` (reset first).
    public func write(to writer: inout RecordWriter) {
        writer.reset()
        writer.beginObject()
        writer.string("id", id)
        writer.string("type", type)
        if senderID != nil || senderName != nil {
            writer.beginObject("sender")
            if let senderID { writer.string("id", senderID) }
            if let senderName { writer.string("name", senderName) }
            writer.endObject()
        }
        if let time { writer.number("time", time) } else if let unreadableTime { writer.string("time", unreadableTime) }
        if let direction { writer.string("direction", direction) }
        if let status { writer.string("status", status) }
        if let replyTo { writer.string("reply_to", replyTo) }
        if edited { writer.bool("edited", true) }
        if let text { writer.string("text", text) }
        if !reactions.isEmpty {
            writer.beginArray("reactions")
            for reaction in reactions {
                writer.beginObject()
                writer.string("emoji", reaction.emoji)
                writer.integer("count", Int64(reaction.count))
                writer.endObject()
            }
            writer.endArray()
        }
        if let media {
            writer.beginObject(type)
            if let path = media.path { writer.string("path", path) }
            if let name = media.name { writer.string("name", name) }
            if let size = media.size { writer.integer("size", size) }
            if let mime = media.mime { writer.string("mime", mime) }
            if let width = media.width { writer.integer("width", width) }
            if let height = media.height { writer.integer("height", height) }
            if let duration = media.duration { writer.number("duration", duration) }
            if !media.waveform.isEmpty {
                writer.beginArray("waveform")
                for sample in media.waveform { writer.element(sample) }
                writer.endArray()
            }
            if let unavailable = media.unavailable { writer.string("unavailable", unavailable) }
            writer.endObject()
        }
        if let poll {
            writer.beginObject("poll")
            writer.string("question", poll.question)
            writer.beginArray("options")
            for option in poll.options {
                writer.beginObject()
                writer.string("text", option.text)
                writer.integer("votes", option.votes)
                if option.chosen { writer.bool("chosen", true) }
                writer.endObject()
            }
            writer.endArray()
            if poll.closed { writer.bool("closed", true) }
            if let voters = poll.totalVoters { writer.integer("total_voters", voters) }
            writer.endObject()
        }
        if let location {
            writer.beginObject("location")
            writer.number("lat", location.latitude)
            writer.number("lon", location.longitude)
            if let name = location.name { writer.string("name", name) }
            writer.endObject()
        }
        if let systemEvent {
            writer.beginObject("system")
            writer.string("event", systemEvent)
            writer.endObject()
        }
        writer.endObject()
    }
}

/// Reads a Slack export: a directory (the unpacked ZIP) with users.json,
/// channels.json (and groups.json, mpims.json, dms.json) and one folder per
/// conversation of day files (`2017-12-01.json`, each a JSON array of
/// messages), or a single day file.
///
/// Conversations come in the lists' order, then any other folder sorted;
/// each starts with a `conversation` system line (`#general`), then its day
/// files sorted by name, each streamed one message at a time. A broken day
/// file is reported with its path and line; the others are still read.
///
/// A standard export does not say who made it, so direction is left to `--me`.
public enum SlackImporter: ChatImporter {
    public static let format = ImportFormat.slack

    public static func run(_ input: ImportInput, options: ImportOptions, sink: ImportSink) throws {
        if let directory = input.directory {
            readExport(directory, options: options, sink: sink)
        } else {
            try readDayFile(input, options: options, sink: sink)
        }
    }

    /// A whole export directory.
    static func readExport(_ root: String, options: ImportOptions, sink: ImportSink) {
        let directory = SlackDirectory(root: root, sink: sink)
        if !directory.hasUsers { sink.note("no users.json: senders are shown by their user ids") }
        let markup = SlackMarkup(users: directory.users, channels: directory.channels)
        var conversations = 0
        var counts = Counts()
        for conversation in directory.folders(root: root) {
            let days = SlackFileSystem.entries(root + "/" + conversation.folder).filter {
                $0.hasSuffix(".json") && SlackFileSystem.isFile(root + "/" + conversation.folder + "/" + $0)
            }
            guard !days.isEmpty else { continue }
            conversations += 1
            var header = ImportedMessage()
            header.id = conversation.folder
            header.type = "system"
            header.systemEvent = "conversation"
            header.text = ImportText.escaped(conversation.title)
            sink.emit(header, line: 0)
            let locator = SlackFileLocator(base: root, folder: conversation.folder + "/", root: "")
            var reader = SlackMessageReader(markup: markup, folder: conversation.folder,
                                            media: SlackMedia(locator: locator), options: options)
            for day in days {
                let name = conversation.folder + "/" + day
                SlackFileSystem.forEachElement(path: root + "/" + name, name: name, sink: sink) { message, line in
                    for each in reader.messages(message, line: line, file: name, sink: sink) {
                        sink.emit(each, line: line, file: name)
                    }
                }
            }
            counts.add(reader)
        }
        sink.note("\(conversations) conversation\(conversations == 1 ? "" : "s")")
        counts.note(sink)
    }

    /// One day file (a JSON array of messages). When it sits in an export's
    /// conversation folder, the export's users.json and channels.json name
    /// people and channels, and ids are prefixed with the folder's name.
    static func readDayFile(_ input: ImportInput, options: ImportOptions, sink: ImportSink) throws {
        let source = try input.requireSource(format)
        var markup = SlackMarkup()
        var folder: String?
        var base = "."
        if input.name.contains("/") || input.name.hasSuffix(".json") {
            base = SlackFileSystem.parent(input.name)
            let root = base + "/.."
            if FormatDetector.detect(directory: root) == .format(.slack) {
                let directory = SlackDirectory(root: root, sink: sink)
                markup = SlackMarkup(users: directory.users, channels: directory.channels)
                folder = SlackFileSystem.name(of: base)
                sink.note("names from the export in \(root)")
            }
        }
        let locator = SlackFileLocator(base: base, folder: "", root: "../")
        var reader = SlackMessageReader(markup: markup, folder: folder, media: SlackMedia(locator: locator), options: options)
        SlackFileSystem.forEachElement(JSONStream(source: source), name: nil, sink: sink) { message, line in
            for each in reader.messages(message, line: line, file: nil, sink: sink) { sink.emit(each, line: line) }
        }
        var counts = Counts()
        counts.add(reader)
        counts.note(sink)
    }

    /// The events left out or shown as edits, for the `--verbose` summary.
    private struct Counts {
        var dropped = 0
        var edits = 0

        mutating func add(_ reader: SlackMessageReader) {
            dropped += reader.dropped
            edits += reader.edits
        }

        func note(_ sink: ImportSink) {
            if edits > 0 { sink.note("\(edits) edit event\(edits == 1 ? "" : "s") shown as replies to the edited message") }
            if dropped > 0 { sink.note("\(dropped) hidden event\(dropped == 1 ? "" : "s") left out") }
        }
    }
}

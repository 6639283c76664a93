/// What a Slack export directory holds besides messages: the people
/// (users.json) and the conversations (channels.json, groups.json,
/// mpims.json, dms.json), each read once, streamed, into maps bounded by
/// the number of users and conversations.
struct SlackDirectory {
    /// One conversation: its folder of day files and how its header names it.
    struct Conversation {
        var folder: String
        var title: String
    }

    /// Display names by user id.
    var users: [String: String] = [:]
    /// Channel names by id (for `<#C123>`).
    var channels: [String: String] = [:]
    /// The listed conversations, in the lists' order.
    var conversations: [Conversation] = []
    /// True when users.json (or org_users.json) was found.
    var hasUsers = false

    /// Reads the lists in `root` (a directory path).
    init(root: String, sink: ImportSink) {
        for name in ["users.json", "org_users.json"] where !hasUsers {
            hasUsers = SlackFileSystem.forEachElement(path: root + "/" + name, name: name, sink: sink) { user, _ in
                guard let id = user["id"]?.id else { return }
                let profile = user["profile"]
                users[id] = profile?["display_name"]?.text ?? profile?["real_name"]?.text
                    ?? user["real_name"]?.text ?? user["name"]?.text ?? id
            }
        }
        // channels and private channels are named; group DMs (mpims) are named
        // after their members; a DM's folder is its id.
        for (name, kind) in [("channels.json", 0), ("groups.json", 0), ("mpims.json", 1), ("dms.json", 2)] {
            SlackFileSystem.forEachElement(path: root + "/" + name, name: name, sink: sink) { entry, _ in
                guard let id = entry["id"]?.id else { return }
                let members = (entry["members"]?.elements ?? []).prefix(16).compactMap { $0.id.map { self.users[$0] ?? $0 } }
                let channelName = entry["name"]?.text
                switch kind {
                case 0:
                    let name = channelName ?? id
                    channels[id] = name
                    conversations.append(Conversation(folder: name, title: "#" + name))
                case 1:
                    let folder = channelName ?? id
                    conversations.append(Conversation(folder: folder, title: members.isEmpty ? folder : members.joined(separator: ", ")))
                default:
                    conversations.append(Conversation(folder: id, title: members.isEmpty ? id : members.joined(separator: ", ")))
                }
            }
        }
    }

    /// The conversations to read, in order: the listed ones whose folder
    /// exists, then every other folder (sorted). Folder names that could
    /// leave the export (`..`, `a/b`) are not read.
    func folders(root: String) -> [Conversation] {
        var seen = Set<String>()
        var result: [Conversation] = []
        for conversation in conversations where Self.isSafe(conversation.folder) && !seen.contains(conversation.folder) {
            guard SlackFileSystem.isDirectory(root + "/" + conversation.folder) else { continue }
            seen.insert(conversation.folder)
            result.append(conversation)
        }
        for name in SlackFileSystem.entries(root) where !seen.contains(name) && name != "__uploads" {
            guard SlackFileSystem.isDirectory(root + "/" + name) else { continue }
            seen.insert(name)
            result.append(Conversation(folder: name, title: "#" + name))
        }
        return result
    }

    /// True for a single path component (no `/`, not `.` or `..`, no NUL).
    static func isSafe(_ name: String) -> Bool {
        !name.isEmpty && name != "." && name != ".." && !name.contains("/") && !name.contains("\0") && name.utf8.count <= 255
    }
}

import CellHostABI

/// The `list-plugins` report: every plugin found, its classes, and the
/// effective registry. `json` is a stable interface (docs/cli.md).
public struct PluginReport {
    let host: CellHost
    let searchPath: PluginSearchPath

    public init(host: CellHost, searchPath: PluginSearchPath) {
        self.host = host
        self.searchPath = searchPath
    }

    private func q(_ value: String?) -> String { value.map(JSONText.quoted) ?? "null" }

    /// The report as one JSON object.
    public func json() -> String {
        var out = "{\"abi\":\(q("\(CELLHOST_ABI_MAJOR).\(CELLHOST_ABI_MINOR)")),\"search_path\":["
        out += searchPath.directories.map(q).joined(separator: ",") + "],\"plugins\":["
        out += host.plugins.map { plugin -> String in
            var fields: [String] = [
                "\"file\":\(q(plugin.file))",
                "\"state\":\(q(plugin.isLoaded ? "loaded" : "failed"))",
                "\"error\":\(plugin.isLoaded ? "null" : q(reason(plugin)))",
                "\"id\":\(q(plugin.id))", "\"version\":\(q(plugin.version))",
                "\"abi\":\(plugin.abi.map { q("\($0.major).\($0.minor)") } ?? "null")",
                "\"description\":\(q(plugin.description))", "\"author\":\(q(plugin.author))",
                "\"license\":\(q(plugin.license))",
                "\"registers_at_init\":\(plugin.registersAtInit)",
                "\"thread_safe\":\(plugin.threadSafe)",
            ]
            fields.append("\"classes\":[" + plugin.classes.map(classJSON).joined(separator: ",") + "]")
            fields.append("\"rejected_classes\":[" + plugin.rejectedClasses.map {
                "{\"name\":\(q($0.name)),\"reason\":\(q($0.reason))}"
            }.joined(separator: ",") + "]")
            return "{" + fields.joined(separator: ",") + "}"
        }.joined(separator: ",")
        out += "],\"diagnostics\":[" + host.diagnostics.map(q).joined(separator: ",") + "],\"message_classes\":["
        out += host.runtime.registry.tree.declarations.map {
            "{\"name\":\(q($0.name)),\"parent\":\(q($0.parent)),\"declared_by\":\(q($0.declaredBy))}"
        }.joined(separator: ",")
        out += "],\"registry\":[" + registryRows().map { row in
            let winner = row.winner.map {
                "{\"class\":\(q($0.cls.name)),\"plugin\":\(q($0.cls.pluginID)),\"rank\":\($0.cls.rank),\"override\":\($0.override)}"
            } ?? "null"
            let shadowed = row.shadowed.map {
                "{\"class\":\(q($0.name)),\"plugin\":\(q($0.pluginID)),\"rank\":\($0.rank)}"
            }.joined(separator: ",")
            return "{\"message_class\":\(q(row.messageClass)),\"parent\":\(q(row.parent)),\"winner\":\(winner),\"shadowed\":[\(shadowed)]}"
        }.joined(separator: ",")
        return out + "]}"
    }

    private func reason(_ plugin: PluginRecord) -> String? {
        if case .failed(let reason) = plugin.state { return reason }
        return nil
    }

    private func classJSON(_ cls: ClassDescription) -> String {
        let methods = cls.methods.map { "{\"selector\":\(q($0.selector)),\"types\":\(q($0.types))}" }.joined(separator: ",")
        return "{\"name\":\(q(cls.name)),\"superclass\":\(q(cls.superclass)),\"message_classes\":["
            + cls.messageClasses.map(q).joined(separator: ",") + "],\"rank\":\(cls.rank),\"methods\":[\(methods)]}"
    }

    struct Row {
        var messageClass: String
        var parent: String?
        var winner: (cls: RuntimeClass, override: Bool)?
        var shadowed: [RuntimeClass]
    }

    func registryRows() -> [Row] {
        let registry = host.runtime.registry
        return registry.knownMessageClasses.map { name in
            let forced = registry.overrideClass(for: name)
            var classes = registry.candidates(for: name).map(\.cls)
            var winner: (RuntimeClass, Bool)?
            if let forced {
                winner = (forced, true)
                classes.removeAll { $0 === forced }
            } else if !classes.isEmpty {
                winner = (classes.removeFirst(), false)
            }
            return Row(messageClass: name, parent: registry.tree.parent(of: name), winner: winner, shadowed: classes)
        }
    }

    /// The report for people.
    public func text(verbose: Bool) -> String {
        var out = "Plugins (ABI \(CELLHOST_ABI_MAJOR).\(CELLHOST_ABI_MINOR)):\n"
        if host.plugins.isEmpty { out += "  none found\n" }
        for plugin in host.plugins {
            if plugin.isLoaded {
                out += "  \(plugin.id ?? "?") \(plugin.version ?? "")  loaded  ABI \(plugin.abi.map { "\($0.major).\($0.minor)" } ?? "?")\n"
                out += "    file: \(plugin.file)\n"
                if plugin.registersAtInit { out += "    registers classes at run time (its init runs to describe it)\n" }
                if plugin.threadSafe { out += "    thread-safe: its classes may be called from several threads at once\n" }
                if verbose, let description = plugin.description { out += "    \(description)\n" }
                for cls in plugin.classes {
                    let registered = cls.messageClasses.isEmpty ? "no message class" : cls.messageClasses.joined(separator: ", ")
                    out += "    \(cls.name) : \(cls.superclass)  → \(registered)  rank \(cls.rank)\n"
                    if verbose {
                        for method in cls.methods { out += "      \(method.selector)  \(method.types)\n" }
                    }
                }
                for rejected in plugin.rejectedClasses { out += "    \(rejected.name) REJECTED: \(rejected.reason)\n" }
            } else {
                out += "  \(plugin.id ?? "?")  FAILED  \(plugin.file)\n    \(reason(plugin) ?? "")\n"
            }
        }
        out += "\nRegistry (message class → cell class):\n"
        for row in registryRows() {
            var line = "  \(row.messageClass)"
            if let parent = row.parent { line += " (→ \(parent))" }
            if let winner = row.winner {
                line += ": \(winner.cls.name) [\(winner.cls.pluginID)]" + (winner.override ? " (override)" : "")
            } else {
                line += ": none, falls back to " + (row.parent ?? "UnknownMessageCell")
            }
            if !row.shadowed.isEmpty {
                line += "; shadowed: " + row.shadowed.map { "\($0.name) [\($0.pluginID)]" }.joined(separator: ", ")
            }
            out += line + "\n"
        }
        out += "  anything else: UnknownMessageCell [cellhost]\n"
        if verbose {
            out += "\nSearch path:\n" + searchPath.directories.map { "  \($0)\n" }.joined()
        }
        return Sanitizer.sanitizeLines(out)
    }
}

extension Sanitizer {
    /// Sanitizes each line of a multi-line text on its own (an escape
    /// sequence left open on one line cannot hide the next), keeping the
    /// newlines.
    static func sanitizeLines(_ text: String) -> String {
        var text = text
        var output: [UInt8] = []
        text.withUTF8 { bytes in
            output.reserveCapacity(bytes.count)
            var start = 0
            while start <= bytes.count {
                let end = bytes[start...].firstIndex(of: 0x0A) ?? bytes.count
                _ = sanitize(UnsafeBufferPointer(rebasing: bytes[start..<end]), into: &output)
                if end < bytes.count { output.append(0x0A) }
                start = end + 1
            }
        }
        return String(decoding: output, as: UTF8.self)
    }
}

/// The outcome of one check of `cellhost check-plugin`.
public struct CheckResult: Sendable, Equatable {
    public enum Status: String, Sendable {
        case pass, fail, skip
    }

    /// A name from `PluginCheck.allNames`.
    public var name: String
    public var status: Status
    /// What passed (counts, the slowest call), or why it failed or was skipped.
    public var detail: String

    public init(name: String, status: Status, detail: String) {
        self.name = name
        self.status = status
        self.detail = detail
    }
}

/// The report of one `check-plugin` run, as text or JSON Lines
/// (docs/check-plugin.md). Every detail is sanitized: it may quote the plugin.
public struct CheckReport: Sendable {
    public var file: String
    public var results: [CheckResult]

    public var failed: Bool { results.contains { $0.status == .fail } }

    /// One line per check, `PASS  name  detail`, names aligned, then a summary line.
    public func text() -> String {
        let width = PluginCheck.allNames.map(\.count).max() ?? 0
        var out = "check-plugin \(Sanitizer.sanitize(file))\n"
        for result in results {
            let status = result.status.rawValue.uppercased()
            let name = result.name + String(repeating: " ", count: max(0, width - result.name.count))
            let detail = Sanitizer.sanitize(result.detail)
            out += detail.isEmpty ? "\(status)  \(result.name)\n" : "\(status)  \(name)  \(detail)\n"
        }
        let count = { (status: CheckResult.Status) in self.results.filter { $0.status == status }.count }
        out += "\(results.count) checks: \(count(.pass)) passed, \(count(.fail)) failed, \(count(.skip)) skipped\n"
        return out
    }

    /// One JSON object per check and line:
    /// `{"file":…,"check":…,"status":"pass"|"fail"|"skip","detail":…}`.
    public func jsonLines() -> String {
        results.map {
            "{\"file\":\(JSONText.quoted(Sanitizer.sanitize(file))),\"check\":\(JSONText.quoted($0.name)),"
                + "\"status\":\(JSONText.quoted($0.status.rawValue)),\"detail\":\(JSONText.quoted(Sanitizer.sanitize($0.detail)))}\n"
        }.joined()
    }
}

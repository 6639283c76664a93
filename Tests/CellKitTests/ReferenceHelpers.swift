import CellKit

// The helpers as they were before they were rewritten for speed, kept
// verbatim as references the new versions must agree with on every input
// (HelperEquivalenceTests).
enum ReferenceHelpers {
    static func byteCount(_ bytes: Double) -> String? {
        guard bytes.isFinite, bytes >= 0 else { return nil }
        if bytes < 1024 { return "\(Int(bytes.rounded())) B" }
        let units = ["KB", "MB", "GB", "TB"]
        var value = bytes / 1024
        var unit = 0
        while unit < units.count - 1, value.rounded() >= 1024 {
            value /= 1024
            unit += 1
        }
        let tenths = (value * 10).rounded()
        if tenths < 100 {
            let whole = Int(tenths) / 10, fraction = Int(tenths) % 10
            return "\(whole).\(fraction) \(units[unit])"
        }
        let rounded = value.rounded()
        return rounded < 1e15 ? "\(Int(rounded)) \(units[unit])" : "\(rounded) \(units[unit])"
    }

    static func playbackTime(seconds: Double) -> String? {
        guard seconds.isFinite, seconds >= 0, seconds < 1e12 else { return nil }
        let total = Int(seconds.rounded())
        let hours = total / 3600, minutes = (total % 3600) / 60, secs = total % 60
        func twoDigits(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        if hours > 0 { return "\(hours):\(twoDigits(minutes)):\(twoDigits(secs))" }
        return "\(minutes):\(twoDigits(secs))"
    }

    static func draw(_ samples: [Double], width: Int) -> String {
        String(Waveform.resample(Waveform.normalize(samples), to: width).map(Waveform.bar))
    }

    static func basename(_ path: String) -> String? {
        let name = path.split(separator: "/", omittingEmptySubsequences: true).last.map(String.init)
        return name?.isEmpty == false ? name : nil
    }

    static func tag(forMIME mime: String) -> String {
        let type = mime.split(separator: ";").first.map { String($0).lowercased() } ?? ""
        let essence = type.trimmingSpaces
        let parts = essence.split(separator: "/", maxSplits: 1).map(String.init)
        let family = parts.first ?? ""
        let subtype = parts.count > 1 ? parts[1] : ""
        switch family {
        case "image": return "[IMG]"
        case "audio": return "[AUD]"
        case "video": return "[VID]"
        case "text": return "[TXT]"
        default: break
        }
        if subtype == "pdf" { return "[PDF]" }
        let archives = ["zip", "gzip", "x-gzip", "x-tar", "x-7z-compressed", "vnd.rar", "x-rar-compressed",
                        "x-rar", "x-bzip2", "x-xz", "zstd", "x-zstd", "java-archive"]
        if archives.contains(subtype) { return "[ZIP]" }
        if ["json", "xml", "x-yaml", "yaml", "javascript", "x-sh"].contains(subtype)
            || subtype.hasSuffix("+json") || subtype.hasSuffix("+xml") && !subtype.contains("svg") {
            return "[TXT]"
        }
        if subtype == "msword" || subtype == "rtf" || subtype.hasPrefix("vnd.ms-")
            || subtype.hasPrefix("vnd.openxmlformats-officedocument") || subtype.hasPrefix("vnd.oasis.opendocument")
            || subtype == "epub+zip" {
            return "[DOC]"
        }
        return "[FILE]"
    }
}

private extension String {
    var trimmingSpaces: String {
        var s = Substring(self)
        while let first = s.first, first == " " || first == "\t" { s = s.dropFirst() }
        while let last = s.last, last == " " || last == "\t" { s = s.dropLast() }
        return String(s)
    }
}

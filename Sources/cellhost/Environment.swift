import CellHostCore
import Glibc

/// The process environment as a dictionary.
func currentEnvironment() -> [String: String] {
    var result: [String: String] = [:]
    var pointer = environ
    while let entry = pointer.pointee {
        let text = String(cString: entry)
        if let equals = text.firstIndex(of: "=") {
            result[String(text[..<equals])] = String(text[text.index(after: equals)...])
        }
        pointer += 1
    }
    return result
}

/// Writes a diagnostic line to stderr: `cellhost: MESSAGE`. The message is
/// sanitized like output (escape sequences removed, controls shown as
/// pictures), so file names, plugin names and option values from the user or
/// a plugin cannot drive the terminal. Every diagnostic goes through here.
func printError(_ message: String) {
    writeError("cellhost: " + Sanitizer.sanitize(message) + "\n")
}

/// Writes `text` (the host's own, already safe) to stderr as it is.
func writeError(_ text: String) {
    var line = text
    line.withUTF8 { buffer in
        guard let base = buffer.baseAddress else { return }
        var offset = 0
        while offset < buffer.count {
            let written = write(2, base + offset, buffer.count - offset)
            if written < 0 && errno == EINTR { continue }
            if written <= 0 { return }
            offset += written
        }
    }
}

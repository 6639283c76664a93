import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Reads lines from a pipe as they arrive, for a process that keeps running
/// (`render --follow`): each step waits for the line it expects, with a
/// deadline, never for a fixed time.
final class PipeLines {
    let fd: Int32
    private var pending = Data()
    init(_ handle: FileHandle) { fd = handle.fileDescriptor }

    /// The next line, or nil when none arrives within `seconds`.
    func next(within seconds: Double = 20) -> String? {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            if let newline = pending.firstIndex(of: 0x0A) {
                let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                pending.removeSubrange(pending.startIndex...newline)
                return line
            }
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { return nil }
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, Int32(left * 1000)) > 0 else { return nil }
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = read(fd, &buffer, buffer.count)
            guard count > 0 else { return nil }
            pending.append(contentsOf: buffer[0..<count])
        }
    }
}

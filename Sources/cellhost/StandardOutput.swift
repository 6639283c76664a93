import CellHostCore
import Glibc

/// The host's own standard output. At start-up the real stdout is moved to a
/// private descriptor (close-on-exec, 3 or above) and descriptor 1 is pointed
/// at `/dev/null`, so plugin code (a `printf` in a constructor or a render
/// method) can never put bytes into the output: everything the host writes —
/// rendered messages, `list-plugins`, help — goes through `fd`.
///
/// A failed write is remembered (the first `errno`); `main` then prints one
/// line (`cellhost: cannot write to standard output: REASON`) and exits with
/// status 3.
final class StandardOutput {
    /// Exit status when the output could not be written.
    static let failureStatus: Int32 = 3

    /// The descriptor of the real standard output, or -1 when it was closed.
    let fd: Int32
    /// The `errno` of the first failure, or nil.
    private(set) var failure: Int32?

    private init(fd: Int32, failure: Int32?) {
        self.fd = fd
        self.failure = failure
    }

    /// Moves the real stdout out of descriptor 1 and puts `/dev/null` there.
    /// When stdout is closed, the result has already failed (`EBADF`).
    static func isolate() -> StandardOutput {
        let saved = fcntl(1, F_DUPFD_CLOEXEC, 3)
        let savedError = saved < 0 ? errno : nil
        let null = open("/dev/null", O_WRONLY | O_CLOEXEC)
        if null >= 0 && null != 1 {
            _ = dup2(null, 1) // dup2 clears close-on-exec on the copy: fd 1 stays open for children.
            close(null)
        } else if null == 1 {
            // Descriptor 1 was closed and open took it; keep it open across exec.
            _ = fcntl(1, F_SETFD, 0)
        }
        return StandardOutput(fd: saved, failure: savedError)
    }

    /// True when the real stdout is a terminal.
    var isTerminal: Bool { fd >= 0 && isatty(fd) == 1 }

    /// Writes all of `text`; on failure remembers why and drops later writes.
    func write(_ text: String) {
        guard failure == nil, fd >= 0 else { return }
        var text = text
        text.withUTF8 { buffer in
            guard let base = buffer.baseAddress else { return }
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(fd, base + offset, buffer.count - offset)
                if written < 0 && errno == EINTR { continue }
                if written <= 0 {
                    failure = written < 0 ? errno : EIO
                    return
                }
                offset += written
            }
        }
    }

    /// Records a failure seen elsewhere (the render pipeline's own buffer).
    func fail(errno code: Int32) {
        if failure == nil { failure = code }
    }

    /// The one-line diagnostic for the failure, or nil.
    var failureMessage: String? {
        failure.map { "cannot write to standard output: \(String(cString: strerror($0)))" }
    }
}

extension CommandLineTool {
    /// Writes text to the host's standard output (see `StandardOutput`).
    func printOut(_ text: String) { output.write(text) }
}

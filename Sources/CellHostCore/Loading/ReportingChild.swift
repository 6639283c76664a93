import Glibc

/// A child process of this executable that runs plugin code and reports on
/// descriptor 3, one line per event ("B 3", "R {…}"): the plugin scanner and
/// `check-plugin`'s children. Its standard output and error are /dev/null,
/// its standard input /dev/null or a given file; the parent reads the
/// reports against a deadline that each report may move, and kills the child
/// when the deadline passes.
struct ReportingChild {
    /// How the reading ended.
    enum Ending {
        /// The child closed the pipe, or `onLine` stopped the reading; its
        /// wait status.
        case exited(status: Int32)
        /// The deadline passed; the child was killed.
        case timedOut
        /// An unfinished line grew past `maximumLine`; the child was killed.
        case malformed
    }

    let executable: String
    let arguments: [String]
    /// Read as the child's standard input; /dev/null when nil.
    var input: Int32?
    /// Sets `SWIFT_BACKTRACE=enable=no` unless the environment says
    /// otherwise, so that a crashing child does not wait for Swift's
    /// backtracer.
    var quietBacktraces = false
    /// The longest report line accepted (nil: no bound).
    var maximumLine: Int?

    /// Starts the child and reads its report lines (without the newline),
    /// handing each to `onLine` with the deadline (an absolute
    /// `PluginScanner.now()` time) to move; `onLine` returns false to stop
    /// reading. Returns how it ended once the child was waited for, or the
    /// reason it could not start.
    func run(deadline initial: Double,
             onLine: (ArraySlice<UInt8>, inout Double) -> Bool) -> Result<Ending, StartFailure> {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return .failure(StartFailure(errno: errno, spawning: false)) }
        // Numbers of 10 or more, close-on-exec: dup2 onto 0–3 never meets the same number.
        let readEnd = Descriptor.high(ends[0]), writeEnd = Descriptor.high(ends[1])
        defer { close(readEnd) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        let inputHigh = input.map { Descriptor.high(dup($0)) }
        defer { if let inputHigh { close(inputHigh) } }
        if let inputHigh {
            posix_spawn_file_actions_adddup2(&actions, inputHigh, 0)
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, writeEnd, 3)
        var argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var environment: [UnsafeMutablePointer<CChar>?] = []
        var pointer = environ
        var hasBacktraceSetting = false
        while let entry = pointer.pointee {
            if strncmp(entry, "SWIFT_BACKTRACE=", 16) == 0 { hasBacktraceSetting = true }
            environment.append(strdup(entry))
            pointer += 1
        }
        if quietBacktraces && !hasBacktraceSetting { environment.append(strdup("SWIFT_BACKTRACE=enable=no")) }
        environment.append(nil)
        defer { for pointer in environment { free(pointer) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, executable, &actions, nil, &argv, &environment)
        close(writeEnd)
        guard status == 0 else { return .failure(StartFailure(errno: status, spawning: true)) }

        var deadline = initial
        var ending: Ending?
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        reading: while true {
            let remaining = deadline - PluginScanner.now()
            if remaining <= 0 {
                kill(pid, SIGKILL)
                ending = .timedOut
                break
            }
            var entry = pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&entry, 1, Int32(min(remaining * 1000 + 1, 60_000)))
            if ready < 0 { if errno == EINTR { continue }; kill(pid, SIGKILL); break }
            if ready == 0 { continue }
            let count = buffer.withUnsafeMutableBytes { read(readEnd, $0.baseAddress, $0.count) }
            if count < 0 { if errno == EINTR { continue }; break }
            if count == 0 { break }
            pending += buffer[0..<count]
            var consumed = 0
            while let newline = pending[consumed...].firstIndex(of: 0x0A) {
                let line = pending[consumed..<newline]
                consumed = newline + 1
                guard onLine(line, &deadline) else { break reading }
            }
            pending.removeFirst(consumed)
            // Reports are short lines; the plugin shares the child and could write on the pipe.
            if let maximumLine, pending.count > maximumLine {
                kill(pid, SIGKILL)
                ending = .malformed
                break
            }
        }
        var exitStatus: Int32 = 0
        while waitpid(pid, &exitStatus, 0) < 0 && errno == EINTR {}
        return .success(ending ?? .exited(status: exitStatus))
    }

    /// Why the child could not be started: an errno value, from making the
    /// pipe or from `posix_spawn` itself.
    struct StartFailure: Error {
        var errno: Int32
        var spawning: Bool
        var reason: String { String(cString: strerror(errno)) }
    }
}

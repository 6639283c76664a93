import CellHostCore
import Glibc

/// `--paging`: whether the output goes through a pager.
enum Paging: String {
    /// Through a pager when stdout is a terminal and the input is not a live
    /// stream (a pipe or the terminal on standard input).
    case auto
    case always
    case never
}

/// A pager process reading what `render` writes, started the way git and bat
/// start theirs: `$CELLHOST_PAGER`, else `$PAGER`, else `less -RFX`, run by
/// `/bin/sh -c` with the real standard output as its own. `LESS=FRX` is set
/// when `LESS` is not, so a plain `less` also keeps colours, quits at once
/// when the output fits on one screen, and leaves it on the screen.
final class Pager {
    /// The pager's standard input: where the output is written.
    let fd: Int32
    private let pid: pid_t

    private init(fd: Int32, pid: pid_t) {
        self.fd = fd
        self.pid = pid
    }

    /// The pager command, or nil when the environment names none (empty,
    /// or `cat`, which is no pager at all).
    static func command(environment: [String: String]) -> String? {
        let given = environment["CELLHOST_PAGER"] ?? environment["PAGER"] ?? "less -RFX"
        let chosen = given.split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " ")
        return chosen.isEmpty || chosen == "cat" ? nil : chosen
    }

    /// The program a command runs (its first word), when it can be found on `PATH`.
    static func isRunnable(_ command: String, environment: [String: String]) -> Bool {
        guard let program = command.split(separator: " ").first.map(String.init) else { return false }
        if program.contains("/") { return access(program, X_OK) == 0 }
        for directory in (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") where access("\(directory)/\(program)", X_OK) == 0 {
            return true
        }
        return false
    }

    /// Starts `command` with its stdout on `stdoutFD`; nil when it cannot be started.
    static func start(_ command: String, stdoutFD: Int32, environment: [String: String]) -> Pager? {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { return nil }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, ends[0], 0)
        posix_spawn_file_actions_adddup2(&actions, stdoutFD, 1)
        var variables = environment
        if variables["LESS"] == nil { variables["LESS"] = "FRX" }
        if variables["LV"] == nil { variables["LV"] = "-c" }
        let arguments = ["/bin/sh", "-c", command]
        let environmentLines = variables.map { "\($0.key)=\($0.value)" }
        var cArguments = arguments.map { strdup($0) } + [nil]
        var cEnvironment = environmentLines.map { strdup($0) } + [nil]
        defer {
            for pointer in cArguments { free(pointer) }
            for pointer in cEnvironment { free(pointer) }
        }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, "/bin/sh", &actions, nil, &cArguments, &cEnvironment)
        close(ends[0])
        guard status == 0 else {
            close(ends[1])
            return nil
        }
        return Pager(fd: ends[1], pid: pid)
    }

    /// Ends the output and waits until the user has quit the pager.
    func finish() {
        close(fd)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    }
}

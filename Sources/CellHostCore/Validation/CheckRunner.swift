import Foundation
import Glibc

/// Runs `CheckChild` processes for a list of operations and watches them,
/// the way `PluginScanner` runs its scanner: the host re-executed with
/// `__check-plugin`, its report read from a pipe on descriptor 3 (moved to a
/// high number first, `Descriptor.high`), its standard output and error
/// pointed at /dev/null. A child that dies, or whose plugin call does not
/// return within the hang limit (it is then killed), costs the operation it
/// was on; a new child goes on after it.
struct CheckRunner {
    /// The executable: the host itself.
    let executable: String
    /// How long one plugin call may run before it counts as a hang.
    let hangLimit: Double
    /// Extra time for a child to start and link before its first operation.
    var startAllowance = 2.0

    /// How an operation ended when its child did not report it.
    enum Failure: Equatable {
        /// "killed by SIGSEGV", "exited with status 3".
        case crashed(String)
        /// No answer within the hang limit; the child was killed.
        case hung(Double)
    }

    struct Result {
        var observations: [Int: CheckObservation] = [:]
        var failures: [Int: Failure] = [:]
        /// Operations not performed, because one of their group crashed or
        /// hung on the same class and sample (or too many children died).
        var skipped: Set<Int> = []
    }

    /// The longest report line accepted from a child.
    static let maximumLine = 1 << 24

    /// The most children started for one plan; operations left after that are skipped.
    static let maximumChildren = 64

    /// Performs every operation of `setup` (`setup.start` is set here).
    func run(_ setup: CheckSetup) -> Result {
        var result = Result()
        var start = 0
        var children = 0
        let operations = setup.operations
        while start < operations.count {
            if children == Self.maximumChildren {
                for index in start..<operations.count { result.skipped.insert(index) }
                break
            }
            children += 1
            var each = setup
            each.start = start
            let (stopped, failure) = runChild(each, into: &result)
            guard let stopped, let failure else { break }
            result.failures[stopped] = failure
            // Skip what would most likely fail the same way.
            let failed = operations[stopped]
            var next = stopped + 1
            for index in next..<operations.count {
                let other = operations[index]
                let same = other.className == failed.className
                    && (failed.kind == .open || failed.kind == .initialize
                        || (other.group == failed.group && other.sample == failed.sample && other.messageClass == failed.messageClass))
                if same && failed.kind != .initialize { result.skipped.insert(index) }
                if failed.kind == .initialize && other.kind == .deinitialize { result.skipped.insert(index) }
            }
            while next < operations.count && result.skipped.contains(next) { next += 1 }
            start = next
        }
        return result
    }

    /// One child from `setup.start`; returns the operation it stopped on and
    /// why, or (nil, nil) when it reported everything.
    private func runChild(_ setup: CheckSetup, into result: inout Result) -> (Int?, Failure?) {
        let first = setup.start
        guard let json = try? JSONEncoder().encode(setup), let input = tmpfile() else {
            return (first, .crashed("could not start a check process: \(String(cString: strerror(errno)))"))
        }
        defer { fclose(input) }
        let inputFD = fileno(input)
        guard WireIO.writeAll(inputFD, Array(json)), lseek(inputFD, 0, SEEK_SET) == 0 else {
            return (first, .crashed("could not start a check process: \(String(cString: strerror(errno)))"))
        }
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            return (first, .crashed("could not start a check process: \(String(cString: strerror(errno)))"))
        }
        let readEnd = Descriptor.high(ends[0]), writeEnd = Descriptor.high(ends[1])
        _ = fcntl(readEnd, F_SETFD, FD_CLOEXEC)
        _ = fcntl(writeEnd, F_SETFD, FD_CLOEXEC)
        defer { close(readEnd) }
        let inputHigh = Descriptor.high(dup(inputFD))
        defer { close(inputHigh) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, inputHigh, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, writeEnd, 3)
        let arguments = [executable, CheckChild.childCommand]
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        // A crashing child should not wait for Swift's backtracer.
        var environment: [UnsafeMutablePointer<CChar>?] = []
        var pointer = environ
        var hasBacktraceSetting = false
        while let entry = pointer.pointee {
            if strncmp(entry, "SWIFT_BACKTRACE=", 16) == 0 { hasBacktraceSetting = true }
            environment.append(strdup(entry))
            pointer += 1
        }
        if !hasBacktraceSetting { environment.append(strdup("SWIFT_BACKTRACE=enable=no")) }
        environment.append(nil)
        defer { for pointer in environment { free(pointer) } }
        let status = posix_spawn(&pid, executable, &actions, nil, &argv, &environment)
        close(writeEnd)
        guard status == 0 else {
            return (first, .crashed("could not start a check process (\(executable)): \(String(cString: strerror(status)))"))
        }
        var current: Int?
        var reported = first
        var deadline = PluginScanner.now() + startAllowance + hangLimit
        var timedOut = false
        var malformed = false
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        reading: while true {
            let remaining = deadline - PluginScanner.now()
            if remaining <= 0 {
                timedOut = true
                kill(pid, SIGKILL)
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
                guard let kind = line.first else { continue }
                switch kind {
                case UInt8(ascii: "B"):
                    current = Int(String(decoding: line.dropFirst(2), as: UTF8.self))
                    deadline = PluginScanner.now() + hangLimit
                case UInt8(ascii: "T"):
                    deadline = PluginScanner.now() + hangLimit
                case UInt8(ascii: "O"):
                    guard let index = current, index >= first, index < setup.operations.count,
                          let observation = try? JSONDecoder().decode(CheckObservation.self, from: Data(line.dropFirst(2))) else {
                        continue
                    }
                    result.observations[index] = observation
                    reported = index + 1
                    current = nil
                    deadline = PluginScanner.now() + hangLimit
                    if reported == setup.operations.count { break reading }
                default: continue
                }
            }
            pending.removeFirst(consumed)
            // Reports are short lines; the plugin shares the child and could write on the pipe.
            if pending.count > Self.maximumLine {
                kill(pid, SIGKILL)
                malformed = true
                break
            }
        }
        var exitStatus: Int32 = 0
        while waitpid(pid, &exitStatus, 0) < 0 && errno == EINTR {}
        if reported == setup.operations.count { return (nil, nil) }
        let stopped = current ?? reported
        if timedOut { return (stopped, .hung(hangLimit)) }
        if malformed { return (stopped, .crashed("sent a malformed report")) }
        return (stopped, .crashed(PluginScanner.describe(exitStatus)))
    }
}

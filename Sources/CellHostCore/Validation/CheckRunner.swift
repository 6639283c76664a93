import Foundation
import Glibc

/// Runs `CheckChild` processes for a list of operations and watches them,
/// as `PluginScanner` runs its scanner (both are a `ReportingChild`): the
/// host re-executed with `__check-plugin`, its report read from a pipe on
/// descriptor 3, its standard output and error /dev/null. A child that dies, or whose plugin call does not
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
        var current: Int?
        var reported = first
        var child = ReportingChild(executable: executable, arguments: [CheckChild.childCommand], input: inputFD)
        child.quietBacktraces = true
        child.maximumLine = Self.maximumLine
        let outcome = child.run(deadline: PluginScanner.now() + startAllowance + hangLimit) { line, deadline in
            guard let kind = line.first else { return true }
            switch kind {
            case UInt8(ascii: "B"):
                current = Int(String(decoding: line.dropFirst(2), as: UTF8.self))
                deadline = PluginScanner.now() + hangLimit
            case UInt8(ascii: "T"):
                deadline = PluginScanner.now() + hangLimit
            case UInt8(ascii: "O"):
                guard let index = current, index >= first, index < setup.operations.count,
                      let observation = try? JSONDecoder().decode(CheckObservation.self, from: Data(line.dropFirst(2))) else {
                    return true
                }
                result.observations[index] = observation
                reported = index + 1
                current = nil
                deadline = PluginScanner.now() + hangLimit
                if reported == setup.operations.count { return false }
            default: break
            }
            return true
        }
        let ending: ReportingChild.Ending
        switch outcome {
        case .failure(let failure):
            return (first, .crashed(failure.spawning
                ? "could not start a check process (\(executable)): \(failure.reason)"
                : "could not start a check process: \(failure.reason)"))
        case .success(let value): ending = value
        }
        if reported == setup.operations.count { return (nil, nil) }
        let stopped = current ?? reported
        switch ending {
        case .timedOut: return (stopped, .hung(hangLimit))
        case .malformed: return (stopped, .crashed("sent a malformed report"))
        case .exited(let status): return (stopped, .crashed(PluginScanner.describe(status)))
        }
    }
}

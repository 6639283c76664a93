import Foundation
import Glibc

/// Describes plugin files in a child process, the way GStreamer's
/// `gst-plugin-scanner` does: opening a plugin runs its code (constructors,
/// `init`), and a plugin that crashes, aborts, exits, hangs or prints while
/// loading must cost only its own record, never the host or the other
/// plugins.
///
/// The host re-executes itself (`executable childCommand FILE…`); the child
/// opens each file in turn with `PluginLibrary.open` and reports on file
/// descriptor 3: a line `B INDEX` before each file and `R HEX` (the
/// `PluginRecord`) after it. When the child dies or stalls on a file, that
/// file is recorded as failed with the reason, and a new child scans the
/// files after it.
public struct PluginScanner {
    /// The argument that puts the executable in scanner mode.
    public static let childCommand = "__scan-plugins"

    /// The executable to run as the scanner: the host itself.
    public let executable: String
    /// How long one file may take to load, in seconds.
    public var timeout: Double = 2

    public init(executable: String) { self.executable = executable }

    /// One record per file, in order. Never throws: a file whose scan failed
    /// gets a failed record.
    public func scan(_ files: [String]) -> [PluginRecord] {
        var records: [PluginRecord?] = Array(repeating: nil, count: files.count)
        var start = 0
        while start < files.count {
            let batch = Array(files[start...])
            let outcome = runChild(batch) { index, record in records[start + index] = record }
            guard let stopped = outcome.stoppedAt else { break }
            let index = start + stopped
            if records[index] == nil {
                records[index] = PluginRecord(file: files[index], state: .failed(outcome.reason))
            }
            start = index + 1
        }
        return records.enumerated().map { index, record in
            record ?? PluginRecord(file: files[index], state: .failed("the plugin scanner gave no record"))
        }
    }

    private struct ChildOutcome {
        /// The index (in the batch) of the file the child stopped on, or nil
        /// when it described every file.
        var stoppedAt: Int?
        var reason: String
    }

    private func runChild(_ files: [String], record: (Int, PluginRecord) -> Void) -> ChildOutcome {
        var current: Int?
        var described = 0
        let child = ReportingChild(executable: executable, arguments: [PluginScanner.childCommand] + files)
        let outcome = child.run(deadline: Self.now() + timeout) { line, deadline in
            guard line.count >= 2 else { return true }
            let body = line.dropFirst(2)
            switch line.first {
            case UInt8(ascii: "B"):
                current = Int(String(decoding: body, as: UTF8.self))
                deadline = Self.now() + timeout
            case UInt8(ascii: "R"):
                guard let index = current, index < files.count, let decoded = Self.decodeRecord(body) else { return true }
                record(index, decoded)
                described = index + 1
                current = nil
                if described == files.count { return false }
            default: break
            }
            return true
        }
        let ending: ReportingChild.Ending
        switch outcome {
        case .failure(let failure):
            return ChildOutcome(stoppedAt: 0, reason: failure.spawning
                ? "cannot start the plugin scanner \(executable): \(failure.reason)"
                : "cannot start the plugin scanner: \(failure.reason)")
        case .success(let value): ending = value
        }
        if described == files.count { return ChildOutcome(stoppedAt: nil, reason: "") }
        let stopped = current ?? described
        switch ending {
        case .timedOut:
            return ChildOutcome(stoppedAt: stopped, reason: "did not finish loading within \(Self.seconds(timeout))")
        case .exited(let status):
            return ChildOutcome(stoppedAt: stopped, reason: Self.describe(status) + " while loading")
        case .malformed:
            return ChildOutcome(stoppedAt: stopped, reason: "sent a malformed report while loading")
        }
    }

    public static func now() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }

    static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
    }

    /// `killed by SIGSEGV`, `exited with status 3`.
    static func describe(_ status: Int32) -> String {
        let signal = status & 0x7F
        if signal == 0 { return "exited with status \((status >> 8) & 0xFF)" }
        return "killed by \(signalName(signal))"
    }

    /// The conventional name of a signal (`SIGSEGV`), or `signal N`.
    public static func signalName(_ signal: Int32) -> String {
        let names: [Int32: String] = [
            SIGHUP: "SIGHUP", SIGINT: "SIGINT", SIGQUIT: "SIGQUIT", SIGILL: "SIGILL", SIGTRAP: "SIGTRAP",
            SIGABRT: "SIGABRT", SIGBUS: "SIGBUS", SIGFPE: "SIGFPE", SIGKILL: "SIGKILL", SIGUSR1: "SIGUSR1",
            SIGSEGV: "SIGSEGV", SIGUSR2: "SIGUSR2", SIGPIPE: "SIGPIPE", SIGALRM: "SIGALRM", SIGTERM: "SIGTERM",
            SIGXCPU: "SIGXCPU", SIGXFSZ: "SIGXFSZ", SIGSYS: "SIGSYS",
        ]
        return names[signal] ?? "signal \(signal)"
    }

    // MARK: The child

    /// The scanner process: describes `files` one by one on descriptor 3.
    /// Standard output and error point at a scratch file while a plugin
    /// loads, so that a plugin that prints is caught and nothing it writes
    /// reaches anybody. Returns the exit status.
    public static func runChild(files: [String]) -> Int32 {
        signal(SIGPIPE, SIG_IGN)
        let runtime = Runtime()
        for (index, file) in files.enumerated() {
            guard send("B \(index)\n") else { return 1 }
            let outputs = [tmpfile(), tmpfile()]
            for (fd, scratch) in zip([Int32(1), 2], outputs) {
                if let scratch { dup2(fileno(scratch), fd) }
            }
            var record = PluginRecord(file: file, state: .loaded)
            _ = PluginLibrary.open(file, record: &record, runtime: runtime, purpose: .describe)
            fflush(nil)
            for (name, scratch) in zip(["standard output", "standard error"], outputs) {
                guard let scratch else { continue }
                var info = stat()
                if fstat(fileno(scratch), &info) == 0, info.st_size > 0, record.isLoaded {
                    record.state = .failed("wrote \(info.st_size) bytes to \(name) while loading")
                }
                fclose(scratch)
            }
            // Keep later writes of this plugin (from other files' loading) away too.
            let null = open("/dev/null", O_WRONLY)
            if null >= 0 { dup2(null, 1); dup2(null, 2); close(null) }
            guard send("R " + encodeRecord(record) + "\n") else { return 1 }
        }
        return 0
    }

    private static func send(_ line: String) -> Bool { WireIO.writeAll(3, Array(line.utf8)) }

    // MARK: Records on the report line

    /// A record as the `R` line carries it: a one-record catalog, the plugin
    /// cache's binary form (`PluginCatalogCoding`), in hexadecimal. JSON
    /// cost 200k instructions per plugin to encode in the child and as much
    /// to decode here, more than opening the plugin.
    static func encodeRecord(_ record: PluginRecord) -> String {
        var encoder = PluginCatalogEncoder()
        encoder.append(record)
        var writer = WireWriter()
        encoder.encode(into: &writer)
        let digits = Array("0123456789abcdef".utf8)
        var text = [UInt8]()
        text.reserveCapacity(writer.bytes.count * 2)
        for byte in writer.bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The record of an `R` line's body, or nil when it is not one.
    static func decodeRecord(_ body: some Collection<UInt8>) -> PluginRecord? {
        guard body.count % 2 == 0 else { return nil }
        func value(_ digit: UInt8) -> UInt8? {
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): return digit - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): return digit - UInt8(ascii: "a") + 10
            default: return nil
            }
        }
        var bytes = [UInt8]()
        bytes.reserveCapacity(body.count / 2)
        var high: UInt8?
        for digit in body {
            guard let nibble = value(digit) else { return nil }
            if let first = high {
                bytes.append(first << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        var reader = WireReader(bytes)
        guard let catalog = try? PluginCatalog.decode(&reader), catalog.plugins.count == 1, reader.offset == bytes.count else {
            return nil
        }
        return catalog.record(0)
    }
}

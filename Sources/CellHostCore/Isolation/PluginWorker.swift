import Foundation
import Glibc

/// One render worker process, seen from the host: started on first use,
/// sent batches of render requests, and replaced when it dies.
final class PluginWorker {
    /// Which plugins it runs: a plugin id, "shared" or "third-party".
    let name: String
    private var pid: pid_t = -1
    private var requests: Int32 = -1
    private var replies: Int32 = -1
    private var progress: Int32 = -1
    /// True until the first batch after a start: opening libraries then is
    /// allowed extra time.
    private var fresh = false
    /// Extra time for a fresh worker to start and open its first libraries.
    static let startAllowance = 2.0

    init(name: String) { self.name = name }

    var isRunning: Bool { pid > 0 }

    /// Starts the worker process with `setup`; returns why it could not.
    func start(executable: String, setup: [UInt8]) -> String? {
        var requestPair: [Int32] = [-1, -1]
        var replyPipe: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &requestPair) == 0 else { return Self.error("socketpair") }
        guard pipe(&replyPipe) == 0 else { return Self.error("pipe") }
        let ends = (requestPair + replyPipe).map(Descriptor.high)
        guard let scratch = tmpfile() else { return Self.error("tmpfile") }
        let progressFD = Descriptor.high(dup(fileno(scratch)))
        fclose(scratch)
        ftruncate(progressFD, off_t(RenderWorker.progressSize))
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, ends[1], 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, ends[3], 3)
        posix_spawn_file_actions_adddup2(&actions, progressFD, 4)
        let arguments = [executable, RenderWorker.childCommand]
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var child: pid_t = 0
        let status = posix_spawn(&child, executable, &actions, nil, &argv, environ)
        close(ends[1])
        close(ends[3])
        guard status == 0 else {
            close(ends[0]); close(ends[2]); close(progressFD)
            return "cannot start a render worker (\(executable)): \(String(cString: strerror(status)))"
        }
        pid = child
        requests = ends[0]
        replies = ends[2]
        progress = progressFD
        fresh = true
        var writer = WireWriter()
        let frame = writer.begin(WorkerFrame.setup)
        writer.bytes += setup
        writer.finish(frame)
        guard send(writer.bytes) else {
            let reason = stopped(kill: true)
            return "the render worker \(reason) while starting"
        }
        return nil
    }

    /// Why a batch did not complete.
    struct Failure {
        /// "crashed (SIGSEGV)", "timed out after 500 ms", …
        var reason: String
        /// The message and step that were running, when the worker was
        /// inside a plugin call.
        var sequence: UInt64?
        var step: Int?
    }

    // A batch in flight: sent (or being sent) and not fully answered.
    private var expected: [UInt64] = []
    private var answered = 0
    private var outgoing: [UInt8] = []
    private var sent = 0
    private var incoming: [UInt8] = []
    private var early: [RenderReply] = []
    private var deadline = 0.0
    private var seen: (UInt64, UInt64) = (0, 0)
    private var timeout = 0.5

    /// Sends `batch` and hands each reply to `receive`, in order. Returns nil
    /// when every request was answered; else the failure (the worker is then
    /// stopped, and `start` must be called again).
    func exchange(_ batch: [RenderRequest], timeout: Double, receive: (RenderReply) -> Void) -> Failure? {
        if let failure = submit(batch, timeout: timeout) { return failure }
        return collect(receive)
    }

    /// Sends `batch` without waiting for the replies (`collect` takes them):
    /// the host can prepare the next batch meanwhile. Replies that arrive
    /// while sending are kept.
    func submit(_ batch: [RenderRequest], timeout: Double) -> Failure? {
        var writer = WireWriter()
        let frame = writer.begin(WorkerFrame.render)
        writer.u32(UInt32(batch.count))
        for request in batch { request.encode(into: &writer) }
        writer.finish(frame)
        expected = batch.map(\.sequence)
        answered = 0
        early.removeAll()
        outgoing = writer.bytes
        sent = 0
        self.timeout = timeout
        deadline = PluginScanner.now() + timeout + (fresh ? Self.startAllowance : 0)
        seen = rawProgress()
        fresh = false
        return pump(untilSent: true) { early.append($0) }
    }

    /// Takes the replies of the batch `submit` sent, in order.
    func collect(_ receive: (RenderReply) -> Void) -> Failure? {
        for reply in early { receive(reply) }
        early.removeAll()
        return pump(untilSent: false, receive: receive)
    }

    /// Moves bytes both ways until the batch is sent (`untilSent`) or fully
    /// answered. A message may take `timeout`: the deadline moves on
    /// whenever a reply arrives or the progress page shows the worker on
    /// another message or step (replies come a batch at a time).
    private func pump(untilSent: Bool, receive: (RenderReply) -> Void) -> Failure? {
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while untilSent ? sent < outgoing.count : answered < expected.count {
            if PluginScanner.now() >= deadline {
                let now = rawProgress()
                if now != seen {
                    seen = now
                    deadline = PluginScanner.now() + timeout
                } else {
                    let progress = readProgress()
                    _ = stopped(kill: true)
                    return Failure(reason: "timed out after \(Int((timeout * 1000).rounded())) ms", sequence: progress.sequence,
                                   step: progress.step)
                }
            }
            let remaining = deadline - PluginScanner.now()
            var fds = [pollfd(fd: replies, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: requests, events: sent < outgoing.count ? Int16(POLLOUT) : 0, revents: 0)]
            let slice = min(remaining, max(timeout / 4, 0.001))
            let ready = poll(&fds, 2, Int32(max(1, min(slice * 1000 + 1, 60_000))))
            if ready < 0 && errno != EINTR { return died() }
            if ready <= 0 {
                let now = rawProgress()
                if now != seen {
                    seen = now
                    deadline = PluginScanner.now() + timeout
                }
                continue
            }
            if fds[1].revents & Int16(POLLOUT) != 0 {
                let written = outgoing.withUnsafeBytes {
                    Glibc.send(requests, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
                }
                if written > 0 { sent += written } else if written < 0 && errno != EAGAIN && errno != EINTR { return died() }
            } else if fds[1].revents & Int16(POLLERR | POLLHUP) != 0 && sent < outgoing.count {
                return died()
            }
            if fds[0].revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
                let count = buffer.withUnsafeMutableBytes { read(replies, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { return died() }
                incoming += buffer[0..<count]
                var consumed = 0
                while incoming.count - consumed >= 4 {
                    var header = WireReader(incoming, offset: consumed)
                    guard let length = try? header.u32() else { break }
                    guard incoming.count - consumed - 4 >= Int(length) else { break }
                    let payload = Array(incoming[(consumed + 4)..<(consumed + 4 + Int(length))])
                    consumed += 4 + Int(length)
                    var reader = WireReader(payload, offset: 1)
                    guard answered < expected.count, payload.first == WorkerFrame.reply,
                          let reply = try? RenderReply.decode(&reader), reply.sequence == expected[answered] else {
                        let progress = readProgress()
                        _ = stopped(kill: true)
                        return Failure(reason: "sent a malformed reply", sequence: progress.sequence, step: progress.step)
                    }
                    receive(reply)
                    answered += 1
                    deadline = PluginScanner.now() + timeout
                }
                if consumed > 0 { incoming.removeFirst(consumed) }
            }
        }
        if sent == outgoing.count { outgoing = []; sent = 0 }
        return nil
    }

    /// Ends the conversation in the worker (`conversationDidEnd:`) and waits
    /// for it to exit, at most `timeout` seconds.
    func finish(timeout: Double) {
        guard isRunning else { return }
        var writer = WireWriter()
        writer.finish(writer.begin(WorkerFrame.end))
        _ = send(writer.bytes)
        close(requests)
        requests = -1
        // Wait for the worker to close its end (it exits after the hooks).
        let deadline = PluginScanner.now() + timeout
        var byte: UInt8 = 0
        while PluginScanner.now() < deadline {
            var entry = pollfd(fd: replies, events: Int16(POLLIN), revents: 0)
            let ready = poll(&entry, 1, Int32(max(1, (deadline - PluginScanner.now()) * 1000)))
            if ready < 0 && errno == EINTR { continue }
            if ready <= 0 { break }
            if read(replies, &byte, 1) <= 0 { break }
        }
        _ = stopped(kill: true)
    }

    private func died() -> Failure {
        let progress = readProgress()
        return Failure(reason: stopped(kill: true), sequence: progress.sequence, step: progress.step)
    }

    /// The progress page as it is: (sequence, step word).
    private func rawProgress() -> (UInt64, UInt64) {
        var words: (UInt64, UInt64) = (0, 0)
        _ = withUnsafeMutableBytes(of: &words) { pread(progress, $0.baseAddress, 16, 0) }
        return words
    }

    private func readProgress() -> (sequence: UInt64?, step: Int?) {
        var words: (UInt64, UInt64) = (0, 0)
        let count = withUnsafeMutableBytes(of: &words) { pread(progress, $0.baseAddress, 16, 0) }
        guard count == 16, words.1 >> 32 == 1 else { return (nil, nil) }
        return (words.0, Int(words.1 & 0xFFFF_FFFF))
    }

    /// Reaps the worker (killing it first when asked); returns how it ended.
    private func stopped(kill force: Bool) -> String {
        guard pid > 0 else { return "is not running" }
        if force { kill(pid, SIGKILL) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        pid = -1
        expected = []
        incoming = []
        outgoing = []
        early = []
        for fd in [requests, replies, progress] where fd >= 0 { close(fd) }
        requests = -1; replies = -1; progress = -1
        let signal = status & 0x7F
        if signal != 0 { return "crashed (\(PluginScanner.signalName(signal)))" }
        return "exited with status \((status >> 8) & 0xFF)"
    }

    private func send(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = Glibc.send(requests, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                if written < 0 { if errno == EINTR { continue }; return false }
                offset += written
            }
            return true
        }
    }

    private static func error(_ call: String) -> String {
        "cannot start a render worker: \(call): \(String(cString: strerror(errno)))"
    }
}

/// Descriptor helpers for child processes.
enum Descriptor {
    /// Moves `fd` to a number of 10 or more, close-on-exec, so that
    /// `posix_spawn`'s dup2 onto 0–4 never meets the same number.
    static func high(_ fd: Int32) -> Int32 {
        guard fd >= 0 else { return fd }
        let moved = fcntl(fd, F_DUPFD_CLOEXEC, 10)
        guard moved >= 0 else { return fd }
        close(fd)
        return moved
    }
}

import CellHostCore
import Foundation
import Glibc

/// What happens when code running in this process crashes during `render`:
/// a plugin under `--isolation none` (or one installed with the host, under
/// `auto`), or the host itself. Every message rendered before the crash is
/// written out, then one line says what crashed on which message, and the
/// run ends with `exitStatus`.
///
/// A plugin call in this process that does not return within
/// `--plugin-timeout` ends the run the same way (`watch`).
///
/// The handler runs on the crashing thread, on an alternate stack: it asks
/// the render pipeline to write every complete message before the one that
/// crashed (the output thread, or with several render threads the thread
/// that writes in order), waits for it (5 s at most), prints the diagnostic
/// and exits. It is a last resort: the crashed code may have left the
/// process in any state.
enum CrashHandler {
    /// The exit status of a run a crash ended (docs/cli.md).
    static let exitStatus: Int32 = 4

    nonisolated(unsafe) private static var pipeline: RenderPipeline?

    /// Installs the handler for the signals a crash raises.
    static func install(for pipeline: RenderPipeline) {
        self.pipeline = pipeline
        let size = 256 << 10
        if let memory = malloc(size) {
            var stack = stack_t(ss_sp: memory, ss_flags: 0, ss_size: size)
            sigaltstack(&stack, nil)
        }

        var action = sigaction()
        action.__sigaction_handler.sa_handler = { signal in CrashHandler.handle(signal) }
        action.sa_flags = Int32(SA_ONSTACK) | Int32(bitPattern: UInt32(SA_RESETHAND))
        sigemptyset(&action.sa_mask)
        for signal in [SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS] { sigaction(signal, &action, nil) }
    }

    private static func handle(_ signal: Int32) {
        // A second crash (say, while draining) ends the process at once.
        for other in [SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS] { Glibc.signal(other, SIG_DFL) }
        stop("crashed (\(PluginScanner.signalName(signal)))")
    }

    /// Writes every complete message, one line saying what `happened` on
    /// which message (on the thread of `state`; nil: the calling thread),
    /// and exits with `exitStatus`.
    static func stop(_ happened: String, in state: CallState? = nil) -> Never {
        var text = "cellhost: \(happened)"
        if let pipeline, let site = pipeline.crashSite(in: state) {
            let id = site.messageID.isEmpty ? "(no id)" : site.messageID
            if let className = site.className {
                text = "cellhost: \(site.pluginID ?? "?"): \(className) \(happened) on message \(id) "
                    + "(\(site.source):\(site.line)); stopped, as --isolation none runs plugins in this process"
            } else {
                text = "cellhost: \(happened) while rendering message \(id) (\(site.source):\(site.line))"
            }
        }
        _ = pipeline?.drainAfterCrash(in: state)
        text += "\n"
        text.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
        _exit(exitStatus)
    }

    /// Watches plugin calls made in this process, on every thread that
    /// makes them (`Runtime.callStates`): one that has not returned after
    /// `timeout` seconds ends the run like a crash (`timed out after
    /// 500 ms`). Checks four times per `timeout`.
    static func watch(_ calls: CallStates, timeout: Double) {
        let thread = Thread {
            var last: [ObjectIdentifier: (progress: UInt64, since: Double)] = [:]
            while true {
                usleep(useconds_t(max(5_000, min(timeout * 250_000, 1_000_000))))
                let now = PluginScanner.now()
                for state in calls.all {
                    let progress = state.progress.value
                    let key = ObjectIdentifier(state)
                    if let seen = last[key], seen.progress == progress, progress % 2 == 1 {
                        if now - seen.since >= timeout {
                            stop("timed out after \(Int((timeout * 1000).rounded())) ms", in: state)
                        }
                    } else {
                        last[key] = (progress, now)
                    }
                }
            }
        }
        thread.name = "cellhost-watchdog"
        thread.start()
    }
}

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
/// the render pipeline's output thread to write every complete message,
/// waits for it (5 s at most), prints the diagnostic and exits. It is a
/// last resort: the crashed code may have left the process in any state.
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
    /// which message, and exits with `exitStatus`.
    static func stop(_ happened: String) -> Never {
        var text = "cellhost: \(happened)"
        if let pipeline, let site = pipeline.crashSite {
            let id = site.messageID.isEmpty ? "(no id)" : site.messageID
            if let className = site.className {
                text = "cellhost: \(site.pluginID ?? "?"): \(className) \(happened) on message \(id) "
                    + "(\(site.source):\(site.line)); stopped, as --isolation none runs plugins in this process"
            } else {
                text = "cellhost: \(happened) while rendering message \(id) (\(site.source):\(site.line))"
            }
        }
        _ = pipeline?.drainAfterCrash()
        text += "\n"
        text.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
        _exit(exitStatus)
    }

    /// Watches plugin calls made in this process: one that has not returned
    /// after `timeout` seconds ends the run like a crash (`timed out after
    /// 500 ms`). Checks four times per `timeout`.
    static func watch(_ calls: CallProgress, timeout: Double) {
        let thread = Thread {
            var last: UInt64 = 0
            var since = PluginScanner.now()
            while true {
                usleep(useconds_t(max(5_000, min(timeout * 250_000, 1_000_000))))
                let progress = calls.value
                if progress != last || progress % 2 == 0 {
                    last = progress
                    since = PluginScanner.now()
                } else if PluginScanner.now() - since >= timeout {
                    stop("timed out after \(Int((timeout * 1000).rounded())) ms")
                }
            }
        }
        thread.name = "cellhost-watchdog"
        thread.start()
    }
}

import CellHostABI
import Foundation
import Glibc

/// The render worker process: runs plugin classes on behalf of a host
/// (`Supervisor`), so that a plugin that crashes, hangs or exhausts memory
/// takes down only the worker.
///
/// Descriptors: 0 requests from the host, 3 replies to the host, 4 the
/// progress page (which message and step is running, read by the host after
/// a crash); 1 and 2 point at /dev/null, so nothing a plugin prints reaches
/// the user.
public enum RenderWorker {
    /// The argument that puts the executable in worker mode.
    public static let childCommand = "__render-worker"

    /// Layout of the progress page: u64 sequence, u32 step, u32 running.
    static let progressSize = 16

    /// True when ThreadSanitizer's or AddressSanitizer's runtime is in the process.
    static var sanitizerRuntimeLoaded: Bool {
        let handle = dlopen(nil, RTLD_NOW)
        defer { if let handle { dlclose(handle) } }
        return dlsym(handle, "__tsan_init") != nil || dlsym(handle, "__asan_init") != nil
    }

    /// The worker's main loop; returns the exit status.
    public static func run() -> Int32 {
        signal(SIGPIPE, SIG_IGN)
        guard let payload = WireIO.readFrame(0), payload.first == WorkerFrame.setup,
              let setup = try? { () throws -> WorkerSetup in
                  var reader = WireReader(payload, offset: 1)
                  return try WorkerSetup.decode(&reader)
              }() else { return 2 }
        // A sanitizer's runtime reserves terabytes of address space for its
        // shadow memory: an address-space limit would kill the worker at
        // start, so sanitizer builds (for the project's tests) run without it.
        if setup.memoryLimit > 0 && !sanitizerRuntimeLoaded {
            var limit = rlimit(rlim_cur: rlim_t(setup.memoryLimit), rlim_max: rlim_t(setup.memoryLimit))
            setrlimit(Int32(RLIMIT_AS.rawValue), &limit)
        }
        let progress = mmap(nil, progressSize, PROT_READ | PROT_WRITE, MAP_SHARED, 4, 0)
        let page = progress == MAP_FAILED ? nil : progress?.assumingMemoryBound(to: UInt64.self)
        let runtime = Runtime(dispatcher: Dispatcher(mode: Dispatcher.Mode(rawValue: setup.dispatch) ?? .direct))
        let logs = LogCollector()
        runtime.diagnostics = logs
        runtime.output = setup.output
        PluginLoader.link(described: setup.plugins, into: runtime)
        let message = Message()
        let canvas = CellCanvas()
        let limits = OutputLimits(rows: setup.maximumRows, bytes: setup.maximumBytes)
        canvas.limits = limits
        message.arena.stringLimit = limits.bytes
        while let frame = WireIO.readFrame(0) {
            guard let kind = frame.first else { return 2 }
            if kind == WorkerFrame.end {
                runtime.shutdown()
                return 0
            }
            guard kind == WorkerFrame.render else { return 2 }
            var reader = WireReader(frame, offset: 1)
            guard let count = try? reader.u32() else { return 2 }
            var out = WireWriter()
            for _ in 0..<count {
                guard let request = try? RenderRequest.decode(&reader) else { return 2 }
                var reply = RenderReply(sequence: request.sequence)
                render(request, me: setup.me, runtime: runtime, message: message, canvas: canvas, page: page, into: &reply)
                reply.logs = logs.take()
                let start = out.begin(WorkerFrame.reply)
                reply.encode(into: &out)
                out.finish(start)
                // Replies go out together (one write, one wake-up of the
                // host per batch); the host times each message by the
                // progress page, not by the replies.
                if out.bytes.count >= 1 << 16 {
                    guard WireIO.writeAll(3, out.bytes) else { return 0 }
                    out.bytes.removeAll(keepingCapacity: true)
                }
            }
            guard out.bytes.isEmpty || WireIO.writeAll(3, out.bytes) else { return 0 }
        }
        return 0
    }

    private static func render(_ request: RenderRequest, me: String?, runtime: Runtime, message: Message, canvas: CellCanvas,
                               page: UnsafeMutablePointer<UInt64>?, into reply: inout RenderReply) {
        canvas.reset()
        let loaded: Bool = request.record.withUnsafeBufferPointer { (try? message.load($0, me: me)) != nil }
        guard loaded else { return }
        if runtime.baseDirectory.path != request.baseDirectory {
            runtime.baseDirectory = BaseDirectory(path: request.baseDirectory)
        }
        if request.plainText {
            guard let name = request.steps.first?.className, let cls = runtime.classes[name] else { return }
            page?[0] = request.sequence
            page?[1] = 1 << 32
            let messageClass = request.steps.first?.messageClass ?? ""
            let rendered = runtime.plainText(of: cls, message, into: canvas, width: Int(request.width), messageClass: messageClass)
            page?[1] = 0
            if rendered {
                reply.renderedStep = 0
                reply.bytes = Array(canvas.bytes.elements)
                reply.items = Array(canvas.items.elements)
            }
            return
        }
        var steps: [Registry.Step] = []
        for step in request.steps {
            guard let cls = runtime.classes[step.className] else { break }
            steps.append(Registry.Step(cls: cls, messageClass: step.messageClass, isOverride: false))
        }
        let walk = ChainWalk(steps: steps)
        var renderer = MessageRenderer(runtime: runtime)
        renderer.beforeStep = { index in
            page?[0] = request.sequence
            page?[1] = UInt64(index) | 1 << 32
        }
        renderer.advance(walk, message, into: canvas, width: Int(request.width), flags: request.flags)
        page?[1] = 0
        for attempt in walk.attempts {
            let index = steps.firstIndex { $0.cls.name == attempt.className && $0.messageClass == attempt.messageClass } ?? 0
            reply.attempts.append(.init(step: index, result: attempt.result, detail: attempt.detail))
        }
        if let outcome = walk.outcome {
            reply.renderedStep = steps.firstIndex { $0.cls === outcome.cls && $0.messageClass == outcome.messageClass }
            reply.bytes = Array(canvas.bytes.elements)
            reply.items = Array(canvas.items.elements)
            reply.cells = canvas.blockCells
            reply.droppedLines = canvas.droppedLines
        }
    }
}

/// Collects plugin log lines in the worker, to send with the reply.
final class LogCollector: DiagnosticSink {
    private var lines: [RenderReply.Log] = []

    func pluginLog(plugin: String, level: cellhost_log_level, message: String) {
        guard lines.count < 1000 else { return }
        lines.append(.init(plugin: plugin, level: UInt32(bitPattern: level), message: String(decoding: message.utf8.prefix(4096), as: UTF8.self)))
    }

    func take() -> [RenderReply.Log] {
        defer { lines.removeAll() }
        return lines
    }
}

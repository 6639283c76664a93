import CellHostABI
import Foundation
import Glibc

/// The child process of `cellhost check-plugin`: the host re-executed as
/// `cellhost __check-plugin`, the only process in which the plugin's code
/// runs. It reads a `CheckSetup` (JSON) on standard input, performs the
/// operations from `setup.start` on, and reports on descriptor 3, one line
/// each:
///
///     B INDEX        operation INDEX begins
///     T              a plugin call begins (the parent's watchdog restarts)
///     O JSON         the operation's CheckObservation
///
/// Standard output and error are /dev/null. When the child dies or stops
/// answering, the parent knows from the last `B` line which operation did it.
public enum CheckChild {
    /// The argument that puts the executable in check mode.
    public static let childCommand = "__check-plugin"

    /// The child's main loop; returns the exit status.
    public static func run() -> Int32 {
        signal(SIGPIPE, SIG_IGN)
        var input: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            input += buffer[0..<count]
        }
        guard let setup = try? JSONDecoder().decode(CheckSetup.self, from: Data(input)) else { return 2 }
        // As a render worker: a plugin that allocates without end meets the
        // limit (a sanitizer's shadow memory would not fit under one).
        if setup.memoryLimit > 0 && !RenderWorker.sanitizerRuntimeLoaded {
            var limit = rlimit(rlim_cur: rlim_t(setup.memoryLimit), rlim_max: rlim_t(setup.memoryLimit))
            setrlimit(Int32(RLIMIT_AS.rawValue), &limit)
        }
        let child = Performer(setup: setup)
        guard setup.start >= 0 else { return 2 }
        for index in setup.operations.indices where index >= setup.start {
            guard send("B \(index)\n") else { return 1 }
            let observation = child.perform(setup.operations[index])
            guard let json = try? JSONEncoder().encode(observation),
                  send("O " + String(decoding: json, as: UTF8.self) + "\n") else { return 1 }
        }
        return 0
    }

    static func send(_ line: String) -> Bool { WireIO.writeAll(3, Array(line.utf8)) }

    /// Announces a plugin call to the parent's watchdog.
    static func tick() { _ = send("T\n") }
}

/// Drops plugin log lines (the render path keeps the last error itself).
private final class QuietSink: DiagnosticSink {
    func pluginLog(plugin: String, level: cellhost_log_level, message: String) {}
}

/// Performs operations with the library's own render path: `Runtime`,
/// `MessageRenderer` (canRender, render, rollback), `CellCanvas` (caps).
private final class Performer {
    let setup: CheckSetup
    let runtime: Runtime
    let sink = QuietSink()
    let message = Message()
    let canvas = CellCanvas()
    /// The library opened by `initialize`, for `deinitialize`.
    var library: PluginLibrary?
    /// Renders over the time limit, by class.
    var slow: [String: Int] = [:]
    /// After this many renders over the limit, a class's other renders are
    /// skipped: a slow plugin costs seconds, not minutes, to check.
    static let slowRendersBeforeSkipping = 3

    init(setup: CheckSetup) {
        self.setup = setup
        runtime = Runtime(dispatcher: Dispatcher(mode: Dispatcher.Mode(rawValue: setup.dispatch) ?? .direct))
        runtime.diagnostics = sink
        message.arena.stringLimit = OutputLimits.standard.bytes
        let linking = setup.operations.dropFirst(max(0, setup.start)).contains {
            $0.kind != .initialize && $0.kind != .deinitialize
        }
        if linking { PluginLoader.link(described: setup.records, into: runtime) }
    }

    func perform(_ operation: CheckOperation) -> CheckObservation {
        switch operation.kind {
        case .initialize: return initialize()
        case .deinitialize: return deinitialize()
        default: break
        }
        guard let cls = runtime.classes[operation.className] else {
            return CheckObservation(result: "failed", detail: "class '\(operation.className)' is not linked")
        }
        if operation.kind == .open {
            CheckChild.tick()
            if let reason = cls.ensureBound() { return CheckObservation(result: "failed", detail: reason) }
            return CheckObservation(result: "ok")
        }
        guard operation.sample >= 0, operation.sample < setup.samples.count else {
            return CheckObservation(result: "failed", detail: "no sample \(operation.sample)")
        }
        var json = setup.samples[operation.sample].json
        do {
            try json.withUTF8 { try message.load($0, me: nil) }
        } catch {
            return CheckObservation(result: "failed", detail: "the sample is not a JSON object: \(error)")
        }
        // Each operation is a conversation of its own, like one `cellhost render`.
        CheckChild.tick()
        runtime.endConversation()
        switch operation.kind {
        case .render, .renderAgain:
            if slow[cls.name, default: 0] >= Performer.slowRendersBeforeSkipping {
                return CheckObservation(result: "skipped", detail: "too slow")
            }
            var observation = render(cls, operation)
            // A call over the limit (but not far over it) is tried twice
            // more and the fastest counts, so that a busy machine does not
            // fail a plugin.
            var tries = 1
            while operation.kind == .render && observation.seconds > setup.limit
                    && observation.seconds < 3 * setup.limit && tries < 3 {
                let again = render(cls, operation)
                if again.seconds < observation.seconds { observation.seconds = again.seconds }
                tries += 1
            }
            if observation.seconds > setup.limit { slow[cls.name, default: 0] += 1 }
            return observation
        case .canRender:
            if slow[cls.name, default: 0] >= Performer.slowRendersBeforeSkipping {
                return CheckObservation(result: "skipped", detail: "too slow")
            }
            return canRender(cls, operation)
        case .plainText:
            return plainText(cls)
        default:
            return CheckObservation(result: "failed", detail: "unexpected operation")
        }
    }

    private func initialize() -> CheckObservation {
        var record = PluginRecord(file: setup.file, state: .loaded)
        CheckChild.tick()
        guard let opened = PluginLibrary.open(setup.file, record: &record, runtime: runtime) else {
            return CheckObservation(result: "failed", detail: record.failure ?? "could not be opened")
        }
        library = opened
        var observation = CheckObservation(result: "ok")
        observation.classes = opened.classes.map(\.name)
        observation.samples = Self.samples(of: opened)
        return observation
    }

    private func deinitialize() -> CheckObservation {
        guard let library else { return CheckObservation(result: "failed", detail: "the plugin is not open") }
        guard library.hasDeinit else { return CheckObservation(result: "absent") }
        CheckChild.tick()
        library.finish()
        return CheckObservation(result: "ok")
    }

    /// The messages a plugin offers through its "cellhost.samples"
    /// extension (samples.h): at most 256, each at most 64 KiB.
    static func samples(of library: PluginLibrary) -> [String] {
        guard let table = library.pluginExtension(CELLHOST_EXT_SAMPLES),
              let read = try? DescriptorReader.copy(cellhost_samples.self, from: table, field: "samples") else { return [] }
        guard let messages = read.value.messages else { return [] }
        var found: [String] = []
        for index in 0..<Int(min(read.value.count, 256)) {
            guard let message = messages[index] else { continue }
            let length = strnlen(message, 64 * 1024 + 1)
            guard length <= 64 * 1024 else { continue }
            found.append(String(decoding: UnsafeRawBufferPointer(start: message, count: length), as: UTF8.self))
        }
        return found
    }

    /// One render through `MessageRenderer`, with only `cls` on the chain.
    private func render(_ cls: RuntimeClass, _ operation: CheckOperation) -> CheckObservation {
        canvas.reset()
        canvas.limits = OutputLimits.standard
        // The instance (and its conversationWillBegin:) before the clock starts.
        CheckChild.tick()
        _ = runtime.conversation.instance(of: cls, runtime: runtime)
        let walk = ChainWalk(steps: [Registry.Step(cls: cls, messageClass: operation.messageClass, isOverride: false)])
        CheckChild.tick()
        let start = PluginScanner.now()
        MessageRenderer(runtime: runtime).advance(walk, message, into: canvas, width: max(1, operation.width), flags: 0)
        let seconds = PluginScanner.now() - start
        var observation: CheckObservation
        if walk.outcome != nil {
            observation = CheckObservation(result: "rendered")
        } else {
            let attempt = walk.attempts.last
            observation = CheckObservation(result: attempt?.result ?? "error", detail: attempt?.detail)
        }
        observation.seconds = seconds
        observation.lines = canvas.lineEnds + canvas.droppedLines + (canvas.items.isEmpty ? 0 : 1)
        observation.bytes = canvas.bytes.count + 4 * canvas.blockCells.count
        observation.capped = canvas.truncated
        observation.digest = Self.digest(canvas)
        return observation
    }

    private func canRender(_ cls: RuntimeClass, _ operation: CheckOperation) -> CheckObservation {
        guard let method = cls.lookup(.canRender) else { return CheckObservation(result: "absent") }
        let object = runtime.conversation.instance(of: cls, runtime: runtime)
        func ask() -> Bool {
            CheckChild.tick()
            return runtime.withContext(for: method.owner, width: max(1, operation.width), messageClass: operation.messageClass,
                                       flags: 0) {
                runtime.dispatcher.canRender(method, receiver: object.handle, message: message.handle, context: $0)
            }
        }
        let first = ask()
        _ = render(cls, operation)
        let second = ask()
        var observation = CheckObservation(result: "ok")
        observation.answers = [first, second]
        return observation
    }

    private func plainText(_ cls: RuntimeClass) -> CheckObservation {
        guard let method = cls.lookup(.plainText) else { return CheckObservation(result: "absent") }
        let object = runtime.conversation.instance(of: cls, runtime: runtime)
        canvas.reset()
        canvas.limits = OutputLimits(rows: 8, bytes: 4096) // what a reply quote allows
        CheckChild.tick()
        let result = runtime.withContext(for: method.owner, width: 80, messageClass: cls.messageClasses.first ?? "", flags: 0) {
            runtime.dispatcher.plainText(method, receiver: object.handle, message: message.handle, context: $0,
                                         builder: BuilderHandle.handle(canvas))
        }
        var observation: CheckObservation
        switch result {
        case Int32(CELLHOST_RENDERED): observation = CheckObservation(result: "rendered")
        case Int32(CELLHOST_DECLINED): observation = CheckObservation(result: "declined")
        default: observation = CheckObservation(result: "error", detail: runtime.lastError[method.owner.pluginID])
        }
        guard observation.result == "rendered" else { return observation }
        var text: [UInt8] = []
        var lines = canvas.items.isEmpty ? 0 : 1
        for item in canvas.items.elements {
            switch item {
            case let .text(start, end, _): text += canvas.bytes.elements[Int(start)..<Int(end)]
            case .lineBreak, .row: lines += 1
            }
        }
        observation.lines = lines
        observation.text = String(decoding: text.prefix(200), as: UTF8.self)
        return observation
    }

    /// FNV-1a over the content model: text bytes, items, block cells.
    static func digest(_ canvas: CellCanvas) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func mix(_ value: UInt64) {
            var value = value
            for _ in 0..<8 {
                hash = (hash ^ (value & 0xFF)) &* 0x100_0000_01b3
                value >>= 8
            }
        }
        for byte in canvas.bytes.elements { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        for item in canvas.items.elements {
            switch item {
            case let .text(start, end, style): mix(1); mix(UInt64(UInt32(bitPattern: start))); mix(UInt64(UInt32(bitPattern: end))); mix(UInt64(style.rawValue))
            case .lineBreak: mix(2)
            case let .row(start, count): mix(3); mix(UInt64(UInt32(bitPattern: start))); mix(UInt64(UInt32(bitPattern: count)))
            }
        }
        for cell in canvas.blockCells {
            mix(UInt64(cell.codepoint) | UInt64(cell.flags) << 32)
            mix(UInt64(cell.fg) | UInt64(cell.bg) << 32)
        }
        return hash
    }
}

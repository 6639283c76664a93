import CellHostABI

/// The frames between the host and a render worker.
///
/// Host to worker: `S` setup (`WorkerSetup`, binary), `R` a batch of render
/// requests, `E` end of conversation (the worker sends
/// `conversationDidEnd:` and exits). Worker to host: `A` one render reply
/// per request, in order.
enum WorkerFrame {
    static let setup = UInt8(ascii: "S")
    static let render = UInt8(ascii: "R")
    static let end = UInt8(ascii: "E")
    static let reply = UInt8(ascii: "A")
}

/// What a worker needs to build its runtime: the records of every loaded
/// plugin (it opens only those whose classes it is asked to run), and how
/// to read messages.
///
/// Sent in the binary form of the plugin cache (`PluginCatalogCoding`):
/// with 1000 plugins, JSON took 200 M instructions to encode, more than the
/// rest of start-up together.
struct WorkerSetup {
    /// The plugins to link, in the order to link them (every class accepted).
    var plugins: PluginCatalog
    var me: String?
    var dispatch: String
    /// Address-space limit of the worker, in bytes (0: none).
    var memoryLimit: Int
    /// The host's per-message content caps (`OutputLimits`).
    var maximumRows: Int
    var maximumBytes: Int
    /// What the "cellhost.output" extension tells the worker's plugins.
    var output: PluginOutput

    func encode(into writer: inout WireWriter) {
        var encoder = PluginCatalogEncoder()
        for index in plugins.plugins.indices { encoder.append(plugins, plugin: index) }
        encoder.encode(into: &writer)
        writer.optionalString(me)
        writer.string(dispatch)
        writer.u64(UInt64(clamping: memoryLimit))
        writer.u64(UInt64(clamping: maximumRows))
        writer.u64(UInt64(clamping: maximumBytes))
        writer.string(output.format)
        writer.u32(output.colors)
        writer.string(output.images.rawValue)
        writer.u64(UInt64(clamping: output.imageRows))
    }

    static func decode(_ reader: inout WireReader) throws -> WorkerSetup {
        let plugins = try PluginCatalog.decode(&reader)
        let me = try reader.optionalString()
        let dispatch = try reader.string()
        let memoryLimit = Int(clamping: try reader.u64())
        let maximumRows = Int(clamping: try reader.u64())
        let maximumBytes = Int(clamping: try reader.u64())
        var output = PluginOutput.standard
        output.format = try reader.string()
        output.colors = try reader.u32()
        guard let images = ImageMode(rawValue: try reader.string()) else { throw WireReader.WireError() }
        output.images = images
        output.imageRows = Int(clamping: try reader.u64())
        return WorkerSetup(plugins: plugins, me: me, dispatch: dispatch, memoryLimit: memoryLimit,
                           maximumRows: maximumRows, maximumBytes: maximumBytes, output: output)
    }
}

/// Render one message, trying `steps` (consecutive steps of its fallback
/// chain, all run by this worker) in order; or, for a reply quote, ask the
/// one class in `steps` for the message's `plainTextForMessage:context:into:`.
struct RenderRequest {
    var plainText = false
    var sequence: UInt64
    var width: UInt32
    var flags: UInt32
    var steps: [(className: String, messageClass: String)]
    var record: [UInt8]
    /// `cellhost_context.base_directory` for the message.
    var baseDirectory: String

    func encode(into writer: inout WireWriter) {
        writer.u8(plainText ? 1 : 0)
        writer.u64(sequence)
        writer.u32(width)
        writer.u32(flags)
        writer.u32(UInt32(steps.count))
        for step in steps {
            writer.string(step.className)
            writer.string(step.messageClass)
        }
        writer.data(record)
        writer.string(baseDirectory)
    }

    static func decode(_ reader: inout WireReader) throws -> RenderRequest {
        let plainText = try reader.u8() != 0
        let sequence = try reader.u64()
        let width = try reader.u32()
        let flags = try reader.u32()
        let count = try reader.u32()
        guard count <= 4096 else { throw WireReader.WireError() }
        var steps: [(String, String)] = []
        for _ in 0..<count { steps.append((try reader.string(), try reader.string())) }
        let record = Array(try reader.data())
        return RenderRequest(plainText: plainText, sequence: sequence, width: width, flags: flags, steps: steps, record: record,
                             baseDirectory: try reader.string())
    }
}

/// A worker's answer for one request: which step rendered (nil: none did),
/// what the others answered, what the plugins logged, and the content.
struct RenderReply {
    struct Attempt {
        var step: Int
        var result: String
        var detail: String?
    }

    struct Log {
        var plugin: String
        var level: UInt32
        var message: String
    }

    var sequence: UInt64
    var renderedStep: Int?
    var attempts: [Attempt] = []
    var logs: [Log] = []
    var bytes: [UInt8] = []
    var items: [ContentItem] = []
    var cells: [cellhost_block_cell] = []
    /// Lines dropped past the content caps.
    var droppedLines = 0

    func encode(into writer: inout WireWriter) {
        writer.u64(sequence)
        writer.u32(UInt32(clamping: droppedLines))
        writer.i32(renderedStep.map { Int32(clamping: $0) } ?? -1)
        writer.u32(UInt32(attempts.count))
        for attempt in attempts {
            writer.u32(UInt32(clamping: attempt.step))
            writer.string(attempt.result)
            writer.u8(attempt.detail == nil ? 0 : 1)
            writer.string(attempt.detail ?? "")
        }
        writer.u32(UInt32(logs.count))
        for log in logs {
            writer.string(log.plugin)
            writer.u32(log.level)
            writer.string(log.message)
        }
        writer.data(bytes)
        writer.u32(UInt32(items.count))
        for item in items {
            switch item {
            case let .text(start, end, style):
                writer.u8(0); writer.i32(start); writer.i32(end); writer.u32(style.rawValue)
            case .lineBreak:
                writer.u8(1); writer.i32(0); writer.i32(0); writer.u32(0)
            case let .row(start, count):
                writer.u8(2); writer.i32(start); writer.i32(count); writer.u32(0)
            }
        }
        writer.u32(UInt32(cells.count))
        for cell in cells {
            writer.u32(cell.codepoint); writer.u32(cell.fg); writer.u32(cell.bg); writer.u32(cell.flags)
        }
    }

    /// Decodes a reply, checking every range against the content it indexes,
    /// so a corrupt worker cannot make the host index out of bounds.
    static func decode(_ reader: inout WireReader) throws -> RenderReply {
        var reply = RenderReply(sequence: try reader.u64())
        reply.droppedLines = Int(try reader.u32())
        let rendered = try reader.i32()
        reply.renderedStep = rendered >= 0 ? Int(rendered) : nil
        let attemptCount = try reader.u32()
        guard attemptCount <= 4096 else { throw WireReader.WireError() }
        for _ in 0..<attemptCount {
            let step = Int(try reader.u32())
            let result = try reader.string()
            let hasDetail = try reader.u8() != 0
            let detail = try reader.string()
            reply.attempts.append(Attempt(step: step, result: result, detail: hasDetail ? detail : nil))
        }
        let logCount = try reader.u32()
        guard logCount <= 1 << 20 else { throw WireReader.WireError() }
        for _ in 0..<logCount {
            reply.logs.append(Log(plugin: try reader.string(), level: try reader.u32(), message: try reader.string()))
        }
        reply.bytes = Array(try reader.data())
        let itemCount = try reader.u32()
        var items: [ContentItem] = []
        for _ in 0..<itemCount {
            let kind = try reader.u8()
            let a = try reader.i32(), b = try reader.i32(), style = try reader.u32()
            switch kind {
            case 0:
                guard a >= 0, a <= b, Int(b) <= reply.bytes.count else { throw WireReader.WireError() }
                items.append(.text(start: a, end: b, style: Style(rawValue: style & Style.pluginMask)))
            case 1: items.append(.lineBreak)
            case 2: items.append(.row(start: a, count: b))
            default: throw WireReader.WireError()
            }
        }
        let cellCount = try reader.u32()
        guard cellCount <= 1 << 24 else { throw WireReader.WireError() }
        for _ in 0..<cellCount {
            reply.cells.append(cellhost_block_cell(codepoint: try reader.u32(), fg: try reader.u32(), bg: try reader.u32(),
                                                   flags: try reader.u32()))
        }
        for case let .row(start, count) in items {
            guard start >= 0, count >= 0, Int(start) + Int(count) <= reply.cells.count else { throw WireReader.WireError() }
        }
        reply.items = items
        return reply
    }
}

extension CellCanvas {
    /// Appends content a worker built (already sanitized by the worker's
    /// builder functions; text is sanitized again here, as it crosses a
    /// process boundary).
    func appendContent(of reply: RenderReply) {
        defer { countDropped(lines: reply.droppedLines) }
        for item in reply.items {
            switch item {
            case let .text(start, end, style):
                reply.bytes.withUnsafeBufferPointer {
                    append(UnsafeBufferPointer(rebasing: $0[Int(start)..<Int(end)]), style: style)
                }
            case .lineBreak:
                lineBreak()
            case let .row(start, count):
                reply.cells.withUnsafeBufferPointer {
                    appendRow(UnsafeBufferPointer(rebasing: $0[Int(start)..<Int(start) + Int(count)]))
                }
            }
        }
    }
}

import Glibc

/// Reads Matrix events: Element's "Export chat" JSON, a `/messages` page, a
/// `/sync` response, a JSON array of events, or events on their own (one
/// object, JSON Lines or concatenated).
///
/// A file is read twice. The first pass collects what events say about
/// others (edits, reactions, deletions: memory grows with their number, not
/// the messages'), the names members start with, and each event array's
/// order; the second shows the messages oldest first with all of it
/// applied. An array that is newest first (a `/messages` page read with
/// `dir=b`) is shown from its end: the first pass records where each of its
/// events is (16 bytes each) and the second reads them back from there.
///
/// A stream that cannot be read twice (a pipe) is read once: relations are
/// applied to the messages that come after them, and those that came too
/// late are counted in one warning at the end. A `/messages` page or a root
/// array is then held whole until it ends, as its order is known only then.
public enum MatrixImporter: ChatImporter {
    public static var format: ImportFormat { .matrix }

    public static func run(_ input: ImportInput, options: ImportOptions, sink: ImportSink) throws {
        let source = try input.requireSource(.matrix)
        let files = MatrixMediaFiles(directory: MatrixMediaFiles.directory(ofInput: input.name, fd: source.fd))
        let timeline = MatrixTimeline(sink: sink, options: options, files: files)
        if source.isSeekable {
            let orders = firstPass(source, timeline)
            try source.rewind()
            do {
                try secondPass(source, timeline, orders)
            } catch {
                timeline.finish(readOnce: false)
                throw error
            }
            timeline.finish(readOnce: false)
        } else {
            do {
                try MatrixStream(timeline: timeline).read(source)
            } catch {
                timeline.finish(readOnce: true)
                throw error
            }
            timeline.finish(readOnce: true)
        }
    }

    /// The first pass: relations, starting names, `exported_by`, and the
    /// order of each event array. Problems are left to the second pass,
    /// which meets them again in the same places.
    private static func firstPass(_ source: ByteSource, _ timeline: MatrixTimeline) -> [MatrixOrder] {
        var orders: [MatrixOrder] = []
        var walker = MatrixWalker()
        walker.header = { key, value in if key == "exported_by" { timeline.exporter = value } }
        walker.sequenceStart = { place in
            if let index = place.sequence, index == orders.count { orders.append(MatrixOrder(recordsOffsets: place.mayBeReversed)) }
            return .descend
        }
        walker.event = { bytes, line, offset, place in
            let event = timeline.parse(bytes, line: line, report: false)
            if let event { timeline.collect(event, place: place, firstPass: true) }
            if let index = place.sequence, index < orders.count {
                orders[index].add(milliseconds: event?.milliseconds, offset: offset, length: bytes.count, line: line)
            }
        }
        walker.sequenceEnd = { place in
            if let index = place.sequence, index < orders.count { orders[index].finish() }
        }
        // A damaged file is reported by the second pass, after what comes before the damage.
        try? walker.walk(source)
        for index in orders.indices { orders[index].finish() }
        timeline.members.begin()
        return orders
    }

    /// The second pass: every event shown in order.
    private static func secondPass(_ source: ByteSource, _ timeline: MatrixTimeline, _ orders: [MatrixOrder]) throws {
        var walker = MatrixWalker()
        walker.roomStart = { timeline.startRoom($0) }
        walker.problem = { line, reason in timeline.sink.problem(line: line, reason) }
        walker.sequenceStart = { place in
            guard let index = place.sequence, index < orders.count, orders[index].isReversed else { return .descend }
            for entry in orders[index].entries.reversed() {
                guard let bytes = readBack(source.fd, offset: entry.offset, length: Int(entry.length)) else {
                    timeline.sink.problem(line: Int(entry.line), "the event could not be read again: the file changed while it was read")
                    continue
                }
                bytes.withUnsafeBufferPointer { buffer in
                    if let event = timeline.parse(buffer, line: Int(entry.line), report: true) {
                        timeline.present(event, line: Int(entry.line), place: place)
                    }
                }
            }
            return .skip
        }
        walker.event = { bytes, line, _, place in
            guard place.block == .timeline, let event = timeline.parse(bytes, line: line, report: true) else { return }
            timeline.present(event, line: line, place: place)
        }
        try walker.walk(source)
    }

    /// `length` bytes of `fd` at `offset`, or nil when they are not all there.
    private static func readBack(_ fd: Int32, offset: Int64, length: Int) -> [UInt8]? {
        guard length > 0, offset >= 0 else { return nil }
        var bytes = [UInt8](repeating: 0, count: length)
        var done = 0
        while done < length {
            let count = bytes.withUnsafeMutableBytes { raw in
                pread(fd, raw.baseAddress! + done, length - done, off_t(offset) + off_t(done))
            }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return nil }
            done += count
        }
        return bytes
    }
}

/// The order of one event array, learned by the first pass: whether it is
/// newest first (its first event is later than its last), and for an array
/// that may be, where its events are.
struct MatrixOrder {
    /// Where one event is: 16 bytes.
    struct Entry {
        var offset: Int64
        var length: Int32
        var line: Int32
    }

    let recordsOffsets: Bool
    private(set) var entries: [Entry] = []
    private var first: Double?
    private var last: Double?
    private var readable = true

    init(recordsOffsets: Bool) { self.recordsOffsets = recordsOffsets }

    /// True when the array is shown from its end.
    private(set) var isReversed = false

    mutating func add(milliseconds: Double?, offset: Int, length: Int, line: Int) {
        if let milliseconds {
            if first == nil { first = milliseconds }
            last = milliseconds
        }
        guard recordsOffsets else { return }
        // A reassembled event has no offset; so an array that holds one is shown as it is.
        guard offset >= 0, let length = Int32(exactly: length), let line = Int32(exactly: min(line, Int(Int32.max))) else {
            readable = false
            return
        }
        entries.append(Entry(offset: Int64(offset), length: length, line: line))
    }

    /// Decides the order; offsets are kept only when they are needed.
    mutating func finish() {
        if let first, let last, first > last, recordsOffsets, readable { isReversed = true }
        if !isReversed { entries = [] }
    }
}

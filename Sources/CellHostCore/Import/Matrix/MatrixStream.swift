/// Reads a Matrix input that cannot be read twice (a pipe): each event is
/// collected and shown as it comes, so a relation applies only to the
/// messages after it.
///
/// A `/messages` page's `chunk` or a root array of events is held whole
/// (its events' bytes) until the root value ends, because whether it is
/// newest first is known only at its end, and the page's `state` may come
/// after it; its relations are then all collected before any of it is shown.
struct MatrixStream {
    let timeline: MatrixTimeline

    private struct Held {
        var bytes: [UInt8]
        var line: Int
        var place: MatrixPlace
    }

    func read(_ source: ByteSource) throws {
        var held: [Held] = []
        var walker = MatrixWalker()
        walker.header = { key, value in if key == "exported_by" { timeline.exporter = value } }
        walker.roomStart = { timeline.startRoom($0) }
        walker.problem = { line, reason in timeline.sink.problem(line: line, reason) }
        walker.event = { bytes, line, _, place in
            if place.mayBeReversed {
                held.append(Held(bytes: Array(bytes), line: line, place: place))
                return
            }
            guard let event = timeline.parse(bytes, line: line, report: true) else { return }
            if place.block == .state {
                timeline.presentState(event, place: place)
            } else {
                timeline.collect(event, place: place, firstPass: false)
                timeline.present(event, line: line, place: place)
            }
        }
        walker.rootEnd = {
            show(held)
            held.removeAll()
        }
        do {
            try walker.walk(source)
        } catch {
            show(held)
            throw error
        }
        show(held)
    }

    /// Collects the relations of the held events, then shows them oldest first.
    private func show(_ held: [Held]) {
        guard !held.isEmpty else { return }
        var first: Double?
        var last: Double?
        for entry in held {
            guard let event = entry.bytes.withUnsafeBufferPointer({ timeline.parse($0, line: entry.line, report: false) }) else { continue }
            timeline.collect(event, place: entry.place, firstPass: false)
            if let milliseconds = event.milliseconds {
                if first == nil { first = milliseconds }
                last = milliseconds
            }
        }
        let newestFirst = first.flatMap { first in last.map { first > $0 } } ?? false
        for entry in newestFirst ? Array(held.reversed()) : held {
            entry.bytes.withUnsafeBufferPointer { bytes in
                if let event = timeline.parse(bytes, line: entry.line, report: true) {
                    timeline.present(event, line: entry.line, place: entry.place)
                }
            }
        }
    }
}

/// Where in a Matrix input an event was found.
struct MatrixPlace {
    enum Block {
        /// Something that happened in the room, shown in order.
        case timeline
        /// The room's state at the start of a page or sync (`state`,
        /// `state.events`): read for names, not shown.
        case state
    }

    var block: Block
    /// The room of a `/sync` timeline or state block.
    var room: String?
    /// The number of the event array it belongs to (in the order the arrays
    /// start in the input), nil for an event on its own.
    var sequence: Int?
    /// Whether that array may be newest first and is put in order
    /// (`/messages`' `chunk`, a root array of events).
    var mayBeReversed = false
}

/// Walks any of the Matrix inputs and hands over their events, one at a
/// time, each with where it was found.
///
/// Read are: events on their own (one object; several in a row, JSON Lines
/// or concatenated), a root array of events, Element's export
/// (`{room_name, …, messages: […]}`), a `/messages` page
/// (`{chunk: […], start, end, state: […]}`) and a `/sync` response
/// (`rooms.join|leave.<room>.timeline.events` and `.state.events`). A root
/// object that is not one of these containers is an event: its members are
/// captured one by one (a container is descended into instead) and put back
/// together when it ends, so an event is never held with anything else.
struct MatrixWalker {
    /// An event's bytes (valid during the call), line, offset in the input
    /// (-1 for a reassembled root event) and place.
    var event: (UnsafeBufferPointer<UInt8>, Int, Int, MatrixPlace) -> Void = { _, _, _, _ in }
    /// A string member of a root container (`exported_by`, `room_name`, …).
    var header: (String, String) -> Void = { _, _ in }
    /// An event array starts: descend into it, or skip it (it was read another way).
    var sequenceStart: (MatrixPlace) -> JSONStream.Decision = { _ in .descend }
    /// An event array ended.
    var sequenceEnd: (MatrixPlace) -> Void = { _ in }
    /// A `/sync` room starts.
    var roomStart: (String) -> Void = { _ in }
    /// A root value ended.
    var rootEnd: () -> Void = {}
    /// A value that is not an event, or one too long to read.
    var problem: (Int, String) -> Void = { _, _ in }

    private static let eventArrays: Set<String> = ["messages", "chunk"]
    /// The string members of Element's export handed to `header`.
    private static let headers: Set<String> = ["room_name", "room_creator", "topic", "export_date", "exported_by"]

    /// Walks `source` to its end; a malformed or truncated input throws
    /// after everything before the damage was handed over.
    func walk(_ source: ByteSource) throws {
        var sequences = 0
        var current: MatrixPlace?
        var room: String?
        var rootIsObject = false
        var rootIsContainer = false
        var rootMembers: [UInt8] = []
        var rootLine = 0
        var rootTooLong = false
        let limit = InputReader.maximumRecordBytes

        func startSequence(_ block: MatrixPlace.Block, room: String?, reversible: Bool) -> JSONStream.Decision {
            rootMembers.removeAll(keepingCapacity: true)
            let place = MatrixPlace(block: block, room: room, sequence: sequences, mayBeReversed: reversible)
            sequences += 1
            let decision = sequenceStart(place)
            if decision == .descend { current = place } else { sequenceEnd(place) }
            return decision
        }

        let stream = JSONStream(source: source)
        try stream.walk(decide: { path, first in
            let isArray = first == UInt8(ascii: "[")
            let isObject = first == UInt8(ascii: "{")
            guard let step = path.first else {
                rootIsObject = isObject
                rootIsContainer = false
                rootMembers.removeAll(keepingCapacity: true)
                rootTooLong = false
                if isArray { return startSequence(.timeline, room: nil, reversible: true) }
                return isObject ? .descend : .capture
            }
            switch step {
            case .index:
                return path.count == 1 ? .capture : .skip
            case .key(let key):
                if path.count == 1 {
                    if isArray, MatrixWalker.eventArrays.contains(key) {
                        rootIsContainer = true
                        return startSequence(.timeline, room: nil, reversible: key == "chunk")
                    }
                    if isArray, key == "state" {
                        rootIsContainer = true
                        return startSequence(.state, room: nil, reversible: false)
                    }
                    if isObject, key == "rooms" {
                        rootIsContainer = true
                        rootMembers.removeAll(keepingCapacity: true)
                        return .descend
                    }
                    // In a container, only the headers are wanted; in an event, every member.
                    return !rootIsContainer || MatrixWalker.headers.contains(key) ? .capture : .skip
                }
                if key == "rooms" {
                    switch path.count {
                    case 2:
                        return isObject && (path[1] == .key("join") || path[1] == .key("leave")) ? .descend : .skip
                    case 3:
                        guard isObject, case .key(let id) = path[2] else { return .skip }
                        room = id
                        roomStart(id)
                        return .descend
                    case 4:
                        return isObject && (path[3] == .key("timeline") || path[3] == .key("state")) ? .descend : .skip
                    case 5:
                        guard isArray, path[4] == .key("events") else { return .skip }
                        return startSequence(path[3] == .key("state") ? .state : .timeline, room: room, reversible: false)
                    case 6:
                        return .capture
                    default:
                        return .skip
                    }
                }
                return path.count == 2 && current != nil ? .capture : .skip
            }
        }, value: { path, value in
            if path.count == 1, case .key(let key) = path[0] {
                // A member of a root object: a header, or a piece of an event.
                if MatrixWalker.headers.contains(key), value.bytes.first == UInt8(ascii: "\""), value.bytes.count <= 4096 {
                    var document = JSONDocument()
                    if (try? document.parse(value.bytes)) != nil, let text = document.string(JSONDocument.root) {
                        header(key, text)
                    }
                }
                if rootMembers.isEmpty { rootLine = value.line }
                guard !rootTooLong, !rootIsContainer else { return }
                if rootMembers.count + value.bytes.count + key.utf8.count + 8 > limit {
                    rootTooLong = true
                    rootMembers.removeAll()
                    return
                }
                rootMembers.append(rootMembers.isEmpty ? UInt8(ascii: "{") : UInt8(ascii: ","))
                appendQuoted(key, to: &rootMembers)
                rootMembers.append(UInt8(ascii: ":"))
                rootMembers.append(contentsOf: value.bytes)
                return
            }
            if path.isEmpty {
                problem(value.line, "not a Matrix event: a JSON \(describe(value.bytes.first)), not an object")
                return
            }
            event(value.bytes, value.line, value.offset, current ?? MatrixPlace(block: .timeline))
        }, end: { path in
            if path.isEmpty {
                if rootIsObject, !rootIsContainer, rootTooLong {
                    problem(rootLine, "event longer than \(limit >> 20) MiB, skipped")
                } else if rootIsObject, !rootIsContainer {
                    if rootMembers.isEmpty { rootMembers.append(UInt8(ascii: "{")) }
                    rootMembers.append(UInt8(ascii: "}"))
                    rootMembers.withUnsafeBufferPointer { event($0, rootLine, -1, MatrixPlace(block: .timeline)) }
                }
                if let place = current { current = nil; sequenceEnd(place) }
                rootMembers.removeAll(keepingCapacity: true)
                rootEnd()
                return
            }
            let closesSequence: Bool
            switch path.count {
            case 1: if case .key(let key) = path[0] { closesSequence = MatrixWalker.eventArrays.contains(key) || key == "state" } else { closesSequence = false }
            case 5: closesSequence = path[0] == .key("rooms") && path[4] == .key("events")
            default: closesSequence = false
            }
            if closesSequence, let place = current {
                current = nil
                sequenceEnd(place)
            }
        }, problem: { line, reason in problem(line, reason) })
    }

    private func describe(_ first: UInt8?) -> String {
        switch first {
        case UInt8(ascii: "\""): return "string"
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return "boolean"
        case UInt8(ascii: "n"): return "null"
        default: return "number"
        }
    }

    /// Appends `key` as a JSON string.
    private func appendQuoted(_ key: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        for byte in key.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                bytes.append(UInt8(ascii: "\\"))
                bytes.append(byte)
            case 0..<0x20:
                let digits = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                                          digits[Int(byte >> 4)], digits[Int(byte & 15)]])
            default:
                bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}

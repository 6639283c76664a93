import Glibc

/// One record of the input: a JSON Lines line or one element of a JSON array
/// file, with the line number it starts on.
public struct InputRecord {
    /// The bytes of the value (no newline).
    public var bytes: UnsafeBufferPointer<UInt8>
    /// 1-based line number where the record starts.
    public var line: Int
}

/// A problem with the input that is not about one record's JSON.
public struct InputError: Error, CustomStringConvertible {
    public var line: Int
    public var reason: String
    public var description: String { reason }
}

/// Reads records from a file descriptor in large blocks, so a stream of any
/// size is read in constant memory, and hands each to a callback as soon as it
/// is complete (`tail -f chat.jsonl | cellhost render -` works).
///
/// The input is JSON Lines, unless its first non-blank byte is `[`: then it is
/// one JSON array whose elements are the records.
public struct InputReader {
    /// Records longer than this (16 MiB) are reported once each and skipped;
    /// a record of exactly this size is read.
    public static let maximumRecordBytes = 16 << 20

    let fd: Int32
    /// A file followed like `tail -F`, read instead of `fd` when set.
    let followed: FollowedFile?
    /// Bytes already read from `fd` (to detect the input's format) that come first.
    let prefix: [UInt8]
    /// The record size limit of this reader (`maximumRecordBytes` unless a test sets a smaller one).
    let recordLimit: Int
    /// Called before each read that may block, so output is flushed while
    /// waiting for input.
    let beforeRead: () -> Void
    /// Asked after each record and before each read: true stops reading at
    /// once (the output failed, nothing more can be shown).
    let isCancelled: () -> Bool

    public init(fd: Int32, prefix: [UInt8] = [], beforeRead: @escaping () -> Void = {}, isCancelled: @escaping () -> Bool = { false }) {
        self.init(fd: fd, prefix: prefix, recordLimit: InputReader.maximumRecordBytes, beforeRead: beforeRead, isCancelled: isCancelled)
    }

    /// Reads `file` as it grows; the read ends when the file is truncated or
    /// replaced (`FollowedFile.startsOver`) or reading is cancelled.
    public init(following file: FollowedFile, beforeRead: @escaping () -> Void = {}, isCancelled: @escaping () -> Bool = { false }) {
        self.init(fd: file.fd, followed: file, recordLimit: InputReader.maximumRecordBytes, beforeRead: beforeRead, isCancelled: isCancelled)
    }

    init(fd: Int32, followed: FollowedFile? = nil, prefix: [UInt8] = [], recordLimit: Int, beforeRead: @escaping () -> Void = {},
         isCancelled: @escaping () -> Bool = { false }) {
        self.fd = fd
        self.followed = followed
        self.prefix = prefix
        self.recordLimit = max(1, recordLimit)
        self.beforeRead = beforeRead
        self.isCancelled = isCancelled
    }

    /// Reads to the end, calling `record` for each complete record and `problem`
    /// for each one that cannot be delivered (too long, unterminated array).
    public func read(record: (InputRecord) -> Void, problem: (InputError) -> Void) throws {
        var buffer = prefix
        buffer.append(contentsOf: repeatElement(0, count: max(1 << 16, prefix.count * 2) - prefix.count))
        var filled = prefix.count
        var consumed = 0
        var lineNumber = followed?.firstLine ?? 1
        var mode: Mode = .undecided
        var eof = false
        var skippingLongRecord = false
        var scanner = ArrayScanner()
        // Until the first bytes are seen: a UTF-8 byte order mark there is skipped,
        // even when it arrives split across reads.
        var checkBOM = true
        // Where the newline search resumes, so a long line is scanned once.
        var searchFrom = 0

        while true {
            // Deliver every complete record in the buffer.
            var progress = true
            while progress {
                if isCancelled() { return }
                progress = false
                switch mode {
                case .undecided:
                    if checkBOM {
                        let available = min(filled - consumed, 3)
                        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
                        let isPrefix = (0..<available).allSatisfy { buffer[consumed + $0] == bom[$0] }
                        if isPrefix && available < 3 && !eof { break } // wait for the rest of a possible BOM
                        if available > 0 || eof { checkBOM = false }
                        if isPrefix && available == 3 { consumed += 3 }
                    }
                    var index = consumed
                    while index < filled, buffer[index] == 0x20 || buffer[index] == 0x09 || buffer[index] == 0x0D || buffer[index] == 0x0A {
                        index += 1
                    }
                    if index == filled && !checkBOM {
                        // Only whitespace so far: count its lines, keep none of it.
                        for position in consumed..<index where buffer[position] == 0x0A { lineNumber += 1 }
                        consumed = index
                    }
                    if index < filled {
                        if buffer[index] == UInt8(ascii: "[") {
                            // Count the lines skipped before the array.
                            for position in consumed..<index where buffer[position] == 0x0A { lineNumber += 1 }
                            mode = .array
                            consumed = index + 1
                            scanner = ArrayScanner()
                        } else {
                            mode = .lines
                        }
                        progress = true
                    }
                case .lines:
                    let from = max(consumed, searchFrom)
                    let found: Int? = buffer.withUnsafeBufferPointer { all in
                        guard from < filled, let hit = memchr(all.baseAddress! + from, 0x0A, filled - from) else { return nil }
                        return UnsafeRawPointer(hit) - UnsafeRawPointer(all.baseAddress!)
                    }
                    guard let newline = found ?? (eof && consumed < filled ? filled : nil) else {
                        searchFrom = filled
                        if skippingLongRecord {
                            consumed = filled // drop the rest of the long line as it arrives
                        } else if filled - consumed > recordLimit {
                            problem(InputError(line: lineNumber, reason: tooLong))
                            skippingLongRecord = true
                            consumed = filled
                        }
                        break
                    }
                    if skippingLongRecord {
                        skippingLongRecord = false
                    } else {
                        var end = newline
                        if end > consumed, buffer[end - 1] == 0x0D { end -= 1 }
                        if end - consumed > recordLimit {
                            problem(InputError(line: lineNumber, reason: tooLong))
                        } else {
                            buffer.withUnsafeBufferPointer { all in
                                let bytes = UnsafeBufferPointer(rebasing: all[consumed..<end])
                                if !InputReader.isBlank(bytes) { record(InputRecord(bytes: bytes, line: lineNumber)) }
                            }
                        }
                    }
                    lineNumber += 1
                    consumed = min(newline + 1, filled)
                    progress = true
                case .array:
                    let outcome = buffer.withUnsafeBufferPointer { all in
                        scanner.scan(all, from: consumed, to: filled)
                    }
                    switch outcome {
                    case .needMore:
                        // The scanner has seen everything up to `filled`.
                        if skippingLongRecord {
                            consumed = filled // keep scanning the long element, but not its bytes
                        } else if let start = scanner.pendingStart {
                            if filled - start > recordLimit {
                                problem(InputError(line: lineNumber + scanner.pendingStartLine, reason: tooLong))
                                skippingLongRecord = true
                                consumed = filled
                            }
                        } else {
                            consumed = filled // only whitespace and commas since the last element: not kept
                        }
                    case let .element(start, end, next, startLine):
                        if skippingLongRecord {
                            skippingLongRecord = false
                        } else if end - start > recordLimit {
                            problem(InputError(line: lineNumber + startLine, reason: tooLong))
                        } else {
                            buffer.withUnsafeBufferPointer { all in
                                record(InputRecord(bytes: UnsafeBufferPointer(rebasing: all[start..<end]), line: lineNumber + startLine))
                            }
                        }
                        lineNumber += scanner.takeLines()
                        consumed = next
                        progress = true
                    case .finished(let next):
                        lineNumber += scanner.takeLines()
                        consumed = next
                        mode = .afterArray
                        progress = true
                    case .syntaxError(let reason, let next):
                        problem(InputError(line: lineNumber + scanner.takeLines(), reason: reason))
                        consumed = next
                        mode = .afterArray
                        progress = true
                    }
                case .afterArray:
                    var index = consumed
                    while index < filled, [0x20, 0x09, 0x0D, 0x0A].contains(buffer[index]) { index += 1 }
                    if index < filled {
                        problem(InputError(line: lineNumber, reason: "unexpected data after the JSON array"))
                        consumed = filled
                        eof = true
                        mode = .done
                    } else {
                        consumed = index
                    }
                case .done:
                    consumed = filled
                }
            }
            if eof {
                if mode == .array {
                    problem(InputError(line: lineNumber, reason: "unterminated JSON array"))
                }
                return
            }
            // Keep the unconsumed tail, grow for long records, then read more.
            if consumed > 0 {
                let remaining = filled - consumed
                if remaining > 0 {
                    buffer.withUnsafeMutableBufferPointer { all in
                        _ = memmove(all.baseAddress!, all.baseAddress! + consumed, remaining)
                    }
                }
                filled = remaining
                searchFrom = max(0, searchFrom - consumed)
                scanner.shift(by: consumed)
                consumed = 0
            }
            if filled == buffer.count {
                // Pending bytes never exceed the record limit for long (a
                // longer record is dropped as it arrives): growth is bounded.
                let target = buffer.count < recordLimit ? min(buffer.count * 2, recordLimit + (1 << 16)) : buffer.count + (1 << 16)
                buffer.append(contentsOf: repeatElement(0, count: target - buffer.count))
            }
            beforeRead()
            if isCancelled() { return }
            let count = try buffer.withUnsafeMutableBufferPointer { all in
                if let followed { return try followed.read(into: all.baseAddress! + filled, count: all.count - filled) }
                return Glibc.read(fd, all.baseAddress! + filled, all.count - filled)
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw InputError(line: lineNumber, reason: String(cString: strerror(errno)))
            }
            if count == 0 { eof = true } else { filled += count }
        }
    }

    /// The one diagnostic of a record over the limit.
    private var tooLong: String {
        let size = recordLimit % (1 << 20) == 0 ? "\(recordLimit >> 20) MiB" : "\(recordLimit) bytes"
        return "record longer than \(size), skipped"
    }

    static func isBlank(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        for byte in bytes where !(byte == 0x20 || byte == 0x09 || byte == 0x0D) { return false }
        return true
    }

    enum Mode { case undecided, lines, array, afterArray, done }
}

/// Finds the top-level elements of a JSON array incrementally: tracks strings,
/// escapes and bracket depth only; each element's own syntax is checked when
/// it is parsed as a message.
struct ArrayScanner {
    enum Outcome {
        case needMore
        /// An element in `start..<end`; scanning continues at `next`.
        case element(start: Int, end: Int, next: Int, startLine: Int)
        case finished(next: Int)
        case syntaxError(String, next: Int)
    }

    private var depth = 0
    private var inString = false
    private var escape = false
    private var elementStart: Int?
    private var position: Int?
    private var lines = 0
    private var startLine = 0
    private var sawComma = false

    /// The bytes before `offset` are gone from the buffer. The start of an
    /// element being skipped may be among them: it becomes 0.
    mutating func shift(by offset: Int) {
        if let start = elementStart { elementStart = max(0, start - offset) }
        if let current = position { position = max(0, current - offset) }
    }

    /// Where the element being scanned starts, if one is.
    var pendingStart: Int? { elementStart }
    /// Lines (since the last `takeLines`) before the element being scanned.
    var pendingStartLine: Int { startLine }

    /// Lines counted since the last call.
    mutating func takeLines() -> Int {
        defer { lines = 0 }
        return lines
    }

    mutating func scan(_ buffer: UnsafeBufferPointer<UInt8>, from consumed: Int, to filled: Int) -> Outcome {
        var index = max(position ?? consumed, consumed)
        defer { position = index }
        while index < filled {
            let byte = buffer[index]
            if byte == 0x0A { lines += 1 }
            if inString {
                if escape { escape = false } else if byte == UInt8(ascii: "\\") { escape = true } else if byte == UInt8(ascii: "\"") { inString = false }
                index += 1
                continue
            }
            switch byte {
            case 0x20, 0x09, 0x0D, 0x0A:
                break
            case UInt8(ascii: ",") where depth == 0, UInt8(ascii: "]") where depth == 0:
                if let start = elementStart {
                    var end = index
                    while end > start, [0x20, 0x09, 0x0D, 0x0A].contains(buffer[end - 1]) { end -= 1 }
                    elementStart = nil
                    let line = startLine
                    if byte == UInt8(ascii: "]") {
                        // Deliver the last element; the closing bracket is seen again next time.
                        sawComma = false
                        index += 0
                        let outcome = Outcome.element(start: start, end: end, next: index, startLine: line)
                        return outcome
                    }
                    sawComma = true
                    index += 1
                    return .element(start: start, end: end, next: index, startLine: line)
                }
                if byte == UInt8(ascii: "]") {
                    if sawComma { index += 1; return .syntaxError("trailing ',' in JSON array", next: index) }
                    index += 1
                    return .finished(next: index)
                }
                index += 1
                return .syntaxError("empty element in JSON array", next: filled)
            default:
                if elementStart == nil { elementStart = index; startLine = lines; sawComma = false }
                if byte == UInt8(ascii: "\"") { inString = true }
                else if byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") { depth += 1 }
                else if byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]") { depth = max(0, depth - 1) }
            }
            index += 1
        }
        return .needMore
    }
}

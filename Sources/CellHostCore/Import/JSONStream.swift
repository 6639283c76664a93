import Glibc

/// Walks a JSON document of any size in constant memory and hands over the
/// values an importer asks for, each as its own bytes, as soon as it ends.
///
/// The importer steers the walk: for every value inside a container it
/// descended into, `decide` is asked (with the value's path and first byte)
/// whether to descend into it, capture it whole, or skip it. A Telegram export
/// `{"name":…,"messages":[{…},{…}]}` is read by descending into the root and
/// into `messages`, and capturing `name` and each element of `messages`: only
/// one message is ever held.
///
/// Several root values in a row (JSON Lines, concatenated documents) are
/// walked one after the other, each with the empty path. Only the structure
/// that is descended into is checked; a captured value is checked when the
/// importer parses it. A value longer than the limit is reported and skipped.
public struct JSONStream {
    /// One step of a path: a member's key or an element's index.
    public enum Step: Equatable, Sendable {
        case key(String)
        case index(Int)
    }

    /// What to do with a value.
    public enum Decision: Sendable {
        /// Walk into the object or array (a scalar is captured).
        case descend
        /// Hand the whole value over.
        case capture
        /// Pass over it.
        case skip
    }

    /// A captured value: its bytes (valid during the call only), the line it
    /// starts on and its offset in the input.
    public struct Value {
        public var bytes: UnsafeBufferPointer<UInt8>
        public var line: Int
        public var offset: Int
    }

    /// Values longer than this are reported and skipped.
    public let valueLimit: Int
    private let source: ByteSource

    /// The one diagnostic of a value over the limit.
    private var tooLong: String {
        let size = valueLimit % (1 << 20) == 0 ? "\(valueLimit >> 20) MiB" : "\(valueLimit) bytes"
        return "value longer than \(size), skipped"
    }

    public init(source: ByteSource, valueLimit: Int = InputReader.maximumRecordBytes) {
        self.source = source
        self.valueLimit = max(1, valueLimit)
    }

    private struct Frame {
        var isObject: Bool
        var state: State
        var index = -1
    }

    private enum State { case firstKeyOrEnd, key, colon, value, firstValueOrEnd, commaOrEnd }

    /// Walks the input to its end. `decide` is asked for each value in a
    /// descended container (and for each root value); `value` receives the
    /// captured ones; `end` is told when a descended container closes.
    /// Malformed structure or a truncated file ends the walk with a thrown
    /// `ImportError` naming the line; what was handed over stays handed over.
    public func walk(decide: (_ path: [Step], _ first: UInt8) -> Decision,
                     value: (_ path: [Step], Value) -> Void,
                     end: (_ path: [Step]) -> Void = { _ in },
                     problem: (_ line: Int, _ reason: String) -> Void) throws {
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var filled = 0
        var position = 0
        var base = 0 // input offset of buffer[0]
        var line = 1
        var frames: [Frame] = []
        var path: [Step] = []
        var rootCount = 0
        var eof = false
        // Reading a key of a descended object.
        var readingKey = false
        var keyEscape = false
        var key: [UInt8] = []
        // Passing over (or capturing) one value.
        var skimming = false
        var captureStart = -1 // buffer offset, -1 when skipping
        var captureLine = 0
        var captureOffset = 0
        var depth = 0
        var inString = false
        var escape = false
        var scalar = false
        var checkBOM = true

        func fail(_ reason: String) -> ImportError { ImportError(line: line, reason: reason) }
        func describe(_ byte: UInt8) -> String {
            if byte >= 0x21 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
            let digits = Array("0123456789ABCDEF")
            return "byte 0x\(digits[Int(byte >> 4)])\(digits[Int(byte & 15)])"
        }
        func finishValue() {
            if var top = frames.popLast() {
                top.state = .commaOrEnd
                frames.append(top)
            }
        }

        while true {
            let outcome: ImportError? = buffer.withUnsafeMutableBufferPointer { all -> ImportError? in
                let p = all.baseAddress!
                if checkBOM, filled - position >= 3 || eof {
                    if filled - position >= 3, p[position] == 0xEF, p[position + 1] == 0xBB, p[position + 2] == 0xBF { position += 3 }
                    checkBOM = false
                }
                if checkBOM { return nil }
                while position < filled {
                    if skimming {
                        // The fast inner loop: strings, escapes and depth only.
                        var i = position
                        var done = false
                        while i < filled {
                            let byte = p[i]
                            if byte == 0x0A { line += 1 }
                            if inString {
                                if escape { escape = false }
                                else if byte == 0x5C { escape = true }
                                else if byte == 0x22 {
                                    inString = false
                                    if depth == 0 { i += 1; done = true; break }
                                }
                            } else if scalar {
                                if byte == 0x2C || byte == 0x7D || byte == 0x5D || byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 {
                                    if byte == 0x0A { line -= 1 } // seen again as structure
                                    done = true
                                    break
                                }
                            } else if byte == 0x22 {
                                inString = true
                            } else if byte == 0x7B || byte == 0x5B {
                                depth += 1
                            } else if byte == 0x7D || byte == 0x5D {
                                depth -= 1
                                if depth == 0 { i += 1; done = true; break }
                            }
                            i += 1
                        }
                        position = i
                        guard done else { break }
                        skimming = false
                        if captureStart >= 0 {
                            // A value that arrived whole in one read is checked here.
                            if i - captureStart > valueLimit {
                                problem(captureLine, tooLong)
                            } else {
                                value(path, Value(bytes: UnsafeBufferPointer(start: p + captureStart, count: i - captureStart),
                                                  line: captureLine, offset: captureOffset))
                            }
                            captureStart = -1
                        }
                        if frames.isEmpty { rootCount += 1 }
                        finishValue()
                        continue
                    }
                    if readingKey {
                        let byte = p[position]
                        position += 1
                        if byte == 0x0A { line += 1 }
                        if keyEscape {
                            keyEscape = false
                            if key.count < 1024 { key.append(byte) }
                        } else if byte == 0x5C {
                            keyEscape = true
                        } else if byte == 0x22 {
                            readingKey = false
                            path[path.count - 1] = .key(String(decoding: key, as: UTF8.self))
                            frames[frames.count - 1].state = .colon
                        } else if key.count < 1024 {
                            key.append(byte)
                        }
                        continue
                    }
                    let byte = p[position]
                    if byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 {
                        if byte == 0x0A { line += 1 }
                        position += 1
                        continue
                    }
                    var startsValue = frames.isEmpty
                    if let top = frames.last {
                        switch top.state {
                        case .firstKeyOrEnd, .key:
                            if byte == 0x22 {
                                readingKey = true
                                key.removeAll(keepingCapacity: true)
                                position += 1
                                continue
                            }
                            guard byte == 0x7D, top.state == .firstKeyOrEnd else {
                                return fail("malformed JSON: expected a key, found \(describe(byte))")
                            }
                        case .colon:
                            guard byte == 0x3A else { return fail("malformed JSON: expected ':', found \(describe(byte))") }
                            frames[frames.count - 1].state = .value
                            position += 1
                            continue
                        case .value:
                            startsValue = true
                        case .firstValueOrEnd:
                            if byte != 0x5D { startsValue = true }
                        case .commaOrEnd:
                            if byte == 0x2C {
                                frames[frames.count - 1].state = top.isObject ? .key : .value
                                position += 1
                                continue
                            }
                            guard byte == (top.isObject ? 0x7D : 0x5D) else {
                                return fail("malformed JSON: expected ',' or '\(top.isObject ? "}" : "]")', found \(describe(byte))")
                            }
                        }
                        if !startsValue {
                            // The container ends.
                            position += 1
                            frames.removeLast()
                            path.removeLast()
                            end(path)
                            if frames.isEmpty { rootCount += 1 }
                            finishValue()
                            continue
                        }
                    }
                    // A value starts.
                    switch byte {
                    case 0x7B, 0x5B, 0x22, 0x2D, 0x30...0x39, 0x74, 0x66, 0x6E: break
                    default:
                        return fail("malformed JSON: expected a value, found \(describe(byte))")
                    }
                    if let top = frames.last, !top.isObject {
                        frames[frames.count - 1].index += 1
                        path[path.count - 1] = .index(frames[frames.count - 1].index)
                    }
                    let decision = decide(path, byte)
                    if decision == .descend, byte == 0x7B || byte == 0x5B {
                        frames.append(Frame(isObject: byte == 0x7B, state: byte == 0x7B ? .firstKeyOrEnd : .firstValueOrEnd))
                        path.append(.index(-1))
                        position += 1
                        continue
                    }
                    skimming = true
                    captureStart = decision == .skip ? -1 : position
                    captureLine = line
                    captureOffset = base + position
                    scalar = !(byte == 0x7B || byte == 0x5B || byte == 0x22)
                    inString = byte == 0x22
                    escape = false
                    depth = byte == 0x7B || byte == 0x5B ? 1 : 0
                    position += 1
                    if inString || !scalar { continue }
                }
                return nil
            }
            if let outcome { throw outcome }
            if eof {
                if skimming && scalar && captureStart >= 0 {
                    // A scalar at the very end of the input.
                    buffer.withUnsafeBufferPointer { all in
                        value(path, Value(bytes: UnsafeBufferPointer(rebasing: all[captureStart..<filled]), line: captureLine, offset: captureOffset))
                    }
                    skimming = false
                } else if skimming || readingKey || !frames.isEmpty {
                    let inside = path.compactMap { step -> String? in if case .key(let name) = step { return name } else { return nil } }
                    throw fail("the file ends in the middle of \(inside.isEmpty ? "the document" : "'\(inside.joined(separator: "."))'") (truncated?)")
                }
                if rootCount == 0 { throw fail("no JSON value in the input") }
                return
            }
            // Keep what a capture still needs, then read more.
            if skimming && captureStart >= 0 && filled - captureStart > valueLimit {
                problem(captureLine, tooLong)
                captureStart = -1
            }
            let keep = skimming && captureStart >= 0 ? captureStart : position
            if keep > 0 {
                let remaining = filled - keep
                if remaining > 0 {
                    buffer.withUnsafeMutableBufferPointer { all in _ = memmove(all.baseAddress!, all.baseAddress! + keep, remaining) }
                }
                base += keep
                filled = remaining
                position -= keep
                if captureStart >= 0 { captureStart -= keep }
            }
            if filled == buffer.count {
                buffer.append(contentsOf: repeatElement(0, count: buffer.count))
            }
            let count = try buffer.withUnsafeMutableBufferPointer { all in
                try source.read(into: all.baseAddress! + filled, count: all.count - filled)
            }
            if count == 0 { eof = true } else { filled += count }
        }
    }
}

extension JSONStream.Step: CustomStringConvertible {
    public var description: String {
        switch self {
        case .key(let name): return name
        case .index(let index): return "[\(index)]"
        }
    }
}

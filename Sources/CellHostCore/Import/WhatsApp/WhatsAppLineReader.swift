/// Reads a WhatsApp text export line by line in bounded memory: a 64 KiB
/// window over the input and at most `lineLimit` bytes of the current line.
///
/// Lines end at LF; a CR before it (Windows line endings) and a UTF-8 byte
/// order mark at the start of the input are dropped. A longer line keeps its
/// first `lineLimit` bytes and says how many it left out, so one enormous
/// line never costs memory or the messages after it.
final class WhatsAppLineReader {
    /// The most bytes of one line kept (1 MiB; WhatsApp's own messages are
    /// at most 65,536 characters).
    static let lineLimit = 1 << 20

    /// One line of the export, without its line ending.
    struct Line {
        var bytes: [UInt8]
        /// 1-based.
        var number: Int
        /// Bytes of the line beyond `lineLimit`, left out.
        var leftOut = 0
    }

    private let source: ByteSource
    private let limit: Int
    private var window = [UInt8](repeating: 0, count: 64 << 10)
    private var start = 0
    private var end = 0
    private var atEnd = false
    private var number = 0

    init(source: ByteSource, limit: Int = WhatsAppLineReader.lineLimit) {
        self.source = source
        self.limit = max(1, limit)
    }

    /// The next line, or nil at the end of the input.
    func next() throws -> Line? {
        var bytes: [UInt8] = []
        var leftOut = 0
        var sawBytes = false
        while true {
            if start == end {
                if atEnd { break }
                try refill()
                continue
            }
            sawBytes = true
            let newline = window[start..<end].firstIndex(of: 0x0A)
            let stop = newline ?? end
            let room = max(0, limit - bytes.count)
            let taken = min(room, stop - start)
            if taken > 0 { bytes.append(contentsOf: window[start..<(start + taken)]) }
            leftOut += stop - start - taken
            if let newline {
                start = newline + 1
                break
            }
            start = end
        }
        guard sawBytes else { return nil }
        number += 1
        if bytes.last == 0x0D { bytes.removeLast() }
        if number == 1, bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
        return Line(bytes: bytes, number: number, leftOut: leftOut)
    }

    private func refill() throws {
        start = 0
        end = 0
        let count = try window.withUnsafeMutableBytes { buffer in
            try source.read(into: buffer.baseAddress!, count: buffer.count)
        }
        if count <= 0 { atEnd = true } else { end = count }
    }
}

import Glibc

/// An input file or stream as importers read it: a file descriptor, and the
/// bytes already read from it to detect its format, which come first.
///
/// A seekable source (a regular file) can be read again from the start, so an
/// importer may make two passes (relations first, then messages) in flat memory.
public final class ByteSource {
    /// The descriptor read from; the caller owns and closes it.
    public let fd: Int32
    /// True when the descriptor is a regular file that `rewind()` can reread.
    public let isSeekable: Bool
    private var prefix: [UInt8]
    private var prefixOffset = 0
    /// Called before a read that may block (so the output is flushed while waiting).
    var beforeRead: () -> Void = {}
    /// Asked before every read: true ends the input (the output failed).
    var isCancelled: () -> Bool = { false }

    /// `prefix` holds the bytes already read from `fd`.
    public init(fd: Int32, prefix: [UInt8] = []) {
        self.fd = fd
        self.prefix = prefix
        var info = stat()
        isSeekable = fd >= 0 && fstat(fd, &info) == 0 && info.st_mode & S_IFMT == S_IFREG && lseek(fd, 0, SEEK_CUR) >= 0
    }

    /// A source of `bytes` only (tests, detection of a prefix).
    public convenience init(bytes: [UInt8]) {
        self.init(fd: -1, prefix: bytes)
    }

    /// Reads up to `count` bytes into `buffer`: the prefix first, then the
    /// descriptor. Returns 0 at the end of the input.
    public func read(into buffer: UnsafeMutableRawPointer, count: Int) throws -> Int {
        guard count > 0 else { return 0 }
        if prefixOffset < prefix.count {
            let taken = min(count, prefix.count - prefixOffset)
            prefix.withUnsafeBytes { bytes in
                buffer.copyMemory(from: bytes.baseAddress! + prefixOffset, byteCount: taken)
            }
            prefixOffset += taken
            if prefixOffset == prefix.count { prefix = []; prefixOffset = 0 }
            return taken
        }
        if fd < 0 || isCancelled() { return 0 }
        beforeRead()
        while true {
            let result = Glibc.read(fd, buffer, count)
            if result >= 0 { return result }
            if errno == EINTR { continue }
            throw ImportError(line: nil, reason: String(cString: strerror(errno)))
        }
    }

    /// Starts again from the first byte (seekable sources only).
    public func rewind() throws {
        guard isSeekable, lseek(fd, 0, SEEK_SET) == 0 else {
            throw ImportError(line: nil, reason: "cannot read the input a second time (it is not a regular file)")
        }
        prefix = []
        prefixOffset = 0
    }

    /// Reads what is left of the prefix and hands it over (for readers that
    /// take the descriptor themselves).
    func takePrefix() -> [UInt8] {
        defer { prefix = []; prefixOffset = 0 }
        return prefixOffset == 0 ? prefix : Array(prefix[prefixOffset...])
    }
}

/// A problem with an imported file as a whole (unreadable, truncated, not the
/// format it was taken for), or with one of its lines.
public struct ImportError: Error, CustomStringConvertible {
    /// The 1-based line the problem is on, when there is one.
    public var line: Int?
    public var reason: String
    public init(line: Int?, reason: String) {
        self.line = line
        self.reason = reason
    }
    public var description: String { reason }
}

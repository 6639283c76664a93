import Glibc

/// A file read the way `tail -F` reads it: from its last lines, then as it
/// grows, across truncation and rotation.
///
/// `read(into:count:)` behaves like `read(2)` except at the end of the file:
/// there it waits (on inotify, with a one-second poll as a fallback for file
/// systems without it) until the file grows, is truncated, or is replaced by
/// another file at the same path. Then it returns 0 with `startsOver` set, and
/// `startOver()` moves to the start of the truncated file or of the new one
/// (so line numbers start again at 1). It returns 0 for good only when
/// `isCancelled` says so.
public final class FollowedFile {
    public let path: String
    /// The descriptor of the file being read.
    public private(set) var fd: Int32
    /// True when the last `read` ended because the file was truncated or
    /// another file took the path: `startOver()` before reading on.
    public private(set) var startsOver = false
    private var replaced = false
    /// Told about truncation and rotation (`FILE: truncated; reading it from the start`).
    public var notice: (String) -> Void = { _ in }
    /// Called before waiting for the file to grow, so the output is written first.
    public var beforeWait: () -> Void = {}
    /// Asked while waiting: true ends the reading.
    public var isCancelled: () -> Bool = { false }
    /// The 1-based line number of the first byte `read` returns first.
    public private(set) var firstLine = 1

    private var device: UInt = 0
    private var inode: UInt = 0
    private var offset = 0
    private let notify: Int32
    private var fileWatch: Int32 = -1

    /// Opens `path` positioned at the start of its last `lines` non-blank
    /// lines (0: at its end, only what is written from now on).
    public init(path: String, lastLines lines: Int) throws {
        self.path = path
        fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw InputError(line: 0, reason: String(cString: strerror(errno))) }
        notify = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        if notify >= 0 {
            // Rotation shows in the directory: a new file moved or created there.
            let directory = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
            _ = inotify_add_watch(notify, directory.isEmpty ? "/" : directory, UInt32(IN_CREATE | IN_MOVED_TO))
        }
        try startWatching()
        let start = try FollowedFile.startOfLastLines(fd: fd, count: max(0, lines))
        firstLine = start.line
        offset = start.offset
        guard lseek(fd, off_t(offset), SEEK_SET) >= 0 else { throw InputError(line: 0, reason: String(cString: strerror(errno))) }
    }

    deinit {
        close(fd)
        if notify >= 0 { close(notify) }
    }

    private func startWatching() throws {
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw InputError(line: 0, reason: String(cString: strerror(errno))) }
        guard info.st_mode & S_IFMT == S_IFREG else { throw InputError(line: 0, reason: "--follow needs a regular file") }
        device = UInt(info.st_dev)
        inode = UInt(info.st_ino)
        if notify >= 0 {
            if fileWatch >= 0 { _ = inotify_rm_watch(notify, fileWatch) }
            fileWatch = inotify_add_watch(notify, path, UInt32(IN_MODIFY | IN_ATTRIB | IN_MOVE_SELF | IN_DELETE_SELF))
        }
    }

    /// Moves to the start of the truncated file, or of the file that replaced it.
    public func startOver() throws {
        startsOver = false
        offset = 0
        firstLine = 1
        guard replaced else {
            guard lseek(fd, 0, SEEK_SET) == 0 else { throw InputError(line: 0, reason: String(cString: strerror(errno))) }
            return
        }
        replaced = false
        let next = open(path, O_RDONLY | O_CLOEXEC)
        guard next >= 0 else { throw InputError(line: 0, reason: String(cString: strerror(errno))) }
        close(fd)
        fd = next
        try startWatching()
    }

    public func read(into buffer: UnsafeMutableRawPointer, count: Int) throws -> Int {
        while true {
            let result = Glibc.read(fd, buffer, count)
            if result > 0 {
                offset += result
                return result
            }
            if result < 0 {
                if errno == EINTR { continue }
                throw InputError(line: 0, reason: String(cString: strerror(errno)))
            }
            if isCancelled() { return 0 }
            var info = stat()
            if fstat(fd, &info) == 0, Int(info.st_size) < offset {
                notice("\(path): truncated; reading it from the start")
                startsOver = true
                return 0
            }
            var current = stat()
            if stat(path, &current) == 0, UInt(current.st_dev) != device || UInt(current.st_ino) != inode {
                // Everything the old file held has been read: move on.
                notice("\(path): replaced; following the new file")
                startsOver = true
                replaced = true
                return 0
            }
            beforeWait()
            var entry = pollfd(fd: notify, events: Int16(POLLIN), revents: 0)
            if notify >= 0 {
                _ = poll(&entry, 1, 1000)
                var events = [UInt8](repeating: 0, count: 4096)
                while events.withUnsafeMutableBytes({ Glibc.read(notify, $0.baseAddress, $0.count) }) > 0 {}
            } else {
                _ = poll(nil, 0, 1000)
            }
        }
    }

    /// Where the last `count` non-blank lines start, and that line's number.
    static func startOfLastLines(fd: Int32, count: Int) throws -> (offset: Int, line: Int) {
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw InputError(line: 0, reason: String(cString: strerror(errno))) }
        let size = Int(info.st_size)
        // Scan backwards for line starts; a line of only blanks does not count.
        var block = [UInt8](repeating: 0, count: 1 << 16)
        var end = size
        var found = 0
        var start = size
        var lineHasText = false
        scan: while end > 0 && count > 0 {
            let begin = max(0, end - block.count)
            let length = end - begin
            let got = block.withUnsafeMutableBytes { pread(fd, $0.baseAddress, length, off_t(begin)) }
            guard got == length else { throw InputError(line: 0, reason: "cannot read the file backwards") }
            var index = length - 1
            while index >= 0 {
                let byte = block[index]
                if byte == 0x0A {
                    if lineHasText {
                        found += 1
                        start = begin + index + 1
                        if found == count { break scan }
                    }
                    lineHasText = false
                } else if byte != 0x20 && byte != 0x09 && byte != 0x0D {
                    lineHasText = true
                }
                index -= 1
            }
            end = begin
        }
        if found < count { start = 0 }
        if count == 0 { start = size }
        // The line number of `start`: the newlines before it, counted forwards.
        var line = 1
        var position = 0
        while position < start {
            let length = min(block.count, start - position)
            let got = block.withUnsafeMutableBytes { pread(fd, $0.baseAddress, length, off_t(position)) }
            guard got > 0 else { break }
            for byte in block[0..<got] where byte == 0x0A { line += 1 }
            position += got
        }
        return (start, line)
    }
}

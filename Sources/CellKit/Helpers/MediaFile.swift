import Glibc

/// A media file a message names (an image, a voice note, an attachment),
/// opened the way a cell must open an untrusted path: relative paths resolve
/// against the input's directory (`RenderContext.baseDirectory`), only a
/// regular file is read (never a device, FIFO, socket or directory, which
/// could block or never end), and at most `maximumBytes` of it.
///
/// Opening never blocks: the file is opened with `O_NONBLOCK` and checked
/// with `fstat` before a byte is read.
public struct MediaFile: Sendable {
    /// Why a path gives no file to read. `notice` is the muted mark a cell
    /// shows in place of what it would have read.
    public enum Problem: Error, Equatable, Sendable {
        /// Nothing at the path.
        case missing
        /// There is something, but it cannot be read (permissions, I/O).
        case unreadable
        /// A directory, device, FIFO or socket.
        case notARegularFile
        /// Larger than the limit the cell reads.
        case tooLarge(limit: Int)

        /// The one-word or short mark shown in the cell.
        public var notice: String {
            switch self {
            case .missing: return "missing"
            case .unreadable: return "unreadable"
            case .notARegularFile: return "not a regular file"
            case .tooLarge(let limit): return "larger than \(ByteCount.format(Int64(limit)) ?? "\(limit) bytes")"
            }
        }
    }

    /// Identifies the file's contents for caching: a change to the file (a
    /// new inode, size or modification time) is a new key.
    public struct Identity: Hashable, Sendable {
        public var device: UInt64
        public var inode: UInt64
        public var size: Int64
        public var modified: Int64
        public var modifiedNanoseconds: Int64
    }

    /// The absolute path that was opened.
    public let path: String
    /// The file's size in bytes.
    public let size: Int
    /// The file's identity when it was opened.
    public let identity: Identity
    /// The bytes read (the whole file; `size` ≤ the limit given to `open`).
    public let bytes: [UInt8]

    /// `path` as the message gives it, made absolute against `baseDirectory`.
    public static func resolve(_ path: String, baseDirectory: String) -> String {
        if path.hasPrefix("/") || baseDirectory.isEmpty { return path }
        if baseDirectory == "/" { return "/" + path }
        // `baseDirectory + "/" + path`, written into one new string (the two
        // `+` make an intermediate one: some 800 instructions a message).
        var base = baseDirectory, path = path
        return base.withUTF8 { base in
            path.withUTF8 { path in
                let count = base.count + 1 + path.count
                return String(unsafeUninitializedCapacity: count) { out in
                    _ = out.initialize(fromContentsOf: base)
                    out[base.count] = UInt8(ascii: "/")
                    _ = UnsafeMutableBufferPointer(rebasing: out[(base.count + 1)...]).initialize(fromContentsOf: path)
                    return count
                }
            }
        }
    }

    /// Calls `body` with `path` (UTF-8, as a message gives it) made
    /// absolute as `resolve(_:baseDirectory:)` makes it, written into
    /// temporary storage with a NUL after it (not counted): a C path for
    /// `MediaStat.identity(ofResolved:)`, without making a `String`. Not
    /// generic (`body` keeps what it learns), so that a plugin's call needs
    /// no generic metadata at run time.
    package static func withResolved(_ path: UnsafeBufferPointer<UInt8>, baseDirectory: String,
                                     _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        var base = baseDirectory
        base.withUTF8 { base in
            // What goes before the path: nothing, "/" or the directory and "/".
            let prefix = isAbsolute(path) || base.isEmpty ? 0 : base.count == 1 && base[0] == UInt8(ascii: "/") ? 1
                : base.count + 1
            let count = prefix + path.count
            if prefix > 1 { BaseDirectoryHandles.note(base) }
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: count + 1) { out in
                if prefix > 1 { _ = out.initialize(fromContentsOf: base) }
                if prefix > 0 { out[prefix - 1] = UInt8(ascii: "/") }
                _ = UnsafeMutableBufferPointer(rebasing: out[prefix..<count]).initialize(fromContentsOf: path)
                out[count] = 0
                body(UnsafeBufferPointer(rebasing: out[..<count]))
            }
        }
    }

    /// `path.hasPrefix("/")` for UTF-8 bytes: a first "/" that no combining
    /// character follows (one that does is another Character). An ASCII
    /// byte never joins the Character before it, so only a path with a
    /// non-ASCII second byte is asked as a `String`.
    static func isAbsolute(_ path: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = path.first, first == UInt8(ascii: "/") else { return false }
        return path.count == 1 || path[1] < 0x80 || String(decoding: path, as: UTF8.self).hasPrefix("/")
    }

    /// Opens and reads `path` (resolved against `context.baseDirectory`).
    /// Reads the whole file when it is a regular file of at most
    /// `maximumBytes`.
    public static func read(_ path: String, context: RenderContext, maximumBytes: Int) -> Result<MediaFile, Problem> {
        read(resolve(path, baseDirectory: context.baseDirectory), maximumBytes: maximumBytes)
    }

    /// Opens and reads the absolute (or current-directory-relative) `path`.
    /// Like `MediaStat.identity(of:)`, a path in a directory found missing
    /// less than a second ago is `.missing` without a look-up
    /// (`MissingDirectories`).
    public static func read(_ path: String, maximumBytes: Int) -> Result<MediaFile, Problem> {
        guard MediaStat.isUsablePath(path) else { return .failure(.missing) }
        let opened: Result<Int32, Problem> = path.withCString { cPath in
            let bytes = MediaStat.cBytes(cPath)
            if MissingDirectories.contain(bytes, base: AT_FDCWD) { return .failure(.missing) }
            let fd = open(cPath, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
            guard fd < 0 else { return .success(fd) }
            switch errno {
            case ENOENT, ENOTDIR:
                MissingDirectories.noteMissing(bytes, base: AT_FDCWD)
                return .failure(.missing)
            case ENAMETOOLONG, ELOOP: return .failure(.missing)
            default: return .failure(.unreadable)
            }
        }
        let fd: Int32
        switch opened {
        case .failure(let problem): return .failure(problem)
        case .success(let opened): fd = opened
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return .failure(.unreadable) }
        guard info.st_mode & S_IFMT == S_IFREG else { return .failure(.notARegularFile) }
        let size = Int(info.st_size)
        guard size >= 0, size <= maximumBytes else { return .failure(.tooLarge(limit: maximumBytes)) }
        var bytes = [UInt8](repeating: 0, count: size)
        var offset = 0
        while offset < size {
            let got = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + offset, size - offset) }
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else { break }
            offset += got
        }
        guard offset == size else { return .failure(.unreadable) }
        let identity = Identity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
                                modified: Int64(info.st_mtim.tv_sec), modifiedNanoseconds: Int64(info.st_mtim.tv_nsec))
        return .success(MediaFile(path: path, size: size, identity: identity, bytes: bytes))
    }
}

/// What a cell computed from media files (a decoded preview, a duration and
/// waveform, a detected type), kept so that a file is decoded once per run
/// even when thousands of messages show it. Bounded: the least recently used
/// entries go first once `capacity` is reached.
public final class MediaCache<Value> {
    // Inlinable (so `@usableFromInline`): a plugin's call is specialized for
    // its `Value`, instead of looking generic metadata up at run time on
    // every hit (some 5000 instructions a call, measured in FileCell).
    @usableFromInline var entries: [MediaFile.Identity: (value: Value, used: UInt64)] = [:]
    @usableFromInline var clock: UInt64 = 0
    /// At most this many entries are kept.
    public let capacity: Int

    public init(capacity: Int) { self.capacity = max(1, capacity) }

    /// The value kept for `identity`, or the one `make` computes (then kept).
    @inlinable
    public func value(for identity: MediaFile.Identity, _ make: () -> Value) -> Value {
        clock &+= 1
        if let entry = entries[identity] {
            entries[identity] = (entry.value, clock)
            return entry.value
        }
        let value = make()
        if entries.count >= capacity, let oldest = entries.min(by: { $0.value.used < $1.value.used })?.key {
            entries[oldest] = nil
        }
        entries[identity] = (value, clock)
        return value
    }

    /// Entries kept now.
    public var count: Int { entries.count }
}

/// A file's identity without reading it, so that a cell can look its
/// `MediaCache` up before reading (and decoding) a file it has seen.
public enum MediaStat {
    /// The identity of the regular file at `path` (following links), or the
    /// problem; reads nothing. A path in a directory found missing less
    /// than a second ago is `.missing` without a look-up
    /// (`MissingDirectories`).
    public static func identity(of path: String) -> Result<MediaFile.Identity, MediaFile.Problem> {
        guard isUsablePath(path) else { return .failure(.missing) }
        return path.withCString { identity(ofCPath: cBytes($0)) }
    }

    /// `identity(of:)` of a path as `MediaFile.withResolved` hands it
    /// over: UTF-8 with a NUL after it. Under a base directory that
    /// `withResolved` resolved against, the path is looked up relative to
    /// it (`BaseDirectoryHandles`). Every media cell's look-up comes here.
    package static func identity(ofResolved path: UnsafeBufferPointer<UInt8>) -> Result<MediaFile.Identity, MediaFile.Problem> {
        identity(ofResolved: path, now: MissingDirectories.coarseNow)
    }

    /// `identity(ofResolved:)` with the clock that missing directories
    /// expire by (a test's own).
    static func identity(ofResolved path: UnsafeBufferPointer<UInt8>, now: MissingDirectories.Clock)
        -> Result<MediaFile.Identity, MediaFile.Problem> {
        guard let base = path.baseAddress, !path.isEmpty, memchr(base, 0, path.count) == nil else { return .failure(.missing) }
        guard let (directory, relative) = BaseDirectoryHandles.handle(for: path) else { return identity(ofCPath: path, now: now) }
        return identity(ofCPath: UnsafeBufferPointer(rebasing: path[relative...]), in: directory, now: now)
    }

    /// The identity of the regular file at `path` (bytes with a NUL after
    /// them), relative to the directory `directory` refers to (`AT_FDCWD`:
    /// the current one, or none for an absolute path). The one `stat` of a
    /// media path; a path in a directory remembered missing is answered
    /// without it, and a missing one has its directory looked up.
    private static func identity(ofCPath path: UnsafeBufferPointer<UInt8>, in directory: Int32 = AT_FDCWD,
                                 now: MissingDirectories.Clock = MissingDirectories.coarseNow)
        -> Result<MediaFile.Identity, MediaFile.Problem> {
        guard let start = path.baseAddress,
              !MissingDirectories.contain(path, base: directory, now: now) else { return .failure(.missing) }
        var info = stat()
        guard fstatat(directory, UnsafeRawPointer(start).assumingMemoryBound(to: CChar.self), &info, 0) == 0 else {
            guard errno == ENOENT || errno == ENOTDIR else { return .failure(.unreadable) }
            MissingDirectories.noteMissing(path, base: directory, now: now)
            return .failure(.missing)
        }
        guard info.st_mode & S_IFMT == S_IFREG else { return .failure(.notARegularFile) }
        return .success(MediaFile.Identity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
                                           modified: Int64(info.st_mtim.tv_sec), modifiedNanoseconds: Int64(info.st_mtim.tv_nsec)))
    }

    /// A C string's bytes (the NUL after them not counted).
    static func cBytes(_ path: UnsafePointer<CChar>) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: UnsafeRawPointer(path).assumingMemoryBound(to: UInt8.self), count: strlen(path))
    }

    /// True when `path` can name a file: not empty, and no NUL byte in it
    /// (a C path would end there). Reads the bytes in place: a `String`'s
    /// `utf8.contains` goes through its generic iterator, some 800
    /// instructions for a short path, on every message with a file.
    static func isUsablePath(_ path: String) -> Bool {
        guard !path.isEmpty else { return false }
        if let hasNUL = path.utf8.withContiguousStorageIfAvailable({ bytes in
            bytes.baseAddress.map { memchr($0, 0, bytes.count) != nil } ?? false
        }) {
            return !hasNUL
        }
        return !path.utf8.contains(0)
    }
}

// What FileCell learns from the file a message names: whether it is there
// and readable, its size, and its type from its content (libmagic).
//
// The path is untrusted: it is checked with stat before anything is opened
// (a device, FIFO, socket or directory is never opened), opened with
// O_NONBLOCK, checked again with fstat, and at most `FileProbe.prefixBytes`
// of it are read and handed to libmagic (magic_buffer: libmagic never opens
// the path itself). Results are kept per file identity (device, inode, size,
// modification time) in a bounded MediaCache, so a file that many messages
// name is read and classified once.
import CellKit
import CMagic
import Glibc
import Synchronization

/// The libmagic database, loaded once per process on first use.
final class MagicDatabase {
    /// The cookie; nil when the database could not be loaded.
    private let cookie: magic_t?
    /// Why the database could not be loaded (nil when it was).
    let failure: String?
    /// Whether the failure was logged (it is logged once per process).
    var warned = false

    init() {
        // MIME type only ("application/pdf"), no look inside compressed files
        // (a .gz is application/gzip, not its contents' type).
        guard let cookie = magic_open(MAGIC_MIME_TYPE | MAGIC_NO_CHECK_COMPRESS) else {
            self.cookie = nil
            failure = "magic_open failed"
            return
        }
        // NULL: the default database (or $MAGIC, as file(1) does).
        guard magic_load(cookie, nil) == 0 else {
            let reason = magic_error(cookie).map { String(cString: $0) } ?? "unknown error"
            magic_close(cookie)
            self.cookie = nil
            failure = reason
            return
        }
        self.cookie = cookie
        failure = nil
    }

    var isLoaded: Bool { cookie != nil }

    /// libmagic's MIME type for `bytes` (a prefix of a file), or nil when
    /// the database is not loaded, libmagic fails, or its answer is not a
    /// plausible MIME type (printable ASCII with one "/", at most 127 bytes).
    func mimeType(of bytes: UnsafeRawBufferPointer) -> String? {
        guard let cookie else { return nil }
        guard let answer = magic_buffer(cookie, bytes.baseAddress, bytes.count) else { return nil }
        let mime = String(cString: answer)
        var slashes = 0
        for byte in mime.utf8 {
            guard byte > 0x20, byte < 0x7F else { return nil }
            if byte == UInt8(ascii: "/") { slashes += 1 }
        }
        guard slashes == 1, mime.utf8.count <= 127 else { return nil }
        return mime
    }
}

/// The file behind a message's path, as FileCell shows it.
enum FileProbe {
    /// At most this many bytes of a file are read for libmagic. 64 KiB holds
    /// every signature FileCell tells apart (libmagic's own text checks look
    /// at no more by default), and bounds the work for huge files.
    static let prefixBytes = 64 * 1024

    /// Files whose types are kept. Each entry is a short string; 4096 is far
    /// more files than a conversation names.
    static let cacheCapacity = 4096

    /// What was found at a path.
    enum Outcome: Equatable {
        /// A regular file that was read: its size in bytes, and libmagic's
        /// type (nil when libmagic is not available or gave none).
        case file(size: Int64, detected: String?)
        /// No file to show; `notice` says why.
        case problem(MediaFile.Problem)
    }

    /// The database, loaded on first use.
    static let magic = MagicDatabase()

    /// Detected types by file identity.
    static let cache = MediaCache<Outcome>(capacity: cacheCapacity)

    /// Looks the file at `path` (absolute, or relative to the current
    /// directory) up: stat, then the cache, and only for a file not seen
    /// before (or changed since) opens it and runs libmagic on its prefix.
    /// When libmagic's database cannot be loaded, logs one warning through
    /// `host` and reports files without a detected type.
    ///
    /// The path comes as `MediaFile.withResolved` hands it over (UTF-8, a
    /// NUL after it); a `String` of it is made only to read a new file.
    static func probe(_ path: UnsafeBufferPointer<UInt8>, host: Host) -> Outcome {
        // libmagic's cookie, `warned` and the cache serve one thread at a time.
        lock.withLock { _ in probeLocked(path, host: host) }
    }

    private static let lock = Mutex(())

    private static func probeLocked(_ path: UnsafeBufferPointer<UInt8>, host: Host) -> Outcome {
        let identity: MediaFile.Identity
        switch MediaStat.identity(ofResolved: path) {
        case .failure(let problem): return .problem(problem)
        case .success(let found): identity = found
        }
        if !magic.isLoaded && !magic.warned {
            magic.warned = true
            host.log(.warning, "libmagic database not loaded (\(magic.failure ?? "unknown error")): "
                     + "file types come from names only")
        }
        return cache.value(for: identity) {
            let path = String(decoding: path, as: UTF8.self)
            let outcome = sniff(path, expecting: identity)
            // One line per file classified (shown with --verbose): what
            // Benchmarks/files.sh counts to see the cache at work.
            if case .file(_, let detected?) = outcome { host.log(.debug, "libmagic: \(path): \(detected)") }
            return outcome
        }
    }

    /// Opens the regular file at `path` without blocking, reads at most
    /// `prefixBytes` of it and asks libmagic. When the file opened is not
    /// the one `expected` describes (replaced between stat and open), its
    /// type is not trusted (nil), since the result is kept for `expected`.
    static func sniff(_ path: String, expecting expected: MediaFile.Identity) -> Outcome {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
        guard fd >= 0 else {
            switch errno {
            case ENOENT, ENOTDIR, ENAMETOOLONG, ELOOP: return .problem(.missing)
            default: return .problem(.unreadable)
            }
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return .problem(.unreadable) }
        guard info.st_mode & S_IFMT == S_IFREG else { return .problem(.notARegularFile) }
        guard let size = Int64(exactly: info.st_size), size >= 0 else { return .problem(.unreadable) }
        let same = UInt64(exactly: info.st_dev) == expected.device && UInt64(exactly: info.st_ino) == expected.inode
            && size == expected.size && Int64(exactly: info.st_mtim.tv_sec) == expected.modified
            && Int64(exactly: info.st_mtim.tv_nsec) == expected.modifiedNanoseconds
        guard same, magic.isLoaded else { return .file(size: expected.size, detected: nil) }

        // The prefix: up to prefixBytes, fewer when the file is shorter (or
        // shrinks while it is read).
        let wanted = size < Int64(prefixBytes) ? Int(size) : prefixBytes
        var bytes = [UInt8](repeating: 0, count: wanted)
        var count = 0
        while count < wanted {
            let got = bytes.withUnsafeMutableBytes { buffer in
                Glibc.read(fd, buffer.baseAddress! + count, wanted - count)
            }
            if got < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            if got < 0 { return .problem(.unreadable) }
            if got == 0 { break }
            count += got
        }
        let detected = bytes.withUnsafeBytes { magic.mimeType(of: UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
        return .file(size: expected.size, detected: detected)
    }
}

/// Which MIME type a file cell shows, given what the message declares, what
/// the name's extension suggests and what libmagic found in the content.
enum FileTypeChoice {
    /// The content wins whenever libmagic names a specific type: a PDF
    /// renamed `.txt` (or sent as `text/plain`) is a PDF, a PNG without an
    /// extension is an image. The message's type (else the extension's)
    /// is kept only when libmagic knows less than it does:
    ///
    /// - no detection (file not read, no database): declared, else guessed;
    /// - `application/octet-stream` or empty (`application/x-empty`,
    ///   `inode/x-empty`): declared, else guessed, else that generic type;
    /// - `text/plain` (libmagic cannot tell CSV, Markdown or source code
    ///   from text): a declared or guessed text-like type (`text/csv`,
    ///   `application/json`) is kept;
    /// - `application/zip`: a declared or guessed zip-based type (office
    ///   documents, EPUB, JAR, `+zip`) is kept;
    /// - the OLE container of old office files (`application/x-ole-storage`,
    ///   `application/CDFV2`): a declared or guessed office type is kept.
    ///
    /// `guessed` (a dictionary look-up) is called at most once, and only
    /// when needed.
    static func mime(declared: String?, guessed: () -> String?, detected: String?) -> String? {
        var guess: String?? = .none
        func guessedOnce() -> String? {
            if guess == nil { guess = .some(guessed()) }
            return guess ?? nil
        }
        guard let detected else { return declared ?? guessedOnce() }
        /// The declared, else the guessed type when it passes `test`.
        func kept(_ test: (String) -> Bool) -> String? {
            if let declared, test(declared) { return declared }
            if let guessed = guessedOnce(), test(guessed) { return guessed }
            return nil
        }
        switch essence(of: detected) {
        case "application/octet-stream", "application/x-empty", "inode/x-empty":
            return declared ?? guessedOnce() ?? detected
        case "text/plain":
            if let kept = kept({ MediaType.tag(forMIME: $0) == "[TXT]" }) { return kept }
        case "application/zip":
            if let kept = kept(isZipBased) { return kept }
        case "application/x-ole-storage", "application/cdfv2":
            if let kept = kept({ MediaType.tag(forMIME: $0) == "[DOC]" }) { return kept }
        default:
            break
        }
        return detected
    }

    /// Whether `mime` tells nothing about the content (so the message class
    /// picks the tag).
    static func isGeneric(_ mime: String) -> Bool {
        switch essence(of: mime) {
        case "application/octet-stream", "application/x-empty", "inode/x-empty": return true
        default: return false
        }
    }

    /// `isGeneric` of a type given as UTF-8: a bare type (`isBare`, which
    /// is its own essence) is compared as bytes, any other as a `String`.
    static func isGeneric(_ mime: UnsafeBufferPointer<UInt8>) -> Bool {
        guard isBare(mime) else { return isGeneric(String(decoding: mime, as: UTF8.self)) }
        func equals(_ literal: StaticString) -> Bool {
            guard let base = mime.baseAddress, mime.count == literal.utf8CodeUnitCount else { return false }
            return memcmp(base, literal.utf8Start, mime.count) == 0
        }
        return equals("application/octet-stream") || equals("application/x-empty") || equals("inode/x-empty")
    }

    /// True when `bytes` are a type's essence as they are: no parameters
    /// (";"), no spaces or tabs, no upper case, ASCII only.
    static func isBare(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        for byte in bytes where byte == UInt8(ascii: ";") || byte == UInt8(ascii: " ")
            || byte == UInt8(ascii: "\t") || byte &- UInt8(ascii: "A") < 26 || byte >= 0x80 {
            return false
        }
        return true
    }

    /// A type stored in a zip container.
    static func isZipBased(_ mime: String) -> Bool {
        let type = essence(of: mime)
        return MediaType.tag(forMIME: type) == "[DOC]" || type.hasSuffix("+zip") || type == "application/zip"
            || type == "application/java-archive" || type == "application/vnd.android.package-archive"
    }

    /// The lower-cased type without parameters: `"Text/CSV; charset=utf-8"`
    /// → `"text/csv"`.
    static func essence(of mime: String) -> String {
        // Almost always already bare and lower-case (libmagic's answers,
        // most messages' types): one scan of the bytes, no new string.
        // The bytes in place when the string has them contiguous (a native
        // string: always here), else through its UTF-8 view.
        var bare = mime
        if bare.withUTF8(isBare) { return mime }
        let end = mime.firstIndex(of: ";") ?? mime.endIndex
        var type = Substring(mime[..<end])
        while let first = type.first, first == " " || first == "\t" { type = type.dropFirst() }
        while let last = type.last, last == " " || last == "\t" { type = type.dropLast() }
        return type.lowercased()
    }
}

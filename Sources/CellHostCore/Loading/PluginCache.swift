import CellHostABI
import Glibc

/// The plugin registry cache, like GStreamer's registry: what scanning each
/// plugin file found (its `PluginRecord`, failures included), keyed by the
/// file's identity (path, device, inode, size, modification time) and the
/// host's ABI version. A warm `list-plugins` answers from it without opening
/// any plugin; a changed file is scanned again; a failed plugin is not
/// retried until its file changes.
///
/// The file is binary: a magic number, the format number, the ABI version,
/// the entries (`PluginRecordCoding`) and a 64-bit FNV-1a checksum of all
/// that. A file that cannot be read as a cache (corrupt, truncated,
/// something else) is replaced, with one warning.
/// Writes go to a temporary file that is then renamed over the cache, so a
/// concurrent reader sees the old cache or the new one, never a mix.
public struct PluginCache {
    /// The format this host reads and writes.
    public static let format = 2

    public let path: String

    public init(path: String) { self.path = path }

    /// `$XDG_CACHE_HOME/cellhost/plugins.cache`, else `~/.cache/cellhost/plugins.cache`.
    public static func defaultPath(environment: [String: String]) -> String? {
        if let cache = environment["XDG_CACHE_HOME"], cache.hasPrefix("/") {
            return cache + "/cellhost/plugins.cache"
        }
        guard let home = environment["HOME"], home.hasPrefix("/") else { return nil }
        return home + "/.cache/cellhost/plugins.cache"
    }

    struct Entry {
        var identity: FileIdentity
        var record: PluginRecord
    }

    static let magic: [UInt8] = Array("CELLHOST-PLUGINS".utf8)

    /// 64-bit FNV-1a.
    static func checksum(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return hash
    }

    static var abi: String { "\(CELLHOST_ABI_MAJOR).\(CELLHOST_ABI_MINOR)" }

    /// The cached entries by path. A missing cache, or one written for
    /// another format or ABI, is empty; an unreadable one is empty with a
    /// warning.
    func load() -> (entries: [String: Entry], warning: String?) {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return ([:], nil) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            return ([:], "\(path): the plugin cache is not a regular file; scanning plugins without it")
        }
        guard info.st_size <= 64 << 20 else { return ([:], "\(path): the plugin cache is over 64 MiB; rebuilding it") }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        var filled = 0
        while filled < bytes.count {
            let count = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + filled, $0.count - filled) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            filled += count
        }
        guard filled == bytes.count else { return ([:], "\(path): the plugin cache could not be read; rebuilding it") }
        guard bytes.count >= Self.magic.count + 8, bytes.starts(with: Self.magic) else {
            return ([:], "\(path): the plugin cache is corrupt; rebuilding it")
        }
        var trailer = WireReader(bytes, offset: bytes.count - 8)
        guard let stored = try? trailer.u64(), stored == Self.checksum(bytes[..<(bytes.count - 8)]) else {
            return ([:], "\(path): the plugin cache is corrupt; rebuilding it")
        }
        var reader = WireReader(Array(bytes[..<(bytes.count - 8)]), offset: Self.magic.count)
        do {
            guard Int(try reader.u32()) == Self.format, try reader.string() == Self.abi else { return ([:], nil) }
            var entries: [String: Entry] = [:]
            for _ in 0..<(try reader.count(limit: 1 << 20)) {
                let identity = try FileIdentity.decode(&reader)
                entries[identity.path] = Entry(identity: identity, record: try PluginRecord.decode(&reader))
            }
            return (entries, nil)
        } catch {
            return ([:], "\(path): the plugin cache is corrupt; rebuilding it")
        }
    }

    /// Writes `entries` atomically. Returns why it could not, if it could not.
    func store(_ entries: [Entry]) -> String? {
        guard let slash = path.lastIndex(of: "/") else { return "\(path): not an absolute path" }
        let directory = String(path[..<slash])
        if let problem = Self.makeDirectories(directory) { return "cannot write the plugin cache: \(problem)" }
        var writer = WireWriter()
        writer.bytes = Self.magic
        writer.u32(UInt32(Self.format))
        writer.string(Self.abi)
        writer.u32(UInt32(entries.count))
        for entry in entries.sorted(by: { $0.identity.path < $1.identity.path }) {
            entry.identity.encode(into: &writer)
            entry.record.encode(into: &writer)
        }
        writer.u64(Self.checksum(writer.bytes[...]))
        let data = writer.bytes
        let temporary = "\(path).\(getpid()).tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return "cannot write the plugin cache \(temporary): \(String(cString: strerror(errno)))" }
        let failure: String? = WireIO.writeAll(fd, data) ? nil : String(cString: strerror(errno))
        if close(fd) != 0 || failure != nil {
            unlink(temporary)
            return "cannot write the plugin cache \(temporary): \(failure ?? String(cString: strerror(errno)))"
        }
        guard rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            return "cannot replace the plugin cache \(path): \(reason)"
        }
        return nil
    }

    private static func makeDirectories(_ directory: String) -> String? {
        var built = ""
        for component in directory.split(separator: "/") {
            built += "/" + component
            if mkdir(built, 0o700) != 0 && errno != EEXIST {
                return "\(built): \(String(cString: strerror(errno)))"
            }
        }
        return nil
    }
}

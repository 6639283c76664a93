import CellHostABI
import Glibc

/// The plugin registry cache, like GStreamer's registry: what scanning each
/// plugin file found (its record, failures included), with the file's
/// identity (path, device, inode, size, modification time), for the host's
/// ABI version. A warm `list-plugins` answers from it without opening any
/// plugin; a changed file is scanned again; a failed plugin is not retried
/// until its file changes.
///
/// The file is binary: a magic number, the format number, the ABI version,
/// the records as a `PluginCatalog` (every string once, in a name table),
/// each record's file identity, and a checksum (`ByteHash`) of all that.
/// Reading it makes no string: a render with a thousand plugins installed
/// reads their records as integers and makes strings only for the classes
/// it links. A file that cannot be read as a cache (corrupt, truncated,
/// something else) is replaced, with one warning; one of another format or
/// ABI, silently. Writes go to a temporary file that is then renamed over
/// the cache, so a concurrent reader sees the old cache or the new one,
/// never a mix.
public struct PluginCache {
    /// The format this host reads and writes.
    public static let format = 3

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

    /// What a cache file holds: records, and the identity of each one's
    /// file when it was scanned.
    struct Contents {
        let catalog: PluginCatalog
        /// By catalog plugin index.
        let stamps: [FileStamp]
        /// The plugin of each file, by the file's name in the catalog (-1: none).
        private let pluginOfName: [Int32]

        init(catalog: PluginCatalog, stamps: [FileStamp]) {
            self.catalog = catalog
            self.stamps = stamps
            var pluginOfName = [Int32](repeating: -1, count: catalog.names.count)
            for (index, plugin) in catalog.plugins.enumerated() { pluginOfName[plugin.file.index] = Int32(index) }
            self.pluginOfName = pluginOfName
        }

        /// The plugin recorded for `file` when the file is as it was then.
        func plugin(for file: String, identity: FileIdentity) -> Int? {
            guard let plugin = plugin(for: file), stamps[plugin] == identity.stamp else { return nil }
            return plugin
        }

        /// The plugin recorded for `file`.
        func plugin(for file: String) -> Int? {
            guard let name = catalog.names.find(file), name.index < pluginOfName.count,
                  pluginOfName[name.index] >= 0 else { return nil }
            return Int(pluginOfName[name.index])
        }
    }

    /// One record to write: plugin `plugin` of a catalog, and its file's identity.
    struct Entry {
        var plugin: Int
        var identity: FileIdentity
    }

    static let magic: [UInt8] = Array("CELLHOST-PLUGINS".utf8)

    static var abi: String { "\(CELLHOST_ABI_MAJOR).\(CELLHOST_ABI_MINOR)" }

    /// What the cache holds. A missing cache, or one written for another
    /// format or ABI, holds nothing; an unreadable one nothing, with a warning.
    func load() -> (contents: Contents?, warning: String?) {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return (nil, nil) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            return (nil, "\(path): the plugin cache is not a regular file; scanning plugins without it")
        }
        guard info.st_size <= 64 << 20 else { return (nil, "\(path): the plugin cache is over 64 MiB; rebuilding it") }
        let size = Int(info.st_size)
        var filled = 0
        let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, initialized in
            while filled < size {
                let count = Glibc.read(fd, buffer.baseAddress! + filled, size - filled)
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { break }
                filled += count
            }
            initialized = filled
        }
        guard filled == size else { return (nil, "\(path): the plugin cache could not be read; rebuilding it") }
        let corrupt = "\(path): the plugin cache is corrupt; rebuilding it"
        guard bytes.count >= Self.magic.count + 4 + 8, bytes.starts(with: Self.magic) else { return (nil, corrupt) }
        var reader = WireReader(bytes, offset: Self.magic.count)
        // Another format may be checked another way: it is replaced, silently.
        guard let format = try? reader.u32(), Int(format) == Self.format else { return (nil, nil) }
        var trailer = WireReader(bytes, offset: bytes.count - 8)
        guard let stored = try? trailer.u64(), stored == ByteHash.hash(bytes[..<(bytes.count - 8)]) else {
            return (nil, corrupt)
        }
        do {
            guard try reader.string() == Self.abi else { return (nil, nil) }
            let catalog = try PluginCatalog.decode(&reader)
            var stamps: [FileStamp] = []
            stamps.reserveCapacity(catalog.plugins.count)
            for _ in catalog.plugins { stamps.append(try FileStamp.decode(&reader)) }
            guard reader.offset == bytes.count - 8 else { return (nil, corrupt) }
            return (Contents(catalog: catalog, stamps: stamps), nil)
        } catch {
            return (nil, corrupt)
        }
    }

    /// Writes `entries` of `catalog` atomically, in the order of their
    /// paths. Returns why it could not, if it could not.
    func store(_ entries: [Entry], of catalog: PluginCatalog) -> String? {
        guard let slash = path.lastIndex(of: "/") else { return "\(path): not an absolute path" }
        let directory = String(path[..<slash])
        if let problem = Self.makeDirectories(directory) { return "cannot write the plugin cache: \(problem)" }
        let sorted = entries.sorted { $0.identity.path < $1.identity.path }
        var encoder = PluginCatalogEncoder()
        for entry in sorted { encoder.append(catalog, plugin: entry.plugin) }
        var writer = WireWriter()
        writer.bytes = Self.magic
        writer.u32(UInt32(Self.format))
        writer.string(Self.abi)
        encoder.encode(into: &writer)
        for entry in sorted { entry.identity.stamp.encode(into: &writer) }
        writer.u64(ByteHash.hash(writer.bytes[...]))
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

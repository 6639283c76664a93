import Glibc

/// What identifies one version of a file for the plugin cache: its path,
/// device, inode, size and modification time (to the nanosecond). A file
/// replaced, rebuilt or touched gets a new identity and is scanned again.
public struct FileIdentity: Sendable, Codable, Equatable {
    public var path: String
    public var device: UInt64
    public var inode: UInt64
    public var size: Int64
    public var modifiedSeconds: Int64
    public var modifiedNanoseconds: Int64

    init(path: String, device: UInt64, inode: UInt64, size: Int64, modifiedSeconds: Int64, modifiedNanoseconds: Int64) {
        self.path = path
        self.device = device
        self.inode = inode
        self.size = size
        self.modifiedSeconds = modifiedSeconds
        self.modifiedNanoseconds = modifiedNanoseconds
    }

    /// The identity of the file at `path` now (symbolic links followed), or
    /// nil when it cannot be read.
    public init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        self.init(path: path, info: info)
    }

    /// The identity of the file at `path` whose `stat` is `info`.
    init(path: String, info: stat) {
        self.path = path
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        modifiedSeconds = Int64(info.st_mtim.tv_sec)
        modifiedNanoseconds = Int64(info.st_mtim.tv_nsec)
    }
}

extension FileIdentity {
    /// The identity without the path: what the plugin cache keeps beside
    /// each record (whose file is the path).
    var stamp: FileStamp {
        FileStamp(device: device, inode: inode, size: size, modifiedSeconds: modifiedSeconds,
                  modifiedNanoseconds: modifiedNanoseconds)
    }

    init(path: String, stamp: FileStamp) {
        self.init(path: path, device: stamp.device, inode: stamp.inode, size: stamp.size,
                  modifiedSeconds: stamp.modifiedSeconds, modifiedNanoseconds: stamp.modifiedNanoseconds)
    }
}

/// A file's device, inode, size and modification time (`FileIdentity` without its path).
struct FileStamp: Equatable {
    var device: UInt64
    var inode: UInt64
    var size: Int64
    var modifiedSeconds: Int64
    var modifiedNanoseconds: Int64

    func encode(into writer: inout WireWriter) {
        writer.u64(device)
        writer.u64(inode)
        writer.u64(UInt64(bitPattern: size))
        writer.u64(UInt64(bitPattern: modifiedSeconds))
        writer.u64(UInt64(bitPattern: modifiedNanoseconds))
    }

    static func decode(_ reader: inout WireReader) throws -> FileStamp {
        FileStamp(device: try reader.u64(), inode: try reader.u64(), size: Int64(bitPattern: try reader.u64()),
                  modifiedSeconds: Int64(bitPattern: try reader.u64()), modifiedNanoseconds: Int64(bitPattern: try reader.u64()))
    }
}

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

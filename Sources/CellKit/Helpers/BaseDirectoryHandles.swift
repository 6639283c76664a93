import Glibc

/// Open handles (`O_PATH`) on the directories that message paths resolve
/// against, so that a media file is looked up with `fstatat` relative to
/// its base directory: the kernel then walks only the components the
/// message gives (`media/photo.jpg`), not the whole absolute path again on
/// every message. On the `real` benchmark mix, where a quarter of the
/// messages name a media file, path look-ups were 5 % of all CPU time.
///
/// `MediaFile.withResolved` notes each base directory it resolves against;
/// `MediaStat.identity(ofResolved:)` then finds the handle whose directory
/// starts the resolved path. A directory is looked up once, when first
/// noted: if it is renamed or replaced later in the run, paths under it
/// keep resolving in the directory that was opened (as they would for a
/// program that changed into it). A path's own components, symbolic links
/// and `..` included, are resolved by the kernel on every look-up as
/// before.
///
/// At most `limit` directories get a handle (a render has one base
/// directory per input file); paths under other directories are looked up
/// by their absolute path. Handles are never closed, so one cannot be
/// closed (and its number reused) while another thread uses it.
///
/// Thread safety: the table is read and written under `lock`; a plugin
/// that declares `PluginInfo.threadSafe` looks paths up from several
/// threads at once.
enum BaseDirectoryHandles {
    /// Directories with a handle, at most this many.
    static let limit = 8

    private struct Entry {
        var directory: [UInt8]
        var descriptor: Int32
    }

    /// `O_PATH` (a handle to look paths up with, needing no read permission
    /// on the directory), which the Glibc module does not export: its value
    /// on x86-64 and AArch64 Linux.
    private static let pathOnly: Int32 = 0o10_000_000

    private static let lock = Lock()
    nonisolated(unsafe) private static var entries: [Entry] = []
    /// Directories that could not be opened (not a directory, no
    /// permission): looked up by absolute path, and not tried again.
    nonisolated(unsafe) private static var refused: [[UInt8]] = []

    /// Opens a handle on `directory` (an absolute path, no NUL) unless it
    /// has one, could not be opened before, or `limit` are open.
    static func note(_ directory: UnsafeBufferPointer<UInt8>) {
        lock.locked {
            if entries.contains(where: { equal($0.directory, directory) }) { return }
            guard entries.count < limit, directory.count > 1, directory.first == UInt8(ascii: "/"),
                  directory.last != UInt8(ascii: "/"), !directory.contains(0),
                  !refused.contains(where: { equal($0, directory) }) else { return }
            let path = Array(directory) + [0]
            let descriptor = path.withUnsafeBufferPointer { bytes in
                bytes.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, pathOnly | O_DIRECTORY | O_CLOEXEC) }
            }
            if descriptor >= 0 {
                entries.append(Entry(directory: Array(directory), descriptor: descriptor))
            } else if refused.count < limit {
                refused.append(Array(directory))
            }
        }
    }

    /// The handle on a noted directory that `path` lies in, and where the
    /// rest of `path` starts; nil when there is none, or when the rest is
    /// empty or starts with "/" (which `fstatat` would read differently).
    static func handle(for path: UnsafeBufferPointer<UInt8>) -> (descriptor: Int32, relative: Int)? {
        lock.locked {
            for entry in entries {
                let count = entry.directory.count
                guard path.count > count + 1, path[count] == UInt8(ascii: "/"), path[count + 1] != UInt8(ascii: "/"),
                      equal(entry.directory, UnsafeBufferPointer(rebasing: path[..<count])) else { continue }
                return (entry.descriptor, count + 1)
            }
            return nil
        }
    }

    /// Directories with a handle now (for tests).
    static var count: Int { lock.locked { entries.count } }

    private static func equal(_ stored: [UInt8], _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        stored.count == bytes.count && stored.withUnsafeBufferPointer { stored in
            stored.isEmpty || memcmp(stored.baseAddress!, bytes.baseAddress!, bytes.count) == 0
        }
    }
}

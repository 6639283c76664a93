import Glibc
import Synchronization

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
/// before (but for a path in a directory remembered missing:
/// `MissingDirectories`).
///
/// At most `limit` directories get a handle (a render has one base
/// directory per input file); paths under other directories are looked up
/// by their absolute path. Handles are never closed, so one cannot be
/// closed (and its number reused) while another thread uses it.
///
/// Thread safety: the table is written under `lock` and read without it
/// (a plugin that declares `PluginInfo.threadSafe` looks paths up from
/// several threads at once): a slot is written before `published` counts
/// it and never changes after, so a reader that loads the count sees the
/// slots before it whole. Every media message notes its base directory and
/// looks its path up: two lock round trips and the retains of the entries'
/// arrays had cost some 500 instructions a media message.
enum BaseDirectoryHandles {
    /// Directories with a handle, at most this many.
    static let limit = 8

    /// A directory with a handle: its bytes (a copy, allocated once and
    /// never freed, like the handle) and the handle.
    private struct Slot {
        let directory: UnsafeBufferPointer<UInt8>
        let descriptor: Int32
    }

    /// `O_PATH` (a handle to look paths up with, needing no read permission
    /// on the directory), which the Glibc module does not export: its value
    /// on x86-64 and AArch64 Linux.
    private static let pathOnly: Int32 = 0o10_000_000

    private static let lock = Lock()
    /// The directories with a handle: the first `published` slots.
    nonisolated(unsafe) private static let slots = UnsafeMutablePointer<Slot>.allocate(capacity: limit)
    /// How many slots are written: stored (releasing) under `lock` after
    /// the slot it counts, loaded (acquiring) by readers.
    private static let published = Atomic<Int>(0)
    /// Directories that could not be opened (not a directory, no
    /// permission): looked up by absolute path, and not tried again.
    /// Read and written under `lock`.
    nonisolated(unsafe) private static var refused: [[UInt8]] = []

    /// Opens a handle on `directory` (an absolute path, no NUL) unless it
    /// has one, could not be opened before, or `limit` are open. A
    /// directory with a handle is found without the lock.
    static func note(_ directory: UnsafeBufferPointer<UInt8>) {
        if hasHandle(directory, among: published.load(ordering: .acquiring)) { return }
        lock.locked {
            let count = published.load(ordering: .relaxed) // only written under the lock
            if hasHandle(directory, among: count) { return }
            guard count < limit, directory.count > 1, directory.first == UInt8(ascii: "/"),
                  directory.last != UInt8(ascii: "/"), !directory.contains(0),
                  !refused.contains(where: { $0.withUnsafeBufferPointer { equal($0, directory) } }) else { return }
            let path = Array(directory) + [0]
            let descriptor = path.withUnsafeBufferPointer { bytes in
                bytes.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, pathOnly | O_DIRECTORY | O_CLOEXEC) }
            }
            if descriptor >= 0 {
                let copy = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: directory.count)
                _ = copy.initialize(fromContentsOf: directory)
                (slots + count).initialize(to: Slot(directory: UnsafeBufferPointer(copy), descriptor: descriptor))
                published.store(count + 1, ordering: .releasing)
            } else if refused.count < limit {
                refused.append(Array(directory))
            }
        }
    }

    /// True when one of the first `count` slots holds `directory`.
    private static func hasHandle(_ directory: UnsafeBufferPointer<UInt8>, among count: Int) -> Bool {
        for index in 0..<count where equal(slots[index].directory, directory) { return true }
        return false
    }

    /// The handle on a noted directory that `path` lies in, and where the
    /// rest of `path` starts; nil when there is none, or when the rest is
    /// empty or starts with "/" (which `fstatat` would read differently).
    static func handle(for path: UnsafeBufferPointer<UInt8>) -> (descriptor: Int32, relative: Int)? {
        for index in 0..<published.load(ordering: .acquiring) {
            let slot = slots[index]
            let count = slot.directory.count
            guard path.count > count + 1, path[count] == UInt8(ascii: "/"), path[count + 1] != UInt8(ascii: "/"),
                  equal(slot.directory, UnsafeBufferPointer(rebasing: path[..<count])) else { continue }
            return (slot.descriptor, count + 1)
        }
        return nil
    }

    /// Directories with a handle now (for tests).
    static var count: Int { published.load(ordering: .acquiring) }

    private static func equal(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        guard let x = a.baseAddress, let y = b.baseAddress else { return true }
        return memcmp(x, y, a.count) == 0
    }
}

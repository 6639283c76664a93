import Glibc

/// Directories that a thread's media look-ups found missing, remembered for
/// one second, so that a message naming a path under one answers
/// `.missing` without a system call.
///
/// Why: chat exports made without media (Telegram's "File not included")
/// still name a path for every file, image and voice message, in a
/// directory that does not exist (`media/img-123.jpg` beside the input,
/// with no `media/`). Each such message cost a failed `stat` on the render
/// worker thread, some 1 µs in the kernel and 4–6 % of all CPU time of a
/// render of the `real` benchmark mix.
///
/// What is remembered: when the look-up of `DIR/NAME` fails with `ENOENT`
/// or `ENOTDIR`, `DIR` is looked up once, relative to the same base
/// directory handle; when it is missing too, (`DIR`, the handle) is kept
/// with an expiry one second ahead on `CLOCK_MONOTONIC_COARSE` (read from
/// the vDSO, no system call). A later path whose directory part is `DIR`
/// or lies below it, component-wise (`media/x` and `media/sub/x` under
/// `media`, not `media2/x`), is `.missing` until then. The kernel resolves
/// a path's components in order, so such a path (`media/../x` too) fails
/// with `ENOENT` or `ENOTDIR` anyway: the answer is the system call's.
/// Only a path the kernel would refuse for its length first (`PATH_MAX`
/// bytes or more) is always looked up.
///
/// Only missing directories are remembered: a file that exists is looked
/// up on every message (a changed file is seen at once), and so is a
/// missing file in a directory that exists. A directory that appears is
/// seen within one second (the promise for live input, docs/cellkit.md).
///
/// At most `capacity` directories are kept (the deepest missing one of
/// each path looked up; an export has one or a few); an expired one is
/// dropped when a path under it is next looked up.
///
/// Thread safety: a plugin that declares `PluginInfo.threadSafe` looks
/// paths up from several threads at once, so each thread keeps its own
/// (in its `ThreadCache`): no lock and no shared cache line on the path of
/// every media message, at the price of one directory look-up a second per
/// thread. The entries are plain memory of their own (no reference
/// counting), freed with the thread's cache.
struct MissingDirectories {
    /// How long a directory found missing is remembered, in nanoseconds.
    static let lifetime: Int64 = 1_000_000_000

    /// Directories remembered at once, at most.
    static let capacity = 4

    /// A clock in nanoseconds: `coarseNow`, or a test's own to see entries
    /// expire without sleeping.
    typealias Clock = () -> Int64

    /// A missing directory: a copy of its bytes (as the look-up gave them,
    /// no "/" at the end), the directory handle they are relative to
    /// (`AT_FDCWD`: the current directory, or an absolute path) and when
    /// it expires.
    private struct Entry {
        var directory: UnsafeMutableBufferPointer<UInt8>
        var base: Int32
        var expiry: Int64
    }

    /// `capacity` entries, the first `count` of them kept; allocated when
    /// the first directory is remembered.
    private var entries: UnsafeMutablePointer<Entry>?
    private var count = 0
    /// Paths answered from the entries, and directories looked up (counts
    /// for tests, not timings).
    private(set) var answered = 0
    private(set) var lookUps = 0

    /// Now on `CLOCK_MONOTONIC_COARSE`, in nanoseconds (the vDSO's copy of
    /// the last timer tick: no system call, a few milliseconds coarse).
    static func coarseNow() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC_COARSE, &time)
        return Int64(time.tv_sec) &* 1_000_000_000 &+ Int64(time.tv_nsec)
    }

    /// True when `path` (relative to `base`) lies in a directory the
    /// calling thread remembers missing, not expired: its look-up would
    /// fail with `ENOENT` or `ENOTDIR`. Makes no system call. False on a
    /// thread without a `ThreadCache` (then nothing is remembered).
    static func contain(_ path: UnsafeBufferPointer<UInt8>, base: Int32, now: Clock = coarseNow) -> Bool {
        guard path.count < Int(PATH_MAX), let cache = ThreadCache.current, cache.pointee.missingDirectories.count > 0
        else { return false }
        return cache.pointee.missingDirectories.contain(path, base: base, now: now)
    }

    /// After a look-up of `path` (relative to `base`) failed with `ENOENT`
    /// or `ENOTDIR`: looks its directory up, and when it is missing too,
    /// the calling thread remembers it.
    static func noteMissing(_ path: UnsafeBufferPointer<UInt8>, base: Int32, now: Clock = coarseNow) {
        guard let cache = ThreadCache.current, let length = directoryLength(of: path) else { return }
        cache.pointee.missingDirectories.lookUps += 1
        let missing = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: length + 1) { copy in
            _ = copy.initialize(fromContentsOf: path[..<length])
            copy[length] = 0
            var info = stat()
            return copy.withMemoryRebound(to: CChar.self) { directory in
                guard let directory = directory.baseAddress else { return false }
                return fstatat(base, directory, &info, 0) != 0 && (errno == ENOENT || errno == ENOTDIR)
            }
        }
        guard missing else { return }
        cache.pointee.missingDirectories.remember(UnsafeBufferPointer(rebasing: path[..<length]), base: base,
                                                  until: now() &+ lifetime)
    }

    /// `contain` on this thread's entries. A path at or below a missing
    /// directory (`media`, `media/a.jpg`, `media//a`) is one whose
    /// directory part is at or below it, since no entry ends with "/".
    private mutating func contain(_ path: UnsafeBufferPointer<UInt8>, base: Int32, now: Clock) -> Bool {
        guard let entries else { return false }
        for index in 0..<count where entries[index].base == base
            && Self.isAtOrBelow(path, UnsafeBufferPointer(entries[index].directory)) {
            if now() < entries[index].expiry {
                answered += 1
                return true
            }
            remove(at: index)
            return false
        }
        return false
    }

    /// Keeps `directory` (relative to `base`) missing until `expiry`, in
    /// place of any entry below it (which says nothing more), else of the
    /// entry that expires first once `capacity` are kept.
    private mutating func remember(_ directory: UnsafeBufferPointer<UInt8>, base: Int32, until expiry: Int64) {
        let entries = self.entries ?? UnsafeMutablePointer<Entry>.allocate(capacity: Self.capacity)
        self.entries = entries
        var index = 0
        while index < count {
            if entries[index].base == base && Self.isAtOrBelow(UnsafeBufferPointer(entries[index].directory), directory) {
                remove(at: index)
            } else {
                index += 1
            }
        }
        if count == Self.capacity, let soonest = (0..<count).min(by: { entries[$0].expiry < entries[$1].expiry }) {
            remove(at: soonest)
        }
        let copy = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: directory.count)
        _ = copy.initialize(fromContentsOf: directory)
        (entries + count).initialize(to: Entry(directory: copy, base: base, expiry: expiry))
        count += 1
    }

    /// Drops the entry at `index` (the last one takes its place).
    private mutating func remove(at index: Int) {
        guard let entries else { return }
        entries[index].directory.deallocate()
        count -= 1
        entries[index] = entries[count]
    }

    /// Frees the entries (with the thread's cache, at thread exit).
    func freeOwnedMemory() {
        guard let entries else { return }
        for index in 0..<count { entries[index].directory.deallocate() }
        entries.deallocate()
    }

    /// The number of bytes of `path`'s directory part, without a "/" at
    /// its end: `media` of `media/a.jpg` and of `media//a.jpg`; nil when
    /// there is none to remember (`a.jpg`: the base directory itself;
    /// `/a.jpg`: the root) or when the kernel would refuse the path for
    /// its length before resolving a component.
    static func directoryLength(of path: UnsafeBufferPointer<UInt8>) -> Int? {
        guard path.count < Int(PATH_MAX), var end = path.lastIndex(of: UInt8(ascii: "/")) else { return nil }
        while end > 0 && path[end - 1] == UInt8(ascii: "/") { end -= 1 }
        return end > 0 ? end : nil
    }

    /// True when `path` is `directory` or lies below it, component by
    /// component (`media/sub` and `media/` below `media`; `media2` is not).
    static func isAtOrBelow(_ path: UnsafeBufferPointer<UInt8>, _ directory: UnsafeBufferPointer<UInt8>) -> Bool {
        let count = directory.count
        guard path.count >= count, path.count == count || path[count] == UInt8(ascii: "/") else { return false }
        guard let a = path.baseAddress, let b = directory.baseAddress else { return count == 0 }
        return memcmp(a, b, count) == 0
    }

    /// The calling thread's counts (for tests).
    static var counts: (answered: Int, lookUps: Int) {
        guard let cache = ThreadCache.current else { return (0, 0) }
        return (cache.pointee.missingDirectories.answered, cache.pointee.missingDirectories.lookUps)
    }
}

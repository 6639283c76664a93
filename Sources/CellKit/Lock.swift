import Glibc

/// A pthread mutex. CellKit's plugin-wide state is shared by every thread
/// the host calls the plugin on (several at once for a plugin that declares
/// `PluginInfo.threadSafe`), so it is read and written under one.
final class Lock: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

    init() { pthread_mutex_init(mutex, nil) }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` holding the mutex. `body` must not take it again.
    @inline(__always)
    func locked<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}

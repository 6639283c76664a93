// A voice note's audio file, read and decoded once per file per run.
import CellKit
import Synchronization

/// What the file named by `voice.path` gave the cell.
enum VoiceAudio: Sendable, Equatable {
    /// Decoded: the duration and fine waveform.
    case decoded(AudioSummary)
    /// The path gives no file to read (missing, unreadable, not a regular
    /// file, too large): the cell shows the message's own fields with this
    /// mark, or declines when it has none (the file cell then shows it).
    case noFile(MediaFile.Problem)
    /// A file, but not audio libsndfile can decode (corrupt, truncated, not
    /// audio): the cell shows this one-line notice.
    case undecodable(String)

    /// The most bytes read from one file: 64 MiB. A larger file is not read
    /// (`larger than 64 MB`).
    static let maximumBytes = 64 << 20
    /// Decoded files kept (LRU). An entry is the duration and at most
    /// `AudioDecoder.fineBuckets` peaks, about 4 KB.
    static let cacheCapacity = 256

    /// Decoded files by identity (device, inode, size, modification time),
    /// shared by every host in the process: the lock is for hosts rendering
    /// on different threads at once.
    private static let cache = Mutex(MediaCache<VoiceAudio>(capacity: cacheCapacity))

    /// The audio of `path` (UTF-8, as the message gives it, resolved
    /// against `context.baseDirectory`). The file is `stat`ed first (never
    /// opened when it is not a regular file, so a FIFO or device cannot
    /// block) and read and decoded only when its identity is not cached yet.
    static func load(_ path: UnsafeBufferPointer<UInt8>, context: RenderContext) -> VoiceAudio {
        var audio = VoiceAudio.noFile(.missing)
        MediaFile.withResolved(path, baseDirectory: context.baseDirectory) { audio = load(resolved: $0) }
        return audio
    }

    /// `load` for the resolved path (a NUL after it): a `String` of it is
    /// made only to read a new file.
    private static func load(resolved path: UnsafeBufferPointer<UInt8>) -> VoiceAudio {
        let identity: MediaFile.Identity
        switch MediaStat.identity(ofResolved: path) {
        case .failure(let problem): return .noFile(problem)
        case .success(let found): identity = found
        }
        guard identity.size <= Int64(maximumBytes) else { return .noFile(.tooLarge(limit: maximumBytes)) }
        return cache.withLock { cache in
            cache.value(for: identity) {
                // Read through MediaFile (regular files only, bounded), so
                // a file swapped for a FIFO since the stat is still refused.
                // When the file changed in between, the result is kept under
                // the old identity, which no later stat gives.
                switch MediaFile.read(String(decoding: path, as: UTF8.self), maximumBytes: maximumBytes) {
                case .failure(let problem): return .noFile(problem)
                case .success(let file):
                    switch AudioDecoder.decode(file.bytes) {
                    case .success(let summary): return .decoded(summary)
                    case .failure(let failure): return .undecodable(failure.notice)
                    }
                }
            }
        }
    }
}

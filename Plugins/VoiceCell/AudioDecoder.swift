// Reading a voice note's audio with libsndfile: its duration and a fine
// waveform of peak amplitudes, from bytes already read by `MediaFile` (never
// from a path libsndfile would open itself).
import CSndfile
import CellKit

/// What a voice note's audio file gave.
struct AudioSummary: Sendable, Equatable {
    /// Frames / sample rate, from the file's header.
    var seconds: Double
    /// Peak amplitudes (the largest |sample| over all channels) of
    /// `AudioDecoder.fineBuckets` equal slices of the decoded frames, or of
    /// every frame when there are fewer; each ≥ 0 and finite. Re-bucketed to
    /// the cell's width by `bars(width:)`. Empty for a file without frames.
    var peaks: [Float]
    /// The seconds the peaks cover when the file has more frames than
    /// `AudioDecoder.maximumFrames` (the peaks are then of its beginning
    /// only); nil when they cover the whole file.
    var partialSeconds: Double?

    /// `count` bar heights in 0...1: the largest fine peak in each of `count`
    /// equal slices of `peaks` (the nearest peak when there are fewer peaks
    /// than bars), scaled by the loudest peak of the whole file, so silence
    /// draws as the lowest bar and the loudest moment as the highest.
    func bars(count: Int) -> [Double] {
        let n = peaks.count
        guard n > 0, count > 0 else { return [] }
        let loudest = Double(peaks.max() ?? 0)
        func scaled(_ peak: Float) -> Double { loudest > 0 ? Double(peak) / loudest : 0 }
        if n <= count {
            return (0..<count).map { i in scaled(peaks[min(n - 1, (2 * i + 1) * n / (2 * count))]) }
        }
        return (0..<count).map { i in
            let start = i * n / count
            let end = max(start + 1, (i + 1) * n / count)
            return scaled(peaks[start..<end].max() ?? 0)
        }
    }
}

/// Decodes audio bytes with libsndfile (`sf_open_virtual`).
enum AudioDecoder {
    /// The fine waveform's resolution: peaks kept per file, enough for any
    /// width the cell draws (at most `VoiceCell.maximumBars`) to be a
    /// re-bucketing of them.
    static let fineBuckets = 1024
    /// The most frames decoded per file: 3 minutes at 48 kHz (9 at 16 kHz).
    /// A longer file still gets its duration from the header; its waveform
    /// shows the decoded beginning. Decoding is the cell's one slow step
    /// (Ogg/Opus: about 90 ms per minute of audio in a release build), and a
    /// render must stay within the host's time limit per message (500 ms by
    /// default in a worker process, 10 s in the host's).
    static let maximumFrames: Int64 = 3 * 60 * 48_000
    /// Samples read per `sf_readf_float` call (over all channels).
    static let chunkSamples = 16_384
    /// The longest reason from libsndfile shown in a notice.
    static let maximumReasonLength = 60

    /// Why bytes gave no audio: the one-line muted notice to show.
    struct Failure: Error, Equatable, Sendable {
        var notice: String
    }

    /// The duration and fine waveform of the audio in `bytes`, or why there
    /// is none (not audio libsndfile knows, malformed, truncated).
    static func decode(_ bytes: [UInt8]) -> Result<AudioSummary, Failure> {
        bytes.withUnsafeBytes { buffer in
            var source = ByteSource(bytes: buffer)
            return withUnsafeMutablePointer(to: &source) { decode(source: $0) }
        }
    }

    private static func decode(source: UnsafeMutablePointer<ByteSource>) -> Result<AudioSummary, Failure> {
        var io = SF_VIRTUAL_IO(get_filelen: ByteSource.length, seek: ByteSource.seek, read: ByteSource.read,
                               write: ByteSource.write, tell: ByteSource.tell)
        var info = SF_INFO()
        guard let file = sf_open_virtual(&io, Int32(SFM_READ), &info, UnsafeMutableRawPointer(source)) else {
            return .failure(Failure(notice: unreadable(reason: sf_strerror(nil))))
        }
        defer { sf_close(file) }

        let channels = Int(info.channels)
        guard channels > 0, channels <= 1024, info.samplerate > 0 else {
            return .failure(Failure(notice: "unreadable audio"))
        }
        // libsndfile says SF_COUNT_MAX when it cannot tell the length, which
        // for a file it can seek means a stream without its end (an Ogg
        // file cut off before its last page).
        guard info.frames >= 0, info.frames < Int64.max else {
            return .failure(Failure(notice: "truncated audio"))
        }
        let total = info.frames
        let wanted = min(total, maximumFrames)
        let bucketCount = Int(min(Int64(fineBuckets), wanted))
        var peaks = [Float](repeating: 0, count: bucketCount)

        // Frame f belongs to bucket floor(f * bucketCount / wanted); bucket b
        // ends at ceil((b + 1) * wanted / bucketCount). wanted ≤ 86.4 M and
        // bucketCount ≤ 1024, so no product overflows Int64.
        func bucketEnd(_ bucket: Int) -> Int64 {
            (Int64(bucket + 1) * wanted + Int64(bucketCount) - 1) / Int64(bucketCount)
        }
        var decoded: Int64 = 0
        if bucketCount > 0 {
            let chunkFrames = max(1, chunkSamples / channels)
            var samples = [Float](repeating: 0, count: chunkFrames * channels)
            var bucket = 0
            var end = bucketEnd(0)
            var peak: Float = 0
            while decoded < wanted {
                let ask = min(Int64(chunkFrames), wanted - decoded)
                let got = samples.withUnsafeMutableBufferPointer { sf_readf_float(file, $0.baseAddress, ask) }
                guard got > 0, got <= ask else { break }
                samples.withUnsafeBufferPointer { chunk in
                    // The chunk cut at bucket ends; each piece's peak in C.
                    var frame = decoded
                    let last = decoded + got
                    while frame < last {
                        while frame >= end, bucket < bucketCount - 1 {
                            peaks[bucket] = peak
                            peak = 0
                            bucket += 1
                            end = bucketEnd(bucket)
                        }
                        let stop = bucket < bucketCount - 1 ? min(end, last) : last
                        let offset = Int(frame - decoded) * channels
                        let count = Int(stop - frame) * channels
                        peak = max(peak, cellhost_sndfile_peak(chunk.baseAddress! + offset, count))
                        frame = stop
                    }
                }
                decoded += got
            }
            peaks[bucket] = max(peaks[bucket], peak)
        }
        if sf_error(file) != 0 {
            return .failure(Failure(notice: unreadable(reason: sf_strerror(file))))
        }
        // The data ended before the header's length (beyond a tenth of a
        // second or 1 % of it, for formats whose length is an estimate).
        let slack = max(Int64(info.samplerate) / 10, wanted / 100)
        if decoded < wanted - slack {
            return .failure(Failure(notice: decoded == 0 ? "unreadable audio" : "truncated audio"))
        }
        let seconds = Double(total) / Double(info.samplerate)
        guard seconds.isFinite else { return .failure(Failure(notice: "unreadable audio")) }
        let partial = total > wanted ? Double(wanted) / Double(info.samplerate) : nil
        return .success(AudioSummary(seconds: seconds, peaks: peaks, partialSeconds: partial))
    }

    /// "unreadable audio: <libsndfile's reason>", the reason cut to one short
    /// line of printable ASCII (it is shown to the reader).
    static func unreadable(reason: UnsafePointer<CChar>?) -> String {
        guard let reason else { return "unreadable audio" }
        let text = sanitized(String(cString: reason))
        return text.isEmpty ? "unreadable audio" : "unreadable audio: " + text
    }

    /// `text` as one line of printable ASCII: other characters dropped, runs
    /// of spaces (and line breaks) made one space, a final "." dropped, cut
    /// to `maximumReasonLength` with "…".
    static func sanitized(_ text: String) -> String {
        var out = ""
        var pendingSpace = false
        for scalar in text.unicodeScalars {
            if scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\r" {
                pendingSpace = !out.isEmpty
            } else if scalar.value > 0x20 && scalar.value < 0x7F {
                if pendingSpace { out.append(" ") }
                pendingSpace = false
                out.unicodeScalars.append(scalar)
            }
        }
        while out.hasSuffix(".") { out.removeLast() }
        if out.count > maximumReasonLength { out = String(out.prefix(maximumReasonLength - 1)) + "…" }
        if out == "No Error" { return "" }
        return out
    }

}

/// The bytes libsndfile reads through its virtual I/O: a read-only cursor
/// over a buffer, every offset checked.
private struct ByteSource {
    let bytes: UnsafeRawBufferPointer
    var position: Int64 = 0

    init(bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    static func source(_ user: UnsafeMutableRawPointer?) -> UnsafeMutablePointer<ByteSource>? {
        user?.assumingMemoryBound(to: ByteSource.self)
    }

    static let length: sf_vio_get_filelen = { user in
        guard let source = source(user) else { return -1 }
        return Int64(source.pointee.bytes.count)
    }

    static let tell: sf_vio_tell = { user in
        guard let source = source(user) else { return -1 }
        return source.pointee.position
    }

    /// Moves the cursor; -1 (and no move) for a position before the start
    /// or an offset that overflows. Positions past the end are allowed
    /// (reads there give nothing), as for a file.
    static let seek: sf_vio_seek = { offset, whence, user in
        guard let source = source(user) else { return -1 }
        let base: Int64
        switch whence {
        case SEEK_SET: base = 0
        case SEEK_CUR: base = source.pointee.position
        case SEEK_END: base = Int64(source.pointee.bytes.count)
        default: return -1
        }
        let (target, overflow) = base.addingReportingOverflow(offset)
        guard !overflow, target >= 0 else { return -1 }
        source.pointee.position = target
        return target
    }

    static let read: sf_vio_read = { destination, count, user in
        guard let source = source(user), let destination, count > 0 else { return 0 }
        let size = Int64(source.pointee.bytes.count)
        let position = source.pointee.position
        guard position >= 0, position < size, let base = source.pointee.bytes.baseAddress else { return 0 }
        let n = min(count, size - position)
        destination.copyMemory(from: base + Int(position), byteCount: Int(n))
        source.pointee.position = position + n
        return n
    }

    static let write: sf_vio_write = { _, _, _ in 0 }
}

// VoiceCell: the shipped renderer for "voice" messages.
//
//     ▶ 0:05  ▃▆█▅▂▁▄▇▆▃▂▁▁▃▅▆▄▂          duration m:ss, waveform in accent
//     missing                             muted: why the audio file was not read
//     🎤 Voice message (4.6 s)            the message text (caption), when present
//
// The duration and the waveform come from the message (`voice.duration`,
// `voice.waveform`) and from the audio file `voice.path` names, read with
// libsndfile (Ogg/Opus, Ogg/Vorbis, WAV, FLAC, MP3) and decoded once per file
// per run (VoiceAudio.swift, AudioDecoder.swift). The rules:
//
// - The message's waveform is drawn when it has one (it is what the sender
//   saw): numbers in any range, normalised by their own min..max and
//   resampled to the width (bucket averages when there are more samples than
//   bars, nearest sample when fewer); a waveform with anything else in it is
//   not drawn. Otherwise the file's peaks are drawn: the largest amplitude in
//   each bar's slice of the audio, scaled by the loudest moment of the file.
// - The message's duration is shown unless the file contradicts it: when it
//   differs from the file's (frames / sample rate) by more than half a
//   second, the file's is shown. Half a second is what rounding to whole
//   seconds may hide: within it, the two m:ss differ by at most a second.
// - A path that gives no file (missing, unreadable, not a regular file,
//   larger than 64 MB) leaves the message's own fields, with the muted mark
//   (`missing`, …); with no fields either the cell declines, and the file
//   cell shows the message. A file libsndfile cannot decode, or that ends
//   early, is the muted notice `unreadable audio[: reason]` or
//   `truncated audio`.
// - At most 64 MiB are read and 3 minutes at 48 kHz decoded per file; a
//   longer file shows its duration from the header and the waveform of its
//   beginning, with a muted `waveform of the first 3:00`.
//
// At most 48 bars, never wider than the content; when fewer than 8 columns
// are left beside the duration, the waveform gets a line of its own.
import CellKit

/// `VoiceMessageCell`, registered for `voice`.
public struct VoiceCell: MessageCellRenderer, PlainTextSummarizing {
    public static let plugin = PluginInfo(
        id: "org.cellhost.voice", version: "1.0.0",
        description: "Voice notes: duration and waveform, from the message or the audio file (libsndfile)",
        author: "CellHost", license: "MIT",
        threadSafe: true) // stateless; the audio summaries' cache is behind a Mutex (VoiceAudio)
    public static let className = "VoiceMessageCell"
    public static let messageClasses = ["voice"]
    public static let samples = [
        #"{"type":"voice","id":"s-1","text":"🎤 Voice message (4.6 s)","voice":{"path":"memo.ogg","duration":4.6,"waveform":[0,3,9,14,22,31,27,18,12,6,2,0,4,11,19,25,20,13,7,1]}}"#,
        #"{"type":"voice","id":"s-2","voice":{"path":"lecture.ogg","duration":3723,"waveform":[0.1,0.5,0.9,0.4,0.2,0.7,0.3,0.8,0.6,0.1,0.4,0.9,0.2,0.5,0.7,0.3,0.6,0.8,0.1,0.5,0.4,0.9,0.3,0.2,0.7,0.6,0.8,0.5,0.4,0.1,0.3,0.9,0.2,0.6,0.7,0.5,0.8,0.4,0.3,0.1,0.6,0.2,0.9,0.7,0.5,0.3,0.8,0.4,0.6,0.1,0.2,0.5,0.7,0.9,0.3,0.4,0.8,0.6,0.1,0.2]}}"#,
        #"{"type":"voice","id":"s-3","voice":{"duration":12}}"#,
        #"{"type":"voice","id":"s-4","text":"waveform only","voice":{"waveform":[5,5,5,5]}}"#,
        // Only a path: the duration and waveform come from the file (here,
        // without the file, the cell declines and the file cell shows it).
        #"{"type":"voice","id":"s-5","voice":{"path":"media/voice-note.ogg"}}"#,
        #"{"type":"voice","id":"s-6","voice":{"path":"/dev/zero","duration":3}}"#,
    ]

    /// The most bars drawn.
    static let maximumBars = 48
    /// Fewer columns than this beside the duration put the waveform on its own line.
    static let minimumBarsBeside = 8
    /// The most waveform samples read; longer waveforms are sampled evenly.
    static let maximumSamples = 4096
    /// A message duration further than this (seconds) from the file's
    /// contradicts it, and the file's is shown.
    static let durationTolerance = 0.5

    public init() {}

    /// What the cell shows for a message.
    struct Note {
        /// The duration in seconds (the message's or the file's), or nil.
        var seconds: Double?
        /// The message's waveform samples (empty when it has none), in
        /// storage that lasts as long as the `withSamples` call that read them.
        var samples: UnsafeBufferPointer<Double>
        /// The file's audio when it was decoded.
        var audio: AudioSummary?
        /// The muted notice about the file, when it was not read or decoded.
        var notice: String?

        /// The duration as shown (`m:ss`), or nil.
        var duration: String? { seconds.flatMap { PlaybackTime.format(seconds: $0) } }
        /// The file's peaks are drawn only without a message waveform.
        var filePeaks: AudioSummary? { samples.isEmpty ? audio.flatMap { $0.peaks.isEmpty ? nil : $0 } : nil }
    }

    /// The message's duration in seconds when it is usable (finite, ≥ 0,
    /// printable).
    static func messageSeconds(of message: Message) -> Double? {
        guard let seconds = message.number("voice.duration"), PlaybackTime.canFormat(seconds: seconds) else {
            return nil
        }
        return seconds
    }

    /// Calls `body` with the waveform samples, read in one host call into
    /// temporary storage; none when `voice.waveform` is missing or holds
    /// anything but numbers. A longer waveform than `maximumSamples` is
    /// sampled evenly.
    static func withSamples(of message: Message, _ body: (UnsafeBufferPointer<Double>) -> Void) {
        message.withNumbers("voice.waveform") { all in
            let all = all ?? UnsafeBufferPointer(start: nil, count: 0)
            let count = all.count
            guard count > maximumSamples else { return body(all) }
            withUnsafeTemporaryAllocation(of: Double.self, capacity: maximumSamples) { sampled in
                for index in 0..<maximumSamples { sampled[index] = all[index * count / maximumSamples] }
                body(UnsafeBufferPointer(sampled))
            }
        }
    }

    /// The message's fields merged with its audio file's (see the rules at
    /// the top), or nil when there is nothing to show (the cell declines).
    static func note(of message: Message, context: RenderContext,
                     samples: UnsafeBufferPointer<Double> = UnsafeBufferPointer(start: nil, count: 0)) -> Note? {
        var note = Note(seconds: messageSeconds(of: message), samples: samples, audio: nil, notice: nil)
        var undecodable = false
        // No path but a reason the export has no file: the missing-file mark,
        // beside whatever duration and waveform the message gives.
        var unavailableOnly = true
        if let path = message.utf8("voice.path"), !path.isEmpty {
            unavailableOnly = false
            switch VoiceAudio.load(path, context: context) {
            case .decoded(let audio):
                note.audio = audio
                if PlaybackTime.canFormat(seconds: audio.seconds),
                   note.seconds.map({ abs($0 - audio.seconds) > durationTolerance }) ?? true {
                    note.seconds = audio.seconds
                }
            case .noFile(let problem):
                note.notice = problem.notice
            case .undecodable(let notice):
                note.notice = notice
                undecodable = true
            }
        }
        if unavailableOnly, let reason = message.string("voice.unavailable"), !reason.isEmpty {
            note.notice = "missing: " + reason
            undecodable = true
        }
        if let partial = note.filePeaks?.partialSeconds, let shown = PlaybackTime.format(seconds: partial) {
            note.notice = "waveform of the first " + shown
        }
        guard note.seconds != nil || !note.samples.isEmpty || note.filePeaks != nil || undecodable else { return nil }
        return note
    }

    public mutating func render(_ message: Message, into cell: inout CellBuilder,
                                context: RenderContext) -> RenderOutcome {
        var outcome = RenderOutcome.declined
        Self.withSamples(of: message) { samples in
            outcome = render(message, samples: samples, into: &cell, context: context)
        }
        return outcome
    }

    private func render(_ message: Message, samples: UnsafeBufferPointer<Double>, into cell: inout CellBuilder,
                        context: RenderContext) -> RenderOutcome {
        guard let note = Self.note(of: message, context: context, samples: samples) else { return .declined }
        let waveformCount = note.samples.isEmpty ? note.filePeaks?.peaks.count ?? 0 : note.samples.count

        // "▶ " (accent), the duration, two spaces, the waveform (accent).
        // All of these characters are one column wide.
        Self.append("▶ ", style: .accent, to: &cell)
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: PlaybackTime.maximumLength) { buffer in
            // The duration, written into `buffer` (every time `note` keeps
            // can be formatted; one that could not is left out, as `duration`
            // leaves it).
            let duration = note.seconds.flatMap { seconds in
                PlaybackTime.canFormat(seconds: seconds)
                    ? UnsafeBufferPointer(rebasing: buffer[..<PlaybackTime.write(seconds: seconds, into: buffer)]) : nil
            }
            if let duration {
                cell.append(utf8: duration)
            }
            if waveformCount > 0 {
                let gap: StaticString = duration == nil ? "" : "  "
                // The duration and gap are ASCII: their UTF-8 counts are their
                // widths (cheaper than counting Characters).
                let beside = context.width - 2 - (duration?.count ?? 0) - gap.utf8CodeUnitCount
                let width: Int
                if beside >= min(Self.minimumBarsBeside, waveformCount) {
                    Self.append(gap, to: &cell)
                    width = min(Self.maximumBars, beside)
                } else {
                    cell.lineBreak()
                    width = min(Self.maximumBars, context.width)
                }
                if note.samples.isEmpty, let audio = note.filePeaks {
                    var bars = ""
                    for value in audio.bars(count: width) { bars.append(Waveform.bar(value)) }
                    cell.append(bars, style: .accent)
                } else {
                    Waveform.append(note.samples, width: width, style: .accent, to: &cell)
                }
            }
            // The notice: beside "▶ " when nothing else is on the line.
            if let notice = note.notice {
                if duration != nil || waveformCount > 0 { cell.lineBreak() }
                cell.append(notice, style: .muted)
            }
        }

        // The caption, straight from the host's bytes; its markup counts, as
        // in a text message.
        message.withTextUTF8 { caption in
            if !caption.isEmpty {
                cell.lineBreak()
                InlineMarkup.append(hostString: caption, to: &cell)
            }
        }
        return .rendered
    }

    /// Appends a literal as its bytes: a `String` literal went through
    /// `CellBuilder.append(_:style:)`, which asks the `String` for its bytes
    /// (some 60 instructions a call, three calls a message).
    static func append(_ literal: StaticString, style: Style = .plain, to cell: inout CellBuilder) {
        cell.append(utf8: UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount), style: style)
    }

    /// `Voice message (0:05)` (the duration as the cell shows it), or the
    /// caption's summary from the superclass.
    public func plainText(for message: Message, context: RenderContext) -> String? {
        Self.note(of: message, context: context)?.duration.map { "Voice message (\($0))" }
    }
}

@c(cellhost_plugin_entry)
public func cellhostPluginEntry() -> UnsafeRawPointer? { CellKit.export(VoiceCell.self) }

// VoiceCell: the shipped renderer for "voice" messages.
//
//     ▶ 0:05  ▃▆█▅▂▁▄▇▆▃▂▁▁▃▅▆▄▂          duration m:ss, waveform in accent
//     🎤 Voice message (4.6 s)            the message text (caption), when present
//
// The waveform (`voice.waveform`: numbers in any range; a waveform with
// anything else in it is not drawn) is normalised by its
// own min..max and resampled to the width: bucket averages when there are
// more samples than bars, nearest sample when there are fewer. At most 48
// bars, never wider than the content; when fewer than 8 columns are left
// beside the duration, the waveform gets a line of its own.
import CellKit

/// `VoiceMessageCell`, registered for `voice`.
public struct VoiceCell: MessageCellRenderer, PlainTextSummarizing {
    public static let plugin = PluginInfo(
        id: "org.cellhost.voice", version: "1.0.0",
        description: "Voice notes: duration and waveform",
        author: "CellHost", license: "MIT")
    public static let className = "VoiceMessageCell"
    public static let messageClasses = ["voice"]
    public static let samples = [
        #"{"type":"voice","id":"s-1","text":"🎤 Voice message (4.6 s)","voice":{"path":"memo.ogg","duration":4.6,"waveform":[0,3,9,14,22,31,27,18,12,6,2,0,4,11,19,25,20,13,7,1]}}"#,
        #"{"type":"voice","id":"s-2","voice":{"path":"lecture.ogg","duration":3723,"waveform":[0.1,0.5,0.9,0.4,0.2,0.7,0.3,0.8,0.6,0.1,0.4,0.9,0.2,0.5,0.7,0.3,0.6,0.8,0.1,0.5,0.4,0.9,0.3,0.2,0.7,0.6,0.8,0.5,0.4,0.1,0.3,0.9,0.2,0.6,0.7,0.5,0.8,0.4,0.3,0.1,0.6,0.2,0.9,0.7,0.5,0.3,0.8,0.4,0.6,0.1,0.2,0.5,0.7,0.9,0.3,0.4,0.8,0.6,0.1,0.2]}}"#,
        #"{"type":"voice","id":"s-3","voice":{"duration":12}}"#,
        #"{"type":"voice","id":"s-4","text":"waveform only","voice":{"waveform":[5,5,5,5]}}"#,
    ]

    /// The most bars drawn.
    static let maximumBars = 48
    /// Fewer columns than this beside the duration put the waveform on its own line.
    static let minimumBarsBeside = 8
    /// The most waveform samples read; longer waveforms are sampled evenly.
    static let maximumSamples = 4096

    public init() {}

    /// The duration text, or nil when `voice.duration` is missing or unusable.
    static func duration(of message: Message) -> String? {
        message.number("voice.duration").flatMap { PlaybackTime.format(seconds: $0) }
    }

    /// The waveform samples, read in one host call; none when
    /// `voice.waveform` is missing or holds anything but numbers. A longer
    /// waveform than `maximumSamples` is sampled evenly.
    static func samples(of message: Message) -> [Double] {
        guard let all = message.numbers("voice.waveform"), !all.isEmpty else { return [] }
        let count = all.count
        guard count > maximumSamples else { return all }
        return (0..<maximumSamples).map { all[$0 * count / maximumSamples] }
    }

    public mutating func render(_ message: Message, into cell: inout CellBuilder,
                                context: RenderContext) -> RenderOutcome {
        let duration = Self.duration(of: message)
        let samples = Self.samples(of: message)
        guard duration != nil || !samples.isEmpty else { return .declined }

        // "▶ " (accent), the duration, two spaces, the waveform (accent).
        // All of these characters are one column wide.
        cell.append("▶ ", style: .accent)
        if let duration {
            cell.append(duration)
        }
        if !samples.isEmpty {
            let gap = duration == nil ? "" : "  "
            let beside = context.width - 2 - (duration?.count ?? 0) - gap.count
            if beside >= min(Self.minimumBarsBeside, samples.count) {
                cell.append(gap)
                Waveform.append(samples, width: min(Self.maximumBars, beside), style: .accent, to: &cell)
            } else {
                cell.lineBreak()
                Waveform.append(samples, width: min(Self.maximumBars, context.width), style: .accent, to: &cell)
            }
        }

        // The caption, straight from the host's bytes.
        message.withTextUTF8 { caption in
            if !caption.isEmpty {
                cell.lineBreak()
                cell.append(utf8: caption)
            }
        }
        return .rendered
    }

    /// `Voice message (0:05)`, or the caption's summary from the superclass.
    public func plainText(for message: Message, context: RenderContext) -> String? {
        Self.duration(of: message).map { "Voice message (\($0))" }
    }
}

@c(cellhost_plugin_entry)
public func cellhostPluginEntry() -> UnsafeRawPointer? { CellKit.export(VoiceCell.self) }

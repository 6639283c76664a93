// VoiceCell: the shipped renderer for "voice" messages.
//
//     ▶ 0:05  ▃▆█▅▂▁▄▇▆▃▂▁▁▃▅▆▄▂          duration m:ss, waveform in accent
//     🎤 Voice message (4.6 s)            the message text (caption), when present
//
// The waveform (`voice.waveform`: numbers in any range) is normalised by its
// own min..max and resampled to the width: bucket averages when there are
// more samples than bars, nearest sample when there are fewer. At most 48
// bars, never wider than the content; when fewer than 8 columns are left
// beside the duration, the waveform gets a line of its own.
import CellKit

/// `VoiceMessageCell`, registered for `voice`.
public struct VoiceCell: MessageCellRenderer {
    public static let plugin = PluginInfo(
        id: "org.cellhost.voice", version: "1.0.0",
        description: "Voice notes: duration and waveform",
        author: "CellHost", license: "MIT")
    public static let className = "VoiceMessageCell"
    public static let messageClasses = ["voice"]

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

    /// The waveform samples; numbers only (other entries are skipped).
    static func samples(of message: Message) -> [Double] {
        guard let count = message.count("voice.waveform"), count > 0 else { return [] }
        let read = min(count, maximumSamples)
        let indices = (0..<read).map { i in read == count ? i : i * count / read }
        return message.numbers("voice.waveform", at: indices)
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
    public func plainText(for message: Message) -> String? {
        Self.duration(of: message).map { "Voice message (\($0))" }
    }
}

@_cdecl("cellhost_plugin_entry")
public func cellhostPluginEntry() -> UnsafeRawPointer? { CellKit.export(VoiceCell.self) }

/// Playback times as media players show them.
public enum PlaybackTime {
    /// Formats a duration in seconds, rounded to the nearest second, as
    /// `m:ss` (`"0:05"`, `"4:07"`, `"59:59"`), or `h:mm:ss` from one hour up
    /// (`"1:02:03"`). Returns `nil` for a negative or non-finite duration.
    public static func format(seconds: Double) -> String? {
        guard canFormat(seconds: seconds) else { return nil }
        return DecimalText.string { write(seconds: seconds, into: $0) }
    }

    /// True when `format(seconds:)` gives a time (not nil).
    package static func canFormat(seconds: Double) -> Bool {
        seconds.isFinite && seconds >= 0 && seconds < 1e12
    }

    /// The most bytes `write` writes.
    package static let maximumLength = 32

    /// Writes `format(seconds:)` at the start of `buffer` (at least
    /// `maximumLength` bytes) and returns its length, digit by digit (this
    /// runs for every voice message); `seconds` must pass `canFormat`.
    package static func write(seconds: Double, into buffer: UnsafeMutableBufferPointer<UInt8>) -> Int {
        let total = Int(seconds.rounded())
        let hours = total / 3600, minutes = (total % 3600) / 60, secs = total % 60
        var end = 0
        func write(_ value: Int, twoDigits: Bool) {
            let rest = UnsafeMutableBufferPointer(rebasing: buffer[end...])
            end += twoDigits ? DecimalText.writeTwoDigits(value, into: rest) : DecimalText.write(value, into: rest)
        }
        if hours > 0 {
            write(hours, twoDigits: false)
            buffer[end] = UInt8(ascii: ":")
            end += 1
            write(minutes, twoDigits: true)
        } else {
            write(minutes, twoDigits: false)
        }
        buffer[end] = UInt8(ascii: ":")
        end += 1
        write(secs, twoDigits: true)
        return end
    }
}

/// How rendered messages are written.
public enum OutputFormat: String, Sendable, CaseIterable {
    /// Colours and styles for a terminal.
    case ansi
    /// Text with no escape sequence at all.
    case plain
    /// One JSON object per message, for programs.
    case json
}

/// How many colours the terminal shows.
public enum ColorDepth: Sendable, Equatable {
    case none, ansi16, ansi256, trueColor

    /// The depth the environment asks for: none with `NO_COLOR` or
    /// `TERM=dumb`; truecolor with `COLORTERM=truecolor|24bit`; 256 with a
    /// `TERM` containing "256color"; else 16.
    public static func from(environment: [String: String]) -> ColorDepth {
        if let noColor = environment["NO_COLOR"], !noColor.isEmpty { return .none }
        let term = environment["TERM"] ?? ""
        if term == "dumb" { return .none }
        let colorTerm = (environment["COLORTERM"] ?? "").lowercased()
        if colorTerm == "truecolor" || colorTerm == "24bit" { return .trueColor }
        if term.contains("256color") { return .ansi256 }
        return .ansi16
    }
}

/// `--color auto|always|never`.
public enum ColorChoice: String, Sendable, CaseIterable {
    case auto, always, never
}

/// The output settings resolved from flags, environment and the terminal
/// (docs/cli.md, "Formats").
public struct OutputSettings: Sendable, Equatable {
    public var format: OutputFormat
    public var depth: ColorDepth
    public var width: Int
    /// The most columns a message bubble takes (it also takes at most four
    /// fifths of `width`, or all of it under 30 columns).
    public var bubbleWidth: Int
    /// How text is measured (the terminal's way; see `WidthMode`).
    public var widthMode: WidthMode

    public init(format: OutputFormat, depth: ColorDepth, width: Int, bubbleWidth: Int = OutputSettings.defaultBubbleWidth,
                widthMode: WidthMode = .grapheme) {
        self.format = format
        self.depth = depth
        self.width = width
        self.bubbleWidth = bubbleWidth
        self.widthMode = widthMode
    }

    /// About what reads comfortably: long lines of a wide terminal are hard to follow.
    public static let defaultBubbleWidth = 100

    /// Resolves the settings:
    /// - format: the flag, else `ansi` on a terminal (with colour) and `plain` otherwise;
    /// - colour: `--color never` or `plain` means none; `always`, an explicit
    ///   `--format ansi` or `CLICOLOR_FORCE` (non-zero) means colours even when piped; the depth
    ///   comes from `COLORTERM`/`TERM`, and `NO_COLOR` turns colour off;
    /// - width: `--width`, else `COLUMNS`, else the terminal's, else 80.
    public static func resolve(format: OutputFormat?, color: ColorChoice, width: Int?,
                               environment: [String: String], isTerminal: Bool, terminalWidth: Int?) -> OutputSettings {
        let forced = color == .always || (environment["CLICOLOR_FORCE"].map { !$0.isEmpty && $0 != "0" } ?? false)
        let resolvedFormat = format ?? (isTerminal || forced ? .ansi : .plain)
        var depth = ColorDepth.none
        if resolvedFormat == .ansi && color != .never {
            if color == .always {
                // The flag beats NO_COLOR and TERM=dumb (no-color.org).
                var environment = environment
                environment["NO_COLOR"] = nil
                if environment["TERM"] == "dumb" { environment["TERM"] = nil }
                depth = ColorDepth.from(environment: environment)
            } else if isTerminal || forced || format == .ansi {
                // Asking for ansi is asking for colour, wherever stdout goes.
                depth = ColorDepth.from(environment: environment)
            }
        }
        let columns = width
            ?? environment["COLUMNS"].flatMap { Int($0) }.flatMap { $0 > 0 ? $0 : nil }
            ?? terminalWidth
            ?? 80
        return OutputSettings(format: resolvedFormat, depth: depth, width: min(max(columns, minimumWidth), maximumWidth))
    }

    /// Narrower output cannot hold the chrome; wider is capped to bound memory.
    public static let minimumWidth = 12
    public static let maximumWidth = 1000
}

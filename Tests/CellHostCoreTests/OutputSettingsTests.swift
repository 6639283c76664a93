import XCTest
@testable import CellHostCore

/// `OutputSettings.resolve`: format, colour depth and width from flags,
/// environment and terminal.
final class OutputSettingsTests: XCTestCase {

    private func resolve(format: OutputFormat? = nil, color: ColorChoice = .auto, width: Int? = nil,
                         environment: [String: String] = [:], tty: Bool = true, terminalWidth: Int? = nil) -> OutputSettings {
        OutputSettings.resolve(format: format, color: color, width: width, environment: environment,
                               isTerminal: tty, terminalWidth: terminalWidth)
    }

    // MARK: Format

    func test_terminal_defaultsToANSI() {
        XCTAssertEqual(resolve(tty: true).format, .ansi)
    }

    func test_pipe_defaultsToPlainWithoutColour() {
        let settings = resolve(environment: ["TERM": "xterm-256color"], tty: false)
        XCTAssertEqual(settings.format, .plain)
        XCTAssertEqual(settings.depth, ColorDepth.none)
    }

    func test_explicitFormat_isKept() {
        XCTAssertEqual(resolve(format: .json, tty: true).format, .json)
        XCTAssertEqual(resolve(format: .ansi, tty: false).format, .ansi)
    }

    // MARK: Colour

    func test_NO_COLOR_onATerminal_turnsColourOff() {
        XCTAssertEqual(resolve(environment: ["NO_COLOR": "1", "COLORTERM": "truecolor"]).depth, ColorDepth.none)
    }

    func test_emptyNO_COLOR_isIgnored() {
        XCTAssertEqual(resolve(environment: ["NO_COLOR": "", "TERM": "xterm-256color"]).depth, .ansi256)
    }

    func test_dumbTerminal_hasNoColour() {
        XCTAssertEqual(resolve(environment: ["TERM": "dumb"]).depth, ColorDepth.none)
    }

    func test_COLORTERM_truecolor_givesTrueColor() {
        XCTAssertEqual(resolve(environment: ["COLORTERM": "truecolor", "TERM": "xterm"]).depth, .trueColor)
        XCTAssertEqual(resolve(environment: ["COLORTERM": "24bit"]).depth, .trueColor)
        XCTAssertEqual(resolve(environment: ["COLORTERM": "TrueColor"]).depth, .trueColor)
    }

    func test_TERM_256color_gives256Colours() {
        XCTAssertEqual(resolve(environment: ["TERM": "xterm-256color"]).depth, .ansi256)
        XCTAssertEqual(resolve(environment: ["TERM": "screen-256color", "COLORTERM": "yes"]).depth, .ansi256)
    }

    func test_plainTERM_gives16Colours() {
        XCTAssertEqual(resolve(environment: ["TERM": "xterm"]).depth, .ansi16)
        XCTAssertEqual(resolve(environment: [:]).depth, .ansi16)
    }

    func test_CLICOLOR_FORCE_whenPiped_givesANSIWithColour() {
        let settings = resolve(environment: ["CLICOLOR_FORCE": "1", "TERM": "xterm-256color"], tty: false)
        XCTAssertEqual(settings.format, .ansi)
        XCTAssertEqual(settings.depth, .ansi256)
    }

    func test_CLICOLOR_FORCE_zeroOrEmpty_doesNotForce() {
        for value in ["0", ""] {
            let settings = resolve(environment: ["CLICOLOR_FORCE": value, "TERM": "xterm"], tty: false)
            XCTAssertEqual(settings.format, .plain, "CLICOLOR_FORCE=\(value)")
            XCTAssertEqual(settings.depth, ColorDepth.none, "CLICOLOR_FORCE=\(value)")
        }
    }

    func test_colorNever_onATerminal_hasNoColour() {
        XCTAssertEqual(resolve(color: .never, environment: ["COLORTERM": "truecolor"]).depth, ColorDepth.none)
    }

    func test_colorNever_beatsCLICOLOR_FORCE() {
        XCTAssertEqual(resolve(color: .never, environment: ["CLICOLOR_FORCE": "1"], tty: false).depth, ColorDepth.none)
    }

    func test_colorAlways_whenPiped_givesANSIWithColour() {
        let settings = resolve(color: .always, environment: ["COLORTERM": "truecolor"], tty: false)
        XCTAssertEqual(settings.format, .ansi)
        XCTAssertEqual(settings.depth, .trueColor)
    }

    func test_colorAlways_onADumbTerminal_stillGives16Colours() {
        XCTAssertEqual(resolve(color: .always, environment: ["TERM": "dumb"], tty: false).depth, .ansi16)
    }

    func test_colorAlways_withPlainFormat_hasNoColour() {
        XCTAssertEqual(resolve(format: .plain, color: .always, environment: ["COLORTERM": "truecolor"]).depth, ColorDepth.none)
    }

    func test_jsonFormat_hasNoColour() {
        XCTAssertEqual(resolve(format: .json, color: .always, environment: ["COLORTERM": "truecolor"]).depth, ColorDepth.none)
    }

    // MARK: Width

    func test_widthFlag_beatsCOLUMNSAndTerminal() {
        XCTAssertEqual(resolve(width: 100, environment: ["COLUMNS": "90"], terminalWidth: 70).width, 100)
    }

    func test_COLUMNS_beatsTerminal() {
        XCTAssertEqual(resolve(environment: ["COLUMNS": "90"], terminalWidth: 70).width, 90)
    }

    func test_terminalWidth_isUsedWithoutFlagOrCOLUMNS() {
        XCTAssertEqual(resolve(terminalWidth: 70).width, 70)
    }

    func test_widthDefaultsTo80() {
        XCTAssertEqual(resolve(tty: false, terminalWidth: nil).width, 80)
    }

    func test_unusableCOLUMNS_isIgnored() {
        for value in ["abc", "0", "-5", "", " 90"] {
            XCTAssertEqual(resolve(environment: ["COLUMNS": value], terminalWidth: 70).width, 70, "COLUMNS='\(value)'")
        }
    }

    func test_width_isClampedToTheMinimum() {
        XCTAssertEqual(resolve(width: 5).width, OutputSettings.minimumWidth)
        XCTAssertEqual(resolve(width: 0).width, OutputSettings.minimumWidth)
        XCTAssertEqual(resolve(width: -3).width, OutputSettings.minimumWidth)
        XCTAssertEqual(resolve(environment: ["COLUMNS": "3"]).width, OutputSettings.minimumWidth)
    }

    func test_width_isClampedToTheMaximum() {
        XCTAssertEqual(resolve(width: 50_000).width, OutputSettings.maximumWidth)
        XCTAssertEqual(resolve(terminalWidth: 4_000).width, OutputSettings.maximumWidth)
    }

    func test_widthsInsideTheRange_areKept() {
        XCTAssertEqual(resolve(width: OutputSettings.minimumWidth).width, OutputSettings.minimumWidth)
        XCTAssertEqual(resolve(width: OutputSettings.maximumWidth).width, OutputSettings.maximumWidth)
    }

    // MARK: Encoding

    func test_ansiOutputWithoutColour_containsNoEscapeSequence() throws {
        let host = CellHost()
        let output = OutputBuffer(fd: -1)
        let session = RenderSession(host: host, settings: resolve(environment: ["NO_COLOR": "1"]), me: nil, output: output)
        var json = #"{"type":"text","sender":"bob","time":"2026-11-29T10:02:00Z","text":"hello"}"#
        try json.withUTF8 { try session.render($0, line: 1) }
        XCTAssertFalse(output.bytes.isEmpty)
        XCTAssertFalse(output.bytes.contains(0x1B))
    }

    func test_ansiOutputWithColour_usesTheDepthsSequences() throws {
        func render(_ depth: ColorDepth) throws -> String {
            let output = OutputBuffer(fd: -1)
            let session = RenderSession(host: CellHost(), settings: OutputSettings(format: .ansi, depth: depth, width: 60),
                                        me: nil, output: output)
            var json = #"{"type":"text","sender":{"id":"bob","name":"Bob"},"text":"hello"}"#
            try json.withUTF8 { try session.render($0, line: 1) }
            return String(decoding: output.bytes, as: UTF8.self)
        }
        XCTAssertTrue(try render(.trueColor).contains("38;2;"))
        XCTAssertTrue(try render(.ansi256).contains("38;5;"))
        let basic = try render(.ansi16)
        XCTAssertTrue(basic.contains("\u{1B}["))
        XCTAssertFalse(basic.contains("38;"))
    }
}

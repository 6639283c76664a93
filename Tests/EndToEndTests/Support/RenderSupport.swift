import Foundation
import XCTest

#if canImport(Glibc)
import Glibc
#endif

// Helpers for the `cellhost render` end-to-end tests: raw-byte runs, input
// files, the full JSON record, display width, and the safety checks every
// plain rendering must pass.

// MARK: - The full `render --format json` record

/// One object of `render --format json`, with every field the contract names
/// (RenderOutput.swift's `RenderedMessage` leaves out `line` and `rendered_as`).
struct RenderRecord: Decodable {
    let id: String?
    let type: String?
    /// The input line the record starts on.
    let line: Int
    let className: String
    let plugin: String
    /// The message class it was rendered as ("" when it had no usable type).
    let renderedAs: String?
    let fallback: Fallback?
    let lines: [String]

    enum CodingKeys: String, CodingKey {
        case id, type, line
        case className = "class"
        case plugin
        case renderedAs = "rendered_as"
        case fallback, lines
    }
}

/// What one run of the binary produced, stdout as raw bytes.
struct RawRun {
    let status: Int32
    let stdout: Data
    let stderr: String

    /// stdout decoded as UTF-8 (invalid bytes become U+FFFD).
    var text: String { String(decoding: stdout, as: UTF8.self) }

    /// stdout split into lines (the final newline ends the last line; it does
    /// not start an empty one).
    var lines: [String] { outputLines(text) }

    /// The `cellhost: ` lines of stderr.
    var diagnostics: [String] {
        stderr.split(separator: "\n").map(String.init).filter { $0.hasPrefix("cellhost: ") }
    }
}

/// `text` split at "\n", without the empty string after a final newline.
func outputLines(_ text: String) -> [String] {
    var lines = text.components(separatedBy: "\n")
    if lines.last == "" { lines.removeLast() }
    return lines
}

extension EndToEndTestCase {

    // MARK: - Environments

    /// The environment every render test uses: the test's (empty) plugin
    /// directory, `TZ` (UTC unless told), and for ANSI output
    /// `TERM=xterm-256color` (COLORTERM, NO_COLOR, CLICOLOR_FORCE are never
    /// set: `run` starts from a clean environment).
    func renderEnvironment(tz: String = "UTC", ansi: Bool = false) -> [String: String] {
        var env = defaultEnvironment
        env["TZ"] = tz
        if ansi { env["TERM"] = "xterm-256color" }
        return env
    }

    // MARK: - Input files

    /// The directory input files are written to (`<scratch>/inputs`).
    var inputDirectory: URL {
        scratchDir.appendingPathComponent("inputs", isDirectory: true)
    }

    /// Writes `bytes` to `<scratch>/inputs/<name>` and returns its URL.
    @discardableResult
    func writeInput(_ name: String, bytes: Data) throws -> URL {
        try FileManager.default.createDirectory(at: inputDirectory, withIntermediateDirectories: true)
        let url = inputDirectory.appendingPathComponent(name)
        try bytes.write(to: url)
        return url
    }

    /// Writes `lines` (JSON Lines, each ended by "\n") to `<scratch>/inputs/<name>`.
    @discardableResult
    func writeInput(_ name: String, lines: [String]) throws -> URL {
        try writeInput(name, bytes: Data(lines.map { $0 + "\n" }.joined().utf8))
    }

    // MARK: - Running with raw output

    /// Runs cellhost like `run` (clean environment, `env` on top) but returns
    /// stdout as raw bytes, so tests can check every byte.
    func runRaw(_ args: [String], env: [String: String], stdin: Data? = nil,
                currentDirectory: URL? = nil, timeout: TimeInterval = 60,
                file: StaticString = #filePath, line: UInt = #line) throws -> RawRun {
        let result = try execute(binary, args, environment: cleanEnvironment(env), stdin: stdin,
                                 currentDirectory: currentDirectory ?? tempRoot, timeout: timeout,
                                 file: file, line: line)
        return RawRun(status: result.status, stdout: result.stdout, stderr: result.stderr)
    }

    /// Runs `cellhost render <args>` with the render environment; checks the
    /// exit status when `expectStatus` is given.
    func renderRaw(_ args: [String], tz: String = "UTC", ansi: Bool = false, stdin: Data? = nil,
                   currentDirectory: URL? = nil, expectStatus: Int32? = 0, timeout: TimeInterval = 60,
                   file: StaticString = #filePath, line: UInt = #line) throws -> RawRun {
        let result = try runRaw(["render"] + args, env: renderEnvironment(tz: tz, ansi: ansi),
                                stdin: stdin, currentDirectory: currentDirectory, timeout: timeout,
                                file: file, line: line)
        if let expected = expectStatus {
            XCTAssertEqual(result.status, expected,
                           "exit status of `cellhost render \(args.joined(separator: " ").prefix(200))`; "
                           + "stderr:\n\(result.stderr.prefix(3000))", file: file, line: line)
        }
        return result
    }

    /// Decodes `render --format json` output into full records.
    func records(_ run: RawRun, file: StaticString = #filePath, line: UInt = #line) throws -> [RenderRecord] {
        try decodeJSONLines(RenderRecord.self, from: run.text, what: "render --format json",
                            file: file, line: line)
    }

    /// Renders `url` in plain format at `width` and returns the output lines
    /// (exit status 0 expected unless told).
    func plainLines(_ url: URL, width: Int = 60, extraArgs: [String] = [], tz: String = "UTC",
                    expectStatus: Int32? = 0,
                    file: StaticString = #filePath, line: UInt = #line) throws -> [String] {
        let run = try renderRaw([url.path, "--format", "plain", "--width", String(width)] + extraArgs,
                                tz: tz, expectStatus: expectStatus, file: file, line: line)
        return run.lines
    }

    /// Renders `url` as JSON at `width` and returns the records.
    func jsonRecords(_ url: URL, width: Int = 60, extraArgs: [String] = [], tz: String = "UTC",
                     expectStatus: Int32? = 0,
                     file: StaticString = #filePath, line: UInt = #line) throws -> [RenderRecord] {
        let run = try renderRaw([url.path, "--format", "json", "--width", String(width)] + extraArgs,
                                tz: tz, expectStatus: expectStatus, file: file, line: line)
        return try records(run, file: file, line: line)
    }
}

// MARK: - JSON string building

/// `value` as a JSON string literal: quotes, backslashes and every C0 control
/// escaped (`\u001b`, ...); everything else, C1 and bidi characters included,
/// is written as raw UTF-8.
func jsonString(_ value: String) -> String {
    var out = "\""
    for scalar in value.unicodeScalars {
        switch scalar {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        case "\r": out += "\\r"
        case "\t": out += "\\t"
        default:
            if scalar.value < 0x20 {
                out += String(format: "\\u%04x", scalar.value)
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
    }
    return out + "\""
}

// MARK: - Display width

/// The number of terminal columns `text` takes: per grapheme cluster
/// (Swift's `Character`), 2 for East Asian wide/fullwidth characters and
/// emoji shown as emoji (emoji presentation, VS16, ZWJ sequences, flags), 0
/// for controls and lone combining marks, else 1. A small approximation of
/// wcwidth, good enough to check "no line is wider than the width".
func displayWidth<S: StringProtocol>(_ text: S) -> Int {
    text.reduce(0) { $0 + clusterWidth($1) }
}

func clusterWidth(_ cluster: Character) -> Int {
    let scalars = cluster.unicodeScalars
    guard let first = scalars.first else { return 0 }
    let value = first.value
    if value < 0x20 || (0x7F...0x9F).contains(value) { return 0 }
    switch first.properties.generalCategory {
    case .nonspacingMark, .enclosingMark, .format:
        if scalars.count == 1 { return 0 }
    default:
        break
    }
    if first.properties.isEmojiPresentation { return 2 }
    if first.properties.isEmoji,
       scalars.contains(where: { $0.value == 0xFE0F || $0.value == 0x200D }) { return 2 }
    if isEastAsianWide(value) { return 2 }
    return 1
}

private func isEastAsianWide(_ value: UInt32) -> Bool {
    switch value {
    case 0x1100...0x115F, 0x2329...0x232A, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF,
         0x4E00...0x9FFF, 0xA000...0xA4CF, 0xA960...0xA97F, 0xAC00...0xD7A3, 0xF900...0xFAFF,
         0xFE10...0xFE19, 0xFE30...0xFE6F, 0xFF00...0xFF60, 0xFFE0...0xFFE6,
         0x20000...0x2FFFD, 0x30000...0x3FFFD:
        return true
    default:
        return false
    }
}

/// Asserts that no line of `lines` is wider than `width` columns; reports at
/// most five offenders.
func assertNoLineWider(than width: Int, _ lines: [String], _ what: String,
                       file: StaticString = #filePath, line: UInt = #line) {
    // A cluster of width w takes at least w bytes, so short lines need no measuring.
    let offenders = lines.enumerated().filter { $0.element.utf8.count > width && displayWidth($0.element) > width }
    guard !offenders.isEmpty else { return }
    let shown = offenders.prefix(5).map {
        "line \($0.offset + 1) (\(displayWidth($0.element)) columns): \(visible(String($0.element.prefix(200))))"
    }
    XCTFail("\(what): \(offenders.count) line(s) wider than \(width):\n" + shown.joined(separator: "\n"),
            file: file, line: line)
}

// MARK: - Safety of plain output

/// Bidi controls that must never reach the terminal raw (they are shown as
/// `<U+202E>` and the like).
let bidiControls: Set<UInt32> = [0x061C, 0x200E, 0x200F, 0x202A, 0x202B, 0x202C, 0x202D, 0x202E,
                                 0x2066, 0x2067, 0x2068, 0x2069]

/// Asserts that `output` is safe plain text: valid UTF-8; no byte below 0x20
/// but "\n"; no DEL; no C1 control (U+0080–U+009F, C2 80–C2 9F); no raw bidi
/// control; and no line wider than `width`. Reports the first few problems
/// with their byte offset.
func assertSafePlainOutput(_ output: Data, width: Int, _ what: String,
                           file: StaticString = #filePath, line: UInt = #line) {
    var problems: [String] = []
    let bytes = [UInt8](output)
    func context(_ offset: Int) -> String {
        let start = max(0, offset - 24), end = min(bytes.count, offset + 24)
        return visible(String(decoding: bytes[start..<end], as: UTF8.self))
    }
    // One pass over the bytes (the output of a hostile run is megabytes).
    bytes.withUnsafeBufferPointer { buffer in
        let count = buffer.count
        var offset = 0
        while offset < count, problems.count < 8 {
            let byte = buffer[offset]
            if byte < 0x20 && byte != 0x0A {
                problems.append(String(format: "byte 0x%02X at offset %d", byte, offset) + " near \(context(offset))")
            } else if byte == 0x7F {
                problems.append("DEL (0x7F) at offset \(offset) near \(context(offset))")
            } else if byte == 0xC2, offset + 1 < count, (0x80...0x9F).contains(buffer[offset + 1]) {
                problems.append(String(format: "C1 control U+%04X at offset %d", UInt32(buffer[offset + 1]), offset)
                                + " near \(context(offset))")
            } else if byte == 0xE2, offset + 2 < count {
                // U+200E U+200F U+202A-U+202E (E2 80 xx), U+2066-U+2069 (E2 81 A6-A9)
                let second = buffer[offset + 1], third = buffer[offset + 2]
                if (second == 0x80 && (third == 0x8E || third == 0x8F || (0xAA...0xAE).contains(third)))
                    || (second == 0x81 && (0xA6...0xA9).contains(third)) {
                    problems.append("raw bidi control at offset \(offset) near \(context(offset))")
                }
            } else if byte == 0xD8, offset + 1 < count, buffer[offset + 1] == 0x9C {
                problems.append("raw U+061C at offset \(offset) near \(context(offset))")
            }
            offset += 1
        }
    }
    if String(validating: bytes, as: UTF8.self) == nil {
        problems.append("output is not valid UTF-8")
    }
    if !problems.isEmpty {
        XCTFail("\(what): unsafe plain output (\(output.count) bytes):\n" + problems.joined(separator: "\n"),
                file: file, line: line)
    }
    assertNoLineWider(than: width, outputLines(String(decoding: output, as: UTF8.self)), what,
                      file: file, line: line)
}

/// `text` with controls made visible (for failure messages): ESC as `␛`,
/// other C0/C1 controls, DEL and bidi controls as `<U+XXXX>`.
func visible(_ text: String) -> String {
    var out = ""
    for scalar in text.unicodeScalars {
        if scalar.value == 0x1B {
            out += "␛"
        } else if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || bidiControls.contains(scalar.value) {
            out += String(format: "<U+%04X>", scalar.value)
        } else {
            out.unicodeScalars.append(scalar)
        }
    }
    return out
}

/// Asserts that every escape sequence in `output` is an SGR sequence
/// (`ESC [ digits/semicolons m`): the only ones the ansi encoder may write.
func assertOnlySGRSequences(_ output: Data, _ what: String,
                            file: StaticString = #filePath, line: UInt = #line) {
    let bytes = [UInt8](output)
    var index = 0
    var bad: [String] = []
    while index < bytes.count, bad.count < 5 {
        guard bytes[index] == 0x1B else { index += 1; continue }
        var end = index + 1
        var ok = end < bytes.count && bytes[end] == UInt8(ascii: "[")
        if ok {
            end += 1
            while end < bytes.count, (0x30...0x39).contains(bytes[end]) || bytes[end] == UInt8(ascii: ";") {
                end += 1
            }
            ok = end < bytes.count && bytes[end] == UInt8(ascii: "m")
        }
        if !ok {
            let stop = min(bytes.count, index + 16)
            bad.append("offset \(index): \(visible(String(decoding: bytes[index..<stop], as: UTF8.self)))")
        }
        index = end + 1
    }
    if !bad.isEmpty {
        XCTFail("\(what): escape sequences other than SGR:\n" + bad.joined(separator: "\n"), file: file, line: line)
    }
}

/// `data` with every SGR sequence (`ESC [ ... m`) removed.
func strippingSGR(_ data: Data) -> Data {
    let bytes = [UInt8](data)
    var out: [UInt8] = []
    out.reserveCapacity(bytes.count)
    var index = 0
    while index < bytes.count {
        if bytes[index] == 0x1B, index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "[") {
            var end = index + 2
            while end < bytes.count, (0x30...0x39).contains(bytes[end]) || bytes[end] == UInt8(ascii: ";") {
                end += 1
            }
            if end < bytes.count, bytes[end] == UInt8(ascii: "m") {
                index = end + 1
                continue
            }
        }
        out.append(bytes[index])
        index += 1
    }
    return Data(out)
}

import Foundation
import XCTest

/// How `render` fits the terminal and the user's defaults: the pager, colour
/// when asked for, the bubble width, and `[render]` keys in the config file
/// under the options and the environment.
final class PagingAndDefaultsTests: EndToEndTestCase {
    private let message = #"{"id":"m-1","type":"text","sender":{"id":"u-bob","name":"Bob"},"text":"hello there"}"#
    /// A message whose lines fill its bubble (a 500-letter word is cut at the content width).
    private let wide = #"{"id":"m-2","type":"text","sender":{"id":"u-bob","name":"Bob"},"text":"\#(String(repeating: "x", count: 500))"}"#

    private func writeConfig(_ text: String) throws {
        let directory = configHome.appendingPathComponent("cellhost", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: directory.appendingPathComponent("config"))
    }

    /// Runs `cellhost ARGS` with stdout on a pseudo-terminal (`script`), stdin
    /// from /dev/null redirected to a file input; returns what the terminal got.
    private func onTerminal(_ args: [String], env: [String: String]) throws -> (status: Int32, output: String) {
        let command = ([binary.path] + args).map { "'\($0)'" }.joined(separator: " ") + " </dev/null; echo \"[status $?]\""
        let result = try execute(URL(fileURLWithPath: "/usr/bin/script"), ["-qec", command, "/dev/null"],
                                 environment: cleanEnvironment(env), stdin: nil, currentDirectory: tempRoot, timeout: 60,
                                 file: #filePath, line: #line)
        let text = String(decoding: result.stdout, as: UTF8.self).replacingOccurrences(of: "\r\n", with: "\n")
        guard let range = text.range(of: "[status ", options: .backwards),
              let status = Int32(text[range.upperBound...].prefix { $0.isNumber }) else { return (-1, text) }
        return (status, String(text[..<range.lowerBound]))
    }

    func test_onATerminalTheOutputGoesThroughThePager() throws {
        let input = try writeInput("chat.jsonl", lines: [message])
        let run = try onTerminal(["render", input.path, "--width", "40", "--color", "never"],
                                 env: ["CELLHOST_PAGER": "sed s/^/paged:/"])
        XCTAssertEqual(run.status, 0)
        XCTAssertTrue(run.output.contains("paged:┃ hello there"), run.output)
    }

    func test_pagingNeverAndAPipeWriteStraightToStdout() throws {
        let input = try writeInput("chat.jsonl", lines: [message])
        let never = try onTerminal(["render", input.path, "--width", "40", "--color", "never", "--paging", "never"],
                                   env: ["CELLHOST_PAGER": "sed s/^/paged:/"])
        XCTAssertFalse(never.output.contains("paged:"), never.output)
        XCTAssertTrue(never.output.contains("┃ hello there"), never.output)
        let piped = try renderRaw([input.path, "--width", "40"], stdin: nil)
        XCTAssertFalse(piped.text.contains("paged:"))
    }

    func test_quittingThePagerEarlyEndsTheRunQuietlyWithStatusZero() throws {
        let lines = (1...3000).map { #"{"id":"m-\#($0)","type":"text","text":"line \#($0)"}"# }
        let input = try writeInput("long.jsonl", lines: lines)
        let run = try onTerminal(["render", input.path, "--width", "40", "--color", "never"], env: ["CELLHOST_PAGER": "head -2"])
        XCTAssertEqual(run.status, 0, run.output)
        XCTAssertFalse(run.output.contains("cannot write"), run.output)
    }

    func test_aPagerThatCannotBeRunIsReportedOnceAndTheOutputStillArrives() throws {
        let input = try writeInput("chat.jsonl", lines: [message])
        let run = try onTerminal(["render", input.path, "--width", "40", "--color", "never"], env: ["CELLHOST_PAGER": "no-such-pager-x"])
        XCTAssertTrue(run.output.contains("cellhost: pager 'no-such-pager-x' cannot be run; writing to standard output "
                                          + "(set CELLHOST_PAGER, or --paging never)"), run.output)
        XCTAssertTrue(run.output.contains("┃ hello there"), run.output)
    }

    func test_formatAnsiMeansColourEvenWhenPiped() throws {
        let input = try writeInput("chat.jsonl", lines: [message])
        let run = try renderRaw([input.path, "--format", "ansi", "--width", "40"])
        XCTAssertTrue(run.stdout.contains(0x1B), "escape sequences in piped --format ansi:\n\(run.text)")
        let noColor = try runRaw(["render", input.path, "--format", "ansi", "--width", "40"],
                                 env: renderEnvironment().merging(["NO_COLOR": "1"]) { $1 })
        XCTAssertFalse(noColor.stdout.contains(0x1B), "NO_COLOR still wins")
    }

    func test_aBubbleIsAtMostAHundredColumnsUnlessTold() throws {
        // One long word is cut at the content width: its lines fill the bubble.
        let long = #"{"id":"m-1","type":"text","text":"\#(String(repeating: "x", count: 500))"}"#
        let input = try writeInput("long.jsonl", lines: [long])
        let wide = try plainLines(input, width: 200)
        XCTAssertEqual(wide.map(displayWidth).max(), 100, "the default bubble is 100 columns wide at width 200")
        let told = try plainLines(input, width: 200, extraArgs: ["--bubble-width", "60"])
        XCTAssertEqual(told.map(displayWidth).max(), 60)
        let narrow = try plainLines(input, width: 50)
        XCTAssertEqual(narrow.map(displayWidth).max(), 40, "four fifths of a narrower terminal, as before")
    }

    func test_configDefaultsApplyUnderTheOptionsAndTheEnvironment() throws {
        try writeConfig("[render]\nwidth = 30\nme = u-bob\ncolor = always\n")
        let input = try writeInput("chat.jsonl", lines: [message, wide])
        let fromConfig = try renderRaw([input.path, "--format", "json"])
        let record = try XCTUnwrap(try records(fromConfig).first)
        XCTAssertEqual(try records(fromConfig).flatMap(\.lines).map(displayWidth).max(), 30, "width from the config file")
        XCTAssertTrue(record.lines.contains { $0.hasSuffix("┃") }, "me from the config file: Bob's message is outgoing\n\(record.lines)")

        let option = try renderRaw([input.path, "--format", "json", "--width", "50", "--me", "u-alice"])
        let optionRecord = try XCTUnwrap(try records(option).first)
        XCTAssertEqual(try records(option).flatMap(\.lines).map(displayWidth).max(), 40, "--width 50 beats the config file (a bubble of 4/5)")
        XCTAssertFalse(optionRecord.lines.contains { $0.hasSuffix("┃") }, "--me beats the config file")

        let columns = try runRaw(["render", input.path, "--format", "plain"], env: renderEnvironment().merging(["COLUMNS": "44"]) { $1 })
        XCTAssertEqual(outputLines(columns.text).map(displayWidth).max(), 44, "COLUMNS=44 beats the config file (outgoing lines reach its right edge)")

        let colour = try renderRaw([input.path, "--format", "ansi"])
        XCTAssertTrue(colour.stdout.contains(0x1B), "color = always from the config file")
        let noColor = try runRaw(["render", input.path, "--format", "ansi"], env: renderEnvironment().merging(["NO_COLOR": "1"]) { $1 })
        XCTAssertFalse(noColor.stdout.contains(0x1B), "NO_COLOR beats the config file")
    }

    func test_aBadConfigValueIsAUsageErrorNamingTheFile() throws {
        try writeConfig("[render]\npaging = sometimes\n")
        let input = try writeInput("chat.jsonl", lines: [message])
        let run = try renderRaw([input.path], expectStatus: 2)
        let path = configHome.appendingPathComponent("cellhost/config").path
        XCTAssertEqual(run.diagnostics, ["cellhost: \(path) [render]: paging must be auto, always or never, not 'sometimes'"])
    }
}

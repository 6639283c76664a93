import Foundation
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// The voice cell reading the audio file a voice message names (libsndfile):
/// the duration and waveform from the file, the message's own fields and how
/// they are preferred, and every path that gives no audio.
///
/// The media are the demo's voice notes (`Examples/media/voice-note.ogg`:
/// 60 346 frames at 24 kHz, 2.514 s; `voice-reply.ogg`: 4.594 s) and the
/// fixtures in `Fixtures/media/`:
///
/// - `one-second.wav`: 8 kHz mono, 0.5 s of a 440 Hz sine at 0.1 then 0.5 s at 0.9;
/// - `short-stereo.opus`: 1.5 s, 48 kHz stereo (sox + opusenc);
/// - `truncated.opus`: its first 80 % (an Ogg stream without its end);
/// - `corrupt.wav`: a RIFF/WAVE header with a malformed `fmt ` chunk.
///
/// They are copied next to the input file (`<inputs>/media/`), so the
/// messages name them by relative paths, as the demo does.
final class VoiceFileTests: EndToEndTestCase {

    // MARK: - Helpers

    /// The input directory with the media copied to `media/`.
    private func stageMedia() throws {
        let media = inputDirectory.appendingPathComponent("media", isDirectory: true)
        try FileManager.default.createDirectory(at: media, withIntermediateDirectories: true)
        let sources = [Self.examplesDirectory.appendingPathComponent("media/voice-note.ogg"),
                       Self.examplesDirectory.appendingPathComponent("media/voice-reply.ogg")]
            + ["one-second.wav", "short-stereo.opus", "truncated.opus", "corrupt.wav"].map {
                Self.fixturesDirectory.appendingPathComponent("media/" + $0)
            }
        for source in sources {
            let target = media.appendingPathComponent(source.lastPathComponent)
            if !FileManager.default.fileExists(atPath: target.path) {
                try FileManager.default.copyItem(at: source, to: target)
            }
        }
    }

    /// A voice message with the given payload (a JSON object's members).
    private func voice(_ id: String, _ payload: String, text: String? = nil) -> String {
        let caption = text.map { #","text":"# + jsonString($0) } ?? ""
        return #"{"id":"\#(id)","type":"voice"\#(caption),"voice":{\#(payload)}}"#
    }

    /// Renders `messages` from `<inputs>/voice.jsonl` (media staged) as JSON.
    private func render(_ messages: [String], width: Int = 100, extraArgs: [String] = [],
                        file: StaticString = #filePath, line: UInt = #line) throws -> [RenderRecord] {
        try stageMedia()
        let input = try writeInput("voice.jsonl", lines: messages)
        return try jsonRecords(input, width: width, extraArgs: extraArgs, file: file, line: line)
    }

    /// The one record of rendering `message`.
    private func renderOne(_ message: String, width: Int = 100,
                           file: StaticString = #filePath, line: UInt = #line) throws -> RenderRecord {
        let records = try render([message], width: width, file: file, line: line)
        XCTAssertEqual(records.count, 1, "one record", file: file, line: line)
        return try XCTUnwrap(records.first, file: file, line: line)
    }

    /// The cell's own lines: the record's lines in the bubble, without the
    /// `┃ `/`│ ` gutter.
    private func content(_ record: RenderRecord) -> [String] {
        record.lines.filter { $0.hasPrefix("┃ ") || $0.hasPrefix("│ ") }.map { String($0.dropFirst(2)) }
    }

    /// The waveform bars (▁…█) in `lines`, in order.
    private func bars(_ lines: [String]) -> String {
        String(lines.joined().filter { ("▁"..."█").contains($0) })
    }

    // MARK: - Linking

    /// libsndfile is VoiceCell's alone: the host binary never links it.
    func test_libsndfile_isLinkedByTheVoicePluginOnly_notByTheHost() throws {
        func needed(_ file: URL) throws -> String {
            let result = try execute(URL(fileURLWithPath: "/usr/bin/env"), ["ldd", file.path],
                                     environment: ProcessInfo.processInfo.environment, stdin: nil,
                                     currentDirectory: scratchDir, timeout: 30, file: #filePath, line: #line)
            XCTAssertEqual(result.status, 0, "ldd \(file.path): \(result.stderr)")
            return String(decoding: result.stdout, as: UTF8.self)
        }
        let plugin = binary.deletingLastPathComponent().appendingPathComponent("libVoiceCell.so")
        XCTAssertFalse(try needed(binary).contains("libsndfile"), "cellhost does not link libsndfile")
        XCTAssertTrue(try needed(plugin).contains("libsndfile"), "libVoiceCell.so links libsndfile")
    }

    // MARK: - Duration and waveform from the file

    func test_pathOnlyVoice_rendersAsAVoiceNote_notAsAFile() throws {
        let record = try renderOne(voice("v", #""path":"media/voice-note.ogg""#))
        XCTAssertEqual(record.className, "VoiceMessageCell")
        XCTAssertNil(record.fallback, "no fallback to the file cell")
    }

    func test_pathOnlyVoice_durationIsTheFiles() throws {
        let record = try renderOne(voice("v", #""path":"media/voice-note.ogg""#))
        XCTAssertTrue(content(record).first?.hasPrefix("▶ 0:03  ") ?? false,
                      "2.514 s shows as 0:03: \(content(record))")
    }

    func test_pathOnlyVoice_durationOfTheOtherDemoNote() throws {
        let record = try renderOne(voice("v", #""path":"media/voice-reply.ogg""#))
        XCTAssertTrue(content(record).first?.hasPrefix("▶ 0:05  ") ?? false,
                      "4.594 s shows as 0:05: \(content(record))")
    }

    func test_stereoOpus_durationIsTheFiles() throws {
        let record = try renderOne(voice("v", #""path":"media/short-stereo.opus""#))
        XCTAssertTrue(content(record).first?.hasPrefix("▶ 0:02  ") ?? false,
                      "1.5 s shows as 0:02: \(content(record))")
    }

    /// The file's waveform has as many bars as the cell draws for a message
    /// waveform longer than any width (60 samples) beside the same duration:
    /// the content width less "▶ 0:03  ", at most 48.
    func test_fileWaveform_hasOneBarPerColumnTheCellDraws_atSeveralWidths() throws {
        let reference = (0..<60).map { String($0 % 7) }.joined(separator: ",")
        for width in [24, 30, 40, 60, 100, 200] {
            let records = try render([voice("file", #""path":"media/voice-note.ogg""#),
                                      voice("message", #""duration":3,"waveform":[\#(reference)]"#)], width: width)
            XCTAssertEqual(records.count, 2)
            let fromFile = bars(content(records[0])).count
            let fromMessage = bars(content(records[1])).count
            XCTAssertGreaterThan(fromFile, 0, "width \(width): the file's waveform is drawn: \(content(records[0]))")
            XCTAssertEqual(fromFile, fromMessage, "width \(width): bars from the file and from a message")
            XCTAssertLessThanOrEqual(fromFile, 48, "width \(width): at most 48 bars")
        }
    }

    func test_fileWaveform_atAWideWidth_is48Bars() throws {
        let record = try renderOne(voice("v", #""path":"media/voice-note.ogg""#), width: 200)
        XCTAssertEqual(bars(content(record)).count, 48, "\(content(record))")
    }

    /// Peaks are scaled by the loudest moment: the quiet half (0.1) draws
    /// low bars, the loud half (0.9) full ones.
    func test_fileWaveform_followsTheLoudness_quietHalfThenLoudHalf() throws {
        let record = try renderOne(voice("v", #""path":"media/one-second.wav""#), width: 200)
        XCTAssertEqual(content(record).first, "▶ 0:01  " + String(repeating: "▂", count: 24)
                       + String(repeating: "█", count: 24))
    }

    func test_plainFormat_showsTheFilesDurationAndWaveform() throws {
        try stageMedia()
        let input = try writeInput("voice.jsonl", lines: [voice("v", #""path":"media/voice-note.ogg""#)])
        let lines = try plainLines(input, width: 100)
        let line = try XCTUnwrap(lines.first { $0.contains("▶") }, "a voice line in \(lines)")
        XCTAssertTrue(line.hasSuffix("▶ 0:03  " + bars([line])), "\(line)")
        XCTAssertEqual(bars([line]).count, 48)
    }

    func test_mediaDir_resolvesRelativePathsFromStandardInput() throws {
        try stageMedia()
        let input = Data((voice("v", #""path":"voice-note.ogg""#) + "\n").utf8)
        let run = try renderRaw(["-", "--format", "json", "--width", "100", "--media-dir",
                                 inputDirectory.appendingPathComponent("media").path], stdin: input)
        let record = try XCTUnwrap(try records(run).first)
        XCTAssertTrue(content(record).first?.hasPrefix("▶ 0:03  ") ?? false, "\(content(record))")
    }

    func test_replyQuote_summarisesAPathOnlyVoiceWithTheFilesDuration() throws {
        let records = try render([voice("v", #""path":"media/voice-note.ogg""#),
                                  #"{"id":"r","type":"text","reply_to":"v","text":"nice"}"#])
        let quote = records.last?.lines.first { $0.contains("↪") } ?? ""
        XCTAssertTrue(quote.contains("Voice message (0:03)"), "\(records.last?.lines ?? [])")
    }

    func test_manyMessagesNamingOneFile_renderAlike() throws {
        let messages = (0..<20).map { voice("v\($0)", #""path":"media/voice-reply.ogg""#) }
        let records = try render(messages)
        XCTAssertEqual(Set(records.map { content($0) }).count, 1, "one rendering for one file")
    }

    /// A file longer than the frames decoded (3 minutes at 48 kHz): its
    /// duration from the header, its waveform of the decoded beginning,
    /// said in a muted line. The file is 190 s of 48 kHz 16-bit silence,
    /// sparse (a WAV header, then zeros), so it costs no disk.
    func test_fileLongerThanTheDecodeLimit_durationFromHeader_waveformOfItsBeginning() throws {
        try stageMedia()
        let frames = 190 * 48_000
        var header = Data("RIFF".utf8)
        func le32(_ value: Int) { withUnsafeBytes(of: UInt32(value).littleEndian) { header.append(contentsOf: $0) } }
        func le16(_ value: Int) { withUnsafeBytes(of: UInt16(value).littleEndian) { header.append(contentsOf: $0) } }
        le32(36 + 2 * frames)
        header.append(contentsOf: Data("WAVEfmt ".utf8))
        le32(16); le16(1); le16(1); le32(48_000); le32(96_000); le16(2); le16(16)
        header.append(contentsOf: Data("data".utf8))
        le32(2 * frames)
        let url = inputDirectory.appendingPathComponent("media/long.wav")
        try header.write(to: url)
        let handle = try FileHandle(forWritingTo: url)
        try handle.truncate(atOffset: UInt64(header.count + 2 * frames))
        try handle.close()
        let record = try renderOne(voice("v", #""path":"media/long.wav""#))
        XCTAssertEqual(content(record), ["▶ 3:10  " + String(repeating: "▁", count: 48), "waveform of the first 3:00"],
                       "silence draws the lowest bars")
    }

    // MARK: - The message's fields and the file's

    func test_messageWaveform_isPreferredOverTheFiles() throws {
        let records = try render([voice("file", #""path":"media/voice-note.ogg","waveform":[1,8,1,8,2,7]"#),
                                  voice("none", #""duration":2.5,"waveform":[1,8,1,8,2,7]"#)])
        XCTAssertEqual(content(records[0]), content(records[1]), "the message's waveform, as without a file")
    }

    func test_messageDuration_contradictedByTheFile_losesToTheFile() throws {
        let record = try renderOne(voice("v", #""path":"media/voice-note.ogg","duration":60"#))
        XCTAssertTrue(content(record).first?.hasPrefix("▶ 0:03") ?? false, "the file's 2.514 s: \(content(record))")
    }

    /// 2.0 s is 0.514 s from the file's 2.514 s: more than half a second.
    func test_messageDuration_moreThanHalfASecondOff_losesToTheFile() throws {
        let record = try renderOne(voice("v", #""path":"media/voice-note.ogg","duration":2.0"#))
        XCTAssertTrue(content(record).first?.hasPrefix("▶ 0:03") ?? false, "\(content(record))")
    }

    /// 2.1 s is 0.414 s from the file's: it agrees, and is what the sender saw.
    func test_messageDuration_withinHalfASecond_isKept() throws {
        let record = try renderOne(voice("v", #""path":"media/voice-note.ogg","duration":2.1"#))
        XCTAssertTrue(content(record).first?.hasPrefix("▶ 0:02") ?? false, "\(content(record))")
    }

    // MARK: - Paths that give no file

    func test_missingFile_withFields_rendersThemWithAMutedMissingMark() throws {
        let record = try renderOne(voice("v", #""path":"media/nothing-here.ogg","duration":9"#, text: "caption"))
        XCTAssertEqual(record.className, "VoiceMessageCell")
        XCTAssertEqual(content(record), ["▶ 0:09", "missing", "caption"])
    }

    func test_missingFile_withoutFields_declinesToTheFileCell() throws {
        let record = try renderOne(voice("v", #""path":"media/nothing-here.ogg""#))
        XCTAssertEqual(record.className, "FileMessageCell", "the file cell shows it: \(record.lines)")
    }

    func test_missingFile_markIsMutedInANSI() throws {
        try stageMedia()
        let input = try writeInput("voice.jsonl", lines: [voice("v", #""path":"media/nothing-here.ogg","duration":9"#)])
        let run = try renderRaw([input.path, "--format", "ansi", "--color", "always", "--width", "60"], ansi: true)
        let line = try XCTUnwrap(run.lines.first { $0.contains("missing") }, "\(run.lines)")
        let before = line.components(separatedBy: "missing").first ?? ""
        XCTAssertTrue(before.contains("\u{1B}[") && before.hasSuffix("m"),
                      "an SGR sequence right before the mark: \(line.debugDescription)")
    }

    func test_directory_withFields_isMarkedNotARegularFile() throws {
        let record = try renderOne(voice("v", #""path":"/","duration":9"#))
        XCTAssertEqual(content(record), ["▶ 0:09", "not a regular file"])
    }

    func test_devZero_withoutFields_declinesPromptly() throws {
        let record = try renderOne(voice("v", #""path":"/dev/zero""#))
        XCTAssertEqual(record.className, "FileMessageCell", "\(record.lines)")
    }

    func test_devURandom_withFields_isMarkedNotARegularFile() throws {
        let record = try renderOne(voice("v", #""path":"/dev/urandom","duration":4"#))
        XCTAssertEqual(content(record), ["▶ 0:04", "not a regular file"])
    }

    /// A FIFO nobody writes to: opening it to read would block forever.
    func test_fifo_withFields_isMarkedNotARegularFile_withoutBlocking() throws {
        try stageMedia()
        let fifo = inputDirectory.appendingPathComponent("media/pipe.ogg")
        XCTAssertEqual(mkfifo(fifo.path, 0o600), 0, "mkfifo")
        let record = try renderOne(voice("v", #""path":"media/pipe.ogg","duration":4"#))
        XCTAssertEqual(content(record), ["▶ 0:04", "not a regular file"])
    }

    func test_fileWithoutReadPermission_withFields_isMarkedUnreadable() throws {
        try XCTSkipIf(getuid() == 0, "root reads files without permission")
        try stageMedia()
        let path = inputDirectory.appendingPathComponent("media/voice-note.ogg").path
        XCTAssertEqual(chmod(path, 0), 0)
        defer { _ = chmod(path, 0o644) }
        let record = try renderOne(voice("v", #""path":"media/voice-note.ogg","duration":4"#))
        XCTAssertEqual(content(record), ["▶ 0:04", "unreadable"])
    }

    /// A sparse file just over 64 MiB: refused from its size, never read.
    func test_fileOver64MiB_withFields_isMarkedTooLarge() throws {
        try stageMedia()
        let url = inputDirectory.appendingPathComponent("media/huge.wav")
        XCTAssertTrue(FileManager.default.createFile(atPath: url.path, contents: nil))
        let handle = try FileHandle(forWritingTo: url)
        try handle.truncate(atOffset: UInt64(64 << 20) + 1)
        try handle.close()
        let record = try renderOne(voice("v", #""path":"media/huge.wav","duration":4"#))
        XCTAssertEqual(content(record), ["▶ 0:04", "larger than 64 MB"])
    }

    // MARK: - Files that are not (whole) audio

    func test_corruptFile_pathOnly_isAOneLineUnreadableAudioNotice() throws {
        let record = try renderOne(voice("v", #""path":"media/corrupt.wav""#))
        XCTAssertEqual(record.className, "VoiceMessageCell")
        let lines = content(record)
        XCTAssertEqual(lines.count, 1, "\(lines)")
        XCTAssertTrue(lines.first?.hasPrefix("▶ unreadable audio") ?? false, "\(lines)")
    }

    func test_corruptFile_withFields_rendersThemWithTheNotice() throws {
        let record = try renderOne(voice("v", #""path":"media/corrupt.wav","duration":4"#))
        let lines = content(record)
        XCTAssertEqual(lines.first, "▶ 0:04")
        XCTAssertTrue(lines.last?.hasPrefix("unreadable audio: ") ?? false, "libsndfile's reason: \(lines)")
    }

    func test_textFile_pathOnly_isAnUnreadableAudioNotice() throws {
        try stageMedia()
        try Data("just some text, not audio\n".utf8)
            .write(to: inputDirectory.appendingPathComponent("media/notes.ogg"))
        let record = try renderOne(voice("v", #""path":"media/notes.ogg""#))
        XCTAssertTrue(content(record).first?.hasPrefix("▶ unreadable audio") ?? false, "\(content(record))")
    }

    func test_emptyFile_pathOnly_isAnUnreadableAudioNotice() throws {
        try stageMedia()
        try Data().write(to: inputDirectory.appendingPathComponent("media/empty.ogg"))
        let record = try renderOne(voice("v", #""path":"media/empty.ogg""#))
        XCTAssertTrue(content(record).first?.hasPrefix("▶ unreadable audio") ?? false, "\(content(record))")
    }

    func test_truncatedOpus_pathOnly_isATruncatedAudioNotice() throws {
        let record = try renderOne(voice("v", #""path":"media/truncated.opus""#))
        XCTAssertEqual(content(record), ["▶ truncated audio"])
    }
}

@testable import CellKit
import Foundation
import XCTest

/// The helpers rewritten for speed agree with their former versions
/// (ReferenceHelpers), byte for byte, on many inputs.
final class HelperEquivalenceTests: XCTestCase {
    private func same(_ a: String?, _ b: String?, _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(a.map { Array($0.utf8) }, b.map { Array($0.utf8) }, what, file: file, line: line)
    }

    func test_byteCount() {
        var values: [Double] = [0, 0.4, 0.5, 1, 1023, 1023.4, 1023.5, 1024, 1535, 1536, 10188, 10_200,
                                1024 * 1024 - 1, 1_048_576, 3_650_722_201, 1e15, 1e18, 1e30, .greatestFiniteMagnitude,
                                -1, .nan, .infinity, -.infinity, -0.0]
        var random = SplitMix64(seed: 11)
        for _ in 0..<20_000 {
            let exponent = Double(random.next() % 60)
            values.append(Double(random.next() % 1_000_000) / 1_000_000 * pow(2, exponent))
            values.append(Double(random.next() % (1 << 50)))
        }
        for value in values { same(ByteCount.format(value), ReferenceHelpers.byteCount(value), "\(value)") }
    }

    func test_playbackTime() {
        var values: [Double] = [0, 0.49, 0.5, 2.5, 59.4, 59.5, 3599.5, 3600, 86_400 * 400, 1e12 - 1, 1e12, -1, .nan]
        var random = SplitMix64(seed: 12)
        for _ in 0..<20_000 {
            values.append(Double(random.next() % 100_000_000) / 1000)
            values.append(Double(random.next() % (1 << 40)))
        }
        for value in values { same(PlaybackTime.format(seconds: value), ReferenceHelpers.playbackTime(seconds: value), "\(value)") }
    }

    func test_waveform() {
        var random = SplitMix64(seed: 13)
        let specials: [Double] = [.nan, .infinity, -.infinity, 0, -0.0, 1e308, -1e308, 5e-324]
        for round in 0..<5000 {
            let count = Int(random.next() % 70)
            var samples: [Double] = []
            for _ in 0..<count {
                if random.next() % 10 == 0 {
                    samples.append(specials[Int(random.next() % UInt64(specials.count))])
                } else {
                    samples.append(Double(Int64(bitPattern: random.next() % 2001) - 1000) / Double(1 + round % 7))
                }
            }
            let width = Int(random.next() % 100) - 5
            same(Waveform.draw(samples, width: width), ReferenceHelpers.draw(samples, width: width), "\(samples) \(width)")
        }
        for (index, bar) in Waveform.bars.enumerated() {
            XCTAssertEqual(Array(bar.utf8), [0xE2, 0x96, 0x81 + UInt8(index)])
        }
    }

    /// The drawing rounds a scaled value the way `rounded()` does, also
    /// right at and beside each half step between two bars ([0, v, 1]
    /// normalizes to exactly v).
    func test_waveformRoundingAtHalfSteps() {
        var values: [Double] = [0, 1, 0.5, 1.0.nextDown, 0.0.nextUp]
        for step in 0..<8 {
            for exact in [(Double(step) + 0.5) / 7, Double(step) / 7] {
                values += [exact, exact.nextUp, exact.nextDown, exact.nextUp.nextUp, exact.nextDown.nextDown]
            }
        }
        for value in values where value >= 0 && value <= 1 {
            for width in [3, 5, 2] {
                same(Waveform.draw([0, value, 1], width: width), ReferenceHelpers.draw([0, value, 1], width: width),
                     "\(value) \(width)")
            }
        }
    }

    func test_waveformAppend() {
        FakeHost.reset()
        var cell = FakeHost.builder()
        Waveform.append([1, 5, 3], width: 6, style: .accent, to: &cell)
        Waveform.append([], width: 6, to: &cell)
        XCTAssertEqual(FakeHost.appends, [Piece(bytes: Array(Waveform.draw([1, 5, 3], width: 6).utf8),
                                                style: Style.accent.rawValue)])
    }

    func test_basenameAndTags() {
        let pieces = ["/", "/", "a", "b.c", ".", "pdf", "PDF", "image", "text", "application", ";", ";", " ", "\t",
                      "x-gzip", "vnd.ms-excel", "+json", "+xml", "svg", "json", "epub+zip", "charset=utf-8",
                      "\u{301}", "\u{37E}", "é", "İ", "\r\n", "🎫", "\u{2215}", "msword", "\u{212A}", "\u{600}"]
        var random = SplitMix64(seed: 14)
        var inputs = ["", "/", "//", "a/", "/a", "a//b", "media/cat.png", "application/pdf", "IMAGE/PNG; q=1",
                      ";text/csv", " text / csv ", "/pdf", "application//pdf", "application/vnd.openxmlformats-officedocument.x",
                      "image/svg+xml", "application/atom+xml", "application/x-7z-compressed", "a/\u{301}b", ";\u{37E}x/y"]
        for _ in 0..<20_000 {
            var text = ""
            for _ in 0..<Int(random.next() % 8) { text += pieces[Int(random.next() % UInt64(pieces.count))] }
            inputs.append(text)
        }
        for input in inputs {
            same(MediaType.basename(input), ReferenceHelpers.basename(input), "basename \(input.debugDescription)")
            same(MediaType.tag(forMIME: input), ReferenceHelpers.tag(forMIME: input), "tag \(input.debugDescription)")
            sameAsBytes(input)
        }
    }

    /// The ASCII fast paths of `tag(forMIME:)` and `basename`, on types and
    /// paths made mostly of the names they compare, in odd case, with
    /// parameters, spaces and doubled separators; and the same texts with a
    /// non-ASCII scalar somewhere (which take the Character path).
    func test_asciiTagsAndBasenames() {
        let pieces = ["image", "IMAGE", "Audio", "video", "TeXt", "text", "application", "APPLICATION", "/", "/", "/",
                      ";", ";", " ", "  ", "\t", "pdf", "PDF", "zip", "Zip", "gzip", "x-gzip", "x-tar", "x-7z-compressed",
                      "vnd.rar", "x-rar-compressed", "x-rar", "x-bzip2", "x-xz", "zstd", "X-ZSTD", "java-archive",
                      "json", "JSON", "xml", "x-yaml", "yaml", "javascript", "x-sh", "+json", "+JSON", "+xml", "+XML",
                      "svg", "SVG", "msword", "MSWord", "rtf", "vnd.ms-", "VND.MS-EXCEL", "vnd.openxmlformats-officedocument",
                      "vnd.oasis.opendocument", "epub+zip", "EPUB+ZIP", "charset=utf-8", "q=1", "x", "-", ".", "a.b",
                      "\r\n", "\r", "\n", "@", "[", "`", "{", "Z", "z", "\u{0}"]
        // U+0600 is a Prepend: it joins the "/" or ";" after it into one Character.
        let unicode = ["\u{37E}", "\u{301}", "é", "İ", "\u{212A}", "🎫", "\u{2215}", "\u{FF0F}", "\u{600}"]
        var random = SplitMix64(seed: 15)
        for round in 0..<40_000 {
            var text = ""
            for _ in 0..<Int(random.next() % 9) { text += pieces[Int(random.next() % UInt64(pieces.count))] }
            if round % 4 == 3 {
                var scalars = Array(text.unicodeScalars)
                let position = scalars.isEmpty ? 0 : Int(random.next() % UInt64(scalars.count + 1))
                scalars.insert(contentsOf: unicode[Int(random.next() % UInt64(unicode.count))].unicodeScalars, at: position)
                text = String(String.UnicodeScalarView(scalars))
            }
            same(MediaType.tag(forMIME: text), ReferenceHelpers.tag(forMIME: text), "tag \(text.debugDescription)")
            same(MediaType.basename(text), ReferenceHelpers.basename(text), "basename \(text.debugDescription)")
            sameAsBytes(text)
        }
    }

    /// The tag and basename of `text` read as UTF-8 bytes (as the media
    /// cells read the host's strings) are those of the `String`.
    private func sameAsBytes(_ text: String, file: StaticString = #filePath, line: UInt = #line) {
        var text = text
        text.withUTF8 { bytes in
            same(MediaType.tag(forMIMEUTF8: bytes).description, MediaType.tag(forMIME: String(decoding: bytes, as: UTF8.self)),
                 "tag of bytes \(Array(bytes))", file: file, line: line)
            same(MediaType.basename(utf8: bytes)?.string, MediaType.basename(String(decoding: bytes, as: UTF8.self)),
                 "basename of bytes \(Array(bytes))", file: file, line: line)
        }
    }

    /// `ASCIIBytes.isASCII` finds a byte from 0x80 at any position of
    /// texts of every length up to 40 (the 8-byte steps and the last eight
    /// bytes read again for the tail).
    func test_isASCIIFindsEveryHighByte() {
        for length in 0...40 {
            let ascii = [UInt8](repeating: UInt8(ascii: "m"), count: length)
            XCTAssertTrue(ascii.withUnsafeBufferPointer { ASCIIBytes.isASCII($0) }, "\(length)")
            for position in 0..<length {
                for high: UInt8 in [0x80, 0xC3, 0xFF] {
                    var bytes = ascii
                    bytes[position] = high
                    XCTAssertFalse(bytes.withUnsafeBufferPointer { ASCIIBytes.isASCII($0) }, "\(position) of \(length)")
                }
            }
        }
    }

    /// Invalid UTF-8 reads as its repaired `String` does.
    func test_tagsAndBasenamesOfInvalidUTF8() {
        let inputs: [[UInt8]] = [[0xFF], [0x61, 0x2F, 0xC3], [0xC3, 0x2F, 0x62], Array("image/".utf8) + [0x80],
                                 [0x2F, 0xE2, 0x82], Array("application/pdf".utf8) + [0xF0, 0x9F]]
        for input in inputs {
            input.withUnsafeBufferPointer { bytes in
                same(MediaType.tag(forMIMEUTF8: bytes).description, MediaType.tag(forMIME: String(decoding: bytes, as: UTF8.self)),
                     "tag \(input)")
                same(MediaType.basename(utf8: bytes)?.string, MediaType.basename(String(decoding: bytes, as: UTF8.self)),
                     "basename \(input)")
            }
        }
    }

    /// A path resolved into a C string in place is the one `resolve` makes,
    /// and its identity is the one `identity(of:)` finds.
    func test_resolvedPathsAndIdentities() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cellkit-resolve-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data("x".utf8).write(to: directory.appendingPathComponent("file.txt"))
        try Data("y".utf8).write(to: directory.appendingPathComponent("é.txt"))
        let bases = ["", "/", directory.path, directory.path + "/nope", "relative/dir"]
        let paths = ["", "file.txt", "é.txt", "/", "//x", "/\u{301}file.txt", "/é", "a/b", "missing.txt", "\u{301}",
                     directory.path + "/file.txt", directory.path, "a\u{0}b"]
        for base in bases {
            for path in paths {
                var bytes = path
                var resolved: [UInt8] = []
                var identity: Result<MediaFile.Identity, MediaFile.Problem>?
                bytes.withUTF8 { bytes in
                    MediaFile.withResolved(bytes, baseDirectory: base) { cPath in
                        resolved = Array(cPath)
                        XCTAssertEqual(cPath.baseAddress?[cPath.count], 0, "NUL-terminated")
                        identity = MediaStat.identity(ofResolved: cPath)
                    }
                }
                let expected = MediaFile.resolve(path, baseDirectory: base)
                XCTAssertEqual(resolved, Array(expected.utf8), "\(base.debugDescription) + \(path.debugDescription)")
                XCTAssertEqual(identity, MediaStat.identity(of: expected), expected.debugDescription)
            }
        }
    }

    /// The byte writers the cells use are what `format` gives.
    func test_byteCountAndPlaybackTimeWriters() {
        var random = SplitMix64(seed: 16)
        for _ in 0..<5_000 {
            let value = Double(random.next() % (1 << 45)) / Double(1 + random.next() % 1000)
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: ByteCount.maximumLength) { buffer in
                let written = ByteCount.write(value, into: buffer).map { String(decoding: buffer[..<$0], as: UTF8.self) }
                same(written, ByteCount.format(value), "\(value)")
            }
            let seconds = value.truncatingRemainder(dividingBy: 1e12)
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: PlaybackTime.maximumLength) { buffer in
                XCTAssertTrue(PlaybackTime.canFormat(seconds: seconds))
                let written = String(decoding: buffer[..<PlaybackTime.write(seconds: seconds, into: buffer)], as: UTF8.self)
                same(written, PlaybackTime.format(seconds: seconds), "\(seconds)")
            }
        }
        for value in [-1, .nan, .infinity, 1e12, 1e12.nextDown, -0.0, 0, 1e13] as [Double] {
            XCTAssertEqual(PlaybackTime.canFormat(seconds: value), PlaybackTime.format(seconds: value) != nil, "\(value)")
        }
    }
}

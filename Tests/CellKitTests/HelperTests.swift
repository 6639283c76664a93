import CellKit
import XCTest

final class ByteCountTests: XCTestCase {
    func test_bytes() {
        XCTAssertEqual(ByteCount.format(Int64(0)), "0 B")
        XCTAssertEqual(ByteCount.format(Int64(219)), "219 B")
        XCTAssertEqual(ByteCount.format(Int64(1023)), "1023 B")
    }

    func test_oneDecimalBelowTen() {
        XCTAssertEqual(ByteCount.format(Int64(1024)), "1.0 KB")
        XCTAssertEqual(ByteCount.format(Int64(1268)), "1.2 KB")
        XCTAssertEqual(ByteCount.format(Int64(1536)), "1.5 KB")
        XCTAssertEqual(ByteCount.format(Int64(10188)), "9.9 KB")
    }

    func test_wholeNumbersFromTen() {
        XCTAssertEqual(ByteCount.format(Int64(10_200)), "10 KB", "9.96 KB rounds to 10, shown whole")
        XCTAssertEqual(ByteCount.format(Int64(18_874_368)), "18 MB")
        XCTAssertEqual(ByteCount.format(Int64(500 * 1024)), "500 KB")
    }

    func test_roundingUpMovesToTheNextUnit() {
        XCTAssertEqual(ByteCount.format(Int64(1024 * 1024 - 1)), "1.0 MB")
        XCTAssertEqual(ByteCount.format(Int64(3_650_722_201)), "3.4 GB")
        XCTAssertEqual(ByteCount.format(Double(1 << 40) * 5), "5.0 TB")
        XCTAssertEqual(ByteCount.format(Double(1 << 40) * 4096), "4096 TB")
    }

    func test_invalid() {
        XCTAssertNil(ByteCount.format(Int64(-1)))
        XCTAssertNil(ByteCount.format(Double.nan))
        XCTAssertNil(ByteCount.format(Double.infinity))
        XCTAssertNotNil(ByteCount.format(Double.greatestFiniteMagnitude))
    }
}

final class PlaybackTimeTests: XCTestCase {
    func test_minutesAndSeconds() {
        XCTAssertEqual(PlaybackTime.format(seconds: 0), "0:00")
        XCTAssertEqual(PlaybackTime.format(seconds: 4.6), "0:05")
        XCTAssertEqual(PlaybackTime.format(seconds: 2.5), "0:03", "half rounds up")
        XCTAssertEqual(PlaybackTime.format(seconds: 59.4), "0:59")
        XCTAssertEqual(PlaybackTime.format(seconds: 59.5), "1:00")
        XCTAssertEqual(PlaybackTime.format(seconds: 247), "4:07")
        XCTAssertEqual(PlaybackTime.format(seconds: 3599), "59:59")
    }

    func test_hours() {
        XCTAssertEqual(PlaybackTime.format(seconds: 3600), "1:00:00")
        XCTAssertEqual(PlaybackTime.format(seconds: 3723), "1:02:03")
    }

    func test_invalid() {
        XCTAssertNil(PlaybackTime.format(seconds: -1))
        XCTAssertNil(PlaybackTime.format(seconds: .nan))
        XCTAssertNil(PlaybackTime.format(seconds: .infinity))
        XCTAssertNil(PlaybackTime.format(seconds: 1e300))
    }
}

final class WaveformTests: XCTestCase {
    func test_normalizeByMinAndMax() {
        XCTAssertEqual(Waveform.normalize([2, 4, 6]), [0, 0.5, 1])
        XCTAssertEqual(Waveform.normalize([-10, 0, 10]), [0, 0.5, 1])
        XCTAssertEqual(Waveform.normalize([0.25, 0.25]), [0.5, 0.5], "all equal gives middle values")
        XCTAssertEqual(Waveform.normalize([1, .nan, 3]), [0, 1], "non-finite samples are dropped")
        XCTAssertEqual(Waveform.normalize([]), [])
    }

    func test_downsamplingAveragesBuckets() {
        XCTAssertEqual(Waveform.resample([0, 1, 1, 1], to: 2), [0.5, 1])
        XCTAssertEqual(Waveform.resample([1, 2, 3, 4, 5, 6], to: 3), [1.5, 3.5, 5.5])
        XCTAssertEqual(Waveform.resample(Array(repeating: 0.3, count: 1000), to: 7).count, 7)
    }

    func test_upsamplingRepeatsTheNearestSample() {
        XCTAssertEqual(Waveform.resample([0, 1], to: 4), [0, 0, 1, 1])
        XCTAssertEqual(Waveform.resample([7], to: 3), [7, 7, 7])
        XCTAssertEqual(Waveform.resample([0, 0.5, 1], to: 6), [0, 0, 0.5, 0.5, 1, 1])
    }

    func test_resampleEdges() {
        XCTAssertEqual(Waveform.resample([1, 2, 3], to: 3), [1, 2, 3])
        XCTAssertEqual(Waveform.resample([], to: 5), [])
        XCTAssertEqual(Waveform.resample([1, 2], to: 0), [])
        XCTAssertEqual(Waveform.resample([1, 2], to: -3), [])
    }

    func test_bars() {
        XCTAssertEqual(Waveform.bar(0), "▁")
        XCTAssertEqual(Waveform.bar(1), "█")
        XCTAssertEqual(Waveform.bar(0.5), "▅")
        XCTAssertEqual(Waveform.bar(-3), "▁", "clamped")
        XCTAssertEqual(Waveform.bar(7), "█", "clamped")
        XCTAssertEqual(Waveform.bar(.nan), "▁")
    }

    func test_draw() {
        XCTAssertEqual(Waveform.draw([0, 255], width: 2), "▁█")
        XCTAssertEqual(Waveform.draw([3, 3, 3], width: 4), "▅▅▅▅")
        XCTAssertEqual(Waveform.draw([0, 7, 0, 7, 0, 7, 0, 7], width: 4), "▅▅▅▅")
        XCTAssertEqual(Waveform.draw([], width: 10), "")
        XCTAssertEqual(Waveform.draw([1, 2, 3], width: 0), "")
        XCTAssertEqual(Waveform.draw((0..<100).map(Double.init), width: 48).count, 48)
    }
}

final class MediaTypeTests: XCTestCase {
    func test_basename() {
        XCTAssertEqual(MediaType.basename("media/cat.png"), "cat.png")
        XCTAssertEqual(MediaType.basename("/a/b/"), "b")
        XCTAssertEqual(MediaType.basename("plain"), "plain")
        XCTAssertNil(MediaType.basename(""))
        XCTAssertNil(MediaType.basename("///"))
    }

    func test_extensions() {
        XCTAssertEqual(MediaType.fileExtension("Report.PDF"), "pdf")
        XCTAssertEqual(MediaType.fileExtension("a/b.tar.gz"), "gz")
        XCTAssertNil(MediaType.fileExtension(".bashrc"))
        XCTAssertNil(MediaType.fileExtension("README"))
        XCTAssertNil(MediaType.fileExtension("dot."))
    }

    func test_guessMIME() {
        XCTAssertEqual(MediaType.guessMIME(fromFileName: "itinerary.pdf"), "application/pdf")
        XCTAssertEqual(MediaType.guessMIME(fromFileName: "media/voice-note.ogg"), "audio/ogg")
        XCTAssertEqual(MediaType.guessMIME(fromFileName: "cat.JPG"), "image/jpeg")
        XCTAssertNil(MediaType.guessMIME(fromFileName: "blob.xyz"))
    }

    func test_tags() {
        XCTAssertEqual(MediaType.tag(forMIME: "application/pdf"), "[PDF]")
        XCTAssertEqual(MediaType.tag(forMIME: "application/zip"), "[ZIP]")
        XCTAssertEqual(MediaType.tag(forMIME: "application/x-7z-compressed"), "[ZIP]")
        XCTAssertEqual(MediaType.tag(forMIME: "image/png"), "[IMG]")
        XCTAssertEqual(MediaType.tag(forMIME: "audio/ogg; codecs=opus"), "[AUD]")
        XCTAssertEqual(MediaType.tag(forMIME: "VIDEO/MP4"), "[VID]")
        XCTAssertEqual(MediaType.tag(forMIME: "text/csv"), "[TXT]")
        XCTAssertEqual(MediaType.tag(forMIME: "application/json"), "[TXT]")
        XCTAssertEqual(MediaType.tag(forMIME: "application/msword"), "[DOC]")
        XCTAssertEqual(MediaType.tag(forMIME: "application/vnd.openxmlformats-officedocument.wordprocessingml.document"), "[DOC]")
        XCTAssertEqual(MediaType.tag(forMIME: "application/octet-stream"), "[FILE]")
        XCTAssertEqual(MediaType.tag(forMIME: ""), "[FILE]")
        for tag in ["[PDF]", "[ZIP]", "[IMG]", "[AUD]", "[VID]", "[TXT]", "[DOC]", "[FILE]"] {
            XCTAssertTrue(tag.allSatisfy(\.isASCII))
        }
    }
}

final class StyleTests: XCTestCase {
    func test_bitsMatchTheCContract() {
        // builder.h: CELLHOST_STYLE_STRONG = 1 << 0 … CELLHOST_STYLE_QUOTE = 1 << 9
        let ordered: [Style] = [.strong, .emphasis, .code, .link, .muted, .accent, .success, .warning, .error, .quote]
        for (bit, style) in ordered.enumerated() {
            XCTAssertEqual(style.rawValue, 1 << UInt32(bit))
        }
        XCTAssertEqual(Style.plain.rawValue, 0)
        XCTAssertEqual(Style([.strong, .link]).rawValue, 9)
    }
}

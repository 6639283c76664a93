import XCTest
@testable import CellHostCore

/// `Chrome.fit`, which cuts a sender name, a reply quote or a footer part to
/// a width in place and measures only as far as the cut, gives what
/// measuring every cluster and copying the ones kept gives.
final class ChromeFitTests: XCTestCase {
    /// The straightforward cut: every cluster measured; all kept when the
    /// total fits, else those within `maxWidth - 1` columns and "…".
    static func referenceFit(_ text: [UInt8], maxWidth: Int, mode: WidthMode) -> (bytes: [UInt8], width: Int) {
        var clusters: [Cluster] = []
        text.withUnsafeBufferPointer { DisplayWidth.clusters($0, 0..<$0.count, mode: mode, into: &clusters) }
        let total = clusters.reduce(0) { $0 + Int($1.width) }
        var kept: [Cluster] = []
        var used = 0
        if total <= maxWidth {
            kept = clusters
            used = total
        } else {
            for cluster in clusters {
                if used + Int(cluster.width) > max(0, maxWidth - 1) { break }
                kept.append(cluster)
                used += Int(cluster.width)
            }
        }
        var output: [UInt8] = []
        for cluster in kept { output += text[Int(cluster.start)..<Int(cluster.end)] }
        if total > maxWidth && maxWidth >= 1 {
            output += [0xE2, 0x80, 0xA6]
            used += 1
        }
        return (output, used)
    }

    /// `Chrome.fit` on a copy of `text` placed after some other bytes, as in
    /// a canvas, with the ellipsis appended as `fitted` does.
    static func fit(_ text: [UInt8], maxWidth: Int, mode: WidthMode) -> (bytes: [UInt8], width: Int) {
        let prefix: [UInt8] = Array("before ".utf8)
        var bytes = prefix + text
        let (end, width, ellipsis) = bytes.withUnsafeMutableBufferPointer {
            Chrome.fit($0, from: prefix.count, maxWidth: maxWidth, mode: mode)
        }
        var kept = Array(bytes[prefix.count..<end])
        if ellipsis { kept += [0xE2, 0x80, 0xA6] }
        XCTAssertEqual(Array(bytes[..<prefix.count]), prefix, "the bytes before the text are left alone")
        return (kept, width)
    }

    func test_fit_matchesMeasuringEveryCluster_onRandomText() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<3000 {
            var text: [UInt8] = []
            let raw = TextFastPathTests.randomText(&generator, length: Int.random(in: 0...30, using: &generator))
            raw.withUnsafeBufferPointer { _ = Sanitizer.sanitize($0, into: &text) }
            let maxWidth = Int.random(in: -1...24, using: &generator)
            for mode in WidthMode.allCases {
                let fast = Self.fit(text, maxWidth: maxWidth, mode: mode)
                let reference = Self.referenceFit(text, maxWidth: maxWidth, mode: mode)
                let shown = String(decoding: text, as: UTF8.self).unicodeScalars.map { String($0.value, radix: 16) }
                XCTAssertEqual(fast.bytes, reference.bytes, "\(mode) width \(maxWidth): \(shown)")
                XCTAssertEqual(fast.width, reference.width, "\(mode) width \(maxWidth): \(shown)")
                if fast.bytes != reference.bytes || fast.width != reference.width { return }
            }
        }
    }

    func test_fit_dropsMarksBeyondTheClusterLimit_andKeepsTheRestInOrder() {
        // "a" with 40 combining acute accents, then "bc": the first cluster
        // keeps 32 scalars, so bytes after it move back.
        let text = Array(("a" + String(repeating: "\u{301}", count: 40) + "bc").utf8)
        for maxWidth in 0...4 {
            for mode in WidthMode.allCases {
                let fast = Self.fit(text, maxWidth: maxWidth, mode: mode)
                let reference = Self.referenceFit(text, maxWidth: maxWidth, mode: mode)
                XCTAssertEqual(fast.bytes, reference.bytes, "\(mode) width \(maxWidth)")
                XCTAssertEqual(fast.width, reference.width, "\(mode) width \(maxWidth)")
            }
        }
        XCTAssertEqual(Self.fit(text, maxWidth: 3, mode: .grapheme).bytes.count, 1 + 31 * 2 + 2)
    }

    func test_fit_cutsALongASCIIRun_withAnEllipsis() {
        let fast = Self.fit(Array("reply to m-123456789".utf8), maxWidth: 10, mode: .grapheme)
        XCTAssertEqual(String(decoding: fast.bytes, as: UTF8.self), "reply to …")
        XCTAssertEqual(fast.width, 10)
    }

    /// Pieces of chat text for the long cases: ASCII words and spaces (what
    /// `nextASCIIStretch` takes at once), and what ends or splits a
    /// stretch: wide CJK, an emoji ZWJ sequence, a flag, combining marks
    /// after ASCII, right-to-left letters, a prepend mark before ASCII, a
    /// tab and invalid UTF-8 (sanitized first), the quote's arrow.
    static let longPieces: [[UInt8]] = [
        "word", " ", "  ", "reply", "x", "Z9", "e\u{301}", "a\u{300}\u{316}", "日本語", "👩\u{200D}👩\u{200D}👧", "🇫🇷",
        "שלום", "مرحبا", "\u{600}1", "\t", "↪ ", "café", "\u{FE0F}", "ก\u{E31}",
    ].map { Array($0.utf8) } + [[0xFF], [0xE2, 0x82], [0xC3]]

    /// Long quotes and names, mostly ASCII, at widths up to a wide bubble:
    /// ASCII stretches are cut as the clusters are.
    func test_fit_matchesMeasuringEveryCluster_onLongMostlyASCIIText() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<3000 {
            var raw: [UInt8] = []
            for _ in 0..<Int.random(in: 0...60, using: &generator) {
                // Mostly ASCII words and spaces, as chat text is.
                raw += Bool.random(using: &generator) ? Self.longPieces[Int.random(in: 0...5, using: &generator)]
                                                      : Self.longPieces.randomElement(using: &generator)!
            }
            var text: [UInt8] = []
            raw.withUnsafeBufferPointer { _ = Sanitizer.sanitize($0, into: &text) }
            let maxWidth = Int.random(in: -1...90, using: &generator)
            for mode in WidthMode.allCases {
                let fast = Self.fit(text, maxWidth: maxWidth, mode: mode)
                let reference = Self.referenceFit(text, maxWidth: maxWidth, mode: mode)
                XCTAssertEqual(fast.bytes, reference.bytes, "\(mode) width \(maxWidth): \(String(decoding: text, as: UTF8.self).debugDescription)")
                XCTAssertEqual(fast.width, reference.width, "\(mode) width \(maxWidth): \(String(decoding: text, as: UTF8.self).debugDescription)")
                if fast.bytes != reference.bytes || fast.width != reference.width { return }
            }
        }
    }

    /// `nextASCIIStretch() ?? next()` gives the clusters `next()` gives,
    /// with each run of ASCII runs joined into one; empty text gives none.
    func test_asciiStretches_areTheRunsOfNext_joined() {
        var generator = SystemRandomNumberGenerator()
        var texts: [[UInt8]] = [[], Array("   ".utf8), Array("a".utf8), Array("ab c\u{301} d".utf8)]
        for _ in 0..<2000 {
            var raw: [UInt8] = []
            for _ in 0..<Int.random(in: 0...30, using: &generator) { raw += Self.longPieces.randomElement(using: &generator)! }
            var text: [UInt8] = []
            raw.withUnsafeBufferPointer { _ = Sanitizer.sanitize($0, into: &text) }
            texts.append(text)
        }
        for text in texts {
            for mode in WidthMode.allCases {
                text.withUnsafeBufferPointer { bytes in
                    var plain = ClusterScanner(bytes, 0..<bytes.count, mode: mode)
                    var joined: [[Int32]] = []
                    while let cluster = plain.next() {
                        if cluster.isRun, let last = joined.last, last[3] == 1, last[1] == cluster.start {
                            joined[joined.count - 1][1] = cluster.end
                            joined[joined.count - 1][2] += cluster.width
                        } else {
                            joined.append([cluster.start, cluster.end, cluster.width, cluster.isRun ? 1 : 0])
                        }
                    }
                    var stretches = ClusterScanner(bytes, 0..<bytes.count, mode: mode)
                    var found: [[Int32]] = []
                    while let cluster = stretches.nextASCIIStretch() ?? stretches.next() {
                        found.append([cluster.start, cluster.end, cluster.width, cluster.isRun ? 1 : 0])
                    }
                    XCTAssertEqual(found, joined, "\(mode): \(String(decoding: text, as: UTF8.self).debugDescription)")
                }
            }
        }
    }
}

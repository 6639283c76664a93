import CellKit

// The InlineMarkup parser as it was before it moved to UTF-8 bytes (over
// [Character], with dictionaries), kept verbatim as the reference the new
// parser must agree with on every input (MarkupEquivalenceTests).
enum ReferenceMarkup {
    /// The spans of `text`, adjacent spans of equal style merged.
    static func parse(_ text: String) -> [StyledSpan] {
        var parser = Parser(Array(text))
        parser.parse(0..<parser.chars.count, style: .plain)
        return parser.spans
    }

    /// `text` with the markup markers removed (URLs are kept as they are).
    static func plainText(_ text: String) -> String {
        parse(text).map(\.text).joined()
    }

    private static let markers: [Character: Style] = ["*": .strong, "_": .emphasis, "`": .code]

    private struct Parser {
        let chars: [Character]
        /// Start index → end index (exclusive) of URLs and code spans; nothing
        /// inside one is markup.
        var regions: [Int: Int] = [:]
        /// Which indices are covered by a region.
        var covered: [Bool]
        /// Valid closing positions per marker, ascending.
        var closers: [Character: [Int]] = [:]
        var spans: [StyledSpan] = []

        init(_ chars: [Character]) {
            self.chars = chars
            covered = Array(repeating: false, count: chars.count)
            findRegions()
            for marker in markers.keys where marker != "`" {
                closers[marker] = chars.indices.filter { chars[$0] == marker && isCloser($0) && !covered[$0] }
            }
        }

        // MARK: Character classes

        func isWord(_ index: Int) -> Bool {
            guard index >= 0, index < chars.count else { return false }
            let c = chars[index]
            return c.isLetter || c.isNumber
        }

        func isSpace(_ index: Int) -> Bool {
            guard index >= 0, index < chars.count else { return true }
            return chars[index].isWhitespace
        }

        /// A marker character standing alone (not part of a run of itself).
        func isLoneMarker(_ index: Int) -> Bool {
            let c = chars[index]
            guard ReferenceMarkup.markers[c] != nil else { return false }
            if index > 0, chars[index - 1] == c { return false }
            if index + 1 < chars.count, chars[index + 1] == c { return false }
            return true
        }

        func isOpener(_ index: Int) -> Bool {
            isLoneMarker(index) && !isWord(index - 1) && !isSpace(index + 1)
        }

        func isCloser(_ index: Int) -> Bool {
            isLoneMarker(index) && !isSpace(index - 1) && !isWord(index + 1)
        }

        /// The first closer of `marker` at or after `start`, from an ascending list.
        static func first(in list: [Int], atOrAfter start: Int) -> Int? {
            var low = 0, high = list.count
            while low < high {
                let mid = (low + high) / 2
                if list[mid] < start { low = mid + 1 } else { high = mid }
            }
            return low < list.count ? list[low] : nil
        }

        // MARK: URLs and code spans

        /// The end (exclusive) of a URL starting at `index`, or nil.
        func urlEnd(at index: Int) -> Int? {
            guard chars[index] == "h" || chars[index] == "H", !isWord(index - 1) else { return nil }
            var schemeLength = 0
            for scheme in ["https://", "http://"] where matches(scheme, at: index) {
                schemeLength = scheme.count
                break
            }
            guard schemeLength > 0 else { return nil }
            var end = index + schemeLength
            var bracketCounts: [Character: Int] = [:]
            while end < chars.count, !chars[end].isWhitespace {
                if "()[]{}<>".contains(chars[end]) { bracketCounts[chars[end], default: 0] += 1 }
                end += 1
            }
            // Trim trailing punctuation, and closing brackets without an
            // opening partner inside the URL.
            while end > index + schemeLength {
                let last = chars[end - 1]
                let unbalanced = Self.brackets[last].map {
                    bracketCounts[last, default: 0] > bracketCounts[$0, default: 0]
                } ?? false
                guard Self.trailingPunctuation.contains(last) || unbalanced else { break }
                if Self.brackets[last] != nil { bracketCounts[last, default: 0] -= 1 }
                end -= 1
            }
            return end > index + schemeLength ? end : nil
        }

        static let trailingPunctuation: Set<Character> = [
            ".", ",", ";", ":", "!", "?", "'", "\"", "*", "_", "`",
            "\u{3002}", "\u{3001}", "\u{FF0C}", "\u{FF01}", "\u{FF1F}", "\u{2026}",
        ]
        static let brackets: [Character: Character] = [")": "(", "]": "[", "}": "{", ">": "<"]

        func matches(_ scheme: String, at index: Int) -> Bool {
            var i = index
            for expected in scheme {
                guard i < chars.count, chars[i].lowercased() == String(expected) else { return false }
                i += 1
            }
            return true
        }

        /// One left-to-right pass marking URLs and code spans; whichever
        /// starts first wins.
        mutating func findRegions() {
            let codeClosers = chars.indices.filter { chars[$0] == "`" && isCloser($0) }
            var i = 0
            while i < chars.count {
                var end: Int?
                if let urlEnd = urlEnd(at: i) {
                    end = urlEnd
                } else if chars[i] == "`", isOpener(i),
                          let closer = Self.first(in: codeClosers, atOrAfter: i + 2) {
                    end = closer + 1
                }
                if let end {
                    regions[i] = end
                    for j in i..<end { covered[j] = true }
                    i = end
                } else {
                    i += 1
                }
            }
        }

        // MARK: Spans

        mutating func emit(_ text: String, _ style: Style) {
            guard !text.isEmpty else { return }
            if let last = spans.last, last.style == style {
                spans[spans.count - 1].text += text
            } else {
                spans.append(StyledSpan(text, style))
            }
        }

        mutating func parse(_ range: Range<Int>, style: Style) {
            var literal = ""
            var i = range.lowerBound
            while i < range.upperBound {
                if let end = regions[i], end <= range.upperBound {
                    emit(literal, style)
                    literal = ""
                    if chars[i] == "`" {
                        emit(String(chars[(i + 1)..<(end - 1)]), style.union(.code))
                    } else {
                        emit(String(chars[i..<end]), style.union(.link))
                    }
                    i = end
                    continue
                }
                let c = chars[i]
                if c != "`", let markerStyle = ReferenceMarkup.markers[c], isOpener(i),
                   let list = closers[c], let closer = Self.first(in: list, atOrAfter: i + 2),
                   closer < range.upperBound {
                    emit(literal, style)
                    literal = ""
                    parse((i + 1)..<closer, style: style.union(markerStyle))
                    i = closer + 1
                    continue
                }
                literal.append(c)
                i += 1
            }
            emit(literal, style)
        }
    }
}

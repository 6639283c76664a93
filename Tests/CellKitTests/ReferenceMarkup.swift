import CellKit

// The InlineMarkup parser as it was before it moved to UTF-8 bytes (over
// [Character], with dictionaries), kept as the reference the new parser must
// agree with on every input (MarkupEquivalenceTests). Since then it has
// learnt backslash escapes and the doubled markers `**` / `__`, written the
// plain way: escapes are found in the same left-to-right pass as the regions
// and kept in arrays, and closers are listed per kind up front.
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
    /// What a backslash escapes.
    private static let escapable: Set<Character> = ["*", "_", "`", "\\"]

    /// A kind of emphasis closer: the marker and how many of it.
    private struct Kind: Hashable {
        var marker: Character
        var width: Int
    }

    private struct Parser {
        let chars: [Character]
        /// Start index → end index (exclusive) of URLs and code spans; nothing
        /// inside one is markup.
        var regions: [Int: Int] = [:]
        /// Which indices are covered by a region.
        var covered: [Bool]
        /// Which indices hold a backslash that escapes the next character,
        /// and which hold the character it escapes (found outside regions).
        var escaper: [Bool]
        var escaped: [Bool]
        /// Valid closing positions per kind, ascending.
        var closers: [Kind: [Int]] = [:]
        var spans: [StyledSpan] = []

        init(_ chars: [Character]) {
            self.chars = chars
            covered = Array(repeating: false, count: chars.count)
            escaper = Array(repeating: false, count: chars.count)
            escaped = Array(repeating: false, count: chars.count)
            findRegions()
            for marker: Character in ["*", "_"] {
                for width in 1...2 {
                    closers[Kind(marker: marker, width: width)] = chars.indices.filter {
                        isCloser($0, width: width) && chars[$0] == marker && !covered[$0]
                    }
                }
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

        /// A marker counts when it is not escaped.
        func isMarker(_ index: Int) -> Bool {
            index >= 0 && index < chars.count && ReferenceMarkup.markers[chars[index]] != nil && !escaped[index]
        }

        /// The length of the run of unescaped markers that starts at
        /// `index` (0 when none starts there).
        func runLength(_ index: Int) -> Int {
            guard isMarker(index) else { return 0 }
            if isMarker(index - 1), chars[index - 1] == chars[index] { return 0 }
            var end = index + 1
            while isMarker(end), chars[end] == chars[index] { end += 1 }
            return end - index
        }

        func isOpener(_ index: Int, width: Int) -> Bool {
            runLength(index) == width && !isWord(index - 1) && !isSpace(index + width)
        }

        func isCloser(_ index: Int, width: Int) -> Bool {
            runLength(index) == width && !isSpace(index - 1) && !isWord(index + width)
        }

        /// A backtick that closes a code span: alone, escapes ignored (inside
        /// a code span a backslash is literal).
        func isCodeCloser(_ index: Int) -> Bool {
            chars[index] == "`"
                && !(index > 0 && chars[index - 1] == "`")
                && !(index + 1 < chars.count && chars[index + 1] == "`")
                && !isSpace(index - 1) && !isWord(index + 1)
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

        /// One left-to-right pass marking escapes, URLs and code spans;
        /// whichever starts first wins.
        mutating func findRegions() {
            let codeClosers = chars.indices.filter { isCodeCloser($0) }
            var i = 0
            while i < chars.count {
                if chars[i] == "\\", i + 1 < chars.count, ReferenceMarkup.escapable.contains(chars[i + 1]) {
                    escaper[i] = true
                    escaped[i + 1] = true
                    i += 2
                    continue
                }
                var end: Int?
                if let urlEnd = urlEnd(at: i) {
                    end = urlEnd
                } else if chars[i] == "`", isOpener(i, width: 1),
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
                if escaper[i] {
                    literal.append(chars[i + 1])
                    i += 2
                    continue
                }
                let c = chars[i]
                let width = runLength(i)
                if c != "`", (1...2).contains(width), let markerStyle = ReferenceMarkup.markers[c],
                   isOpener(i, width: width),
                   let list = closers[Kind(marker: c, width: width)],
                   let closer = Self.first(in: list, atOrAfter: i + width + 1),
                   closer + width <= range.upperBound {
                    emit(literal, style)
                    literal = ""
                    parse((i + width)..<closer, style: style.union(markerStyle))
                    i = closer + width
                    continue
                }
                literal.append(c)
                i += 1
            }
            emit(literal, style)
        }
    }
}

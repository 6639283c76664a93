import Foundation
import XCTest

/// The machinery of the tests that keep the diagnostics the documents quote
/// in step with the host (QuotedDiagnosticsDocsTests, ImportDocsQuotesTests):
/// finding the quotes of a document, the cases that reproduce them, and the
/// check that each quote (placeholders filled in) is a whole line of the
/// host's stderr.
///
/// A quote is a diagnostic starting `cellhost: ` that a document shows: see
/// `QuotedDiagnostics.find(in:document:)`. Each quote is claimed by exactly
/// one case of its test class, by a marker it contains; the case reproduces
/// the situation in a directory of its own and returns the host's stderr.
/// Where a quote shows a placeholder (`FILE`, `DIR`, `…`, the config file's
/// example path), the case says what it stands for in its run.

/// One diagnostic a document quotes.
struct DocQuote {
    /// The document's path under docs/.
    let document: String
    /// The line of the document the quote starts on.
    let line: Int
    /// The quoted diagnostic, `cellhost: ` included, escapes resolved.
    let text: String

    var place: String { "docs/\(document):\(line)" }
}

/// What a case's run printed on stderr, and what the documents'
/// placeholders stand for in that run.
struct QuoteProduced {
    var stderr: String
    var placeholders: [String: String] = [:]
}

/// One situation the documents describe, reproduced with the real host.
struct QuoteCase<Test: EndToEndTestCase> {
    /// What it reproduces, for failure messages.
    var name: String
    /// The quotes containing one of these belong to this case.
    var markers: [String]
    /// Reproduces the situation in `workspace` (a new empty directory)
    /// and returns what the host printed.
    var produce: (Test, _ workspace: URL) throws -> QuoteProduced

    func claims(_ quote: DocQuote) -> Bool { markers.contains { quote.text.contains($0) } }
}

/// The documents one test class checks, and the cases that reproduce what
/// they quote.
struct QuoteChecks<Test: EndToEndTestCase> {
    /// Paths under docs/.
    let documents: [String]
    let cases: [QuoteCase<Test>]

    /// Runs, for every quote of `docs/<name>`, the case that claims it, and
    /// asserts that the quote (placeholders filled in) is a line of the
    /// host's stderr. Each case runs once for all the quotes it claims.
    func check(_ name: String, in test: Test, file: StaticString = #filePath, line: UInt = #line) throws {
        let quotes = try self.quotes(of: name, file: file, line: line)
        XCTAssertFalse(quotes.isEmpty, "docs/\(name) quotes its diagnostics as `cellhost: …`", file: file, line: line)
        var claimed: [Int: [DocQuote]] = [:]
        for quote in quotes {
            let owners = cases.indices.filter { cases[$0].claims(quote) }
            guard owners.count == 1 else {
                XCTFail(unclaimed(quote), file: file, line: line)
                continue
            }
            claimed[owners[0], default: []].append(quote)
        }
        for index in claimed.keys.sorted() {
            let item = cases[index]
            let workspace = try test.makeDirectory("\(name.replacingOccurrences(of: "/", with: "-"))-case-\(index)")
            let produced = try item.produce(test, workspace)
            let printed = Set(produced.stderr.split(separator: "\n", omittingEmptySubsequences: false).map(String.init))
            for quote in claimed[index] ?? [] {
                let expected = Self.fillIn(quote.text, produced.placeholders)
                XCTAssertTrue(printed.contains(expected),
                              "\(quote.place) quotes\n  \(quote.text)\n"
                              + (expected == quote.text ? "" : "(in this run:\n  \(expected))\n")
                              + "but for “\(item.name)” the host printed on stderr:\n\(produced.stderr)",
                              file: file, line: line)
            }
        }
    }

    /// The quotes of the documents are exactly the ones the cases cover:
    /// every quote is claimed by one case (a quote added without a case
    /// fails here, named), and every marker of every case is still quoted.
    /// Runs nothing.
    func checkCoverage(file: StaticString = #filePath, line: UInt = #line) throws {
        var all: [DocQuote] = []
        for name in documents {
            let quotes = try self.quotes(of: name, file: file, line: line)
            XCTAssertFalse(quotes.isEmpty, "docs/\(name) quotes no `cellhost: ` diagnostic any more; drop it from the documents checked",
                           file: file, line: line)
            all += quotes
            for quote in quotes where owners(of: quote).count != 1 {
                XCTFail(unclaimed(quote), file: file, line: line)
            }
        }
        for item in cases {
            for marker in item.markers where !all.contains(where: { $0.text.contains(marker) }) {
                XCTFail("no document quotes a diagnostic containing \(marker) any more; remove it from the case "
                        + "“\(item.name)”", file: file, line: line)
            }
        }
    }

    func owners(of quote: DocQuote) -> [QuoteCase<Test>] { cases.filter { $0.claims(quote) } }

    /// Why `quote`, claimed by no case or by several, cannot be checked.
    func unclaimed(_ quote: DocQuote) -> String {
        let claimants = owners(of: quote)
        if claimants.isEmpty {
            return "\(quote.place) quotes a diagnostic no case of \(Test.self) reproduces; add one that "
                + "makes the host print it (or, if a case does, the quote lost that case's marker):\n  \(quote.text)"
        }
        return "\(quote.place) is claimed by several cases (\(claimants.map(\.name).joined(separator: "; "))); "
            + "make their markers distinct:\n  \(quote.text)"
    }

    /// Puts into `quote` what each placeholder stands for: a placeholder is
    /// replaced where it stands as a whole word (no letter or digit on
    /// either side), longest first, in one pass.
    static func fillIn(_ quote: String, _ placeholders: [String: String]) -> String {
        guard !placeholders.isEmpty else { return quote }
        let tokens = placeholders.keys.sorted { $0.count > $1.count }
        func isWordCharacter(_ character: Character) -> Bool { character.isLetter || character.isNumber }
        var result = ""
        var index = quote.startIndex
        scanning: while index < quote.endIndex {
            let before = index == quote.startIndex ? nil : quote[quote.index(before: index)]
            if before.map(isWordCharacter) != true {
                for token in tokens where quote[index...].hasPrefix(token) {
                    let end = quote.index(index, offsetBy: token.count)
                    guard end == quote.endIndex || !isWordCharacter(quote[end]) else { continue }
                    result += placeholders[token]!
                    index = end
                    continue scanning
                }
            }
            result.append(quote[index])
            index = quote.index(after: index)
        }
        return result
    }

    /// Every quoted diagnostic of `docs/<name>`, once each, in document order.
    func quotes(of name: String, file: StaticString = #filePath, line: UInt = #line) throws -> [DocQuote] {
        let url = EndToEndTestCase.packageRoot.appendingPathComponent("docs/\(name)")
        guard let text = try? String(contentsOf: url, encoding: .utf8) else {
            XCTFail("cannot read \(url.path)", file: file, line: line)
            throw HarnessError.fixtureMissing("docs/\(name)")
        }
        var seen = Set<String>()
        return QuotedDiagnostics.find(in: text, document: name).compactMap { found in
            seen.insert(found.text).inserted ? DocQuote(document: name, line: found.line, text: found.text) : nil
        }
    }
}

// MARK: - Running the host for a case

extension EndToEndTestCase {
    /// Runs `cellhost <args>` expecting a usage error: exit status 2, nothing on stdout.
    func usageError(_ args: [String], env: [String: String] = [:],
                    file: StaticString = #filePath, line: UInt = #line) throws -> QuoteProduced {
        let result = try run(args, env: env, stdin: Data(), file: file, line: line)
        XCTAssertEqual(result.status, 2, "`cellhost \(args.joined(separator: " "))` is a usage error; stderr:\n\(result.stderr)",
                       file: file, line: line)
        XCTAssertEqual(result.stdout, "", "a usage error prints nothing on stdout", file: file, line: line)
        return QuoteProduced(stderr: result.stderr)
    }

    /// Runs `cellhost render <args> --format json` in `directory` (so inputs
    /// are named as the documents name them) and checks the exit status.
    func render(_ args: [String], in directory: URL, expectStatus: Int32,
                file: StaticString = #filePath, line: UInt = #line) throws -> QuoteProduced {
        let result = try run(["render"] + args + ["--format", "json"], currentDirectory: directory, file: file, line: line)
        XCTAssertEqual(result.status, expectStatus, "`cellhost render \(args.joined(separator: " "))`; stderr:\n\(result.stderr)",
                       file: file, line: line)
        return QuoteProduced(stderr: result.stderr)
    }
}

// MARK: - Finding the quotes

/// The diagnostics a document quotes.
enum QuotedDiagnostics {
    static let prefix = "cellhost: "

    /// Every quote of `text`, the document `document` (a Markdown file, or a
    /// manual page when it ends in `.1`), in order, with the line it starts on.
    static func find(in text: String, document: String) -> [(line: Int, text: String)] {
        document.hasSuffix(".1") ? findInRoff(text) : find(in: text)
    }

    /// Every quote of the Markdown `text`, in order, with the line it starts
    /// on: the lines of fenced blocks (``` or longer backtick fences) that
    /// start with `cellhost: ` (after their indentation), and the inline code
    /// spans outside them that do. A
    /// span may run over line breaks within its paragraph (each reads as a
    /// space); a bare `cellhost: ` quotes only the prefix and is skipped.
    static func find(in text: String) -> [(line: Int, text: String)] {
        var found: [(line: Int, text: String)] = []
        var paragraph: [(line: Int, text: String)] = []
        /// The length of the backtick run that opened the fence we are in.
        var fence: Int?
        func endParagraph() {
            found += codeSpans(paragraph)
            paragraph = []
        }
        for (offset, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let number = offset + 1
            let trimmed = raw.trimmingCharacters(in: .whitespaces)
            let run = trimmed.prefix { $0 == "`" }.count
            let after = trimmed.dropFirst(run)
            if let opened = fence, run >= opened, after.allSatisfy({ $0 == " " }) {
                fence = nil
            } else if fence == nil, run >= 3, !after.contains("`") {
                // An opening fence: its info string has no backtick (a line
                // starting ```` ```x``` ```` is a code span, not a fence).
                endParagraph()
                fence = run
            } else if fence != nil {
                if trimmed.hasPrefix(prefix) { found.append((number, trimmed)) }
            } else if trimmed.isEmpty {
                endParagraph()
            } else {
                paragraph.append((number, trimmed))
            }
        }
        endParagraph()
        return found
    }

    /// The code spans of one paragraph (its lines with their indentation
    /// removed) that start with `cellhost: `.
    private static func codeSpans(_ lines: [(line: Int, text: String)]) -> [(line: Int, text: String)] {
        guard !lines.isEmpty else { return [] }
        // Each character with the document line it is on.
        var characters: [(character: Character, line: Int)] = []
        for (index, entry) in lines.enumerated() {
            if index > 0 { characters.append(("\n", entry.line)) }
            characters += entry.text.map { ($0, entry.line) }
        }
        func run(at start: Int) -> Int {
            var end = start
            while end < characters.count, characters[end].character == "`" { end += 1 }
            return end - start
        }
        var spans: [(line: Int, text: String)] = []
        var index = 0
        while index < characters.count {
            guard characters[index].character == "`" else { index += 1; continue }
            let length = run(at: index)
            // The closing run has the same length.
            var close = index + length
            while close < characters.count, !(characters[close].character == "`" && run(at: close) == length) {
                close += characters[close].character == "`" ? run(at: close) : 1
            }
            guard close < characters.count else { index += length; continue }
            var content = String(characters[(index + length)..<close].map { $0.character == "\n" ? " " : $0.character })
            if content.count >= 2, content.first == " ", content.last == " ", content.contains(where: { $0 != " " }) {
                content = String(content.dropFirst().dropLast())
            }
            if isQuote(content) {
                spans.append((characters[index].line, content))
            }
            index = close + length
        }
        return spans
    }

    /// A quote starts `cellhost: ` and says something after it.
    private static func isQuote(_ text: String) -> Bool {
        text.hasPrefix(prefix) && text.dropFirst(prefix.count).contains(where: { $0 != " " })
    }

    // MARK: roff

    /// The font macros whose arguments are set in alternating fonts, joined
    /// without spaces (`.BR cellhost ,` reads `cellhost,`).
    private static let alternatingMacros: Set<String> = ["BR", "RB", "IR", "RI", "BI", "IB"]
    /// The font macros whose arguments are set in one font, joined by spaces.
    private static let fontMacros: Set<String> = ["B", "I", "SM", "SB"]

    /// Every quote of the manual page `text`, in order, with its line: a
    /// font macro line (`.B cellhost: …`, `.BR …`) or a text line whose text,
    /// its escapes resolved, starts with `cellhost: `. Other requests
    /// (`.SH`, `.PP`, …) and comments are not quotes.
    static func findInRoff(_ text: String) -> [(line: Int, text: String)] {
        var found: [(line: Int, text: String)] = []
        for (offset, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let source = withoutComment(String(raw))
            var words: String
            if source.hasPrefix(".") || source.hasPrefix("'") {
                let request = source.dropFirst().drop { $0 == " " }
                let name = String(request.prefix { $0 != " " })
                let arguments = roffArguments(String(request.dropFirst(name.count)))
                if alternatingMacros.contains(name) {
                    words = arguments.joined()
                } else if fontMacros.contains(name) {
                    words = arguments.joined(separator: " ")
                } else {
                    continue
                }
            } else {
                words = source
            }
            words = unescapeRoff(words)
            if isQuote(words) { found.append((offset + 1, words)) }
        }
        return found
    }

    /// `line` without its comment (`\"` to the end).
    private static func withoutComment(_ line: String) -> String {
        var previousWasEscape = false
        var result = ""
        for character in line {
            if previousWasEscape, character == "\"" { return String(result.dropLast()) }
            previousWasEscape = !previousWasEscape && character == "\\"
            result.append(character)
        }
        return result
    }

    /// The arguments of a request: separated by spaces, a double-quoted
    /// argument may hold spaces (`""` in it is one `"`); `\ ` is an escaped
    /// space, part of its argument. Escapes are kept for `unescapeRoff`.
    private static func roffArguments(_ text: String) -> [String] {
        var arguments: [String] = []
        var current = ""
        var started = false, quoted = false, escaped = false
        var characters = text.makeIterator()
        while let character = characters.next() {
            if escaped {
                current.append(character)
                escaped = false
            } else if character == "\\" {
                current.append(character)
                escaped = true
                started = true
            } else if quoted, character == "\"" {
                quoted = false
            } else if !started, character == "\"" {
                quoted = true
                started = true
            } else if character == " ", !quoted {
                if started { arguments.append(current) }
                current = ""
                started = false
            } else {
                current.append(character)
                started = true
            }
        }
        if started { arguments.append(current) }
        return arguments
    }

    /// The escapes cellhost.1 uses, and what they print.
    private static let namedCharacters = ["lq": "“", "rq": "”", "dq": "\"", "em": "—"]

    /// `text` with the roff escapes the manual uses resolved: `\-` and `\e`
    /// print `-` and `\`, `\ ` a space, `\(lq` `\(rq` `\(dq` `\(em` their
    /// characters; `\&`, `\c` and font changes (`\fB`, `\fI`, `\fR`, `\fP`)
    /// print nothing. Any other escape is kept as written, so a quote using
    /// one fails its check instead of reading as something else.
    static func unescapeRoff(_ text: String) -> String {
        var result = ""
        var rest = Substring(text)
        while let backslash = rest.firstIndex(of: "\\") {
            result += rest[..<backslash]
            let escape = rest[rest.index(after: backslash)...]
            guard let kind = escape.first else { result += "\\"; rest = escape; break }
            let afterKind = escape.dropFirst()
            switch kind {
            case "-": result += "-"; rest = afterKind
            case "e": result += "\\"; rest = afterKind
            case " ": result += " "; rest = afterKind
            case "&", "c": rest = afterKind
            case "f" where afterKind.first.map { "BIRP".contains($0) } == true:
                rest = afterKind.dropFirst()
            case "(" where namedCharacters[String(afterKind.prefix(2))] != nil:
                result += namedCharacters[String(afterKind.prefix(2))]!
                rest = afterKind.dropFirst(2)
            default:
                result += "\\"
                rest = escape
            }
        }
        return result + rest
    }
}

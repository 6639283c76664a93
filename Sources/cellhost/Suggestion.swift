/// "Did you mean …?" for a mistyped option or command: the closest known
/// word by edit distance (insertions, deletions, substitutions and swaps of
/// neighbours), when it is close enough to be what the user meant.
enum Suggestion {
    /// The candidate nearest to `word`, or nil when none is within a third
    /// of the word's length (at least one edit, at most three).
    static func closest(to word: String, among candidates: [String]) -> String? {
        let typed = Array(word.lowercased().unicodeScalars)
        let limit = min(3, max(1, typed.count / 3))
        var best: (candidate: String, distance: Int)?
        for candidate in candidates.sorted() {
            let distance = editDistance(typed, Array(candidate.lowercased().unicodeScalars))
            if distance <= limit, distance < (best?.distance ?? Int.max) { best = (candidate, distance) }
        }
        return best?.candidate
    }

    /// Optimal string alignment distance.
    static func editDistance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var value = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { value = min(value, table[i - 2][j - 2] + 1) }
                table[i][j] = value
            }
        }
        return table[a.count][b.count]
    }

    /// The usage error for an option `command` does not take.
    static func unknownOption(_ flag: String, command: String, known: [String]) -> UsageError {
        let hint = closest(to: flag, among: known).map { "did you mean '\($0)'? " } ?? ""
        return UsageError(message: "unknown option '\(flag)' for '\(command)' (\(hint)see cellhost \(command) --help)")
    }
}

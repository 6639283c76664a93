/// Turns what the check children observed into the verdicts of the render
/// checks (docs/check-plugin.md).
struct Evaluation {
    let operations: [CheckOperation]
    let samples: [SampleCorpus.Sample]
    let outcome: CheckRunner.Result
    let limit: Double
    let widths: [Int]

    typealias Verdict = (CheckResult.Status, String)

    func check(_ name: String) -> Verdict {
        switch name {
        case PluginCheck.renderSamples: return renderSamples()
        case PluginCheck.canRender: return canRender()
        case PluginCheck.plainText: return plainText()
        case PluginCheck.determinism: return determinism()
        case PluginCheck.timePerCall: return timePerCall()
        case PluginCheck.outputBounds: return outputBounds()
        case PluginCheck.declinesEverything: return declinesEverything()
        default: return (.skip, "not a render check")
        }
    }

    // MARK: Wording

    static func describe(_ failure: CheckRunner.Failure, doing: String) -> String {
        switch failure {
        case .crashed(let how): return "\(how) while \(doing)"
        case .hung(let seconds): return "hung: no answer within \(milliseconds(seconds)) while \(doing)"
        }
    }

    /// Renders over the limit after which a class's other renders are skipped (CheckChild).
    static let slowRenders = 3

    /// `1 line`, `2 lines`.
    static func count(_ value: Int, _ noun: String) -> String { "\(value) \(noun)\(value == 1 ? "" : "s")" }

    static func milliseconds(_ seconds: Double) -> String {
        // The value comes from a child the plugin ran in: keep it finite.
        let value = seconds.isFinite ? min(max(seconds * 1000, 0), 1e12) : 1e12
        if value >= 100 { return "\(Int(value.rounded())) ms" }
        return "\((value * 10).rounded() / 10) ms"
    }

    func sampleName(_ operation: CheckOperation) -> String {
        operation.sample >= 0 && operation.sample < samples.count ? samples[operation.sample].name : "?"
    }

    /// `sample 'zero' at width 1 (HostileCell as 'hostile')`.
    func place(_ operation: CheckOperation) -> String {
        let width = operation.kind == .plainText ? "" : " at width \(operation.width)"
        return "sample '\(sampleName(operation))'\(width) (\(operation.className) as '\(operation.messageClass)')"
    }

    func doing(_ operation: CheckOperation) -> String {
        switch operation.kind {
        case .open: return "opening the plugin for \(operation.className)"
        case .render: return "rendering \(place(operation))"
        case .renderAgain: return "rendering \(place(operation)) a second time"
        case .canRender: return "asking canRenderMessage:context: about \(place(operation))"
        case .plainText: return "asking plainTextForMessage:context:into: for \(place(operation))"
        case .initialize: return "loading"
        case .deinitialize: return "in deinit"
        }
    }

    /// Indices of the operations of `kinds`.
    func indices(_ kinds: Set<CheckOperation.Kind>) -> [Int] {
        operations.indices.filter { kinds.contains(operations[$0].kind) }
    }

    /// The crashes and hangs among `kinds`, worded; plus how many
    /// operations of those kinds were skipped after them.
    func failures(_ kinds: Set<CheckOperation.Kind>) -> String? {
        let failed = indices(kinds).compactMap { index in outcome.failures[index].map { (index, $0) } }
        guard let (index, first) = failed.first else { return nil }
        var text = Self.describe(first, doing: doing(operations[index]))
        if failed.count > 1 { text += "; \(failed.count - 1) more crashed or hung" }
        let skipped = indices(kinds).filter { outcome.skipped.contains($0) }.count
        if skipped > 0 { text += "; \(skipped) skipped after that" }
        return text
    }

    private func list(_ values: [Int]) -> String { values.map(String.init).joined(separator: ", ") }

    // MARK: The checks

    /// No crash or hang while opening the classes or rendering a sample.
    func renderSamples() -> Verdict {
        if let failure = failures([.open, .render]) { return (.fail, failure) }
        for index in indices([.open]) {
            if let observation = outcome.observations[index], observation.result == "failed" {
                return (.fail, "\(operations[index].className) could not be opened: \(observation.detail ?? "")")
            }
        }
        let observed = indices([.render]).compactMap { outcome.observations[$0] }.filter { $0.result != "skipped" }
        let count = { (result: String) in observed.filter { $0.result == result }.count }
        let sampleCount = Set(indices([.render]).map { operations[$0].sample }).count
        let skipped = indices([.render]).count - observed.count
        return (.pass, "\(observed.count) renders (\(sampleCount) samples at widths \(list(widths))): "
                + "\(count("rendered")) rendered, \(count("declined")) declined, \(count("error")) errors"
                + (skipped > 0 ? "; \(skipped) skipped (the class was too slow, see time-per-call)" : ""))
    }

    /// canRenderMessage:context: gives the same answer before and after a
    /// render of the same message, in the same context.
    func canRender() -> Verdict {
        if let failure = failures([.canRender]) { return (.fail, failure) }
        var asked = 0, yes = 0
        for index in indices([.canRender]) {
            guard let observation = outcome.observations[index], observation.result == "ok",
                  observation.answers.count == 2 else { continue }
            asked += 1
            if observation.answers[0] { yes += 1 }
            if observation.answers[0] != observation.answers[1] {
                let said = { (answer: Bool) in answer ? "YES" : "NO" }
                return (.fail, "answered \(said(observation.answers[0])), then \(said(observation.answers[1])) after rendering, "
                        + "for \(place(operations[index]))")
            }
        }
        guard asked > 0 else { return (.skip, "no class implements canRenderMessage:context:") }
        return (.pass, "\(asked) messages asked about twice, the same answer each time (\(yes) YES, \(asked - yes) NO)")
    }

    /// plainTextForMessage:context:into: never crashes or hangs; for the ordinary
    /// sample it renders (or declines) one non-empty line.
    func plainText() -> Verdict {
        if let failure = failures([.plainText]) { return (.fail, failure) }
        var shown: String?
        for index in indices([.plainText]) {
            let operation = operations[index]
            guard sampleName(operation) == "ordinary", let observation = outcome.observations[index] else { continue }
            switch observation.result {
            case "error":
                return (.fail, "returned an error for \(place(operation))" + (observation.detail.map { ": \($0)" } ?? ""))
            case "rendered":
                if observation.lines != 1 || (observation.text ?? "").isEmpty {
                    return (.fail, "gave \(observation.lines) lines for \(place(operation)); a plain text is one non-empty line")
                }
                shown = shown ?? "“\(observation.text ?? "")” (\(operation.className))"
            default: continue
            }
        }
        let calls = indices([.plainText]).filter { outcome.observations[$0] != nil }.count
        return (.pass, "\(calls) calls; ordinary sample: " + (shown ?? "declined (the host shows the message's text)"))
    }

    /// Each sample rendered twice at each width gives the same result and content.
    func determinism() -> Verdict {
        if let failure = failures([.renderAgain]) { return (.fail, failure) }
        var compared = 0
        for index in indices([.renderAgain]) where index > 0 {
            guard let second = outcome.observations[index], let first = outcome.observations[index - 1],
                  operations[index - 1].kind == .render, first.result != "skipped", second.result != "skipped" else { continue }
            compared += 1
            if first.result != second.result {
                return (.fail, "\(place(operations[index])) was \(first.result), then \(second.result) the second time")
            }
            if first.digest != second.digest {
                return (.fail, "\(place(operations[index])) rendered different content the second time")
            }
        }
        return (.pass, "\(compared) renders repeated with the same result and content")
    }

    /// Each render call returns within the limit; the slowest is reported.
    func timePerCall() -> Verdict {
        let kinds: Set<CheckOperation.Kind> = [.render, .renderAgain]
        for index in indices(kinds) {
            if case .hung(let seconds)? = outcome.failures[index] {
                return (.fail, "\(place(operations[index])) did not return within \(Self.milliseconds(seconds)) (a hang)")
            }
        }
        var slowest: (Int, Double)?
        var over: [(Int, Double)] = []
        let skipped = indices(kinds).filter { outcome.observations[$0]?.result == "skipped" }.count
        for index in indices(kinds) {
            // Only first renders are judged (and retried when a little over
            // the limit); the repeats are there for the determinism check.
            guard operations[index].kind == .render, let observation = outcome.observations[index],
                  observation.result != "skipped" else { continue }
            if slowest.map({ observation.seconds > $0.1 }) ?? true { slowest = (index, observation.seconds) }
            if observation.seconds > limit { over.append((index, observation.seconds)) }
        }
        if let (index, seconds) = over.max(by: { $0.1 < $1.1 }) {
            return (.fail, "\(place(operations[index])) took \(Self.milliseconds(seconds)) (limit \(Self.milliseconds(limit)))"
                    + (over.count > 1 ? "; \(Self.count(over.count - 1, "more render")) over the limit" : "")
                    + (skipped > 0 ? "; \(skipped) renders skipped after \(Self.slowRenders) over the limit" : ""))
        }
        guard let (index, seconds) = slowest else { return (.skip, "nothing was rendered") }
        return (.pass, "slowest \(Self.milliseconds(seconds)): \(place(operations[index])); limit \(Self.milliseconds(limit))")
    }

    /// No render appends more than `OutputLimits.standard` (1000 lines, 1 MiB).
    func outputBounds() -> Verdict {
        let limits = OutputLimits.standard
        var largest: (Int, CheckObservation)?
        for index in indices([.render, .renderAgain]) {
            guard let observation = outcome.observations[index] else { continue }
            if observation.capped {
                return (.fail, "\(place(operations[index])) appended \(observation.lines) lines and more than the limits "
                        + "(\(limits.rows) lines, \(limits.bytes) bytes) allow; cellhost render cuts it to '… N more lines'")
            }
            if largest == nil || observation.lines > largest!.1.lines { largest = (index, observation) }
        }
        guard let (index, observation) = largest else { return (.skip, "nothing was rendered") }
        return (.pass, "largest: \(Self.count(observation.lines, "line")), \(Self.count(observation.bytes, "byte")) (\(place(operations[index]))); "
                + "limits \(limits.rows) lines, \(limits.bytes) bytes")
    }

    /// Every class renders at least one sample of each of its message classes.
    func declinesEverything() -> Verdict {
        var pairs: [(String, String)] = []
        for operation in operations where operation.kind == .render {
            if !pairs.contains(where: { $0 == (operation.className, operation.messageClass) }) {
                pairs.append((operation.className, operation.messageClass))
            }
        }
        var summaries: [String] = []
        for (className, messageClass) in pairs {
            let mine = indices([.render]).filter {
                operations[$0].className == className && operations[$0].messageClass == messageClass
            }
            let observed = mine.compactMap { outcome.observations[$0] }.filter { $0.result != "skipped" }
            let rendered = observed.filter { $0.result == "rendered" }.count
            if rendered == 0 {
                let declined = observed.filter { $0.result == "declined" }.count
                let errors = observed.filter { $0.result == "error" }.count
                let lost = mine.count - observed.count
                return (.fail, "\(className) rendered none of its \(mine.count) renders of '\(messageClass)' samples "
                        + "(\(declined) declined, \(errors) errors" + (lost > 0 ? ", \(lost) crashed, hung or skipped" : "") + ")")
            }
            summaries.append("\(className) rendered \(rendered) of \(mine.count) '\(messageClass)' renders")
        }
        return (.pass, summaries.joined(separator: "; "))
    }
}

import Glibc

/// Reads one input of `cellhost render` into a `RenderPipeline`: detects its
/// format (or takes `--from`), then either hands CellHost JSON Lines to the
/// pipeline record by record or runs the format's importer, whose messages
/// arrive as CellHost records. Every problem goes to the pipeline's
/// diagnostics as `NAME:LINE: reason`, in its place among the messages.
public struct ChatReader {
    /// The format the user chose with `--from`; nil detects it.
    public var format: ImportFormat?
    public var options: ImportOptions
    /// Print the format used and the import summary.
    public var verbose: Bool
    /// Called before a read that may block (the output is flushed then).
    public var beforeRead: (Int32) -> Void
    /// True once nothing more can be shown (stdout failed): reading stops.
    public var isCancelled: () -> Bool

    public init(format: ImportFormat?, options: ImportOptions, verbose: Bool,
                beforeRead: @escaping (Int32) -> Void = { _ in }, isCancelled: @escaping () -> Bool = { false }) {
        self.format = format
        self.options = options
        self.verbose = verbose
        self.beforeRead = beforeRead
        self.isCancelled = isCancelled
    }

    /// Reads the file or stream `fd` (named `name`) to its end. Returns the
    /// number of problems reported (the run exits 1 when any).
    public func read(name: String, fd: Int32, into pipeline: RenderPipeline) -> Int {
        var prefix: [UInt8] = []
        var chosen = format
        var problems = 0
        func report(_ line: Int?, _ reason: String) {
            problems += 1
            pipeline.report(line.map { "\(name):\($0): \(reason)" } ?? "\(name): \(reason)")
        }
        if chosen == nil {
            switch detect(fd: fd, prefix: &prefix) {
            case .failure(let error):
                report(nil, error.reason)
                return problems
            case .success(.format(let detected)):
                chosen = detected
            case .success(.unknown(let description)):
                report(nil, "not a chat CellHost can read: it looks like \(description). "
                       + "Formats: \(ImportFormat.names); choose one with --from FORMAT")
                return problems
            }
        }
        let format = chosen ?? .cellhost
        if verbose { pipeline.report("\(name): read as \(format.title)\(self.format == nil ? "" : " (--from)")") }
        pipeline.unreadableTimes = 0
        pipeline.firstUnreadableTime = nil
        defer { reportTimes(pipeline) }
        guard let importer = format.importer else {
            let reader = InputReader(fd: fd, prefix: prefix, beforeRead: { beforeRead(fd) }, isCancelled: isCancelled)
            do {
                try reader.read(record: { record in
                    do { try pipeline.submit(record.bytes, line: record.line) } catch { report(record.line, "\(error)") }
                }, problem: { problem in report(problem.line, problem.reason) })
            } catch {
                report(nil, "\(error)")
            }
            return problems
        }
        let source = ByteSource(fd: fd, prefix: prefix)
        source.beforeRead = { beforeRead(fd) }
        source.isCancelled = isCancelled
        return problems + run(importer, ImportInput(name: name, source: source), pipeline: pipeline)
    }

    /// Follows the CellHost JSON Lines file at `path` like `tail -F`: renders
    /// its last `lines` messages, then each message as it is appended, across
    /// truncation and rotation, until reading is cancelled (or the process is
    /// interrupted). Returns the number of problems reported.
    public func follow(path: String, lines: Int, into pipeline: RenderPipeline) -> Int {
        if let format, format != .cellhost {
            pipeline.report("\(path): --follow reads CellHost JSON Lines, not a \(format.title)")
            return 1
        }
        let file: FollowedFile
        do { file = try FollowedFile(path: path, lastLines: lines) } catch {
            pipeline.report("\(path): \(error)")
            return 1
        }
        file.notice = { pipeline.report($0) }
        file.beforeWait = { pipeline.inputIdle() }
        file.isCancelled = isCancelled
        if verbose { pipeline.report("\(path): following from line \(file.firstLine)") }
        var problems = 0
        while true {
            let reader = InputReader(following: file, isCancelled: isCancelled)
            do {
                try reader.read(record: { record in
                    do { try pipeline.submit(record.bytes, line: record.line) } catch {
                        problems += 1
                        pipeline.report("\(path):\(record.line): \(error)")
                    }
                }, problem: { problem in
                    problems += 1
                    pipeline.report("\(path):\(problem.line): \(problem.reason)")
                })
            } catch {
                problems += 1
                pipeline.report("\(path): \(error)")
                return problems
            }
            guard file.startsOver, !isCancelled() else { return problems }
            do { try file.startOver() } catch {
                problems += 1
                pipeline.report("\(path): \(error)")
                return problems
            }
        }
    }

    /// Reads a directory input (a Slack export).
    public func read(directory: String, into pipeline: RenderPipeline) -> Int {
        var format = self.format
        if format == nil {
            switch FormatDetector.detect(directory: directory) {
            case .format(let detected): format = detected
            case .unknown(let description):
                pipeline.report("\(directory): not a chat CellHost can read: it is \(description)")
                return 1
            }
        }
        guard let format, let importer = format.importer, format == .slack else {
            pipeline.report("\(directory): is a directory, and a \((format ?? .cellhost).title) is a file")
            return 1
        }
        if verbose { pipeline.report("\(directory): read as \(format.title)\(self.format == nil ? "" : " (--from)")") }
        pipeline.unreadableTimes = 0
        pipeline.firstUnreadableTime = nil
        defer { reportTimes(pipeline) }
        return run(importer, ImportInput(name: directory, directory: directory), pipeline: pipeline)
    }

    private func run(_ importer: ChatImporter.Type, _ input: ImportInput, pipeline: RenderPipeline) -> Int {
        let name = input.name
        var problems = 0
        // A record from a file of an export directory is named by that file
        // in what is said about it later (`name: FILE:LINE: …`, as the
        // importer's own problems are).
        var file: String?
        defer { pipeline.source = name }
        let sink = ImportSink(record: { bytes, line, recordFile in
            if recordFile != file {
                file = recordFile
                pipeline.source = recordFile.map { "\(name): \($0)" } ?? name
            }
            do { try pipeline.submit(bytes, line: line) } catch {
                problems += 1
                pipeline.report("\(pipeline.source):\(line): \(error)")
            }
        }, problem: { line, reason in
            problems += 1
            pipeline.report(line.map { "\(name):\($0): \(reason)" } ?? "\(name): \(reason)")
        }, warning: { pipeline.report("\(name): \($0)") },
           verbose: { if verbose { pipeline.report("\(name): \($0)") } })
        do {
            try importer.run(input, options: options, sink: sink)
        } catch let error as ImportError {
            problems += 1
            pipeline.report(error.line.map { "\(name):\($0): \(error.reason)" } ?? "\(name): \(error.reason)")
        } catch {
            problems += 1
            pipeline.report("\(name): \(error)")
        }
        if verbose {
            var summary = "\(name): \(sink.messages) message\(sink.messages == 1 ? "" : "s") imported"
            if sink.problems > 0 { summary += ", \(sink.problems) problem\(sink.problems == 1 ? "" : "s")" }
            for note in sink.notes { summary += "; \(note)" }
            pipeline.report(summary)
        }
        return problems
    }

    /// The `--verbose` line about times that could not be read, once per
    /// input, at the first of them (`FILE:LINE`, or `DIRECTORY: FILE:LINE`
    /// for an export directory).
    private func reportTimes(_ pipeline: RenderPipeline) {
        guard verbose, let first = pipeline.firstUnreadableTime else { return }
        let count = pipeline.unreadableTimes
        pipeline.report("\(first.source):\(first.line): \(count) time\(count == 1 ? "" : "s") could not be read (the first: \"\(first.text)\"); shown without a time")
    }

    /// Reads up to `FormatDetector.prefixLimit` bytes, as few as deciding
    /// needs (a live stream is decided on its first line).
    private func detect(fd: Int32, prefix: inout [UInt8]) -> Result<FormatDetector.Outcome, ImportError> {
        var chunk = [UInt8](repeating: 0, count: 1 << 14)
        while true {
            if prefix.count >= FormatDetector.prefixLimit || isCancelled() {
                return .success(FormatDetector.detect(prefix, atEnd: true) ?? .format(.cellhost))
            }
            beforeRead(fd)
            let want = min(chunk.count, FormatDetector.prefixLimit - prefix.count)
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress!, want) }
            if count < 0 {
                if errno == EINTR { continue }
                return .failure(ImportError(line: nil, reason: String(cString: strerror(errno))))
            }
            prefix.append(contentsOf: chunk[0..<count])
            if let outcome = FormatDetector.detect(prefix, atEnd: count == 0) { return .success(outcome) }
        }
    }
}

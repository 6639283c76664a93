/// Reads one kind of chat export and hands its messages, in order, to an
/// `ImportSink` as CellHost records.
///
/// An importer streams: it holds one message (plus whatever small state the
/// format needs, such as display names or relations collected in a first
/// pass), never the whole conversation. One bad message is reported on the
/// sink and costs nothing else; a problem with the file as a whole (it is
/// truncated, it is not this format at all) is thrown after everything
/// before it has been handed over.
public protocol ChatImporter {
    static var format: ImportFormat { get }
    static func run(_ input: ImportInput, options: ImportOptions, sink: ImportSink) throws
}

/// What an importer reads: a file or stream, or a directory (Slack).
public struct ImportInput {
    /// How diagnostics name the input (`result.json`, `<stdin>`).
    public var name: String
    /// The bytes of a file or stream input; nil for a directory.
    public var source: ByteSource?
    /// The path of a directory input.
    public var directory: String?

    public init(name: String, source: ByteSource? = nil, directory: String? = nil) {
        self.name = name
        self.source = source
        self.directory = directory
    }

    /// The byte source, or the error an importer of files gives for a directory.
    public func requireSource(_ format: ImportFormat) throws -> ByteSource {
        guard let source else { throw ImportError(line: nil, reason: "is a directory, and a \(format.title) is a file") }
        return source
    }
}

/// What the user asked for that importers take into account.
public struct ImportOptions {
    /// The user's `--me`. When it is set, importers leave direction to the
    /// host; when it is not and the export says who made it, they mark that
    /// person's messages outgoing.
    public var me: String?

    public init(me: String? = nil) { self.me = me }

    /// The `direction` for a message from `sender`, given who made the export:
    /// nil (the host decides) when `--me` was given or the exporter is unknown.
    public func direction(sender: String?, exporter: String?) -> String? {
        guard me == nil, let exporter, !exporter.isEmpty else { return nil }
        return sender == exporter ? "outgoing" : "incoming"
    }
}

/// Where an importer's messages and problems go: each message is spelled as
/// a CellHost record and handed to the render path with the line it came
/// from. Counts what went through, for the `--verbose` summary.
public final class ImportSink {
    private var writer = RecordWriter()
    private let record: (UnsafeBufferPointer<UInt8>, Int, String?) -> Void
    private let report: (Int?, String) -> Void
    private let inform: (String) -> Void
    private let warn: (String) -> Void
    /// Messages handed over.
    public private(set) var messages = 0
    /// Problems reported (each makes the run exit 1).
    public private(set) var problems = 0
    /// Notes for the `--verbose` summary (relations applied, dropped, …).
    public private(set) var notes: [String] = []

    /// `record` receives each message's CellHost record, its line, and the
    /// file of the export that line is in (nil: the input itself); `problem`
    /// each problem (with its line, when it has one); `verbose` remarks shown
    /// only with `--verbose`; `warning` lines shown always that do not make
    /// the run fail.
    public init(record: @escaping (UnsafeBufferPointer<UInt8>, Int, String?) -> Void,
                problem: @escaping (Int?, String) -> Void,
                warning: @escaping (String) -> Void = { _ in },
                verbose: @escaping (String) -> Void = { _ in }) {
        self.record = record
        self.report = problem
        self.warn = warning
        self.inform = verbose
    }

    /// Hands `message` over; `line` is where it starts in the input (0 when
    /// the input has no lines worth naming), or in `file` when the input is
    /// a directory (a Slack export's day file, named as in its problems).
    public func emit(_ message: ImportedMessage, line: Int, file: String? = nil) {
        message.write(to: &writer)
        messages += 1
        writer.bytes.withUnsafeBufferPointer { record($0, line, file) }
    }

    /// Reports a problem with one message or line; the import goes on.
    public func problem(line: Int?, _ reason: String) {
        problems += 1
        report(line, reason)
    }

    /// A remark shown with `--verbose` only.
    public func verbose(_ text: String) { inform(text) }

    /// Adds a line to the end-of-file summary shown with `--verbose`.
    public func note(_ text: String) { notes.append(text) }

    /// A line shown always that does not make the run fail (what could not
    /// be applied on a stream that cannot be read twice).
    public func warning(_ text: String) { warn(text) }
}

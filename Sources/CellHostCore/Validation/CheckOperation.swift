/// One step a `check-plugin` child process performs, and what it saw.
///
/// The parent (`PluginChecker`) plans every operation, sends the list to a
/// child (`CheckChild`), and watches it: a child that dies or stops
/// answering on one operation costs that operation only, and a new child
/// goes on with the next.
struct CheckOperation: Codable, Sendable {
    enum Kind: String, Codable, Sendable {
        /// Open the plugin in a fresh runtime (`PluginLibrary.open`: the
        /// constructors, the entry, `init`).
        case initialize
        /// Call the descriptor's `deinit`, after `initialize` succeeded.
        case deinitialize
        /// Open the libraries of a class's chain (the plugin's `init` runs).
        case open
        /// Render a sample with one class, as one message class, at one width.
        case render
        /// The same render again, for the determinism check.
        case renderAgain
        /// Ask `canRenderMessage:context:`, render, and ask again.
        case canRender
        /// `plainTextForMessage:context:into:` for a sample.
        case plainText
    }

    var kind: Kind
    var className: String = ""
    var messageClass: String = ""
    /// Index into the setup's samples.
    var sample: Int = 0
    var width: Int = 0

    /// Operations with the same group, class and sample are skipped after
    /// one of them crashed or hung: they would most likely do it again.
    var group: String {
        switch kind {
        case .initialize, .deinitialize: return "init"
        case .open: return "open"
        case .render, .renderAgain: return "render"
        case .canRender: return "can-render"
        case .plainText: return "plain-text"
        }
    }
}

/// What a child reports for one operation.
struct CheckObservation: Codable, Sendable {
    /// "rendered", "declined", "error", "absent" (the class has no such
    /// method), "failed" (could not open), "ok".
    var result: String
    /// The plugin's logged error or the failure's reason.
    var detail: String?
    /// Seconds of the plugin call (the fastest of up to three tries when
    /// the first was over the limit).
    var seconds: Double = 0
    /// Lines the cell appended (line breaks and rows, counted past the cap).
    var lines: Int = 0
    /// Content bytes the cell appended (counted past the cap).
    var bytes: Int = 0
    /// The content went past `OutputLimits.standard` while being built.
    var capped = false
    /// A hash of the content (text, styles, rows), for determinism.
    var digest: UInt64 = 0
    /// canRender: the answers before and after the render.
    var answers: [Bool] = []
    /// plainText: the text, when rendered.
    var text: String?
    /// initialize: the classes the plugin described.
    var classes: [String] = []
    /// initialize: the messages of the plugin's "cellhost.samples" extension.
    var samples: [String] = []
}

/// Everything a child needs: sent as JSON on its standard input.
struct CheckSetup: Codable, Sendable {
    /// The file under test (as found on the search path).
    var file: String
    /// The records to link (every loaded plugin; the file's last).
    var records: [PluginRecord]
    var samples: [SampleCorpus.Sample]
    var operations: [CheckOperation]
    /// The first operation this child performs.
    var start: Int
    /// The per-call limit, in seconds: a slower call is tried twice more.
    var limit: Double
    var dispatch: String
    /// Address-space limit of the child, in bytes (0: none).
    var memoryLimit: Int
}

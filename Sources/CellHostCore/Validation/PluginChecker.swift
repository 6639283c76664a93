import Foundation
import Glibc

/// The names of the checks, in the order they run and are reported
/// (docs/check-plugin.md says what each asserts).
public enum PluginCheck {
    public static let descriptor = "descriptor"
    public static let classesLink = "classes-link"
    public static let initDeinit = "init-deinit"
    public static let renderSamples = "render-samples"
    public static let canRender = "can-render"
    public static let plainText = "plain-text"
    public static let determinism = "determinism"
    public static let timePerCall = "time-per-call"
    public static let outputBounds = "output-bounds"
    public static let declinesEverything = "declines-everything"

    public static let allNames = [descriptor, classesLink, initDeinit, renderSamples, canRender, plainText,
                                  determinism, timePerCall, outputBounds, declinesEverything]
}

/// `cellhost check-plugin`: validates one plugin file the way `cellhost
/// render` would use it. No plugin code runs in this process: the file is
/// described by the plugin scanner (`PluginScanner`), like every plugin, and
/// everything that runs the plugin runs in `CheckChild` processes watched by
/// `CheckRunner`.
public struct PluginChecker {
    public struct Settings {
        /// The plugin file to check.
        public var file: String
        /// `--plugin-path` directories (for superclasses in other plugins).
        public var pluginPaths: [String] = []
        public var environment: [String: String] = [:]
        /// Content widths every sample is rendered at.
        public var widths: [Int] = PluginChecker.defaultWidths
        /// The time one render call may take, in seconds (`--timeout`).
        public var limit: Double = PluginChecker.defaultLimit
        public var allowInsecure = false
        /// Address-space limit of each check child, in bytes (as `--plugin-memory` for workers).
        public var memoryLimit = 1024 << 20
        /// The executable to re-run as scanner and check child: the host.
        public var executable: String

        public init(file: String, executable: String) {
            self.file = file
            self.executable = executable
        }
    }

    public static let defaultWidths = [1, 20, 40, 80, 200]
    /// 100 ms per render call.
    public static let defaultLimit = 0.1
    /// A call that has not returned after this many times the limit (and
    /// at least `minimumHang` seconds, the scanner's limit for loading) is a
    /// hang: its child is killed.
    public static let hangFactor = 10.0
    public static let minimumHang = 2.0

    public let settings: Settings

    public init(settings: Settings) { self.settings = settings }

    /// Runs every check; `warning` receives search-path warnings.
    public func run(warning: (String) -> Void) -> CheckReport {
        let file = PluginSearchPath.absolute(settings.file)
        var report = CheckReport(file: file, results: [])
        func add(_ name: String, _ status: CheckResult.Status, _ detail: String) {
            report.results.append(CheckResult(name: name, status: status, detail: detail))
        }
        func add(verdict name: String, _ verdict: (CheckResult.Status, String)) { add(name, verdict.0, verdict.1) }
        func skipRest(_ reason: String) {
            for name in PluginCheck.allNames where !report.results.contains(where: { $0.name == name }) {
                add(name, .skip, reason)
            }
        }
        // The file is judged where it lives (its own directory), as `render`
        // would: the private link below would hide an insecure directory.
        if !settings.allowInsecure {
            let directory = file.lastIndex(of: "/").map { String(file[..<$0]) }.map { $0.isEmpty ? "/" : $0 } ?? "."
            if let problem = PluginFilePolicy.problem(file: file, directory: directory) {
                add(PluginCheck.descriptor, .fail, problem)
                skipRest("the plugin was not checked")
                return report
            }
        }
        // The file goes first on the search path, through a private
        // directory holding a link to it: it wins over any copy of itself
        // and over other plugins of equal rank, as a --plugin-path would.
        var template = Array(((settings.environment["TMPDIR"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? "/tmp")
                              + "/cellhost-check-XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            add(PluginCheck.descriptor, .fail, "cannot make a temporary directory: \(String(cString: strerror(errno)))")
            skipRest("the plugin was not checked")
            return report
        }
        let directory = String(cString: made)
        var name = file.split(separator: "/").last.map(String.init) ?? "plugin.so"
        if !name.hasSuffix(".so") { name += ".so" }
        let link = directory + "/" + name
        defer {
            unlink(link)
            rmdir(directory)
        }
        guard symlink(file, link) == 0 else {
            add(PluginCheck.descriptor, .fail, "cannot link to the file: \(String(cString: strerror(errno)))")
            skipRest("the plugin was not checked")
            return report
        }
        let (standard, warnings) = PluginSearchPath.resolve(commandLine: settings.pluginPaths, environment: settings.environment,
                                                            executableDirectory: PluginSearchPath.executableDirectory())
        for line in warnings { warning(line) }
        let searchPath = PluginSearchPath(directories: [directory] + standard.directories)
        let runtime = Runtime()
        let loader = PluginLoader(searchPath: searchPath,
                                  description: .scanner(PluginScanner(executable: settings.executable), cache: nil, rescan: true),
                                  allowInsecure: settings.allowInsecure)
        let records = loader.load(into: runtime).records
        guard let record = records.first(where: { $0.file == link }) else {
            add(PluginCheck.descriptor, .fail, "the file was not found through its link")
            skipRest("the plugin was not checked")
            return report
        }

        // descriptor: the scanner read the descriptor when it has the id.
        guard record.id != nil else {
            add(PluginCheck.descriptor, .fail, shown(record.failure ?? "not loaded", link: link, file: file))
            skipRest("the plugin did not load (see descriptor)")
            return report
        }
        let abi = record.abi.map { "ABI \($0.major).\($0.minor)" } ?? "ABI ?"
        let counted = { (count: Int, noun: String) in "\(count) \(noun)\(count == 1 ? "" : (noun.hasSuffix("s") ? "es" : "s"))" }
        add(PluginCheck.descriptor, .pass, "\(record.id ?? "?") \(record.version ?? "?"), \(abi), "
            + counted(record.classes.count + record.rejectedClasses.count, "class") + ", "
            + "declares " + counted(record.messageClasses.count, "message class")
            + (record.threadSafe ? ", thread-safe (CELLHOST_PLUGIN_THREAD_SAFE)" : ""))

        // classes-link
        if !record.rejectedClasses.isEmpty {
            add(PluginCheck.classesLink, .fail, record.rejectedClasses.map { "class '\($0.name)' rejected: \($0.reason)" }
                .joined(separator: "; "))
        } else if record.isLoaded {
            let methods = record.classes.reduce(0) { $0 + $1.methods.count }
            let chains = record.classes.map { "\($0.name) : \($0.superclass)" }.joined(separator: ", ")
            add(PluginCheck.classesLink, .pass, counted(record.classes.count, "class") + ", " + counted(methods, "method")
                + (chains.isEmpty ? "" : " (\(chains))"))
        } else {
            add(PluginCheck.classesLink, .skip, "the plugin did not load (see init-deinit)")
        }

        // init-deinit: two processes open the plugin and call deinit.
        let runner = CheckRunner(executable: settings.executable,
                                 hangLimit: max(PluginChecker.minimumHang, PluginChecker.hangFactor * settings.limit))
        let (initStatus, initDetail, pluginSamples) = initDeinit(runner: runner, link: link, file: file)
        add(PluginCheck.initDeinit, initStatus, initDetail)
        guard record.isLoaded else {
            skipRest("the plugin did not load (see init-deinit)")
            return report
        }

        // The render checks, planned here and performed in children.
        let classes = record.classes.filter { !$0.messageClasses.isEmpty }
        guard !classes.isEmpty else {
            skipRest(!record.classes.isEmpty ? "no class registers for a message class"
                     : record.rejectedClasses.isEmpty ? "the plugin has no class" : "no class linked (see classes-link)")
            return report
        }
        var samples: [SampleCorpus.Sample] = []
        var sampleIndices: [String: [Int]] = [:]
        for messageClass in classes.flatMap(\.messageClasses) where sampleIndices[messageClass] == nil {
            let first = samples.count
            samples += SampleCorpus.samples(for: messageClass)
            sampleIndices[messageClass] = Array(first..<samples.count)
        }
        // The plugin's own samples ("cellhost.samples"), each with the
        // classes registered for its type.
        for (index, json) in pluginSamples.enumerated() {
            guard let type = Self.messageType(json), sampleIndices[type] != nil else { continue }
            sampleIndices[type, default: []].append(samples.count)
            samples.append(SampleCorpus.Sample(name: "plugin-sample-\(index + 1)", json: json))
        }
        var operations: [CheckOperation] = []
        for cls in classes {
            operations.append(CheckOperation(kind: .open, className: cls.name))
            for messageClass in cls.messageClasses {
                for sample in sampleIndices[messageClass] ?? [] {
                    for width in settings.widths {
                        operations.append(CheckOperation(kind: .render, className: cls.name, messageClass: messageClass,
                                                         sample: sample, width: width))
                        operations.append(CheckOperation(kind: .renderAgain, className: cls.name, messageClass: messageClass,
                                                         sample: sample, width: width))
                    }
                    for width in settings.widths {
                        operations.append(CheckOperation(kind: .canRender, className: cls.name, messageClass: messageClass,
                                                         sample: sample, width: width))
                    }
                    operations.append(CheckOperation(kind: .plainText, className: cls.name, messageClass: messageClass,
                                                     sample: sample))
                }
            }
        }
        let setup = CheckSetup(file: link, records: records.filter { $0.isLoaded && $0.file != link } + [record],
                               samples: samples, operations: operations, start: 0, limit: settings.limit,
                               dispatch: Dispatcher.fromEnvironment(settings.environment).mode.rawValue,
                               memoryLimit: settings.memoryLimit)
        let evaluation = Evaluation(operations: operations, samples: samples, outcome: runner.run(setup),
                                    limit: settings.limit, widths: settings.widths)
        for name in PluginCheck.allNames where !report.results.contains(where: { $0.name == name }) {
            add(verdict: name, evaluation.check(name))
        }
        return report
    }

    /// A reason with the private link shown as the file the user named.
    private func shown(_ reason: String, link: String, file: String) -> String {
        reason.replacingOccurrences(of: link, with: file)
    }

    /// Opens the plugin and calls `deinit` in one process, then again in a
    /// second: both must succeed and describe the same classes.
    /// The `type` of a sample message, when it is a JSON object with one.
    static func messageType(_ json: String) -> String? {
        let message = Message()
        var json = json
        guard (try? json.withUTF8 { try message.load($0, me: nil) }) != nil, !message.typeIsMissing else { return nil }
        return message.type
    }

    /// Opens the plugin and calls `deinit` in one process, then again in a
    /// second: both must succeed and describe the same classes. Also returns
    /// the plugin's own sample messages.
    private func initDeinit(runner: CheckRunner, link: String, file: String) -> (CheckResult.Status, String, [String]) {
        let operations = [CheckOperation(kind: .initialize), CheckOperation(kind: .deinitialize)]
        let setup = CheckSetup(file: link, records: [], samples: [], operations: operations, start: 0, limit: settings.limit,
                               dispatch: Dispatcher.fromEnvironment(settings.environment).mode.rawValue,
                               memoryLimit: settings.memoryLimit)
        var seen: [[String]] = []
        var samples: [String] = []
        var hasDeinit = true
        for run in 1...2 {
            let outcome = runner.run(setup)
            let which = run == 1 ? "" : " (in the second process)"
            for (index, doing) in [(0, "loading (constructors, entry or init)"), (1, "in deinit")] {
                if let failure = outcome.failures[index] {
                    return (.fail, Evaluation.describe(failure, doing: doing) + which, [])
                }
            }
            guard let opened = outcome.observations[0] else { return (.fail, "the plugin did not report loading" + which, []) }
            guard opened.result == "ok" else {
                return (.fail, shown(opened.detail ?? "init failed", link: link, file: file) + which, [])
            }
            if outcome.observations[1]?.result == "absent" { hasDeinit = false }
            seen.append(opened.classes)
            samples = opened.samples
        }
        if seen.count == 2, seen[0] != seen[1] {
            return (.fail, "the second process disagrees: the first described \(seen[0].joined(separator: ", ")), "
                    + "the second \(seen[1].joined(separator: ", "))", samples)
        }
        return (.pass, hasDeinit ? "init and deinit ran in two processes, which agree"
                                 : "init ran in two processes, which agree; the plugin has no deinit", samples)
    }
}

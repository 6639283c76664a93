import CellHostABI
import Glibc

/// Times one well-known selector call, `renderMessage:context:into:`, four
/// ways, for `Benchmarks/dispatch.sh`: the plugin's IMP through a plain C
/// function pointer, the host's fast path (`Dispatcher` in `direct` mode),
/// `ffi_call` on the method's cached call interface, and the host's libffi
/// path (`Dispatcher` in `ffi` mode, what `CELLHOST_DISPATCH=ffi` uses).
///
/// The plugin is opened in this process and its classes linked as the loader
/// does; the calls pass no message and no builder, so the method should
/// return at once when given none (Benchmarks/plugins/bench-plugin.c does).
public enum DispatchBenchmark {
    /// Nanoseconds per call of each way, the median of `runs` runs.
    public struct Result: Sendable {
        public var functionPointer: Double
        public var fastPath: Double
        public var ffiCall: Double
        public var ffiDispatcher: Double
    }

    /// Why the benchmark could not run.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Opens `file`, finds `className`'s render method and calls it `calls`
    /// times per run each way.
    public static func run(plugin file: String, className: String, calls: Int, runs: Int) throws -> Result {
        let runtime = Runtime(dispatcher: Dispatcher(mode: .direct))
        var record = PluginRecord(file: file, state: .loaded)
        guard let library = PluginLibrary.open(file, record: &record, runtime: runtime), let id = record.id else {
            throw Failure(description: "\(file): \(record.failure ?? "could not be opened")")
        }
        runtime.pluginContexts[id] = library.context
        let rejections = runtime.link(library.classes.map { ($0, id) })
        if let first = rejections.first { throw Failure(description: "\(first.rejection)") }
        guard let cls = runtime.classes[className], let method = cls.lookup(.render) else {
            throw Failure(description: "\(file): no class '\(className)' with renderMessage:context:into:")
        }
        let direct = Dispatcher(mode: .direct), ffi = Dispatcher(mode: .ffi)
        let imp = unsafeBitCast(method.imp, to: Dispatcher.RenderIMP.self)
        let selector = method.selectorPointer
        var sink: Int32 = 0
        var times: [[Double]] = [[], [], [], []]
        runtime.withContext(for: cls, width: 80, messageClass: "text", flags: 0) { context in
            // libffi's avalue for the same call: receiver, _cmd, message, context, builder.
            var receiver: OpaquePointer?, message: OpaquePointer?, builder: OpaquePointer?
            var cmd: UnsafePointer<CChar>? = selector
            var contextArgument: UnsafePointer<cellhost_context>? = context
            var result: (Int64, Int64) = (0, 0)
            withUnsafeMutablePointer(to: &receiver) { r in
            withUnsafeMutablePointer(to: &cmd) { s in
            withUnsafeMutablePointer(to: &message) { m in
            withUnsafeMutablePointer(to: &contextArgument) { c in
            withUnsafeMutablePointer(to: &builder) { b in
            withUnsafeMutablePointer(to: &result) { out in
                var values: [UnsafeMutableRawPointer?] = [UnsafeMutableRawPointer(r), UnsafeMutableRawPointer(s),
                                                          UnsafeMutableRawPointer(m), UnsafeMutableRawPointer(c),
                                                          UnsafeMutableRawPointer(b)]
                values.withUnsafeMutableBufferPointer { arguments in
                    for _ in 0..<max(runs, 1) {
                        times[0].append(timed(calls) { sink &+= imp(nil, selector, nil, context, nil) })
                        times[1].append(timed(calls) {
                            sink &+= direct.render(method, receiver: nil, message: nil, context: context, builder: nil)
                        })
                        times[2].append(timed(calls) {
                            method.interface.call(method.imp, result: UnsafeMutableRawPointer(out),
                                                  arguments: arguments.baseAddress!)
                            sink &+= Int32(truncatingIfNeeded: out.pointee.0)
                        })
                        times[3].append(timed(calls) {
                            sink &+= ffi.render(method, receiver: nil, message: nil, context: context, builder: nil)
                        })
                    }
                }
            }}}}}}
        }
        // Every call returned CELLHOST_RENDERED; using the sum keeps the loops.
        if sink == Int32.min { print("") }
        let medians = times.map { $0.sorted()[$0.count / 2] }
        return Result(functionPointer: medians[0], fastPath: medians[1], ffiCall: medians[2], ffiDispatcher: medians[3])
    }

    /// Nanoseconds per call of `body`, run `calls` times.
    private static func timed(_ calls: Int, _ body: () -> Void) -> Double {
        var start = timespec(), end = timespec()
        clock_gettime(CLOCK_MONOTONIC, &start)
        for _ in 0..<calls { body() }
        clock_gettime(CLOCK_MONOTONIC, &end)
        let nanoseconds = Double(end.tv_sec - start.tv_sec) * 1e9 + Double(end.tv_nsec - start.tv_nsec)
        return nanoseconds / Double(max(calls, 1))
    }
}

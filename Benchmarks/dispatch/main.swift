// The dispatch micro-benchmark (Benchmarks/dispatch.sh): ns per call of one
// `renderMessage:context:into:` through a C function pointer, the host's
// fast path, ffi_call with a cached cif, and the host's libffi path.
//
// Usage: dispatch-bench PLUGIN.so CLASS [CALLS] [RUNS]
import CellHostCore
import Glibc

let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    fputs("usage: dispatch-bench PLUGIN.so CLASS [CALLS] [RUNS]\n", stderr)
    exit(2)
}
let calls = arguments.count > 3 ? Int(arguments[3]) ?? 10_000_000 : 10_000_000
let runs = arguments.count > 4 ? Int(arguments[4]) ?? 5 : 5
do {
    let result = try DispatchBenchmark.run(plugin: arguments[1], className: arguments[2], calls: calls, runs: runs)
    print("calls per run: \(calls), runs: \(runs) (median ns per call)")
    for (name, value) in [("C function pointer", result.functionPointer),
                          ("host fast path (CELLHOST_DISPATCH=direct)", result.fastPath),
                          ("ffi_call, cached cif", result.ffiCall),
                          ("host libffi path (CELLHOST_DISPATCH=ffi)", result.ffiDispatcher)] {
        let hundredths = Int((value * 100).rounded())
        let shown = "\(hundredths / 100).\(hundredths % 100 < 10 ? "0" : "")\(hundredths % 100) ns"
        print(name + String(repeating: " ", count: max(1, 44 - name.count)) + shown)
    }
} catch {
    fputs("dispatch-bench: \(error)\n", stderr)
    exit(1)
}

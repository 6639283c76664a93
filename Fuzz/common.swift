import Glibc

// Shared by every fuzz target (compiled into each).

/// Reports a violated invariant and aborts, so libFuzzer records the input.
func fuzzFail(_ message: String) -> Never {
    fputs("fuzz invariant violated: \(message)\n", stderr)
    abort()
}

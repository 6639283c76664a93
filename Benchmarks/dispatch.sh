#!/usr/bin/env bash
# The dispatch micro-benchmark: ns per call of `renderMessage:context:into:`
# of a real plugin class (Benchmarks/plugins/bench-plugin.c, built with cc)
# through a plain C function pointer, the host's fast path (a typed direct
# call, CELLHOST_DISPATCH=direct), ffi_call with the method's cached cif, and
# the host's libffi path (CELLHOST_DISPATCH=ffi); median of RUNS runs of
# CALLS calls each. Wall-clock figures: other load on the machine shows.
#
# The benchmark executable is a package target that exists only when
# CELLHOST_BENCHMARKS=1 (so `swift build`/`swift test` never build it); it
# gets its own scratch directory.
#
# Usage: Benchmarks/dispatch.sh
# Environment: SCRATCH (default .build-bench), CALLS (default 10000000), RUNS (default 5)
set -euo pipefail

cd "$(dirname "$0")/.."
OUT=$PWD/Benchmarks/out
SCRATCH=${SCRATCH:-.build-bench}
CALLS=${CALLS:-10000000}
RUNS=${RUNS:-5}
mkdir -p "$OUT"
export CELLHOST_BENCHMARKS=1
swift build -c release --scratch-path "$SCRATCH" --product dispatch-bench >&2
BIN=$(swift build -c release --scratch-path "$SCRATCH" --show-bin-path)/dispatch-bench
cc -std=c99 -O2 -shared -fPIC -I Sources/CellHostABI/include -DPLUGIN_NUMBER=0 \
    Benchmarks/plugins/bench-plugin.c -o "$OUT/dispatch-plugin.so"
"$BIN" "$OUT/dispatch-plugin.so" Bench0Cell "$CALLS" "$RUNS"

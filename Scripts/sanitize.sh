#!/usr/bin/env bash
# Runs the XCTest suite under a sanitizer, in its own build directory so the
# normal .build is left alone:
#
#   Scripts/sanitize.sh thread  [SWIFT_TEST_ARGUMENT...]   # ThreadSanitizer, .build-tsan
#   Scripts/sanitize.sh address [SWIFT_TEST_ARGUMENT...]   # AddressSanitizer, .build-asan
#
# e.g. `Scripts/sanitize.sh thread --filter ConcurrentHostsTests`.
#
# Everything is built with the sanitizer: the host library, the `cellhost`
# binary and the plugins the end-to-end tests load (CELLHOST_BIN points them
# at the sanitized binary). The output is also written to
# .build-tsan/sanitize.log (or .build-asan/); at the end the script prints the
# XCTest totals and the number of sanitizer reports, and exits non-zero when
# a test failed or the sanitizer reported anything.
set -euo pipefail

usage() {
    echo "usage: Scripts/sanitize.sh thread|address [SWIFT_TEST_ARGUMENT...]" >&2
    exit 2
}

[[ $# -ge 1 ]] || usage
kind=$1
shift
case $kind in
    thread) scratch=.build-tsan; pattern='WARNING: ThreadSanitizer' ;;
    address) scratch=.build-asan; pattern='ERROR: (AddressSanitizer|LeakSanitizer)' ;;
    *) echo "Scripts/sanitize.sh: unknown sanitizer '$kind'" >&2; usage ;;
esac

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
export TZ=UTC
# Swift's crash handler would run before the sanitizer's report of a trap.
export SWIFT_BACKTRACE=enable=no
# Keep going after the first report, so one run lists every race or error.
export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=0}
# LeakSanitizer is off by default: at exit the XCTest process reports XCTest's
# and Foundation's own objects, and the cellhost binary its process-lifetime
# allocations (Scripts/lsan.supp lists ours). To look at leaks anyway:
#   ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=suppressions=Scripts/lsan.supp:print_suppressions=0 Scripts/sanitize.sh address
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$root/Scripts/lsan.supp:print_suppressions=0}
export CELLHOST_BIN=$root/$scratch/debug/cellhost
# Sanitized binaries run several times slower: give each end-to-end run more
# time before the harness calls it hung.
export CELLHOST_TEST_TIME_SCALE=${CELLHOST_TEST_TIME_SCALE:-8}

# The sanitizer runtime is linked statically into the executables; export its
# symbols so the instrumented plugins the tests dlopen can bind to them
# (otherwise: "dlopen failed: undefined symbol: __tsan_external_write").
flags=(--sanitize="$kind" --scratch-path "$scratch" -Xlinker --export-dynamic)

mkdir -p "$scratch"
log=$root/$scratch/sanitize.log
started=$(date +%s)
status=0
{
    swift build "${flags[@]}" &&
    swift test "${flags[@]}" --disable-swift-testing "$@"
} > >(tee "$log") 2>&1 || status=$?
wait
elapsed=$(( $(date +%s) - started ))

reports=$(grep -cE "$pattern" "$log" || true)
echo "== $kind sanitizer: $elapsed s, exit status $status, $reports sanitizer report(s) (log: ${log#"$root"/})"
grep -E 'Executed [0-9]+ tests?, with [0-9]+ failures?' "$log" | tail -n 1 || true
if [[ $reports -gt 0 ]]; then
    grep -E -A3 "$pattern" "$log" | grep -E "$pattern|#[0-3] " | head -n 40
fi
[[ $status -eq 0 && $reports -eq 0 ]]

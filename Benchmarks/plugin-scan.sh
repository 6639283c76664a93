#!/usr/bin/env bash
# Start-up with many plugins: N plugins from Benchmarks/make-plugins.sh (distinct
# ids, two classes each for their own message class), then `cellhost list-plugins` cold (--rescan: every plugin described in the
# scanner process) and warm (from the cache), and the cost of a plugin that crashes while
# loading (the scanner restarts after it). Reports medians of RUNS runs, and how many plugin
# files a warm run opens (strace, when installed).
#
# Usage: Benchmarks/plugin-scan.sh [N]   (default 100)
# Environment: SCRATCH (default .build), RUNS (default 9)
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
SCRATCH=${SCRATCH:-.build}
RUNS=${RUNS:-9}
N=${1:-100}
case $N in ''|*[!0-9]*) echo "plugin-scan.sh: not a plugin count: $N" >&2; exit 2 ;; esac

swift build -c release --scratch-path "$SCRATCH" >&2
BIN=$(swift build -c release --scratch-path "$SCRATCH" --show-bin-path)/cellhost
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/crash"
# The generated plugins are kept in Benchmarks/out (shared with startup.sh).
PLUGINS=$ROOT/Benchmarks/out/plugins-$N
Benchmarks/make-plugins.sh "$N" "$PLUGINS"
cc -std=c99 -shared -fPIC -I "$ROOT/Sources/CellHostABI/include" -DCTOR_SEGV -DPLUGIN_ID='"bench.crash"' \
    "$ROOT/Tests/EndToEndTests/Fixtures/hostile.c" -o "$WORK/crash/p0050-crash.so"
export XDG_CACHE_HOME=$WORK/cache

# time_ms ARGS...: median wall milliseconds of RUNS runs of cellhost ARGS.
time_ms() {
    local times=() i start end
    for ((i = 0; i < RUNS; i++)); do
        start=${EPOCHREALTIME/,/.}
        "$BIN" "$@" >/dev/null 2>&1 || true
        end=${EPOCHREALTIME/,/.}
        times+=("$(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.3f", (e - s) * 1000 }')")
    done
    printf '%s\n' "${times[@]}" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

echo "== $N plugins, median of $RUNS runs"
echo "cold list-plugins (--rescan):           $(time_ms list-plugins --plugin-path "$PLUGINS" --rescan) ms"
"$BIN" list-plugins --plugin-path "$PLUGINS" >/dev/null 2>&1 || true
echo "warm list-plugins (cache):              $(time_ms list-plugins --plugin-path "$PLUGINS") ms"
echo "cold, one plugin crashing at load too:  $(time_ms list-plugins --plugin-path "$PLUGINS" --plugin-path "$WORK/crash" --rescan) ms"
if command -v strace >/dev/null 2>&1; then
    opened=$(strace -f -e trace=openat "$BIN" list-plugins --plugin-path "$PLUGINS" 2>&1 >/dev/null | grep -c "$PLUGINS/.*\.so\"" || true)
    echo "plugin files a warm list-plugins opens: $opened"
fi

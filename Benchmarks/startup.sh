#!/usr/bin/env bash
# Start-up and scale with plugins: wall time of a one-message `cellhost render`
# and of `cellhost list-plugins` with the shipped plugins (5), and with 100 and
# 1000 generated plugins on top (Benchmarks/make-plugins.sh: C plugins built
# with `cc -shared` against the public header, two classes each for their own
# message class), warm and cold; beside a Swift hello world built with
# Foundation and `gst-inspect-1.0` with its warm registry. Prints the cost per
# plugin (slope between 100 and 1000), and instructions (callgrind) of the
# warm runs, which other load on the machine does not change.
#
#   warm: the plugin cache ($XDG_CACHE_HOME/cellhost/plugins.cache) is
#         present and the files are in the page cache.
#   cold: the plugin cache is removed before each run (every plugin is
#         described again by the scanner child processes) and, when run as
#         root, the page cache is dropped too (echo 3 > /proc/sys/vm/drop_caches:
#         every file, the toolchain's libraries included, comes from disk).
#         Not root: only the plugin cache is removed.
#
# Usage: Benchmarks/startup.sh
# Environment: SCRATCH (SwiftPM build directory, default .build-release),
#              RUNS (warm runs per figure, default 15), COLD_RUNS (default 5),
#              DROP_CACHES (1: drop the page cache for cold runs when root, the
#              default; 0: never)
# Needs: hyperfine, valgrind, gstreamer1.0-tools, a C compiler, swiftc:
#   sudo apt-get install -y hyperfine valgrind gstreamer1.0-tools
set -euo pipefail

cd "$(dirname "$0")/.."
OUT=$PWD/Benchmarks/out
SCRATCH=${SCRATCH:-.build-release}
RUNS=${RUNS:-15}
COLD_RUNS=${COLD_RUNS:-5}
DROP_CACHES=${DROP_CACHES:-1}
for tool in hyperfine gst-inspect-1.0 valgrind; do
    command -v "$tool" >/dev/null || { echo "startup.sh: needs $tool (see the header)" >&2; exit 1; }
done

mkdir -p "$OUT"
echo "== building (swift build -c release --scratch-path $SCRATCH)" >&2
swift build -c release --scratch-path "$SCRATCH" >&2
BIN=$(swift build -c release --scratch-path "$SCRATCH" --show-bin-path)/cellhost
echo "== generating plugins" >&2
Benchmarks/make-plugins.sh 100 "$OUT/plugins-100"
Benchmarks/make-plugins.sh 1000 "$OUT/plugins-1000"
mkdir -p "$OUT/plugins-0"
HELLO=$OUT/hello-foundation
if [ ! -x "$HELLO" ]; then
    printf 'import Foundation\nprint("Hello, \\(ProcessInfo.processInfo.processName)")\n' >"$OUT/hello.swift"
    swiftc -O "$OUT/hello.swift" -o "$HELLO"
fi
ONE=$OUT/one-message.jsonl
printf '%s\n' '{"type":"text","id":"1","sender":"Ana","time":"2026-12-01T09:00:00Z","text":"hello"}' >"$ONE"
export XDG_CACHE_HOME=$OUT/startup-cache
CACHE=$XDG_CACHE_HOME/cellhost/plugins.cache
gst-inspect-1.0 >/dev/null 2>&1  # a warm GStreamer registry

# The preparation of a cold run (hyperfine -N runs commands without a shell).
printf 'rm -f "%s"\n' "$CACHE" >"$OUT/cold-prepare.sh"
: >"$OUT/drop-page-cache.sh"
cold_meaning="plugin cache removed"
if [ "$DROP_CACHES" = 1 ] && [ "$(id -u)" = 0 ] && [ -w /proc/sys/vm/drop_caches ]; then
    echo 'sync; echo 3 > /proc/sys/vm/drop_caches' >"$OUT/drop-page-cache.sh"
    cat "$OUT/drop-page-cache.sh" >>"$OUT/cold-prepare.sh"
    cold_meaning="plugin cache removed and page cache dropped"
fi
cold_prepare="sh $OUT/cold-prepare.sh"

# median_ms NAME RUNS PREPARE COMMAND: median wall milliseconds (hyperfine).
median_ms() {
    local json=$OUT/startup-$1.json
    hyperfine -N --style none --runs "$2" --warmup "$([ -n "$3" ] && echo 0 || echo 3)" \
        ${3:+--prepare "$3"} --export-json "$json" "$4" >/dev/null 2>&1 </dev/null
    python3 -c 'import json, sys; print("%.1f" % (json.load(open(sys.argv[1]))["results"][0]["median"] * 1000))' "$json"
}
# instructions COMMAND…: instructions of one run (callgrind), in millions.
instructions() {
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null \
        | awk '/refs:/ { gsub(",", "", $NF); printf "%.1f", $NF / 1e6 }'
}

declare -A wall
printf '\n== start-up, median of %s warm / %s cold runs (%s)\n' "$RUNS" "$COLD_RUNS" "$(date -u +%F)"
printf '%-12s %-13s %9s %9s %10s\n' plugins command "warm ms" "cold ms" "warm Minstr"
for n in 0 100 1000; do
    dir=$OUT/plugins-$n
    total=$((n + 5))
    for command in render list-plugins; do
        if [ "$command" = render ]; then args="render --format plain --width 80 --plugin-path $dir $ONE"
        else args="list-plugins --plugin-path $dir"; fi
        "$BIN" $args >/dev/null 2>&1 || true  # the cache, warm
        warm=$(median_ms "$command-$n-warm" "$RUNS" "" "$BIN $args")
        cold=$(median_ms "$command-$n-cold" "$COLD_RUNS" "$cold_prepare" "$BIN $args")
        "$BIN" $args >/dev/null 2>&1 || true
        minstr=$(instructions "$BIN" $args)
        wall[$command-$n-warm]=$warm; wall[$command-$n-cold]=$cold
        printf '%-12s %-13s %9s %9s %10s\n' "$total" "$command" "$warm" "$cold" "$minstr"
    done
done
# A message of a generated plugin's class: its library is opened (in a
# worker in the default `auto` mode; in the host with --isolation none).
"$BIN" list-plugins --plugin-path "$OUT/plugins-1000" >/dev/null 2>&1 || true
printf '%s\n' '{"type":"bench7","id":"1","sender":"Ana","time":"2026-12-01T09:00:00Z","text":"hello"}' >"$OUT/one-bench.jsonl"
for isolation in auto none; do
    args="render --format plain --width 80 --isolation $isolation --plugin-path $OUT/plugins-1000 $OUT/one-bench.jsonl"
    printf '%-12s %-13s %9s %9s %10s\n' 1005 "render bench7 --isolation $isolation" \
        "$(median_ms "bench-$isolation" "$RUNS" "" "$BIN $args")" - "$(instructions "$BIN" $args)"
done
printf '%-26s %9s %9s %10s\n' "Swift hello (Foundation)" "$(median_ms hello "$RUNS" "" "$HELLO")" \
    "$(median_ms hello-cold "$COLD_RUNS" "sh $OUT/drop-page-cache.sh" "$HELLO")" "$(instructions "$HELLO")"
printf '%-26s %9s %9s %10s\n' "gst-inspect-1.0" "$(median_ms gst "$RUNS" "" gst-inspect-1.0)" - "$(instructions gst-inspect-1.0)"
echo
echo "cold: $cold_meaning before each run"
for command in render list-plugins; do
    for state in warm cold; do
        awk -v a="${wall[$command-100-$state]}" -v b="${wall[$command-1000-$state]}" -v c="$command" -v s="$state" \
            'BEGIN { printf "cost per plugin, %s %s: %.3f ms (slope 100 -> 1000)\n", c, s, (b - a) / 900 }'
    done
done

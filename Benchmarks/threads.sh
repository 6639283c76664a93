#!/usr/bin/env bash
# Render threads: `cellhost render --format plain` of N generated messages
# (the `real` text mix) pinned to one core and to two with taskset, with no
# render worker (CELLHOST_THREADS=0: the two-thread split), one worker (the
# default on one or two cores) and two, plus every core the machine has. Prints the median wall and CPU time
# (user + system) of RUNS runs per configuration, interleaved.
#
# Usage: Benchmarks/threads.sh [N]      (default N: 1000000)
#
# Environment:
#   SCRATCH  SwiftPM scratch (build) directory, default .build-release
#   RUNS     measurements per configuration, default 3 (the median is reported)
#
# Needs: swift, python3, taskset, GNU time (/usr/bin/time). See docs/performance.md.
set -euo pipefail

cd "$(dirname "$0")/.."
SCRATCH=${SCRATCH:-.build-release}
RUNS=${RUNS:-3}
N=${1:-1000000}
case $N in ''|*[!0-9]*) echo "threads.sh: not a message count: $N" >&2; exit 2 ;; esac
OUT=Benchmarks/out
mkdir -p "$OUT"
INPUT=$OUT/messages-real-$N.jsonl
[ -s "$INPUT" ] || python3 Benchmarks/generate.py "$N" --mix real > "$INPUT"
swift build -c release --scratch-path "$SCRATCH" >/dev/null
BIN=$(swift build -c release --scratch-path "$SCRATCH" --show-bin-path)/cellhost
CORES=$(nproc)
ALL=0-$((CORES - 1))

# configuration: label cpus threads
CONFIGS=("1core-0workers 0 0" "1core-1worker 0 1" "2cores-0workers 0,1 0" "2cores-1worker 0,1 1"
         "2cores-2workers 0,1 2")
[ "$CORES" -gt 2 ] && CONFIGS+=("${CORES}cores-$((CORES - 1))workers $ALL $((CORES - 1))")

declare -A WALL CPU
for run in $(seq "$RUNS"); do
    for config in "${CONFIGS[@]}"; do
        read -r label cpus threads <<< "$config"
        tf=$(mktemp)
        CELLHOST_THREADS=$threads /usr/bin/time -f '%e %U %S' -o "$tf" \
            taskset -c "$cpus" "$BIN" render --format plain --width 80 --me u-1 "$INPUT" > /dev/null
        read -r wall user system < "$tf"
        rm -f "$tf"
        WALL[$label]+="$wall "
        CPU[$label]+="$(python3 -c "print(round($user + $system, 2))") "
        echo "run $run $label: wall $wall s, cpu $(python3 -c "print(round($user + $system, 2))") s" >&2
    done
done

median() { python3 -c "import statistics,sys; print(statistics.median(float(x) for x in sys.argv[1:]))" $1; }
echo "| configuration | wall (median of $RUNS) | CPU user+sys | msgs/s (wall) |"
echo "|:--|--:|--:|--:|"
for config in "${CONFIGS[@]}"; do
    read -r label _ _ <<< "$config"
    wall=$(median "${WALL[$label]}")
    cpu=$(median "${CPU[$label]}")
    echo "| $label | $wall s | $cpu s | $(python3 -c "print(round($N / $wall))") |"
done
echo "load average while measuring: $(cut -d' ' -f1-3 /proc/loadavg)"

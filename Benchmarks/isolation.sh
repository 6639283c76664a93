#!/usr/bin/env bash
# What each --isolation mode costs: `cellhost render --format plain` on N
# generated messages (Benchmarks/generate.py) in modes none, auto, shared and
# each, interleaved run by run; reports the median wall time, the median CPU
# time (user + system, the workers included), peak RSS, and each mode's cost
# against `none`.
#
# Usage: Benchmarks/isolation.sh [N]   (default N: 200000)
#
# Environment:
#   SCRATCH  SwiftPM scratch (build) directory, default .build
#   RUNS     runs per mode, default 5
#
# The shipped plugins sit beside the executable, so `auto` keeps them in the
# host process (no cost); `shared` and `each` run them in worker processes,
# which is what `auto` costs for plugins installed elsewhere.
set -euo pipefail

cd "$(dirname "$0")/.."
OUT=$PWD/Benchmarks/out
SCRATCH=${SCRATCH:-.build}
RUNS=${RUNS:-5}
N=${1:-200000}
case $N in ''|*[!0-9]*) echo "isolation.sh: not a message count: $N" >&2; exit 2 ;; esac
[ -x /usr/bin/time ] || { echo "isolation.sh: needs GNU time: sudo apt-get install -y time" >&2; exit 1; }

mkdir -p "$OUT"
echo "== building (swift build -c release --scratch-path $SCRATCH)" >&2
swift build -c release --scratch-path "$SCRATCH" >&2
BIN=$(swift build -c release --scratch-path "$SCRATCH" --show-bin-path)/cellhost
file=$OUT/messages-$N.jsonl
if [ ! -s "$file" ]; then
    python3 Benchmarks/generate.py "$N" >"$file.tmp"
    mv "$file.tmp" "$file"
fi
export XDG_CACHE_HOME=$OUT/cache
"$BIN" list-plugins >/dev/null  # a warm plugin cache for every run

modes=(none auto shared each)
declare -A walls cpus rss
tf=$(mktemp)
for ((i = 1; i <= RUNS; i++)); do
    for mode in "${modes[@]}"; do
        start=${EPOCHREALTIME/,/.}
        /usr/bin/time -f '%M %U %S' -o "$tf" "$BIN" render --format plain --width 80 --me u-1 --isolation "$mode" "$file" >/dev/null
        end=${EPOCHREALTIME/,/.}
        wall=$(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.4f", e - s }')
        read -r kb user sys < "$tf"
        walls[$mode]+="$wall "
        cpus[$mode]+="$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }') "
        [ "${rss[$mode]:-0}" -lt "$kb" ] && rss[$mode]=$kb
        echo "   run $i $mode: wall $wall s, user $user s, sys $sys s, $kb KB" >&2
    done
done
rm -f "$tf"

median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
echo
echo "== N=$N, $RUNS interleaved runs per mode (median wall and CPU; cost against none)"
printf '%-7s %10s %12s %10s %10s %9s %14s %14s\n' mode "wall s" "msgs/s" "CPU s" "peak MB" cost "+wall us/msg" "+CPU us/msg"
base=$(median <<<"${walls[none]}")
basecpu=$(median <<<"${cpus[none]}")
for mode in "${modes[@]}"; do
    w=$(median <<<"${walls[$mode]}")
    c=$(median <<<"${cpus[$mode]}")
    awk -v m="$mode" -v w="$w" -v c="$c" -v n="$N" -v r="${rss[$mode]}" -v b="$base" -v bc="$basecpu" \
        'BEGIN { printf "%-7s %10.3f %12.0f %10.2f %10.1f %+8.1f%% %14.2f %14.2f\n", m, w, n / w, c, r / 1024,
                 (w / b - 1) * 100, (w - b) / n * 1e6, (c - bc) / n * 1e6 }'
done

# Round trips: requests the host sends to its workers (sendto on the worker
# socket) for 10 000 messages; batches of 32 give about N / 32, and each
# reply quote whose class summarizes in the worker adds one.
if command -v strace >/dev/null 2>&1; then
    small=$OUT/messages-10000.jsonl
    [ -s "$small" ] || { python3 Benchmarks/generate.py 10000 >"$small.tmp" && mv "$small.tmp" "$small"; }
    replies=$(grep -c '"reply_to"' "$small" || true)
    echo
    echo "== worker round trips for 10000 messages ($replies of them replies), strace -f -c"
    for mode in shared each; do
        trips=$(strace -f -c -e trace=sendto -o /dev/stdout "$BIN" render --format plain --width 80 --me u-1 \
                    --isolation "$mode" "$small" 2>/dev/null | awk '$NF == "sendto" { print $4 }' | tail -n 1)
        echo "$mode: ${trips:-?} requests"
    done
fi

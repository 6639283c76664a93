#!/usr/bin/env bash
# Where cellhost render's CPU time goes: a sampled time profile
# (`perf record -e cpu-clock -g`, no hardware counters needed) of
# `cellhost render --format plain` on N generated messages, split by
# thread, by stage and by cost class (reference counting, allocation,
# system calls) by Benchmarks/time-profile.py.
#
# Usage: Benchmarks/time-profile.sh [N]   (default N: 1000000)
#
# Environment:
#   SCRATCH  SwiftPM scratch (build) directory, default .build
#   MIX      text mix (Benchmarks/generate.py --mix), default real
#   FREQ     samples per second and thread, default 4000
#
# Needs: swift, python3, perf (Debian: linux-perf). Installs nothing.
# The profile is kept as Benchmarks/out/time-profile-MIX-N.data (and
# .txt, the `perf script` output). See docs/performance.md.
set -euo pipefail

cd "$(dirname "$0")/.."
OUT=$PWD/Benchmarks/out
SCRATCH=${SCRATCH:-.build}
MIX=${MIX:-real}
FREQ=${FREQ:-4000}
case ${1:-} in
    -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
esac
N=${1:-1000000}
case $N in ''|*[!0-9]*) echo "time-profile.sh: not a message count: $N" >&2; exit 2 ;; esac
command -v perf >/dev/null 2>&1 || { echo "time-profile.sh: needs perf: sudo apt-get install -y linux-perf" >&2; exit 1; }

mkdir -p "$OUT"
swift build -c release --scratch-path "$SCRATCH" >&2
BIN=$(swift build -c release --scratch-path "$SCRATCH" --show-bin-path)/cellhost
file=$OUT/messages-$MIX-$N.jsonl
[ "$MIX" = ascii ] && file=$OUT/messages-$N.jsonl
if [ ! -s "$file" ]; then
    python3 Benchmarks/generate.py "$N" --mix "$MIX" >"$file.tmp" && mv "$file.tmp" "$file"
fi
data=$OUT/time-profile-$MIX-$N.data
perf record -q -e cpu-clock -F "$FREQ" -g -o "$data" \
    "$BIN" render --format plain --width 80 --me u-1 "$file" >/dev/null
perf script -i "$data" >"${data%.data}.txt" 2>/dev/null
echo "== $BIN render --format plain, $N messages ($MIX mix), $(date -u '+%Y-%m-%d %H:%M UTC')"
python3 Benchmarks/time-profile.py "${data%.data}.txt"

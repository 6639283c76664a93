#!/usr/bin/env bash
# Voice-note benchmark: cellhost render (plain, width 80) of N voice messages
# that name the demo voice notes (Examples/media/voice-note.ogg and
# voice-reply.ogg), which VoiceCell reads with libsndfile and caches per file
# (decoded once per run). Four inputs of N messages each:
#
#   fields    duration + waveform, no path: no file is touched (baseline)
#   both      path + duration + waveform: the file is read for its duration
#             (a stat per message; each file decoded once)
#   path      path only: duration and waveform from the file (a stat per
#             message; each file decoded once)
#   distinct  path only, every message its own copy of the note (up to
#             DISTINCT copies, then round robin): a decode per copy, the cost
#             of a cold cache (the cache keeps 256 files, LRU)
#
# Usage: Benchmarks/voice.sh [N ...]   (default N: 10000 100000)
#
# Environment:
#   SCRATCH   SwiftPM scratch (build) directory, default .build
#   RUNS      measurements per input and N, default 3 (the median is reported)
#   DISTINCT  copies for the `distinct` input, default 200
#   BIN       a cellhost binary to use instead of building a release one
#
# Needs: swift, python3, bash 5. Installs nothing.
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
OUT=$ROOT/Benchmarks/out/voice
SCRATCH=${SCRATCH:-.build}
RUNS=${RUNS:-3}
DISTINCT=${DISTINCT:-200}
SIZES=()
for arg in "$@"; do
    case $arg in
        -h|--help) sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        ''|*[!0-9]*) echo "voice.sh: not a message count: $arg" >&2; exit 2 ;;
        *) SIZES+=("$arg") ;;
    esac
done
[ ${#SIZES[@]} -gt 0 ] || SIZES=(10000 100000)

if [ -z "${BIN:-}" ]; then
    echo "== building (swift build -c release --scratch-path $SCRATCH)" >&2
    swift build -c release --scratch-path "$SCRATCH" >&2
    BIN=$(swift build -c release --scratch-path "$SCRATCH" --show-bin-path)/cellhost
fi
[ -x "$BIN" ] || { echo "voice.sh: no executable at $BIN" >&2; exit 1; }

mkdir -p "$OUT/media"
cp Examples/media/voice-note.ogg Examples/media/voice-reply.ogg "$OUT/media/"
for ((i = 0; i < DISTINCT; i++)); do
    [ -e "$OUT/media/copy-$i.ogg" ] || cp Examples/media/voice-note.ogg "$OUT/media/copy-$i.ogg"
done

# generate KIND N: N voice messages of the kind, as JSON Lines.
generate() {
    python3 - "$1" "$2" "$DISTINCT" <<'EOF'
import json, sys
kind, n, distinct = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
notes = [("media/voice-note.ogg", 2.514), ("media/voice-reply.ogg", 4.594)]
for i in range(n):
    path, seconds = notes[i % 2]
    voice = {}
    if kind in ("fields", "both"):
        voice["duration"] = seconds
        voice["waveform"] = [(i * 7 + k * 13) % 256 for k in range(32)]
    if kind in ("both", "path"):
        voice["path"] = path
    if kind == "distinct":
        voice["path"] = "media/copy-%d.ogg" % (i % distinct)
    print(json.dumps({"id": "v-%d" % i, "type": "voice", "sender": {"id": "u-%d" % (i % 3), "name": "User %d" % (i % 3)},
                      "time": "2026-11-28T10:%02d:00Z" % (i % 60), "voice": voice}))
EOF
}

# measure FILE: runs cellhost RUNS times; prints the median wall time (s).
measure() {
    local file=$1 i start end walls=()
    for ((i = 0; i < RUNS; i++)); do
        start=${EPOCHREALTIME/,/.}
        "$BIN" render --format plain --width 80 "$file" >/dev/null
        end=${EPOCHREALTIME/,/.}
        walls+=("$(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.6f", e - s }')")
        echo "   $(basename "$file") run $((i + 1)): ${walls[-1]} s" >&2
    done
    printf '%s\n' "${walls[@]}" | sort -g | awk '{ w[NR] = $1 } END { print (NR % 2) ? w[(NR + 1) / 2] : (w[NR / 2] + w[NR / 2 + 1]) / 2 }'
}

echo "== machine"
echo "date:     $(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo "nproc:    $(nproc)"
echo "cpu:      $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)"
echo "load:     $(cut -d' ' -f1-3 /proc/loadavg)"
echo "binary:   $BIN"

rows=()
for n in "${SIZES[@]}"; do
    for kind in fields both path distinct; do
        file=$OUT/$kind-$n.jsonl
        [ -s "$file" ] || generate "$kind" "$n" >"$file"
        wall=$(measure "$file")
        rows+=("$kind $n $wall")
    done
done

echo
echo "== results (median of $RUNS runs; µs/msg = median wall / N, start-up included)"
printf '%s\n' "${rows[@]}" | awk -v distinct="$DISTINCT" '
    BEGIN {
        printf "| %-8s | %8s | %9s | %10s | %7s |\n", "input", "N", "wall s", "msgs/s", "µs/msg"
        print "|----------|---------:|----------:|-----------:|--------:|"
    }
    { printf "| %-8s | %8d | %9.3f | %10.0f | %7.2f |\n", $1, $2, $3, ($3 > 0 ? $2 / $3 : 0), $3 * 1e6 / $2 }'

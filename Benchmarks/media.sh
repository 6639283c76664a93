#!/usr/bin/env bash
# Media benchmark: cellhost render of N image messages that show the demo
# pictures (Examples/media/cat.png and sunset.jpg, alternating), with
# previews (--images symbols, the default) and without (--images none), in
# plain and truecolor ANSI output. Each file is decoded once per run and
# preview style (the image cell's cache), so the cost per message is a stat,
# a cache look-up and the host's work on the preview rows.
#
# Usage: Benchmarks/media.sh [N ...]      (default N: 10000 100000)
#
# Environment:
#   SCRATCH  SwiftPM scratch (build) directory, default .build
#   CONFIG   build configuration, default release
#   RUNS     measurements per case, default 3 (the median is reported)
#   WIDTH    --width, default 80
#
# Needs: swift, python3, GNU time (/usr/bin/time). Installs nothing.
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
OUT=$ROOT/Benchmarks/out
SCRATCH=${SCRATCH:-.build}
CONFIG=${CONFIG:-release}
RUNS=${RUNS:-3}
WIDTH=${WIDTH:-80}
SIZES=()
for arg in "$@"; do
    case $arg in
        -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        ''|*[!0-9]*) echo "media.sh: not a message count: $arg" >&2; exit 2 ;;
        *) SIZES+=("$arg") ;;
    esac
done
[ ${#SIZES[@]} -gt 0 ] || SIZES=(10000 100000)
[ -x /usr/bin/time ] || { echo "media.sh: missing GNU time; sudo apt-get install -y time" >&2; exit 1; }
mkdir -p "$OUT"

echo "== building (swift build -c $CONFIG --scratch-path $SCRATCH)" >&2
swift build -c "$CONFIG" --scratch-path "$SCRATCH" >&2
BIN=$(swift build -c "$CONFIG" --scratch-path "$SCRATCH" --show-bin-path)/cellhost
[ -x "$BIN" ] || { echo "media.sh: no executable at $BIN" >&2; exit 1; }

# generate N: N image messages, two senders, one per minute.
generate() {
    python3 - "$1" <<'PY'
import json, sys
n = int(sys.argv[1])
files = [("cat.png", "our cat"), ("sunset.jpg", "Sunset from the lighthouse")]
for i in range(n):
    name, caption = files[i % 2]
    sender = ("u-alice", "Alice") if i % 3 else ("u-bob", "Bob")
    print(json.dumps({"id": f"m-{i}", "type": "image", "time": 1795000000 + 60 * i,
                      "sender": {"id": sender[0], "name": sender[1]}, "text": caption,
                      "image": {"path": name}}))
PY
}

# measure FILE ARGS…: prints "median_wall_s max_rss_kb" over RUNS runs.
measure() {
    local file=$1; shift
    local walls=() rss=0
    for _ in $(seq "$RUNS"); do
        local start=${EPOCHREALTIME/,/.}
        /usr/bin/time -f "%M" -o "$OUT/media-time.txt" \
            env COLORTERM=truecolor TERM=xterm-256color "$BIN" render "$file" --width "$WIDTH" \
            --media-dir "$ROOT/Examples/media" "$@" > "$OUT/media-out.txt" 2> "$OUT/media-err.txt" || {
            echo "media.sh: cellhost failed:" >&2; cat "$OUT/media-err.txt" >&2; exit 1; }
        local end=${EPOCHREALTIME/,/.}
        [ -s "$OUT/media-err.txt" ] && { echo "media.sh: stderr:" >&2; cat "$OUT/media-err.txt" >&2; }
        walls+=("$(python3 -c "print(f'{$end - $start:.3f}')")")
        local m; m=$(tail -n 1 "$OUT/media-time.txt")
        [ "$m" -gt "$rss" ] && rss=$m
    done
    local median; median=$(printf '%s\n' "${walls[@]}" | sort -n | sed -n "$(( (RUNS + 1) / 2 ))p")
    echo "$median $rss"
}

printf '%-9s %-8s %-8s %10s %12s %10s\n' N format images wall_s msgs_per_s max_rss_MB
for n in "${SIZES[@]}"; do
    input=$OUT/media-$n.jsonl
    [ -s "$input" ] || generate "$n" > "$input"
    for format in plain ansi; do
        for images in symbols none; do
            extra=(--format "$format" --images "$images")
            [ "$format" = ansi ] && extra+=(--color always)
            read -r wall rss < <(measure "$input" "${extra[@]}")
            rate=$(python3 -c "print(int($n / $wall) if $wall > 0 else 0)")
            printf '%-9s %-8s %-8s %10s %12s %10s\n' "$n" "$format" "$images" "$wall" "$rate" "$((rss / 1024))"
        done
    done
done

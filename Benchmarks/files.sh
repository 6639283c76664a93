#!/usr/bin/env bash
# FileCell benchmark: what looking at the files costs (stat, libmagic on a
# 64 KiB prefix, the per-identity cache), on N file messages.
#
# Usage: Benchmarks/files.sh [--instructions] [N]        (default N: 100000)
#
# Cases, each N messages of type "file" (plain output, width 80):
#   no-path    name, size and MIME only: no file is looked at (what every
#              message cost before FileCell read files; the baseline)
#   same-5     the same fields and a path, to the same 5 media files
#              (Examples/media) over and over: one libmagic run per file,
#              then a stat and a cache hit per message
#   same-5-bare  the same paths without name, size or MIME (these come from
#              the path and the file; includes deriving the name from the path)
#   missing    name, size, MIME and a path that does not exist (1000
#              different ones): a failed stat per message
#   distinct   D different files (D = min(N, 2000), each a fresh copy: a new
#              inode) named once each: libmagic on every one (compared with
#              no-path-d, D messages without a path)
# For same-5, same-5-bare and distinct, a --verbose run counts FileCell's
# "libmagic: PATH: TYPE" debug lines: how often libmagic really ran.
#
# Times on a shared machine move by several µs per message from run to run;
# --instructions also counts instructions (valgrind's callgrind, user space
# and libraries, not the kernel's side of stat) for no-path, same-5,
# same-5-bare and missing with min(N, 20000) messages: a number that does
# not move.
#
# Environment:
#   SCRATCH  SwiftPM scratch (build) directory, default .build
#   CONFIG   release (default) or debug
#   RUNS     measurements per case, default 3 (the median is reported)
#   NOBUILD  1: use the existing build as it is
#
# Needs: swift, python3, GNU time (/usr/bin/time); valgrind for
# --instructions. Installs nothing.
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
SCRATCH=${SCRATCH:-.build}
CONFIG=${CONFIG:-release}
RUNS=${RUNS:-3}
INSTRUCTIONS=0
if [ "${1:-}" = --instructions ]; then INSTRUCTIONS=1; shift; fi
N=${1:-100000}
case $N in ''|*[!0-9]*) echo "files.sh: not a message count: $N" >&2; exit 2 ;; esac
[ "$N" -ge 1 ] || { echo "files.sh: N must be at least 1" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "files.sh: needs GNU time: sudo apt-get install -y time" >&2; exit 1; }
if [ "$INSTRUCTIONS" = 1 ] && ! command -v valgrind >/dev/null 2>&1; then
    echo "files.sh: --instructions needs valgrind: sudo apt-get install -y valgrind" >&2; exit 1
fi

if [ "${NOBUILD:-0}" != 1 ]; then
    echo "== building (swift build -c $CONFIG --scratch-path $SCRATCH)" >&2
    swift build -c "$CONFIG" --scratch-path "$SCRATCH" >&2
fi
BIN=$(swift build -c "$CONFIG" --scratch-path "$SCRATCH" --show-bin-path)/cellhost
[ -x "$BIN" ] || { echo "files.sh: no executable at $BIN" >&2; exit 1; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/cellhost-files-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/media" "$WORK/distinct"
cp "$ROOT"/Examples/media/* "$WORK/media/"
D=$(( N < 2000 ? N : 2000 ))

echo "== generating inputs in $WORK (N=$N, D=$D)" >&2
python3 - "$WORK" "$N" "$D" <<'EOF'
import json, os, shutil, sys
work, n, d = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
media = sorted(os.listdir(os.path.join(work, "media")))[:5]
def write(name, messages):
    with open(os.path.join(work, name), "w") as out:
        for m in messages:
            out.write(json.dumps(m, separators=(",", ":")) + "\n")
def message(i, file):
    return {"type": "file", "id": "m-%d" % i, "sender": {"id": "u-1", "name": "Bob"},
            "time": 1795946520 + i, "file": file}
types = {"cat.png": "image/png", "expenses.csv": "text/csv", "itinerary.pdf": "application/pdf",
         "sunset.jpg": "image/jpeg", "voice-note.ogg": "audio/ogg"}
def fields(name):
    return {"name": name, "size": 1234, "mime": types.get(name, "application/octet-stream")}
write("no-path.jsonl", (message(i, fields(media[i % 5])) for i in range(n)))
write("no-path-d.jsonl", (message(i, fields(media[i % 5])) for i in range(d)))
write("same-5.jsonl", (message(i, dict(fields(media[i % 5]), path="media/" + media[i % 5])) for i in range(n)))
write("same-5-bare.jsonl", (message(i, {"path": "media/" + media[i % 5]}) for i in range(n)))
write("missing.jsonl", (message(i, {"name": "gone.zip", "size": 18874368, "mime": "application/zip",
                                    "path": "media/gone-%d.zip" % (i % 1000)}) for i in range(n)))
for i in range(d):
    shutil.copyfile(os.path.join(work, "media", media[i % 5]),
                    os.path.join(work, "distinct", "%d-%s" % (i, media[i % 5])))
write("distinct.jsonl", (message(i, {"path": "distinct/%d-%s" % (i, media[i % 5])}) for i in range(d)))
EOF

# measure FILE: "median_wall_s median_cpu_s" of RUNS runs: wall time from
# bash's EPOCHREALTIME, CPU time (user + system) from GNU time, which moves
# less when the machine is busy with something else. Any stderr output or a
# non-zero exit status is printed.
measure() {
    local file=$1 i start end rc ef tf walls=() cpus=()
    ef=$(mktemp) tf=$(mktemp)
    for ((i = 0; i < RUNS; i++)); do
        start=${EPOCHREALTIME/,/.}
        rc=0
        /usr/bin/time -f '%U %S' -o "$tf" "$BIN" render --format plain --width 80 --me u-0 "$file" >/dev/null 2>"$ef" || rc=$?
        end=${EPOCHREALTIME/,/.}
        if [ "$rc" != 0 ] || [ -s "$ef" ]; then
            echo "!! $(basename "$file") run $((i + 1)): exit status $rc; stderr:" >&2
            head -n 5 "$ef" | sed 's/^/!!   /' >&2
        fi
        walls+=("$(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.6f", e - s }')")
        cpus+=("$(awk 'END { printf "%.2f", $1 + $2 }' "$tf")")
    done
    rm -f "$ef" "$tf"
    local median='{ w[NR] = $1 } END { print (NR % 2) ? w[(NR + 1) / 2] : (w[NR / 2] + w[NR / 2 + 1]) / 2 }'
    echo "$(printf '%s\n' "${walls[@]}" | sort -g | awk "$median") $(printf '%s\n' "${cpus[@]}" | sort -g | awk "$median")"
}

# libmagic_runs FILE: the number of files FileCell classified (its debug lines).
libmagic_runs() {
    "$BIN" render --format plain --width 80 --me u-0 --verbose "$1" 2>&1 >/dev/null | grep -c 'libmagic: ' || true
}

echo "== machine"
echo "date:     $(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo "nproc:    $(nproc)"
echo "cpu:      $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)"
echo "libmagic: $(dpkg-query -W -f '${Version}' libmagic1 2>/dev/null || echo unknown)"
echo "binary:   $BIN ($CONFIG)"
echo
printf '%-12s %9s %9s %9s %10s %14s %14s %s\n' case messages "wall (s)" "CPU (s)" "msgs/s" "µs/msg extra" "CPU µs extra" "libmagic runs"
declare -A wall_of cpu_of
for case in no-path no-path-d same-5 same-5-bare missing distinct; do
    file=$WORK/$case.jsonl
    count=$(wc -l <"$file")
    read -r wall cpu < <(measure "$file")
    wall_of[$case]=$wall cpu_of[$case]=$cpu
    runs=-
    case $case in same-5*|distinct) runs=$(libmagic_runs "$file") ;; esac
    # The extra time per message over the no-path run with as many messages.
    basew=${wall_of[no-path]} basec=${cpu_of[no-path]}
    case $case in no-path-d|distinct) basew=${wall_of[no-path-d]} basec=${cpu_of[no-path-d]} ;; esac
    awk -v c="$case" -v n="$count" -v w="$wall" -v u="$cpu" -v bw="$basew" -v bc="$basec" -v r="$runs" 'BEGIN {
        printf "%-12s %9d %9.3f %9.2f %10.0f %+14.2f %+14.2f %s\n", c, n, w, u, n / w, (w - bw) / n * 1e6, (u - bc) / n * 1e6, r }'
done

[ "$INSTRUCTIONS" = 1 ] || exit 0
M=$(( N < 20000 ? N : 20000 ))
echo
echo "== instructions (callgrind, first $M messages of each case)"
printf '%-12s %9s %16s %14s\n' case messages instructions "per msg extra"
base=
for case in no-path same-5 same-5-bare missing; do
    head -n "$M" "$WORK/$case.jsonl" >"$WORK/$case-m.jsonl"
    valgrind --tool=callgrind --callgrind-out-file="$WORK/cg.out" \
        "$BIN" render --format plain --width 80 --me u-0 "$WORK/$case-m.jsonl" >/dev/null 2>"$WORK/vg.err"
    ir=$(awk '/^summary:/ { print $2 }' "$WORK/cg.out")
    [ -n "$base" ] || base=$ir
    awk -v c="$case" -v n="$M" -v ir="$ir" -v b="$base" 'BEGIN {
        printf "%-12s %9d %16d %+14.0f\n", c, n, ir, (ir - b) / n }'
done

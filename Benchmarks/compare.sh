#!/usr/bin/env bash
# Two cellhost builds side by side, with the jq one-liner, on one input:
# interleaved rounds (each round runs every command once), medians of wall
# and CPU time (user + sys). For a before/after figure on a machine whose
# speed differs from the one in docs/performance.md.
#
#   Benchmarks/compare.sh OLD_CELLHOST NEW_CELLHOST [FILE]
#   RUNS=5 FORMATS="plain json" Benchmarks/compare.sh …
#
# FILE defaults to Benchmarks/out/messages-real-1000000.jsonl (make it with
# `python3 Benchmarks/generate.py 1000000 --mix real`). Output goes to
# /dev/null; each run is printed on stderr, the table on stdout.
set -euo pipefail
if [ $# -lt 2 ]; then
    sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
fi
old=$1 new=$2
file=${3:-"$(dirname "$0")/out/messages-real-1000000.jsonl"}
runs=${RUNS:-5}
formats=${FORMATS:-"plain json"}
for tool in "$old" "$new" jq /usr/bin/time python3; do
    command -v "$tool" > /dev/null || { echo "compare.sh: $tool not found" >&2; exit 1; }
done
[ -r "$file" ] || { echo "compare.sh: $file: not readable" >&2; exit 1; }
results=$(mktemp)
trap 'rm -f "$results" "$results.time"' EXIT

# One run: NAME COMMAND…; appends "NAME wall cpu" to the results.
measure() {
    local name=$1; shift
    local start=$EPOCHREALTIME
    /usr/bin/time -o "$results.time" -f '%U %S' "$@" < /dev/null > /dev/null
    local end=$EPOCHREALTIME
    read -r user sys < "$results.time"
    local wall cpu
    wall=$(python3 -c "print(f'{$end - $start:.3f}')")
    cpu=$(python3 -c "print(f'{$user + $sys:.2f}')")
    echo "   $name: wall $wall s, cpu $cpu s" >&2
    echo "$name $wall $cpu" >> "$results"
}

for round in $(seq 1 "$runs"); do
    echo "  round $round of $runs" >&2
    for format in $formats; do
        measure "old-$format" "$old" render --format "$format" --width 80 --me u-1 "$file"
        measure "new-$format" "$new" render --format "$format" --width 80 --me u-1 "$file"
    done
    measure jq jq -r '"\(.sender.name // "") \(.time // "") \(.text // "")"' "$file"
done

python3 - "$results" "$formats" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    name, wall, cpu = line.split()
    rows.setdefault(name, []).append((float(wall), float(cpu)))
med = {name: (statistics.median(w for w, _ in v), statistics.median(c for _, c in v)) for name, v in rows.items()}
jq_wall, jq_cpu = med["jq"]
print("| build | format | wall (median) | CPU (median) | × jq wall | × jq CPU | speed-up, wall (old ÷ new) | speed-up, CPU (old ÷ new) |")
print("|:--|:--|--:|--:|--:|--:|--:|--:|")
for fmt in sys.argv[2].split():
    old, new = med[f"old-{fmt}"], med[f"new-{fmt}"]
    for label, (wall, cpu) in (("old", old), ("new", new)):
        ratio = f"{old[0] / new[0]:.2f}" if label == "new" else ""
        cpu_ratio = f"{old[1] / new[1]:.2f}" if label == "new" else ""
        print(f"| {label} | {fmt} | {wall:.2f} s | {cpu:.2f} s | {jq_wall / wall:.2f} | {jq_cpu / cpu:.2f} | {ratio} | {cpu_ratio} |")
print(f"| jq | — | {jq_wall:.2f} s | {jq_cpu:.2f} s | 1 | 1 | | |")
PY

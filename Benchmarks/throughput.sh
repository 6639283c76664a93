#!/usr/bin/env bash
# Throughput benchmark: cellhost render (plain text) versus the jq one-liner
# that prints the same fields, on generated chat logs of N messages, beside
# two bounds: a parse-only pass (Benchmarks/parse-only.cpp, simdjson
# On-Demand touching type, text, sender.name and time) and `cat > /dev/null`.
# Each N runs on two text mixes (Benchmarks/generate.py --mix): `ascii`, the
# historical input, and `real`, where most messages carry accented Latin,
# CJK, right-to-left text or emoji.
#
# Usage: Benchmarks/throughput.sh [--dispatch-share] [N ...]
#        (default N: 10000 1000000)
#
# Environment:
#   SCRATCH  SwiftPM scratch (build) directory, default .build
#   RUNS     rounds per N, default 5; each round runs every tool once (interleaved);
#            the median is reported
#   MIXES    text mixes to run, default "ascii real"
#
# Needs: swift, python3, jq, GNU time (/usr/bin/time), g++ and
# libsimdjson-dev (the parse-only bound); valgrind for --dispatch-share.
# Installs nothing. See docs/performance.md.
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
OUT=$ROOT/Benchmarks/out
SCRATCH=${SCRATCH:-.build}
RUNS=${RUNS:-5}
MIXES=${MIXES:-ascii real}
DISPATCH_SHARE=0
SIZES=()
for arg in "$@"; do
    case $arg in
        --dispatch-share) DISPATCH_SHARE=1 ;;
        -h|--help) sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        ''|*[!0-9]*) echo "throughput.sh: not a message count: $arg" >&2; exit 2 ;;
        *) SIZES+=("$arg") ;;
    esac
done
[ ${#SIZES[@]} -gt 0 ] || SIZES=(10000 1000000)

missing=()
command -v jq >/dev/null 2>&1 || missing+=(jq)
[ -x /usr/bin/time ] || missing+=(time)
command -v g++ >/dev/null 2>&1 || missing+=(g++)
echo '#include <simdjson.h>' | g++ -std=c++17 -E -x c++ - >/dev/null 2>&1 || missing+=(libsimdjson-dev)
if [ "$DISPATCH_SHARE" = 1 ] && ! command -v valgrind >/dev/null 2>&1; then missing+=(valgrind); fi
if [ ${#missing[@]} -gt 0 ]; then
    echo "throughput.sh: missing ${missing[*]}; install with:" >&2
    echo "  sudo apt-get install -y ${missing[*]}" >&2
    exit 1
fi

mkdir -p "$OUT"

echo "== building (swift build -c release --scratch-path $SCRATCH)"
swift build -c release --scratch-path "$SCRATCH" >&2
BIN=$(swift build -c release --scratch-path "$SCRATCH" --show-bin-path)/cellhost
[ -x "$BIN" ] || { echo "throughput.sh: no executable at $BIN" >&2; exit 1; }
PARSE_ONLY=$OUT/parse-only
if [ ! -x "$PARSE_ONLY" ] || [ Benchmarks/parse-only.cpp -nt "$PARSE_ONLY" ]; then
    g++ -O2 -std=c++17 Benchmarks/parse-only.cpp -lsimdjson -o "$PARSE_ONLY"
fi

JQ_FILTER='"\(.sender.name // "") \(.time // "") \(.text // "")"'

# run_once TOOL FILE: runs the tool once with stdout to /dev/null; prints
# "wall_s rss_kb cpu_s". Wall time is taken with bash 5's EPOCHREALTIME
# (microseconds; "," -> "." for locales with a decimal comma) around
# /usr/bin/time, because %e has only 10 ms resolution, too coarse for
# N=10000; peak RSS is /usr/bin/time's %M, CPU its user + system seconds
# (%U %S), which move less than wall time when the machine is busy.
# A non-zero exit status or any stderr output of the tool is printed.
run_once() {
    local tool=$1 file=$2 start end rc=0 tf ef
    tf=$(mktemp) ef=$(mktemp)
    start=${EPOCHREALTIME/,/.}
    case $tool in
        cellhost) /usr/bin/time -f '%e %M %U %S' -o "$tf" "$BIN" render --format plain --width 80 --me u-1 "$file" >/dev/null 2>"$ef" || rc=$? ;;
        cellhost-json) /usr/bin/time -f '%e %M %U %S' -o "$tf" "$BIN" render --format json --width 80 --me u-1 "$file" >/dev/null 2>"$ef" || rc=$? ;;
        jq) /usr/bin/time -f '%e %M %U %S' -o "$tf" jq -r "$JQ_FILTER" "$file" >/dev/null 2>"$ef" || rc=$? ;;
        parse-only) /usr/bin/time -f '%e %M %U %S' -o "$tf" "$PARSE_ONLY" "$file" >/dev/null 2>"$ef" || rc=$? ;;
        cat) /usr/bin/time -f '%e %M %U %S' -o "$tf" cat "$file" >/dev/null 2>"$ef" || rc=$? ;;
    esac
    end=${EPOCHREALTIME/,/.}
    if [ "$rc" != 0 ] || [ -s "$ef" ]; then
        echo "!! $tool on $(basename "$file"): exit status $rc; stderr:" >&2
        head -n 20 "$ef" | sed 's/^/!!   /' >&2
    fi
    awk -v s="$start" -v e="$end" 'END { m = ($2 ~ /^[0-9]+$/) ? $2 : 0; printf "%.6f %d %.2f\n", e - s, m, $3 + $4 }' "$tf"
    echo "   $tool: wall $(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.3f", e - s }') s; /usr/bin/time: $(awk 'END { printf "%s s, %s KB, user %s s, sys %s s", $1, $2, $3, $4 }' "$tf")" >&2
    rm -f "$tf" "$ef"
}

# median: the median of the numbers on stdin.
median() {
    sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# measure FILE TOOL...: RUNS rounds, each running every tool once in turn
# (interleaved, so a slow minute of the machine costs every tool alike);
# prints one line per tool: "tool median_wall_s max_rss_kb median_cpu_s".
measure() {
    local file=$1 tool i; shift
    local -A walls cpus rss
    for ((i = 0; i < RUNS; i++)); do
        echo "  round $((i + 1)) of $RUNS" >&2
        for tool in "$@"; do
            read -r w m c < <(run_once "$tool" "$file")
            walls[$tool]+="$w "
            cpus[$tool]+="$c "
            [ "$m" -gt "${rss[$tool]:-0}" ] && rss[$tool]=$m
        done
    done
    for tool in "$@"; do
        echo "$tool $(tr ' ' '\n' <<<"${walls[$tool]}" | grep . | median) ${rss[$tool]:-0} $(tr ' ' '\n' <<<"${cpus[$tool]}" | grep . | median)"
    done
}

echo "== machine"
echo "date:     $(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo "nproc:    $(nproc)"
echo "cpu:      $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)"
echo "memory:   $(awk '/^MemTotal/ { printf "%.1f GB", $2 / 1048576 }' /proc/meminfo)"
echo "kernel:   $(uname -sr)"
echo "jq:       $(jq --version)"
echo "swift:    $(swift --version 2>&1 | head -n 1)"
echo "binary:   $BIN"
# Identifies the source state that was built (content hash, no VCS needed).
echo "sources:  $(find Package.swift Sources Plugins -type f -print0 | sort -z | xargs -0 sha256sum | sha256sum | cut -c1-12) (sha256 of Package.swift, Sources/, Plugins/)"

rows=()
for mix in $MIXES; do
for n in "${SIZES[@]}"; do
    # The ascii mix keeps its historical file name.
    file=$OUT/messages-$n.jsonl
    [ "$mix" = ascii ] || file=$OUT/messages-$mix-$n.jsonl
    if [ ! -s "$file" ]; then
        echo "== generating $file" >&2
        python3 Benchmarks/generate.py "$n" --mix "$mix" >"$file.tmp"
        mv "$file.tmp" "$file"
    fi
    size=$(stat -c %s "$file")
    echo "== N=$n, mix $mix ($(awk -v s="$size" 'BEGIN { printf "%.1f MB", s / 1e6 }'), $RUNS runs each)" >&2
    # The tools interleaved, round by round; the medians are compared.
    results=$(measure "$file" cellhost jq parse-only cat cellhost-json)
    read -r _ cw cr cc < <(grep '^cellhost ' <<<"$results")
    read -r _ jw jr jc < <(grep '^jq ' <<<"$results")
    read -r _ pw pr pc < <(grep '^parse-only ' <<<"$results")
    read -r _ kw kr kc < <(grep '^cat ' <<<"$results")
    read -r _ sw sr sc < <(grep '^cellhost-json ' <<<"$results")
    rows+=("$mix $n $size $cw $cr $cc $jw $jr $jc $pw $pc $kw $sw $sc $sr")
done
done

echo
echo "== results (median of $RUNS runs; msgs/s = N / median wall time; CPU = user + sys; peak RSS = max of runs)"
printf '%s\n' "${rows[@]}" | awk '
    function rate(n, w) { return w > 0 ? n / w : 0 }
    function ratio(a, b) { return b > 0 ? a / b : 0 }
    BEGIN {
        printf "| %5s | %8s | %8s | %15s | %12s | %10s | %9s | %13s | %10s | %12s | %12s | %16s | %9s | %14s | %14s | %12s |\n",
            "mix", "N", "input MB", "cellhost msgs/s", "jq msgs/s", "× jq wall", "× jq CPU",
            "cellhost RSS", "cellhost CPU", "jq CPU", "parse-only CPU", "render ÷ parse CPU", "cat wall",
            "json × jq wall", "json × jq CPU", "json RSS"
        print "|:------|---------:|---------:|----------------:|-------------:|-----------:|----------:|--------------:|-----------:|-------------:|-------------:|-----------------:|----------:|---------------:|---------------:|-------------:|"
    }
    {
        printf "| %5s | %8d | %8.1f | %15.0f | %12.0f | %10.2f | %9.2f | %10.1f MB | %8.2f s | %10.2f s | %10.2f s | %16.1f | %7.3f s | %14.2f | %14.2f | %9.1f MB |\n",
            $1, $2, $3 / 1e6, rate($2, $4), rate($2, $7), ratio($7, $4), ratio($9, $6), $5 / 1024, $6, $9, $11,
            ratio($6, $11), $12, ratio($7, $13), ratio($9, $14), $15 / 1024
    }'

if [ "$DISPATCH_SHARE" = 1 ]; then
    n=10000
    file=$OUT/messages-$n.jsonl
    if [ ! -s "$file" ]; then
        python3 Benchmarks/generate.py "$n" >"$file.tmp" && mv "$file.tmp" "$file"
    fi
    echo
    echo "== dispatch share (valgrind --tool=callgrind, N=$n, instructions executed)"
    # In CELLHOST_DISPATCH=ffi mode every plugin method goes through
    # ffi_call, so the libffi functions' own instructions are the cost of
    # dynamic dispatch itself, and ffi_call's inclusive cost is everything
    # reached through a plugin IMP (the plugins' rendering work included).
    # The default (direct) mode is profiled too, for its total.
    # Fixed hash seeds and one render thread: the same build counts the
    # same instructions run after run (with random seeds and the wrapping
    # split between two threads by timing, counts vary by about 0.3 %).
    for mode in ffi direct; do
        cg=$OUT/callgrind-$mode-$n.out
        SWIFT_DETERMINISTIC_HASHING=1 CELLHOST_THREADS=1 CELLHOST_DISPATCH=$mode valgrind --tool=callgrind --callgrind-out-file="$cg" \
            "$BIN" render --format plain --width 80 --me u-1 "$file" >/dev/null 2>"$cg.log" || {
            echo "!! valgrind ($mode) failed; see $cg.log" >&2; tail -n 5 "$cg.log" >&2; continue; }
        callgrind_annotate --auto=no --inclusive=yes --threshold=100 "$cg" >"$cg.incl.txt" 2>/dev/null || true
        callgrind_annotate --auto=no --inclusive=no --threshold=100 "$cg" >"$cg.self.txt" 2>/dev/null || true
    done
    awk '
        function num(s) { gsub(/,/, "", s); return s + 0 }
        # "PROGRAM TOTALS" line: first field is Ir.
        /PROGRAM TOTALS/ { total[FILENAME] = num($1); next }
        # Function lines: "<Ir> (<pct>) <file>:<function> [<object>]" in newer
        # callgrind_annotate, "<Ir>  <file>:<function> [<object>]" in older.
        $1 ~ /^[0-9,]+$/ {
            line = $0; ir = num($1)
            if (FILENAME ~ /ffi.*\.self\.txt$/ && line ~ /libffi/) ffiself += ir
            if (FILENAME ~ /ffi.*\.incl\.txt$/ && line ~ /[: ]ffi_call[ \[]/ && ir > ffiincl) ffiincl = ir
            # Plugin code: the plugin objects, and CellKit / plugin functions
            # (by source path or Swift module prefix) where callgrind_annotate
            # prints no object. Approximate: runtime and stdlib work a plugin
            # causes is counted under libswiftCore, not here.
            if (FILENAME ~ /ffi.*\.self\.txt$/ &&
                (line ~ /Cell\.so\]/ || line ~ /(Sources\/CellKit\/|Plugins\/)/ ||
                 line ~ /\$s[0-9]+(CellKit|[A-Z][a-z]+Cell)[0-9]/)) plugself += ir
        }
        END {
            for (f in total) {
                if (f ~ /callgrind-ffi-.*\.self\.txt$/) tffi = total[f]
                if (f ~ /callgrind-direct-.*\.self\.txt$/) tdirect = total[f]
            }
            if (tffi == 0) { print "callgrind output not available"; exit }
            printf "total instructions, CELLHOST_DISPATCH=ffi:    %.0f\n", tffi
            if (tdirect > 0) printf "total instructions, CELLHOST_DISPATCH=direct: %.0f (ffi mode costs %+.2f%%)\n", tdirect, 100 * (tffi - tdirect) / tdirect
            printf "libffi own instructions (dispatch machinery): %.0f = %.2f%% of total\n", ffiself, 100 * ffiself / tffi
            printf "plugin code own instructions (approx.):        %.0f = %.2f%% of total\n", plugself, 100 * plugself / tffi
            if (ffiincl > 0) printf "inclusive under ffi_call (IMPs + what they call): %.0f = %.2f%% of total\n", ffiincl, 100 * ffiincl / tffi
        }' "$OUT"/callgrind-ffi-$n.out.self.txt "$OUT"/callgrind-ffi-$n.out.incl.txt \
           "$OUT"/callgrind-direct-$n.out.self.txt 2>/dev/null
    echo
    echo "== dispatch share of the default (direct) run: Benchmarks/dispatch-share.py"
    python3 Benchmarks/dispatch-share.py "$OUT/callgrind-direct-$n.out.incl.txt"
fi

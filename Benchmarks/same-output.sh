#!/usr/bin/env bash
# Speed work must not change a byte of output: renders each FILE with two
# cellhost builds, in every format (plain, ansi, json at widths 80, 33 and
# 200; html at 80) and both width modes, with stdout and stderr together, and
# names every combination whose output differs.
#
#   Benchmarks/same-output.sh OLD_CELLHOST NEW_CELLHOST FILE...
#
# Each build loads the plugin .so files beside it, so copy a whole build
# directory (the executable and its .so files) to keep an old build. Files
# are rendered from their own directory (media paths resolve as for a user),
# with TZ=UTC and --me u-1. Exit status 0 when every output is the same, 1
# when any differs, 2 on a usage error. Needs only bash and sha1sum.
set -uo pipefail
if [ $# -lt 3 ]; then
    sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
fi
old=$1 new=$2
shift 2
for tool in "$old" "$new"; do
    [ -x "$tool" ] && [ -f "$tool" ] || { echo "same-output.sh: $tool: not an executable" >&2; exit 2; }
done
# Absolute: each render runs in its file's directory.
old=$(cd "$(dirname "$old")" && pwd)/$(basename "$old")
new=$(cd "$(dirname "$new")" && pwd)/$(basename "$new")

# digest BUILD FILE ARGS...: the sha1 of BUILD's stdout and stderr for FILE.
digest() {
    local build=$1 file=$2
    shift 2
    (cd "$(dirname "$file")" && TZ=UTC "$build" render --me u-1 "$@" "$(basename "$file")" 2>&1) | sha1sum
}

status=0
compared=0
for file in "$@"; do
    [ -r "$file" ] || { echo "same-output.sh: $file: not readable" >&2; exit 2; }
    file=$(cd "$(dirname "$file")" && pwd)/$(basename "$file")
    runs=()
    for format in plain ansi json; do
        for width in 80 33 200; do runs+=("--format $format --width $width"); done
    done
    runs+=("--format html --width 80" "--width-mode wcwidth --width 50" "--width-mode grapheme --width 50")
    for run in "${runs[@]}"; do
        # shellcheck disable=SC2086 # the run's words are separate arguments
        if [ "$(digest "$old" "$file" $run)" != "$(digest "$new" "$file" $run)" ]; then
            echo "differs: $file $run"
            status=1
        fi
        compared=$((compared + 1))
    done
done
echo "same-output.sh: $compared renders compared, $([ $status = 0 ] && echo "all the same" || echo "some differ")" >&2
exit $status

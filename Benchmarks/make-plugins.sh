#!/usr/bin/env bash
# Builds N benchmark plugins into DIR from Benchmarks/plugins/bench-plugin.c
# (plugin "bench.pI", message class "benchI", classes BenchICell and
# BenchIPlainCell, for I in 0..N-1), with `cc -shared` against the public
# header only. Files already there and newer than the source are kept, so a
# second run costs nothing. Used by startup.sh and plugin-scan.sh.
#
# Usage: Benchmarks/make-plugins.sh N DIR
set -euo pipefail

cd "$(dirname "$0")/.."
N=${1:?usage: make-plugins.sh N DIR}
DIR=${2:?usage: make-plugins.sh N DIR}
case $N in ''|*[!0-9]*) echo "make-plugins.sh: not a plugin count: $N" >&2; exit 2 ;; esac
SOURCE=$PWD/Benchmarks/plugins/bench-plugin.c
INCLUDE=$PWD/Sources/CellHostABI/include
mkdir -p "$DIR"
# Exactly N plugins: drop any left from a larger N.
find "$DIR" -maxdepth 1 -name 'bench-*.so' | while read -r file; do
    number=${file##*/bench-}; number=$((10#${number%.so}))
    [ "$number" -lt "$N" ] || rm -f "$file"
done
for ((i = 0; i < N; i++)); do
    out=$DIR/bench-$(printf %04d "$i").so
    [ "$out" -nt "$SOURCE" ] || printf '%s\n' "$i"
done | xargs -r -P "$(nproc)" -I{} sh -c \
    'cc -std=c99 -O1 -shared -fPIC -I "$1" -DPLUGIN_NUMBER="$2" "$3" -o "$4/bench-$(printf %04d "$2").so"' \
    _ "$INCLUDE" {} "$SOURCE" "$DIR"

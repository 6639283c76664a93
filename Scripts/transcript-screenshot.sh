#!/usr/bin/env bash
# Takes docs/transcript.png: the demo conversation as `--format html` shows it
# in a browser — headless Chromium, light colour scheme (`--dark` for the dark
# one, written to docs/transcript-dark.png), the first 1600 pixels of a window
# 900 pixels wide. The page is opened from a file; nothing is fetched.
#
# Needs: apt-get install -y chromium; a built cellhost (swift build). Not part
# of the tests (HTMLTranscriptTests takes its own screenshots and checks them).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
out=docs/transcript.png
scheme=()
if [ "${1:-}" = "--dark" ]; then out=docs/transcript-dark.png; scheme=(--force-dark-mode); fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd Examples && TZ=UTC "$root/.build/debug/cellhost" render conversation.jsonl --me u-alice --format html) \
    > "$work/transcript.html"
chromium --headless --no-sandbox --disable-gpu --no-first-run --hide-scrollbars --mute-audio \
    --user-data-dir="$work/profile" --host-resolver-rules='MAP * ~NOTFOUND' "${scheme[@]}" \
    --window-size=900,1600 --screenshot="$root/$out" "file://$work/transcript.html" 2>/dev/null
echo "wrote $out ($(wc -c < "$work/transcript.html") bytes of HTML)"

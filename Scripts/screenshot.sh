#!/usr/bin/env bash
# Takes docs/screenshot.png: demo messages with media (a PDF typed from its
# content, the cat preview, a voice note read from its file, the sunset
# preview, a missing attachment) rendered in a real terminal emulator (xterm,
# 256 colours) on a virtual X display.
#
# Needs: apt-get install -y xvfb xterm imagemagick fonts-dejavu-core; a built
# cellhost (swift build). Not part of the tests.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
display=:97
Xvfb "$display" -screen 0 820x1000x24 >/dev/null 2>&1 &
xvfb=$!
trap 'kill $xvfb 2>/dev/null || true' EXIT
sleep 1
ids='"id":"m-(8|11|19|23|26)"'
xterm -display "$display" -geometry 82x62+0+0 -fa "DejaVu Sans Mono" -fs 10 -bg black -fg '#d0d0d0' \
      -xrm 'XTerm*allowColorOps: true' -e env TERM=xterm-256color COLORTERM= sh -c \
      "grep -E '$ids' '$root/Examples/conversation.jsonl' | '$root/.build/debug/cellhost' render --me u-alice --width 80 --image-rows 10 --media-dir '$root/Examples' --format ansi --color always; sleep 30" &
term=$!
sleep 6
import -display "$display" -window root -crop 660x790+0+0 +repage "$root/docs/screenshot.png"
kill $term 2>/dev/null || true
echo "wrote docs/screenshot.png"

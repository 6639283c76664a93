#!/usr/bin/env bash
# Telegram import benchmark: wall time and peak memory of
# `cellhost render --format plain` on generated Telegram Desktop exports
# (result.json) of N messages.
#
# Usage: Benchmarks/telegram-import.sh [N ...]
#        (default N: 10000 100000 1000000)
#
# Environment:
#   SCRATCH  SwiftPM scratch (build) directory, default .build-release
#
# The exports are written to Benchmarks/out/telegram-N/result.json by a
# small generator below (python3, a fixed seed, so every run reads the same
# bytes): a private supergroup whose messages mix plain text, entity arrays
# (text + text_entities), replies, edits, reactions, forwards, photos,
# voice notes and files (as "not included in the export" placeholders, so
# the run measures importing and rendering, not image decoding), polls,
# service messages, and non-ASCII text (accents, Cyrillic, CJK, emoji).
# Peak memory must not grow with N: the importer holds one message.
#
# Needs: swift, python3, GNU time (/usr/bin/time). Installs nothing.
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
OUT=$ROOT/Benchmarks/out
SCRATCH=${SCRATCH:-.build-release}
SIZES=()
for arg in "$@"; do
    case $arg in
        -h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        ''|*[!0-9]*) echo "telegram-import.sh: not a message count: $arg" >&2; exit 2 ;;
        *) SIZES+=("$arg") ;;
    esac
done
[ ${#SIZES[@]} -gt 0 ] || SIZES=(10000 100000 1000000)

missing=()
command -v python3 >/dev/null 2>&1 || missing+=(python3)
[ -x /usr/bin/time ] || missing+=(time)
if [ ${#missing[@]} -gt 0 ]; then
    echo "telegram-import.sh: missing ${missing[*]}; install with:" >&2
    echo "  sudo apt-get install -y ${missing[*]}" >&2
    exit 1
fi

mkdir -p "$OUT"

echo "== building (swift build -c release --scratch-path $SCRATCH)"
swift build -c release --scratch-path "$SCRATCH" >&2
BIN=$(swift build -c release --scratch-path "$SCRATCH" --show-bin-path)/cellhost
[ -x "$BIN" ] || { echo "telegram-import.sh: no executable at $BIN" >&2; exit 1; }

# generate N FILE: writes a Telegram export of N messages to FILE, streaming.
generate() {
    python3 - "$1" "$2" <<'PYEOF'
import json, random, sys, datetime
n, path = int(sys.argv[1]), sys.argv[2]
rng = random.Random(9)
people = [("Alice Kim", "user1001"), ("Bob Stone", "user1002"), ("Chloé Martin", "user1003"),
          ("Дмитрий Орлов", "user1004"), ("佐藤 花子", "user1005"), ("Ola Nordmann", "user1006")]
words = ("the trail was muddy but the view from the ridge was worth it we should leave at seven "
         "bring water snacks and a rain jacket café über naïve привет как дела 今日は いい天気 ですね "
         "🏔 🥾 ☕ 👍 https://maps.example.org/ridge_loop").split()
not_included = "(File not included. Change data exporting settings to download.)"
base = 1704067200  # 2024-01-01T00:00:00Z

def sentence(lo, hi):
    return " ".join(rng.choice(words) for _ in range(rng.randint(lo, hi)))

def stamp(seconds):
    return {"date": datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S"),
            "date_unixtime": str(seconds)}

with open(path, "w", encoding="utf-8") as out:
    out.write('{\n "name": "Hiking Club 🏔",\n "type": "private_supergroup",\n "id": 1500000001,\n "messages": [')
    for i in range(1, n + 1):
        seconds = base + i * 37
        name, uid = rng.choice(people)
        roll = rng.random()
        m = {"id": i, "type": "message"}
        m.update(stamp(seconds))
        if roll < 0.03:
            m["type"] = "service"
            m["actor"], m["actor_id"] = name, uid
            action = rng.choice(["invite_members", "pin_message", "phone_call", "edit_group_title"])
            m["action"] = action
            if action == "invite_members": m["members"] = [rng.choice(people)[0]]
            elif action == "pin_message": m["message_id"] = max(1, i - rng.randint(1, 50))
            elif action == "phone_call": m["duration_seconds"] = rng.randint(5, 3600)
            else: m["title"] = "Hiking Club " + rng.choice(["2024", "🏔", "Alps"])
            m["text"], m["text_entities"] = "", []
            out.write((",\n  " if i > 1 else "\n  ") + json.dumps(m, ensure_ascii=False))
            continue
        m["from"], m["from_id"] = name, uid
        if i > 1 and rng.random() < 0.12:
            m["reply_to_message_id"] = max(1, i - rng.randint(1, 30))
        if rng.random() < 0.05:
            m["edited"] = stamp(seconds + 60)["date"]
            m["edited_unixtime"] = str(seconds + 60)
        if rng.random() < 0.03:
            m["forwarded_from"] = rng.choice(["Alps Weather", "Trail News", None])
        text = sentence(3, 25)
        if roll < 0.18:
            parts = [{"type": "plain", "text": sentence(2, 8) + " "},
                     {"type": rng.choice(["bold", "italic", "code", "underline"]), "text": sentence(1, 3)},
                     {"type": "plain", "text": " " + sentence(1, 6) + " "},
                     {"type": "text_link", "text": "map", "href": "https://maps.example.org/?q=" + str(i)}]
            m["text"] = [p["text"] if p["type"] == "plain" else p for p in parts]
            m["text_entities"] = parts
        elif roll < 0.24:
            m["photo"], m["width"], m["height"] = not_included, 1280, 960
            m["text"] = sentence(0, 6)
            m["text_entities"] = [{"type": "plain", "text": m["text"]}] if m["text"] else []
        elif roll < 0.26:
            m["file"], m["media_type"], m["mime_type"] = not_included, "voice_message", "audio/ogg"
            m["duration_seconds"] = rng.randint(1, 120)
            m["text"], m["text_entities"] = "", []
        elif roll < 0.28:
            m["file"], m["file_name"], m["mime_type"] = not_included, "notes-%d.pdf" % i, "application/pdf"
            m["file_size"] = rng.randint(1000, 5_000_000)
            m["text"] = sentence(0, 4)
            m["text_entities"] = [{"type": "plain", "text": m["text"]}] if m["text"] else []
        elif roll < 0.29:
            m["poll"] = {"question": sentence(3, 8) + "?", "closed": False, "total_voters": 6,
                         "answers": [{"text": sentence(1, 3), "voters": v, "chosen": v == 3} for v in (1, 3, 2)]}
            m["text"], m["text_entities"] = "", []
        else:
            m["text"] = text
            m["text_entities"] = [{"type": "plain", "text": text}]
        if rng.random() < 0.08:
            m["reactions"] = [{"type": "emoji", "count": rng.randint(1, 5), "emoji": rng.choice(["👍", "❤", "😂", "🔥"])}]
            if rng.random() < 0.2:
                m["reactions"].append({"type": "custom_emoji", "count": 1, "document_id": "5368324170671202286"})
        out.write((",\n  " if i > 1 else "\n  ") + json.dumps(m, ensure_ascii=False))
    out.write("\n ]\n}\n")
PYEOF
}

printf '\n%-10s %10s %10s %14s %12s\n' "messages" "file MiB" "wall s" "peak RSS MiB" "msg/s"
for n in "${SIZES[@]}"; do
    dir=$OUT/telegram-$n
    file=$dir/result.json
    mkdir -p "$dir"
    if [ ! -s "$file" ]; then generate "$n" "$file"; fi
    log=$dir/time.log
    set +e
    TZ=UTC /usr/bin/time -v "$BIN" render "$file" --format plain --width 80 >/dev/null 2>"$log"
    status=$?
    set -e
    if [ "$status" -ne 0 ] || grep -q '^cellhost:' "$log"; then
        echo "telegram-import.sh: cellhost exited $status on $file:" >&2
        grep '^cellhost:' "$log" | head -5 >&2
    fi
    wall=$(sed -n 's/^[[:space:]]*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$log" |
           awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s }')
    rss=$(sed -n 's/^[[:space:]]*Maximum resident set size (kbytes): //p' "$log")
    size=$(stat -c %s "$file")
    awk -v n="$n" -v size="$size" -v wall="$wall" -v rss="$rss" 'BEGIN {
        printf "%-10d %10.1f %10.2f %14.1f %12.0f\n", n, size / 1048576, wall, rss / 1024, (wall > 0 ? n / wall : 0) }'
done

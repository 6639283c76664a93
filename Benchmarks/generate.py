#!/usr/bin/env python3
"""Deterministic chat-message generator for the CellHost throughput benchmark.

Usage: python3 Benchmarks/generate.py N [--mix ascii|real] > messages.jsonl

Writes N messages as JSON Lines in the schema of DESIGN.md section 5. The
output depends only on N (fixed seed, Python 3 stdlib only), so every run and
every machine benchmarks the same bytes; the first K lines of a run with
N >= K are identical to a run with N = K.

Mix (approximate): text 70 %, file 10 %, image 8 %, voice 7 %, location 3 %
(a type no shipped renderer handles: exercises the fallback to
UnknownMessageCell), poll 2 %.

Text mix: `ascii` (the default, the historical benchmark input: most bodies
are ASCII) or `real`, where about two thirds of the text bodies also carry
what real chats carry: accented Latin, CJK, Arabic or Hebrew (right to left)
words, and emoji (ZWJ sequences, flags, skin tones, VS16). The `real` mix
draws extra random numbers only in its own branch, so `ascii` output is
byte for byte what it always was.
"""

import json
import random
import sys
import time

SEED = 20261129
START = 1795946520  # 2026-11-29T10:02:00Z

WORDS = (
    "the a we you it is are was on in at to for of and but so if then when "
    "train station coast trip tomorrow tonight lunch dinner coffee tea beach "
    "harbour lighthouse tide walk ticket seat coach booked plan draft idea "
    "deploy build release review merge branch test failing green flaky server "
    "meeting standup notes call later soon maybe definitely probably sure "
    "thanks sorry great nice cool okay weekend monday friday morning evening "
    "weather sunny rain cloudy wind cold warm snacks bread cheese photos "
    "upload link folder budget receipt split pay owe back forward window table"
).split()
ACCENTED = ["déjà", "über", "naïve", "café", "señor", "Zürich", "São Paulo", "façade",
            "crème brûlée", "Ærø", "Łódź", "Þórður", "Ğüzel", "smörgåsbord"]
RTL = ["مرحبا بالجميع", "شكرا جزيلا", "שלום לכולם", "תודה רבה", "نراكم غدا"]
RICH_EMOJI = ["👩‍💻", "👨‍👩‍👧‍👦", "🏳️‍🌈", "👍🏽", "🇯🇵", "🇧🇷", "❤️", "☀️", "🧑🏿‍🚀", "😂"]
CJK = ["明日は晴れるでしょう。", "天气很好，我们去海边吧！", "좋은 아침이에요",
       "ありがとう", "没问题", "Xin chào", "Hà Nội", "Café"]
EMOJI = ["👍", "😂", "🌊", "🍙", "☕", "🚆", "🎫", "❤️", "🙏", "🥹", "👩‍💻",
         "🇻🇳", "🌅", "📅", "😾", "🎉"]
REACTIONS = ["👍", "❤️", "😂", "😮", "🎉", "🙏"]
STATUSES = ["sending", "sent", "delivered", "read", "read", "read", "failed"]
NAMES = ["Alice", "Bob", "Carol Nguyễn", "Dmitri", "Eun-ji 김", "Farah"]
FILES = [("itinerary.pdf", "application/pdf"), ("expenses.csv", "text/csv"),
         ("trip-photos.zip", "application/zip"), ("notes.txt", "text/plain"),
         ("report.docx",
          "application/vnd.openxmlformats-officedocument.wordprocessingml.document"),
         ("build.log", "text/plain"), ("slides.key", "application/octet-stream")]
PLACES = ["Café Lumière", "The Fish Shack", "Gare Maritime", "Lighthouse Point",
          "Rue des Mouettes 12", "北京站"]
POLLQ = ["Where should we have lunch?", "Which train?", "Release on Friday?",
         "Pizza or sushi?", "Who brings the speaker?"]


MIX = "ascii"


def real_words(rng, words):
    """The `real` mix: about two thirds of bodies get non-ASCII words."""
    r = rng.random()
    if r < 0.25:
        words.insert(rng.randrange(len(words) + 1), rng.choice(ACCENTED))
    elif r < 0.40:
        words.insert(rng.randrange(len(words) + 1), rng.choice(CJK))
    elif r < 0.52:
        words.insert(rng.randrange(len(words) + 1), rng.choice(RTL))
    elif r < 0.66:
        words.append(rng.choice(RICH_EMOJI))


def text_body(rng):
    n = rng.randint(5, 40)
    words = [rng.choice(WORDS) for _ in range(n)]
    r = rng.random()
    if r < 0.10:
        i = rng.randrange(n)
        words[i] = "*" + words[i] + "*"
    elif r < 0.18:
        i = rng.randrange(n)
        words[i] = "_" + words[i] + "_"
    elif r < 0.24:
        i = rng.randrange(n)
        words[i] = "`" + words[i].upper() + "-" + str(rng.randint(100, 999)) + "`"
    elif r < 0.30:
        words.insert(rng.randrange(n + 1),
                     "https://example.org/%s/%d?ref=chat" % (rng.choice(WORDS), rng.randint(1, 99999)))
    r = rng.random()
    if r < 0.06:
        words.insert(rng.randrange(len(words) + 1), rng.choice(CJK))
    if rng.random() < 0.12:
        words.append(rng.choice(EMOJI))
    if MIX == "real":
        real_words(rng, words)
    s = " ".join(words)
    return s[0].upper() + s[1:]


def main():
    global MIX
    args = sys.argv[1:]
    if len(args) == 3 and args[1] == "--mix" and args[2] in ("ascii", "real"):
        MIX = args[2]
        args = args[:1]
    if len(args) != 1 or not args[0].isdigit():
        sys.stderr.write("usage: generate.py N [--mix ascii|real] > messages.jsonl\n")
        return 2
    count = int(args[0])
    rng = random.Random(SEED)
    nsenders = rng.randint(3, 6)
    senders = [{"id": "u-%d" % (i + 1), "name": NAMES[i]} for i in range(nsenders)]
    t = START
    out = sys.stdout
    dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
    sender = senders[0]
    buf = []
    for n in range(1, count + 1):
        # Runs of messages from the same sender, like a real chat (grouping).
        if n == 1 or rng.random() < 0.45:
            sender = rng.choice(senders)
        if n > 1:
            t += rng.randint(5, 400)
        m = {"id": "m-%d" % n, "type": "text", "sender": sender,
             "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))}
        if sender["id"] == "u-1" and rng.random() < 0.8:
            m["status"] = rng.choice(STATUSES)
        if n > 1 and rng.random() < 0.08:
            m["reply_to"] = "m-%d" % rng.randint(max(1, n - 50), n - 1)
        if rng.random() < 0.03:
            m["edited"] = True

        r = rng.random()
        if r < 0.70:
            m["text"] = text_body(rng)
        elif r < 0.80:
            name, mime = rng.choice(FILES)
            size = rng.randint(100, 50_000_000)
            m["type"] = "file"
            m["text"] = "📎 " + name
            m["file"] = {"name": name, "size": size, "mime": mime,
                         "path": "media/%d-%s" % (n, name)}
        elif r < 0.88:
            w = rng.choice([320, 640, 800, 1024, 1280, 1920, 4032])
            num, den = rng.choice([(3, 4), (9, 16), (1, 1), (4, 3), (16, 9)])
            h = w * den // num
            m["type"] = "image"
            m["text"] = text_body(rng) if rng.random() < 0.7 else "📷 Photo"
            m["image"] = {"path": "media/img-%d.jpg" % n, "width": w, "height": h}
        elif r < 0.95:
            d = round(rng.uniform(0.8, 120.0), 1)
            m["type"] = "voice"
            m["text"] = "🎤 Voice message (%.1f s)" % d
            m["voice"] = {"path": "media/voice-%d.ogg" % n, "duration": d,
                          "waveform": [rng.randint(0, 255) for _ in range(32)]}
        elif r < 0.98:
            place = rng.choice(PLACES)
            m["type"] = "location"
            m["text"] = "📍 " + place
            m["location"] = {"lat": round(rng.uniform(-80, 80), 4),
                             "lon": round(rng.uniform(-180, 180), 4), "name": place}
        else:
            q = rng.choice(POLLQ)
            opts = [{"text": o, "votes": rng.randint(0, len(senders))}
                    for o in rng.sample(PLACES, rng.randint(2, 4))]
            m["type"] = "poll"
            m["text"] = "Poll: " + q + " — " + " / ".join(o["text"] for o in opts)
            m["poll"] = {"question": q, "options": opts}

        if rng.random() < 0.10:
            picks = rng.sample(REACTIONS, rng.randint(1, 3))
            m["reactions"] = [{"emoji": e, "count": rng.randint(1, len(senders))} for e in picks]

        buf.append(dumps(m))
        if len(buf) >= 4096:
            buf.append("")
            out.write("\n".join(buf))
            buf = []
    if buf:
        buf.append("")
        out.write("\n".join(buf))
    out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())

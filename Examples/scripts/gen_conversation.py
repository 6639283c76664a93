# Run from Examples/ after the media exist: python3 scripts/gen_conversation.py
# Reads /tmp/v.wav and /tmp/v2.wav (the espeak-ng output) to derive the voice waveforms.
import json, os, wave, struct, math, datetime

def wav_envelope(path, bins):
    w = wave.open(path)
    n = w.getnframes(); data = w.readframes(n)
    samples = struct.unpack("<%dh" % (len(data) // 2), data)
    step = len(samples) // bins
    rms = [math.sqrt(sum(x * x for x in samples[i*step:(i+1)*step]) / step) for i in range(bins)]
    peak = max(rms)
    return [r / peak for r in rms]

def size(p): return os.path.getsize(p)
def unix(s): return int(datetime.datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp())

ALICE = {"id": "u-alice", "name": "Alice"}
BOB = {"id": "u-bob", "name": "Bob"}
CAROL = {"id": "u-carol", "name": "Carol Nguyễn"}

wf_reply = [round(v * 255) for v in wav_envelope("/tmp/v2.wav", 40)]     # 0..255

long_para = ("Okay, here is my plan for tomorrow, tell me if anything looks off: we meet at the station "
             "around 07:50 so nobody has to sprint, grab coffee on the train, do the harbour walk while "
             "the tide is out, lunch wherever the poll says, lighthouse in the afternoon, and then we try "
             "to catch the 17:45 back so Carol isn't exhausted for her Monday standup.")

msgs = []
def m(type_, sender, time, **kw):
    d = {"id": "m-%d" % (len(msgs) + 1), "type": type_, "sender": sender, "time": time}
    for k in ("status", "reply_to", "edited", "text"):
        if k in kw: d[k] = kw.pop(k)
    d.update(kw)
    msgs.append(d)

# ---- Saturday 2026-11-28 ----
m("text", BOB, "2026-11-28T09:14:00Z", text="Morning! Are we still on for the coast trip *tomorrow*? 🌊",
  reactions=[{"emoji": "👍", "count": 2}])
m("text", BOB, "2026-11-28T09:15:30Z", text="I can book the train if nobody else has yet")
m("text", BOB, "2026-11-28T09:16:10Z", text="Draft plan is here: https://example.org/trips/coast-2026 — comments welcome")
m("text", ALICE, "2026-11-28T09:31:00Z", status="read", reply_to="m-1",
  text="Yes! _Definitely_ still on. I'll bring snacks 🍙")
m("text", ALICE, "2026-11-28T09:31:40Z", status="read", text="Go ahead and book, I'll pay you back")
m("text", CAROL, "2026-11-28T09:52:00Z",
  text="Xin chào mọi người! 🇻🇳 Just got back from Hà Nội — count me in 👩‍💻 as soon as this deploy is done")
m("text", CAROL, "2026-11-28T09:53:00Z",
  text="My friend says 明日は晴れるでしょう。 and my cousin says 天气很好，我们去海边吧！ so the forecast is unanimous ☀️")
m("file", CAROL, "2026-11-28T09:54:20Z", text="📄 itinerary.pdf",
  # No "mime": the file cell detects the type from the file's content.
  file={"name": "itinerary.pdf", "size": size("media/itinerary.pdf"), "path": "media/itinerary.pdf"})
m("voice", BOB, "2026-11-28T10:20:00Z", text="🎤 Voice message (4.6 s)",
  voice={"path": "media/voice-reply.ogg", "duration": 4.6, "waveform": wf_reply})
m("text", BOB, "2026-11-28T10:21:00Z", edited=True,
  text="Tickets booked: `COAST-8F2K`, three seats in coach 4 🎫")
m("image", ALICE, "2026-11-28T10:45:00Z", status="read",
  text="Mochi is very upset that she's not invited 😾",
  image={"path": "media/cat.png", "width": 64, "height": 48},
  reactions=[{"emoji": "😂", "count": 2}, {"emoji": "❤️", "count": 1}])
m("text", ALICE, "2026-11-28T10:46:30Z", status="read", text=long_para)
m("poll", CAROL, "2026-11-28T11:30:00Z",
  text="Poll: Where should we have lunch? — Café Lumière / The Fish Shack / Picnic on the beach",
  poll={"question": "Where should we have lunch?", "options": [
      {"text": "Café Lumière", "votes": 2}, {"text": "The Fish Shack", "votes": 1}, {"text": "Picnic on the beach", "votes": 0}]})
m("text", ALICE, "2026-11-28T11:32:00Z", status="read", reply_to="m-13", text="Voted for Café Lumière ☕")
m("text", BOB, "2026-11-28T14:05:00Z", reply_to="m-0-old",
  text="Still owe you for the *last* trip btw — https://example.org/splits/2026-10?ref=chat")
m("text", ALICE, "2026-11-28T14:07:00Z", status="failed", text="No worries, we'll settle up after this one")
m("text", ALICE, "2026-11-28T14:08:15Z", status="delivered", text="No worries, we'll settle up after this one")
m("text", CAROL, "2026-11-28T21:40:00Z", edited=True, text="Night all 🌙 see you at the station at _07:50_")

# ---- Sunday 2026-11-29 ----
m("voice", CAROL, "2026-11-29T07:58:00Z", text="🎤 Voice message (2.5 s)",
  # Only the path: the voice cell reads the duration and waveform from the file.
  voice={"path": "media/voice-note.ogg"})
m("text", ALICE, "2026-11-29T08:01:00Z", status="read", reply_to="m-19", text="Saved you a seat! 🚆")
m("location", BOB, unix("2026-11-29T12:25:00Z"), text="📍 Café Lumière, 12 Rue des Mouettes",
  location={"lat": 48.6493, "lon": -2.0257, "name": "Café Lumière"})
m("text", BOB, "2026-11-29T12:26:00Z", text="Got us a table by the window")
m("image", ALICE, "2026-11-29T16:40:00Z", status="delivered", text="Sunset from the lighthouse 🌅",
  image={"path": "media/sunset.jpg", "width": 80, "height": 60},
  reactions=[{"emoji": "😍", "count": 2}])
m("text", ALICE, "2026-11-29T16:41:00Z", status="sent", text="Worth the climb. *All* 214 steps of it.")
m("file", BOB, "2026-11-29T17:50:00Z", text="📎 expenses.csv",
  file={"name": "expenses.csv", "size": size("media/expenses.csv"), "mime": "text/csv", "path": "media/expenses.csv"})
m("file", BOB, "2026-11-29T17:50:40Z", text="📦 trip-photos.zip (18 MB)",
  file={"name": "trip-photos.zip", "size": 18874368, "mime": "application/zip", "path": "media/trip-photos.zip"})
m("text", BOB, unix("2026-11-29T17:52:00Z"), text="Settle up whenever, no rush 🙏")
m("text", CAROL, "2026-11-29T18:05:00Z", text="Best day 🥹 Same time next year?",
  reactions=[{"emoji": "❤️", "count": 2}, {"emoji": "👍", "count": 1}])
m("text", ALICE, "2026-11-29T18:06:00Z", status="sending", text="Absolutely. Already looking at dates 📅")

with open("conversation.jsonl", "w", encoding="utf-8") as f:
    for d in msgs:
        f.write(json.dumps(d, ensure_ascii=False, separators=(",", ":")) + "\n")
print(len(msgs), "messages; long paragraph chars:", len(long_para))

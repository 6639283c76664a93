# Run from Examples/: python3 scripts/gen_pdf.py  (stdlib only; writes media/itinerary.pdf)
lines = [
    ("F2", 18, "Weekend Trip Itinerary"),
    ("F1", 12, "Sunday 29 November 2026 - Alice, Bob, Carol"),
    ("F1", 11, "  07:50  Meet at the station, coffee"),
    ("F1", 11, "  08:10  Train to the coast (platform 9, coach 4)"),
    ("F1", 11, "  10:00  Harbour walk while the tide is out"),
    ("F1", 11, "  12:30  Lunch (see poll)"),
    ("F1", 11, "  15:00  Lighthouse, sunset around 16:30"),
    ("F1", 11, "  17:45  Train home"),
]
ops = ["BT", "72 770 Td"]
first = True
for font, size, text in lines:
    if not first:
        ops.append("0 -24 Td")
    first = False
    ops.append("/%s %d Tf (%s) Tj" % (font, size, text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")))
ops.append("ET")
content = "\n".join(ops).encode("latin-1")
objs = [
    b"<< /Type /Catalog /Pages 2 0 R >>",
    b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 4 0 R /F2 5 0 R >> >> /Contents 6 0 R >>",
    b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold >>",
    b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream",
    b"<< /Title (Weekend Trip Itinerary) /Producer (hand-written by gen_pdf.py) >>",
]
out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
offsets = []
for i, body in enumerate(objs, 1):
    offsets.append(len(out))
    out += b"%d 0 obj\n" % i + body + b"\nendobj\n"
xref = len(out)
out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objs) + 1)
for off in offsets:
    out += b"%010d 00000 n \n" % off
out += b"trailer\n<< /Size %d /Root 1 0 R /Info 7 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objs) + 1, xref)
open("media/itinerary.pdf", "wb").write(out)

# Run from Examples/: python3 scripts/gen_images.py  (needs: pip install pillow)
from PIL import Image, ImageDraw
# 64x48 cat face PNG
im = Image.new("RGB", (64, 48), (200, 230, 255))
d = ImageDraw.Draw(im)
d.polygon([(14, 20), (18, 4), (28, 14)], fill=(240, 150, 60))   # left ear
d.polygon([(50, 20), (46, 4), (36, 14)], fill=(240, 150, 60))   # right ear
d.ellipse([12, 10, 52, 46], fill=(240, 150, 60))                # head
d.ellipse([21, 20, 27, 27], fill=(30, 30, 30))                  # eyes
d.ellipse([37, 20, 43, 27], fill=(30, 30, 30))
d.polygon([(29, 31), (35, 31), (32, 34)], fill=(230, 90, 120))  # nose
d.line([(32, 34), (28, 38)], fill=(60, 30, 10)); d.line([(32, 34), (36, 38)], fill=(60, 30, 10))
for y in (32, 35):
    d.line([(4, y), (22, y + 1)], fill=(80, 80, 80)); d.line([(42, y + 1), (60, y)], fill=(80, 80, 80))
im.save("media/cat.png", optimize=True)
# 80x60 sunset JPEG
im = Image.new("RGB", (80, 60))
px = im.load()
for y in range(60):
    t = y / 59
    for x in range(80):
        px[x, y] = (int(255 - 120 * t), int(140 - 100 * t), int(60 + 120 * t))
d = ImageDraw.Draw(im)
d.ellipse([28, 22, 52, 46], fill=(255, 220, 90))                # sun
d.rectangle([0, 40, 79, 59], fill=(20, 40, 90))                 # sea
for y in range(43, 58, 4):
    d.line([(30 - (y - 40), y), (50 + (y - 40), y)], fill=(240, 190, 80))
im.save("media/sunset.jpg", quality=85)

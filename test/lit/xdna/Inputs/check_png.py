"""check_png.py SHOT.png: the screenshot is a PNG of real size whose pixels are not all one colour
(a blank page fails), decoded with the standard library only."""
import struct
import sys
import zlib

data = open(sys.argv[1], "rb").read()
if data[:8] != b"\x89PNG\r\n\x1a\n":
    sys.exit("not a PNG")
pos, chunks = 8, []
while pos < len(data):
    length, kind = struct.unpack(">I4s", data[pos:pos + 8])
    chunks.append((kind, data[pos + 8:pos + 8 + length]))
    pos += 12 + length
width, height, depth, colour = struct.unpack(">IIBB", [c for k, c in chunks if k == b"IHDR"][0][:10])
channels = {2: 3, 6: 4, 0: 1, 4: 2}[colour]
if depth != 8:
    sys.exit("unexpected bit depth %d" % depth)
raw = zlib.decompress(b"".join(c for k, c in chunks if k == b"IDAT"))
stride = width * channels
previous, rows, at = bytearray(stride), [], 0
for _ in range(height):
    kind, line = raw[at], bytearray(raw[at + 1:at + 1 + stride])
    at += 1 + stride
    for i in range(stride):
        left = line[i - channels] if i >= channels else 0
        up, corner = previous[i], previous[i - channels] if i >= channels else 0
        if kind == 1: line[i] = (line[i] + left) & 255
        elif kind == 2: line[i] = (line[i] + up) & 255
        elif kind == 3: line[i] = (line[i] + (left + up) // 2) & 255
        elif kind == 4:
            p = left + up - corner
            pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
            line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) & 255
    rows.append(bytes(line))
    previous = line
pixels = [row[i:i + 3] for row in rows[::4] for i in range(0, stride, channels * 4)]
background = max(set(pixels), key=pixels.count)
drawn = sum(1 for p in pixels if p != background) / len(pixels)
colours = len(set(pixels))
if width < 200 or height < 200 or drawn < 0.01 or colours < 8:
    sys.exit("screenshot %dx%d looks empty: %.1f%% drawn, %d colours" % (width, height, 100 * drawn, colours))
print("screenshot %dx%d: %d colours, drawn" % (width, height, colours))

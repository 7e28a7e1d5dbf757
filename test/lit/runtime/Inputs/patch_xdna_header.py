"""Writes a copy of an .xdna image with one metadata header field replaced:
patch_xdna_header.py IN OUT OFFSET WIDTH VALUE (offsets as in reference §1.3)."""
import struct
import sys

source, target, offset, width, value = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5], 0)
data = bytearray(open(source, 'rb').read())
phoff, = struct.unpack_from('<I', data, 0x1C)  # .xdna images are ELF32
phentsize, phnum = struct.unpack_from('<HH', data, 0x2A)
for i in range(phnum):
    entry = phoff + i * phentsize
    kind, = struct.unpack_from('<I', data, entry)
    if kind == 0x6C584408:  # the XDNA metadata segment
        metadata, = struct.unpack_from('<I', data, entry + 4)
        data[metadata + offset:metadata + offset + width] = value.to_bytes(width, 'little')
        open(target, 'wb').write(data)
        sys.exit(0)
sys.exit('no XDNA metadata segment in ' + source)

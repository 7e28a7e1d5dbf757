# Writes the .npy files npy.loom reads, in NumPy's formats 1.0 and 2.0 (no numpy needed).
import struct
import sys


def write(path, descr, shape, payload, major=1, fortran=False):
    dims = "(" + "".join(f"{d}, " for d in shape).rstrip(" ") + ")" if len(shape) != 1 else f"({shape[0]},)"
    header = "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (descr, fortran, dims)
    prefix = 10 if major == 1 else 12
    header += " " * ((64 - (prefix + len(header) + 1) % 64) % 64) + "\n"
    length = struct.pack("<H", len(header)) if major == 1 else struct.pack("<I", len(header))
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY" + bytes([major, 0]) + length + header.encode("latin1") + payload)


out = sys.argv[1]
write(f"{out}/ramp_f32.npy", "<f4", (2, 3), struct.pack("<6f", 0, 1, 2, 3, 4, 5))
write(f"{out}/ramp_i16_v2.npy", "<i2", (4,), struct.pack("<4h", -2, -1, 0, 1), major=2)
write(f"{out}/wrong_shape.npy", "<f4", (3, 2), struct.pack("<6f", 0, 1, 2, 3, 4, 5))
write(f"{out}/wrong_dtype.npy", "<f8", (2, 3), struct.pack("<6d", 0, 1, 2, 3, 4, 5))
write(f"{out}/short.npy", "<f4", (2, 3), struct.pack("<2f", 0, 1))
with open(f"{out}/not_npy.npy", "wb") as f:
    f.write(b"plain text, no magic")

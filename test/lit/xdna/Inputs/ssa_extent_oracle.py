#!/usr/bin/env python3
"""CPU oracle for ssa-extent-split-k.loom: out[m][n] = (a[0][m]*b[0][n] + a[1][m]*b[1][n]) + bias[m][n]
in fp32, each bf16 x bf16 product exact (normal-range operands), the two partials added first,
then the bias, each sum rounded to fp32. Runs the image on the host device with the core model
given for TRIALS random operand sets, comparing the output bits; prints the mismatch count.

usage: ssa_extent_oracle.py HRX_RUN IMAGE WORKDIR TRIALS CORE_MODEL
"""
import os
import random
import struct
import subprocess
import sys


def to_f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def bf16_value(h):
    return struct.unpack("<f", struct.pack("<I", h << 16))[0]


def main():
    hrx_run, image, work, trials, model = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
    os.makedirs(work, exist_ok=True)
    rng = random.Random(1151)
    mismatches = 0
    for trial in range(trials):
        # Either sign, exponents 2^-30 .. 2^30, any mantissa; zeros now and then.
        def operand():
            if rng.randrange(10) == 0:
                return 0
            return (rng.getrandbits(1) << 15) | (rng.randrange(127 - 30, 127 + 31) << 7) | rng.getrandbits(7)

        a = [operand() for _ in range(16)]
        b = [operand() for _ in range(16)]
        bias = [to_f32(rng.uniform(-1e9, 1e9)) for _ in range(64)]
        want = []
        for m in range(8):
            for n in range(8):
                p0 = to_f32(bf16_value(a[m]) * bf16_value(b[n]))
                p1 = to_f32(bf16_value(a[8 + m]) * bf16_value(b[8 + n]))
                want.append(to_f32(to_f32(p0 + p1) + bias[m * 8 + n]))
        paths = [os.path.join(work, f"{trial}.{name}.bin") for name in ("a", "b", "bias", "out")]
        with open(paths[0], "wb") as f:
            f.write(struct.pack("<16H", *a))
        with open(paths[1], "wb") as f:
            f.write(struct.pack("<16H", *b))
        with open(paths[2], "wb") as f:
            f.write(struct.pack("<64f", *bias))
        subprocess.run([hrx_run, image, "--device=host", f"--core-model={model}",
                        f"--input=2x8xbf16=@{paths[0]}", f"--input=2x8xbf16=@{paths[1]}",
                        f"--input=8x8xf32=@{paths[2]}", "--input=8x8xf32=0", f"--output=@{paths[3]}"],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        with open(paths[3], "rb") as f:
            got = struct.unpack("<64I", f.read())
        mismatches += sum(g != struct.unpack("<I", struct.pack("<f", w))[0] for g, w in zip(got, want))
    print(f"{model} mismatches: {mismatches}")
    sys.exit(1 if mismatches else 0)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Runs float-products.xdna's worker natively (the simulator) and on its host twin over random
fp32 operands of every magnitude (random bit patterns, both ends of the exponent range: products
that overflow, underflow, round to subnormals; zeros, infinities, NaNs, subnormal operands) and
compares both with a CPU oracle: the product or sum in double (exact for a product; innocuous
double rounding for a sum), rounded to fp32 by the C cast. NaN results compare as NaN (their
sign and payload are unspecified). Prints a summary; exits 1 on any mismatch.

usage: float_products.py HRX_RUN IMAGE WORKDIR ROUNDS
"""
import os
import random
import struct
import subprocess
import sys

WORDS = 16 * 64


def to_f32_bits(x):
    try:
        return struct.unpack("<I", struct.pack("<f", x))[0]
    except OverflowError:  # the rounded result is beyond FLT_MAX
        return 0x7F800000 | (0x80000000 if x < 0 else 0)


def as_float(w):
    return struct.unpack("<f", struct.pack("<I", w))[0]


def nan(w):
    return (w & 0x7F800000) == 0x7F800000 and (w & 0x7FFFFF) != 0


def operand(rng):
    c = rng.random()
    if c < 0.3:
        return rng.getrandbits(32)
    if c < 0.85:
        exponent = rng.choice([rng.randrange(0, 64), rng.randrange(100, 160), rng.randrange(190, 256)])
        return (rng.getrandbits(1) << 31) | (exponent << 23) | rng.getrandbits(23)
    return rng.choice([0, 0x80000000, 0x7F800000, 0xFF800000, 1, 0x80000001, 0x7FFFFF, 0x800000, 0x7F7FFFFF,
                       0x3F800000, 0x3F800001, 0x7FC00000, 0x3FFFFFFF, 0x00400000])


def main():
    hrx_run, image, work, rounds = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    os.makedirs(work, exist_ok=True)
    rng = random.Random(23)
    mismatches = {"native": 0, "twin": 0}
    checked = 0
    for _ in range(rounds):
        words = [operand(rng) for _ in range(WORDS)]
        oracle = []
        for rec in range(16):
            pairs = [(as_float(words[rec * 64 + 2 * k]), as_float(words[rec * 64 + 2 * k + 1])) for k in range(32)]
            oracle += [to_f32_bits(a * b) if not (a != a or b != b) else 0x7FC00000 for a, b in pairs]
            oracle += [to_f32_bits(a + b) if not (a != a or b != b) else 0x7FC00000 for a, b in pairs]
        inp = os.path.join(work, "in.bin")
        open(inp, "wb").write(struct.pack("<%dI" % WORDS, *words))
        for model in ("native", "twin"):
            out = os.path.join(work, "out-%s.bin" % model)
            run = subprocess.run([hrx_run, image, "--device=host", "--core-model=" + model, "--core-stats",
                                  "--input=16x64xf32=@" + inp, "--input=16x64xf32=0", "--output=@" + out],
                                 capture_output=True, text=True)
            if run.returncode != 0:
                print("%s run failed:\n%s" % (model, run.stderr))
                return 1
            if model == "native" and "native core code: 16 stage call" not in run.stderr:
                print("the native run did not run native code:\n" + run.stderr)
                return 1
            got = struct.unpack("<%dI" % WORDS, open(out, "rb").read())
            for i, (g, want) in enumerate(zip(got, oracle)):
                if g != want and not (nan(g) and (nan(want) or as_float(want) != as_float(want))):
                    mismatches[model] += 1
                    if mismatches[model] <= 5:
                        rec, j = divmod(i, 64)
                        k = j % 32
                        print("MISMATCH %s %s %08x %08x: %08x, oracle %08x" % (model, "mul" if j < 32 else "add",
                              words[rec * 64 + 2 * k], words[rec * 64 + 2 * k + 1], g, want))
        checked += WORDS
    print("values: %d, native mismatches: %d, twin mismatches: %d" % (checked, mismatches["native"], mismatches["twin"]))
    return 1 if any(mismatches.values()) else 0


if __name__ == "__main__":
    sys.exit(main())

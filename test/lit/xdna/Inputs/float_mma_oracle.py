#!/usr/bin/env python3
"""Runs float-mma.loom's image (4x16 f32 x 16x8 f32 + 4x8 f32 accumulator per record) over random
operands natively and on the host twin, under the array model given, and compares both with a
CPU oracle: each element starts from its accumulator and adds, in increasing k, the fp32 product
of its row and column, every product and sum rounded to fp32. Operands: either sign, zeros and
exponents from 2^-75 to 2^60 (products underflow to subnormals and zero, none overflows).
Prints a summary; exits 1 on any mismatch or if native code did not run.

usage: float_mma_oracle.py HRX_RUN IMAGE WORKDIR BATCH ARRAY_MODEL
"""
import os
import random
import struct
import subprocess
import sys


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def operand(rng):
    if rng.random() < 0.05:
        return rng.choice([0.0, -0.0])
    return f32(rng.choice([-1, 1]) * rng.uniform(1, 2) * 2.0 ** rng.randint(-75, 60))


def main():
    hrx_run, image, work, batch, array_model = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
    os.makedirs(work, exist_ok=True)
    rng = random.Random(41)
    ab = [operand(rng) for _ in range(batch * 192)]
    init = [operand(rng) for _ in range(batch * 32)]
    want = []
    for b in range(batch):
        a, m = ab[b * 192:b * 192 + 64], ab[b * 192 + 64:b * 192 + 192]
        for r in range(4):
            for c in range(8):
                s = init[b * 32 + r * 8 + c]
                for k in range(16):
                    # Double products of floats are exact; double sums rounded to float are the
                    # float sums (53 >= 2*24+2).
                    s = f32(s + f32(a[r * 16 + k] * m[k * 8 + c]))
                want.append(struct.pack("<f", s))
    paths = [os.path.join(work, n) for n in ("ab.bin", "init.bin")]
    open(paths[0], "wb").write(struct.pack("<%df" % len(ab), *ab))
    open(paths[1], "wb").write(struct.pack("<%df" % len(init), *init))
    got = {}
    for model in ("native", "twin"):
        out = os.path.join(work, "out-%s.bin" % model)
        run = subprocess.run([hrx_run, image, "--device=host", "--core-stats", "--array-model=" + array_model,
                              "--input=@" + paths[0], "--input=@" + paths[1], "--input=%dx32xf32=0" % batch,
                              "--output=@" + out], capture_output=True, text=True, env=dict(os.environ, HRX_CORE_MODEL=model))
        if run.returncode != 0:
            print("%s run failed:\n%s" % (model, run.stderr))
            return 1
        if model == "native" and "native core code: %d stage call(s)" % batch not in run.stderr:
            print("the native run did not run native code:\n" + run.stderr)
            return 1
        data = open(out, "rb").read()
        got[model] = [data[4 * i:4 * i + 4] for i in range(batch * 32)]
    mismatches = [sum(1 for g, w in zip(got[m], want) if g != w) for m in ("native", "twin")]
    between = sum(1 for x, y in zip(got["native"], got["twin"]) if x != y)
    print("elements: %d, native mismatches: %d, twin mismatches: %d, native vs twin: %d" %
          (batch * 32, mismatches[0], mismatches[1], between))
    return 1 if any(mismatches) or between else 0


if __name__ == "__main__":
    sys.exit(main())

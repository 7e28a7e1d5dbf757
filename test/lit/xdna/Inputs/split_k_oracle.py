#!/usr/bin/env python3
"""Runs split-k.loom's image over random bf16 operands natively (the AIE2P simulator runs both
@half_product cores and @add_partials) and on the host twins, under the array model given, and
compares both with a CPU oracle of the Loom semantics: each half's 8x8x8 product sums, from the
zero accumulator and in increasing k, the fp32 products of its bf16 operands (exact unless they
leave the normal range, then rounded once), each sum rounded to fp32; the reduction adds the two
halves, then the bias. Prints a summary; exits 1 on any mismatch or if native code did not run.

Operands: either sign, zeros, bf16 subnormals and exponents from 2^-70 to 2^60, so products
underflow to fp32 subnormals and zero as well as reach 2^120; no infinity or NaN can arise (the
native code and the twin may differ in a NaN's payload, docs/aie2p.md).

usage: split_k_oracle.py HRX_RUN IMAGE WORKDIR TRIALS ARRAY_MODEL
"""
import os
import random
import struct
import subprocess
import sys


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def bits(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def value(h):
    return struct.unpack("<f", struct.pack("<I", h << 16))[0]


def bf16(rng):
    kind = rng.randrange(12)
    sign = rng.getrandbits(1) << 15
    if kind == 0:
        return sign
    if kind == 1:
        return sign | rng.randrange(1, 128)  # subnormal
    return sign | (rng.randrange(127 - 70, 127 + 61) << 7) | rng.getrandbits(7)


def oracle(lhs, rhs, bias):
    out = []
    for r in range(8):
        for c in range(8):
            halves = []
            for h in range(2):
                s = 0.0
                for k in range(8):
                    # The double sum of two floats rounded to float is the float sum (53 >= 2*24+2).
                    s = f32(s + f32(value(lhs[h * 64 + r * 8 + k]) * value(rhs[h * 64 + k * 8 + c])))
                halves.append(s)
            out.append(bits(f32(f32(halves[0] + halves[1]) + bias[r * 8 + c])))
    return out


def main():
    hrx_run, image, work, trials, array_model = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
    os.makedirs(work, exist_ok=True)
    rng = random.Random(23)
    mismatches = {"native": 0, "twin": 0, "native-vs-twin": 0}
    elements = 0
    for trial in range(trials):
        lhs = [bf16(rng) for _ in range(128)]
        rhs = [bf16(rng) for _ in range(128)]
        bias = [rng.choice([0.0, f32(rng.uniform(-1e3, 1e3)), f32(2.0 ** rng.randint(-140, 100))]) for _ in range(64)]
        paths = [os.path.join(work, "%s-%d.bin" % (n, trial)) for n in ("lhs", "rhs", "bias")]
        open(paths[0], "wb").write(struct.pack("<128H", *lhs))
        open(paths[1], "wb").write(struct.pack("<128H", *rhs))
        open(paths[2], "wb").write(struct.pack("<64f", *bias))
        want = oracle(lhs, rhs, bias)
        got = {}
        for model in ("native", "twin"):
            out = os.path.join(work, "out-%s-%d.bin" % (model, trial))
            run = subprocess.run([hrx_run, image, "--device=host", "--core-stats", "--array-model=" + array_model,
                                  "--input=@" + paths[0], "--input=@" + paths[1], "--input=@" + paths[2],
                                  "--input=1x64xf32=0", "--output=@" + out],
                                 capture_output=True, text=True, env=dict(os.environ, HRX_CORE_MODEL=model))
            if run.returncode != 0:
                print("%s run failed:\n%s" % (model, run.stderr))
                return 1
            if model == "native" and "native core code: 3 stage call(s)" not in run.stderr:
                print("the native run did not run native code on all three cores:\n" + run.stderr)
                return 1
            got[model] = struct.unpack("<64I", open(out, "rb").read())
            mismatches[model] += sum(1 for g, w in zip(got[model], want) if g != w)
        mismatches["native-vs-twin"] += sum(1 for a, b in zip(got["native"], got["twin"]) if a != b)
        elements += 64
    print("elements: %d, native mismatches: %d, twin mismatches: %d, native vs twin: %d" %
          (elements, mismatches["native"], mismatches["twin"], mismatches["native-vs-twin"]))
    return 1 if any(mismatches.values()) else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Runs batched-gemm-cxx's C++ worker (gemm_worker.cpp) natively and on its host twin over random
bf16 operands and compares both with a CPU oracle of the worker's own arithmetic: each product
of two bf16 values is exact in fp32, each of the 8 running sums rounds to fp32 (the double sum of
two floats, rounded by the C cast, is the correctly rounded fp32 sum). Prints a summary; exits 1
on any mismatch.

usage: gemm_cxx_oracle.py HRX_RUN IMAGE WORKDIR BATCH
"""
import os
import random
import struct
import subprocess
import sys


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def bf16(rng):
    # 8 significant bits, exponents spread over 2^-20 .. 2^20, either sign, some zeros
    if rng.random() < 0.05:
        return 0
    return (rng.getrandbits(1) << 15) | (rng.randrange(107, 147) << 7) | rng.getrandbits(7)


def value(h):
    return struct.unpack("<f", struct.pack("<I", h << 16))[0]


def main():
    hrx_run, image, work, batch = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    os.makedirs(work, exist_ok=True)
    rng = random.Random(5)
    lhs = [bf16(rng) for _ in range(batch * 64)]
    rhs = [bf16(rng) for _ in range(batch * 64)]
    oracle = []
    for b in range(batch):
        for r in range(8):
            for c in range(8):
                s = 0.0
                for k in range(8):
                    s = f32(s + value(lhs[b * 64 + r * 8 + k]) * value(rhs[b * 64 + k * 8 + c]))
                oracle.append(struct.unpack("<I", struct.pack("<f", s))[0])
    paths = [os.path.join(work, n) for n in ("lhs.bin", "rhs.bin")]
    open(paths[0], "wb").write(struct.pack("<%dH" % len(lhs), *lhs))
    open(paths[1], "wb").write(struct.pack("<%dH" % len(rhs), *rhs))
    mismatches = {}
    for model in ("native", "twin"):
        out = os.path.join(work, "out-%s.bin" % model)
        run = subprocess.run([hrx_run, image, "--device=host", "--core-stats", "--input=%dx64xbf16=@%s" % (batch, paths[0]),
                              "--input=%dx64xbf16=@%s" % (batch, paths[1]), "--input=%dx64xf32=0" % batch, "--output=@" + out],
                             capture_output=True, text=True, env=dict(os.environ, HRX_CORE_MODEL=model))
        if run.returncode != 0:
            print("%s run failed:\n%s" % (model, run.stderr))
            return 1
        if model == "native" and "native core code: %d stage call" % batch not in run.stderr:
            print("the native run did not run native code:\n" + run.stderr)
            return 1
        got = struct.unpack("<%dI" % (batch * 64), open(out, "rb").read())
        mismatches[model] = sum(1 for g, w in zip(got, oracle) if g != w)
    print("elements: %d, native mismatches: %d, twin mismatches: %d" % (batch * 64, mismatches["native"], mismatches["twin"]))
    return 1 if any(mismatches.values()) else 0


if __name__ == "__main__":
    sys.exit(main())

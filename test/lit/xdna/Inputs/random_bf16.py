"""Writes COUNT random bf16 values (raw little-endian) to PATH: mixed signs, zeros, subnormals and
exponents spread over 40 octaves, so bfp16ebs8 blocks floor many lanes away.

usage: random_bf16.py SEED COUNT PATH"""
import random
import struct
import sys

seed, count, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
rng = random.Random(seed)
with open(path, "wb") as out:
    for _ in range(count):
        kind = rng.randrange(10)
        sign = rng.randrange(2) << 15
        if kind == 0:
            bits = sign  # +-0
        elif kind == 1:
            bits = sign | rng.randrange(1, 128)  # subnormal
        else:
            bits = sign | (rng.randrange(100, 140) << 7) | rng.randrange(128)
        out.write(struct.pack("<H", bits))

#!/usr/bin/env python3
"""Compile latency, side by side: hrxcc against clang++-22 -O3 -c + ld.lld-22 -shared on the same
kernel, for the seed's C++ affine kernel (examples/kernels/affine.cpp; clang gets the same kernel
spelled without hrx's headers, affine_clang.cpp) and for a Loom kernel (add_delta.loom; clang
gets its C++ twin add_delta.cpp). Whole processes, alternating order, median over N runs
(default 11). Prints the figures and their ratios; not a test.

usage: compile_vs_clang.py BUILD_DIR [RUNS]"""
import os
import statistics
import subprocess
import sys
import tempfile
import time

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(os.path.dirname(here))
build = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "build")
runs = int(sys.argv[2]) if len(sys.argv) > 2 else 11
hrxcc = os.path.join(build, "bin", "hrxcc")


def timed(commands):
    start = time.perf_counter()
    for command in commands:
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def clang(source, tmp):
    return [["clang++-22", "--target=amdgcn-amd-amdhsa", "-mcpu=gfx1151", "-nogpulib", "-O3", "-c", source,
             "-o", f"{tmp}/b.o"],
            ["ld.lld-22", "-shared", f"{tmp}/b.o", "-o", f"{tmp}/b.hsaco"]]


def compare(ours, theirs):
    timed(ours), timed(theirs)  # warm the page cache
    hrx, other = [], []
    for i in range(runs):
        if i % 2 == 0:
            hrx.append(timed(ours)); other.append(timed(theirs))
        else:
            other.append(timed(theirs)); hrx.append(timed(ours))
    return statistics.median(hrx), statistics.median(other)


with tempfile.TemporaryDirectory() as tmp:
    print(f"runs: {runs} (alternating), machine: {os.cpu_count()} cores")
    h, c = compare([[hrxcc, "--offload-arch=gfx1151", "-O3", os.path.join(root, "examples", "kernels", "affine.cpp"),
                     "-o", f"{tmp}/a.hsaco"]], clang(os.path.join(here, "affine_clang.cpp"), tmp))
    print(f"hrxcc  (C++ affine -> gfx1151 HSACO, with host twin and sections): median {h * 1000:.1f} ms")
    print(f"clang++-22 -O3 -c + ld.lld-22 -shared (the same affine kernel):   median {c * 1000:.1f} ms")
    print(f"ratio hrxcc / clang: {h / c:.2f}x")
    h, c = compare([[hrxcc, "--offload-arch=gfx1151", "-O3", "--config=add.groups=4",
                     os.path.join(root, "test", "lit", "amdgpu", "Inputs", "add_delta.loom"), "-o", f"{tmp}/a.hsaco"]],
                   clang(os.path.join(here, "add_delta.cpp"), tmp))
    print(f"hrxcc  (Loom add_delta -> gfx1151 HSACO, with host twin and sections): median {h * 1000:.1f} ms")
    print(f"clang++-22 -O3 -c + ld.lld-22 -shared (its C++ twin add_delta.cpp):  median {c * 1000:.1f} ms")
    print(f"ratio hrxcc / clang (Loom add_delta): {h / c:.2f}x")

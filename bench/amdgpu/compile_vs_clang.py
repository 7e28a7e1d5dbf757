#!/usr/bin/env python3
"""Compile latency, side by side: hrxcc (Loom kernel -> gfx1151 HSACO, in process) against
clang++-22 -O3 -c + ld.lld-22 -shared on the equivalent C++ kernel. Whole processes, alternating
order, median over N runs (default 11). Prints the figures and their ratio; not a test.

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
loom = os.path.join(root, "test", "lit", "amdgpu", "Inputs", "add_delta.loom")
cpp = os.path.join(here, "add_delta.cpp")


def timed(commands):
    start = time.perf_counter()
    for command in commands:
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


with tempfile.TemporaryDirectory() as tmp:
    ours = [[hrxcc, "--offload-arch=gfx1151", "-O3", "--config=add.groups=4", loom, "-o", f"{tmp}/a.hsaco"]]
    theirs = [["clang++-22", "--target=amdgcn-amd-amdhsa", "-mcpu=gfx1151", "-nogpulib", "-O3", "-c", cpp,
               "-o", f"{tmp}/b.o"],
              ["ld.lld-22", "-shared", f"{tmp}/b.o", "-o", f"{tmp}/b.hsaco"]]
    timed(ours), timed(theirs)  # warm the page cache
    hrx, clang = [], []
    for i in range(runs):
        if i % 2 == 0:
            hrx.append(timed(ours)); clang.append(timed(theirs))
        else:
            clang.append(timed(theirs)); hrx.append(timed(ours))
    h, c = statistics.median(hrx), statistics.median(clang)
    print(f"runs: {runs} (alternating), machine: {os.cpu_count()} cores")
    print(f"hrxcc  (Loom add_delta -> gfx1151 HSACO, with host twin and sections): median {h * 1000:.1f} ms")
    print(f"clang++-22 -O3 -c + ld.lld-22 -shared (C++ add_delta):               median {c * 1000:.1f} ms")
    print(f"ratio hrxcc / clang: {h / c:.2f}x")

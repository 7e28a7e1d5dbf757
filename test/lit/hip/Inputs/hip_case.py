#!/usr/bin/env python3
"""Runs one HIP corpus file (test/lit/hip/*.hip):

1. compiles it with hrxcc for gfx1151 (with the host twin) and with clang-22 in HIP device mode
   over the same headers, and compares the kernels' metadata notes (compare_notes.py);
2. runs every `// CASE:` on the host reference device with hrx-run and checks each output
   binding against the case's oracle, a Python expression.

Case syntax (one line each, in the .hip file):
  // CASE: <entry> [workload=<items>] [grid=X,Y,Z block=X,Y,Z dynamic-lds=BYTES] [tol=<ulps>]
  // ARG: <hrx-run --input value>        (in launch order; "N:range" is 0..N-1, "N:range*K+C" too)
  // EXPECT: <binding> <python list expression; `i` ranges over the binding's elements>
  // HRXCC-FLAGS: <flags>             (optional, once: extra hrxcc flags; --host-headers makes the
                                      clang-22 reference use the host's headers too)
Integers and exactly rounded float results compare exactly; `tol` allows that many ulps (f32).
Prints one PASS/FAIL line per case; exits 1 on any failure.
"""
import argparse
import math
import os
import re
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def fsum32(*terms):
    """The terms added left to right in float32, as the kernel does."""
    total = f32(terms[0])
    for t in terms[1:]:
        total = f32(total + f32(t))
    return total


def tex_sample(texels, extent, coords, linear=False, address="clamp", normalized=False, border=0.0):
    """HIP's texture formulas (docs/cxx.md, "Texture objects") in float32: one channel, `texels`
    row-major with x fastest, `extent` (width[, height[, depth]]), `coords` per dimension."""
    dims = len(extent)

    def index(i, n):
        if address == "wrap":
            return i % n
        if address == "mirror":
            m = i % (2 * n)
            return m if m < n else 2 * n - 1 - m
        if address == "border":
            return None if i < 0 or i >= n else i
        return min(max(i, 0), n - 1)

    def fetch(ix):
        offset, stride = 0, 1
        for d in range(dims):
            at = index(ix[d], extent[d])
            if at is None:
                return border
            offset += at * stride
            stride *= extent[d]
        return texels[offset]

    at = [f32(f32(c) * extent[d]) if normalized else f32(c) for d, c in enumerate(coords)]
    if not linear:
        return fetch([math.floor(a) for a in at])
    base = [math.floor(f32(a - 0.5)) for a in at]
    frac = [f32(f32(a - 0.5) - b) for a, b in zip(at, base)]
    total = 0.0
    for corner in range(1 << dims):
        weight = 1.0
        for d in range(dims):
            weight = f32(weight * (frac[d] if corner >> d & 1 else f32(1.0 - frac[d])))
        total = f32(total + f32(weight * fetch([base[d] + (corner >> d & 1) for d in range(dims)])))
    return total


def ulps(a, b):
    if math.isnan(a) and math.isnan(b):
        return 0
    ia = struct.unpack("<i", struct.pack("<f", a))[0]
    ib = struct.unpack("<i", struct.pack("<f", b))[0]
    if ia < 0:
        ia = -2**31 - ia
    if ib < 0:
        ib = -2**31 - ib
    return abs(ia - ib)


def expand(arg):
    m = re.fullmatch(r"(\d+)x(\w+)=(\d+):range(?:\*(-?[\d.]+))?(?:\+(-?[\d.]+))?", arg)
    if not m:
        return arg
    shape, dtype, n, scale, offset = m.groups()
    scale = float(scale) if scale else 1
    offset = float(offset) if offset else 0
    values = [i * scale + offset for i in range(int(n))]
    text = " ".join(str(int(v)) if dtype[0] in "iu" else repr(v) for v in values)
    return f"{shape}x{dtype}=[{text}]"


def parse_cases(path):
    cases = []
    for line in open(path):
        line = line.strip()
        if line.startswith("// CASE:"):
            words = line[len("// CASE:"):].split()
            case = {"entry": words[0], "args": [], "expect": [], "tol": 0, "workload": None}
            for w in words[1:]:
                key, _, value = w.partition("=")
                case[key] = value if key in ("grid", "block", "dynamic-lds") else int(value)
            cases.append(case)
        elif line.startswith("// ARG:"):
            cases[-1]["args"].append(line[len("// ARG:"):].strip())
        elif line.startswith("// EXPECT:"):
            binding, _, expr = line[len("// EXPECT:"):].strip().partition(" ")
            cases[-1]["expect"].append((int(binding), expr))
    return cases


def run_case(args, artifact, case):
    command = [args.hrx_run, artifact, "--device=host", "--entry=" + case["entry"]]
    if case["workload"] is not None:
        command.append(f"--workload={case['workload']}")
    for key in ("grid", "block", "dynamic-lds"):
        if key in case:
            command.append(f"--{key}={case[key]}")
    command += ["--input=" + expand(a) for a in case["args"]]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        return False, "hrx-run failed: " + (result.stderr.strip().splitlines() or ["?"])[-1]
    outputs = {}
    for line in result.stdout.splitlines():
        m = re.match(r"binding\[(\d+)\]: \d+x(\w+)=(.*)", line)
        if m:
            outputs[int(m.group(1))] = (m.group(2), m.group(3).split())
    for binding, expr in case["expect"]:
        if binding not in outputs:
            return False, f"binding[{binding}] not printed"
        dtype, got = outputs[binding]
        want = eval(expr, {"math": math, "f32": f32, "fsum32": fsum32, "tex_sample": tex_sample, "n": len(got)})
        if len(want) != len(got):
            return False, f"binding[{binding}]: {len(got)} elements, the oracle has {len(want)}"
        for k, (g, w) in enumerate(zip(got, want)):
            if dtype == "f64":  # hrx-run prints 9 significant digits
                g = float(g)
                bad = abs(g - w) > 1e-8 * max(1.0, abs(w))
            elif dtype.startswith("f"):
                g = float(g)
                bad = ulps(g, f32(w)) > case["tol"]
            else:
                bad = int(g) != int(w)
            if bad:
                return False, f"binding[{binding}][{k}] = {g}, expected {w}"
    return True, ""


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--hrxcc", required=True)
    parser.add_argument("--hrx-run", dest="hrx_run", required=True)
    parser.add_argument("--llvm-bin", required=True)
    parser.add_argument("--headers", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--device-libs", default="/usr/lib/x86_64-linux-gnu/amdgcn/bitcode")
    parser.add_argument("source")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    ours = os.path.join(args.out, "hrx.hsaco")
    theirs = os.path.join(args.out, "clang.hsaco")
    flags = []
    for line in open(args.source):
        if line.strip().startswith("// HRXCC-FLAGS:"):
            flags = line.strip()[len("// HRXCC-FLAGS:"):].split()
    host_headers = "--host-headers" in flags
    subprocess.run([args.hrxcc, "--offload-arch=gfx1151", "-Werror=host-twin"] + flags + [args.source, "-o", ours],
                   check=True)
    libraries = []
    for library in ("ocml", "ockl", "oclc_finite_only_off", "oclc_unsafe_math_off", "oclc_daz_opt_off",
                    "oclc_correctly_rounded_sqrt_on", "oclc_wavefrontsize64_off", "oclc_abi_version_500"):
        libraries += ["-Xclang", "-mlink-builtin-bitcode", "-Xclang", os.path.join(args.device_libs, library + ".bc")]
    resource = subprocess.run([os.path.join(args.llvm_bin, "clang"), "-print-resource-dir"], check=True,
                              capture_output=True, text=True).stdout.strip()
    if host_headers:
        # Clang's own include search (libstdc++, glibc), with hrx's HIP headers alone before it.
        hip_only = os.path.join(args.out, "include-hip")
        os.makedirs(hip_only, exist_ok=True)
        for sub in ("hip", "hrx"):
            link = os.path.join(hip_only, sub)
            if not os.path.exists(link):
                os.symlink(os.path.join(args.headers, "include", sub), link)
        includes = ["-fno-exceptions", "-fno-rtti", "-isystem", hip_only, "-D__HRX_HOST_HEADERS__=1"]
    else:
        includes = ["-nostdinc", "-ffreestanding", "-isystem", os.path.join(args.headers, "include-c++"), "-isystem",
                    os.path.join(args.headers, "include"), "-isystem", os.path.join(resource, "include")]
    subprocess.run([os.path.join(args.llvm_bin, "clang++"), "-x", "hip", "--offload-arch=gfx1151", "--cuda-device-only",
                    "--no-gpu-bundle-output", "-nogpuinc", "-nogpulib", "-O2", "-std=c++20", "-fdeclspec"] + includes +
                   ["-include", "hip/__hrx_hip_device.h", "-D__HRX_TARGET_AMDGPU__=1", "-D__HRX__=1"] + libraries +
                   [args.source, "-o", theirs], check=True)
    notes = subprocess.run([sys.executable, os.path.join(HERE, "compare_notes.py"),
                            os.path.join(args.llvm_bin, "llvm-readelf"), ours, theirs], capture_output=True, text=True)
    print(notes.stdout, end="")
    ok = notes.returncode == 0
    for case in parse_cases(args.source):
        passed, why = run_case(args, ours, case)
        ok &= passed
        print(("PASS " if passed else "FAIL ") + case["entry"] + ("" if passed else ": " + why))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

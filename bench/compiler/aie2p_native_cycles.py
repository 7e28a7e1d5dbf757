#!/usr/bin/env python3
"""Simulated cycles per record of hrxcc's native AIE2P worker code, beside the baseline bundling.

For the quick start (C++ scalar worker) and copy.loom (16-lane vector worker), 4 records of
1024 x i32 each, and batched_gemm.loom (the bfp16 MMA worker of gemm_pipeline and
gpu_npu_parallel; 4 records of two 8x8 bf16 operands, all ones, each product element 8; peak: one
8x8x8 MMA, 1 cycle): compiles the image twice, with the selector's slot packing and zero-overhead
loops (the default) and without them (HRX_AIE2P_NO_PACKING=1 HRX_AIE2P_NO_ZOL=1: one instruction
per bundle, compare-and-branch loops, the strongest simple baseline), runs each with hrx-run
--core-stats under both array models (plan: the worker alone; transaction: the core main program
drives it), and prints code bytes per core, cycles per record and the hardware peak (1024 / 16
lanes = 64 cycles at one 512-bit operation per cycle; 1 MMA for the GEMM). Simulated cycles, not hardware.

usage: aie2p_native_cycles.py [BUILD_DIR]"""
import os
import re
import subprocess
import sys
import tempfile

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
build = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "build")
hrxcc = os.path.join(build, "bin", "hrxcc")
hrx_run = os.path.join(build, "bin", "hrx-run")


def i32_records(value, expected):
    return ["--input=4x1024xi32=%d" % value, "--input=4x1024xi32=0", "--expected_output=4x1024xi32=%d" % expected]


WORKERS = [
    ("quick start @double_record (C++, scalar)",
     ["--config=quickstart.packets=4", "examples/quickstart/pipeline.loom", "examples/quickstart/worker.cpp"],
     i32_records(3, 6), 64),
    ("copy.loom @copy_packet (Loom, 16-lane vectors)", ["--config=copy.packets=4", "examples/kernels/copy.loom"],
     i32_records(3, 3), 64),
    ("batched_gemm.loom @multiply_pair (Loom, bfp16 MMA)", ["--config=gemm.batch=4", "examples/kernels/batched_gemm.loom"],
     ["--input=4x64xbf16=1", "--input=4x64xbf16=1", "--input=4x64xf32=0", "--expected_output=4x64xf32=8"], 1),
]
BASELINE = {"HRX_AIE2P_NO_PACKING": "1", "HRX_AIE2P_NO_ZOL": "1"}


def compile_image(args, out, extra_env):
    env = dict(os.environ, **extra_env)
    subprocess.run([hrxcc, "-target", "xdna"] + [os.path.join(root, a) if a.endswith((".loom", ".cpp")) else a
                                                 for a in args] + ["-o", out], check=True, env=env, cwd=root)
    asm = subprocess.run([hrxcc, "-target", "xdna", "--emit=asm"] +
                         [os.path.join(root, a) if a.endswith((".loom", ".cpp")) else a for a in args] + ["-o", "-"],
                         check=True, env=env, cwd=root, capture_output=True, text=True).stdout
    m = re.search(r"^// worker @\S+ on tile \S+: (\d+) bytes", asm, re.M)
    return int(m.group(1)) if m else 0


def cycles_per_record(image, model, inputs):
    out = subprocess.run([hrx_run, image, "--device=host", "--array-model=" + model, "--core-stats"] + inputs,
                         capture_output=True, text=True)
    m = re.search(r"native core code: (\d+) stage call\(s\), (\d+) simulated cycles", out.stdout + out.stderr)
    if out.returncode != 0 or not m:
        sys.exit("hrx-run failed:\n" + out.stdout + out.stderr)
    return int(m.group(2)) // int(m.group(1))


def main():
    with tempfile.TemporaryDirectory() as tmp:
        print("| Worker | Bundling | Code bytes per core | Cycles per record (plan: worker) | "
              "Cycles per record (transaction: main + worker) | Peak |")
        print("|---|---|---|---|---|---|")
        for name, args, inputs, peak in WORKERS:
            for label, env in (("one per bundle, branches (baseline)", BASELINE), ("packed, ls/le/lc loops", {})):
                image = os.path.join(tmp, "w.xdna")
                size = compile_image(args, image, env)
                plan = cycles_per_record(image, "plan", inputs)
                txn = cycles_per_record(image, "transaction", inputs)
                print("| %s | %s | %d | %d | %d | %d |" % (name, label, size, plan, txn, peak))


if __name__ == "__main__":
    main()

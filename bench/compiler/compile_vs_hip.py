#!/usr/bin/env python3
"""Compile cost per kernel: hrxcc against clang++-22's HIP device compile of the same kernels
(`clang++-22 -x hip --cuda-device-only --no-gpu-bundle-output --offload-arch=gfx1151 -nogpulib
-nogpuinc -O3`, which also links the code object), for 1, 100 and 1,000 generated elementwise
kernels in one file, from Loom and from C++ (HIP), and for the seed's single affine kernel
(examples/kernels/affine.cpp; clang gets bench/amdgpu/affine_clang.cpp as HIP). Two clang
baselines for HIP sources: without any HIP header (the strongest), and with Clang's own HIP
runtime wrapper in its hipRTC form (`-D__HIPCC_RTC__ -include __clang_hip_runtime_wrapper.h`),
the header hrxcc's <hip/hip_runtime.h> includes on amdgcn. Whole processes,
alternating order; CPU time (user + system) and peak RSS of each process come from wait4's
rusage. Medians over N runs (default 5; 3 at 1,000 kernels). Prints one JSON object per
measurement; a program that prints figures, never a timed test.

hrxcc builds its default outputs: the gfx1151 code object with the host twin (x86-64 code of the
same kernels for the host reference device) and the .hrx.* sections; clang builds the device
code object only. Each hip and loom row also measures hrxcc --host-twin=never (the code object
and sections, with launch programs only as host code: the work clang's output corresponds to),
in the same interleaved runs.

usage: compile_vs_hip.py [--hrxcc PATH] [--clang PATH] [--runs N] [--kernels N ...] [BUILD_DIR]"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(os.path.dirname(here))
sys.path.insert(0, here)
from compile_bench import elementwise_module  # noqa: E402  (the Loom kernels of the scaling benchmark)

# The same y = x + x kernel in HIP, for hrxcc (its hermetic <hip/hip_runtime.h>) and for clang
# (no HIP headers: -nogpuinc, the attributes spelled out).
HIP_KERNEL = """
extern "C" __global__ void __launch_bounds__(128) scale{i}(const float *__restrict__ x, float *__restrict__ y) {{
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < 1024) y[i] = x[i] + x[i];
}}
"""
HRX_PRELUDE = "#include <hip/hip_runtime.h>\n"
# For clang without HIP headers (-nogpuinc): the attributes and blockIdx/blockDim/threadIdx
# spelled as the builtins they stand for.
CLANG_COMMON = """#define __launch_bounds__(n) __attribute__((amdgpu_flat_work_group_size(1, n)))
struct Dim { unsigned x; };
#define blockIdx (Dim{__builtin_amdgcn_workgroup_id_x()})
#define threadIdx (Dim{__builtin_amdgcn_workitem_id_x()})
#define blockDim (Dim{128u})
"""
CLANG_BARE_PRELUDE = "#define __global__ __attribute__((global))\n" + CLANG_COMMON
# Clang's own HIP runtime wrapper in its hipRTC form, which hrxcc's <hip/hip_runtime.h> also
# includes on amdgcn (frontend/cxx/headers/include/hip/__hrx_hip_device.h): the like-for-like
# header work.
CLANG_WRAPPER_FLAGS = ["-D__HIPCC_RTC__", "-include", "__clang_hip_runtime_wrapper.h"]


def run_measured(command, cwd):
    """Wall seconds, CPU seconds (user + system) and peak RSS (MiB) of one process."""
    with tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        process = subprocess.Popen(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=err)
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
        process.returncode = os.waitstatus_to_exitcode(status)
        if process.returncode != 0:
            err.seek(0)
            raise SystemExit(f"compile_vs_hip: {' '.join(command)} failed:\n{err.read().decode(errors='replace')}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024.0


def measure(commands, runs, cwd):
    """Median wall, CPU and peak RSS of each command, alternating their order run by run."""
    for command in commands:
        run_measured(command, cwd)  # warm the page cache
    samples = [[] for _ in commands]
    for r in range(runs):
        order = range(len(commands)) if r % 2 == 0 else reversed(range(len(commands)))
        for i in order:
            samples[i].append(run_measured(commands[i], cwd))
    return [tuple(statistics.median(s[k] for s in runs_of) for k in range(3)) for runs_of in samples]


def record(name, kernels, runs, ours, bare, wrapped=None, no_twin=None):
    """hrxcc beside clang without HIP headers (`bare`) and, for HIP sources, clang with its HIP
    runtime wrapper (`wrapped`); `no_twin` is hrxcc --host-twin=never."""
    (hw, hc, hr), (cw, cc, cr) = ours, bare
    out = {"benchmark": "compiler.vs_hip", "input": name, "kernels": kernels, "runs": runs,
           "hrxcc_wall_s": hw, "hrxcc_cpu_s": hc, "hrxcc_peak_rss_mib": hr,
           "clang_wall_s": cw, "clang_cpu_s": cc, "clang_peak_rss_mib": cr,
           "cpu_ratio": hc / cc, "wall_ratio": hw / cw, "rss_ratio": hr / cr,
           "hrxcc_cpu_ms_per_kernel": hc * 1000 / kernels, "clang_cpu_ms_per_kernel": cc * 1000 / kernels}
    if wrapped:
        (ww, wc, wr) = wrapped
        out.update({"clang_wrapper_wall_s": ww, "clang_wrapper_cpu_s": wc, "clang_wrapper_peak_rss_mib": wr,
                    "cpu_ratio_wrapper": hc / wc, "rss_ratio_wrapper": hr / wr})
    if no_twin:
        (nw, nc, nr) = no_twin
        out.update({"hrxcc_no_twin_wall_s": nw, "hrxcc_no_twin_cpu_s": nc, "hrxcc_no_twin_peak_rss_mib": nr,
                    "cpu_ratio_no_twin": nc / cc, "rss_ratio_no_twin": nr / cr})
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("build", nargs="?", default=os.path.join(root, "build"))
    parser.add_argument("--hrxcc", help="hrxcc to measure (default BUILD/bin/hrxcc)")
    parser.add_argument("--clang", default="clang++-22")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--kernels", type=int, nargs="+", default=[1, 100, 1000])
    args = parser.parse_args()
    hrxcc = os.path.abspath(args.hrxcc or os.path.join(args.build, "bin", "hrxcc"))
    clang_flags = ["-x", "hip", "--cuda-device-only", "--no-gpu-bundle-output", "--offload-arch=gfx1151", "-nogpulib",
                   "-nogpuinc", "-O3"]

    def emit(item):
        print(json.dumps(item), flush=True)

    with tempfile.TemporaryDirectory() as tmp:
        def write(name, text):
            with open(os.path.join(tmp, name), "w") as f:
                f.write(text)
            return name

        # The seed's single affine kernel.
        ours = [hrxcc, "--offload-arch=gfx1151", "-O3", os.path.join(root, "examples", "kernels", "affine.cpp"),
                "-o", "affine.hsaco"]
        theirs = [args.clang] + clang_flags + [os.path.join(root, "bench", "amdgpu", "affine_clang.cpp"), "-o",
                                               "affine-clang.hsaco"]
        emit(record("affine.cpp", 1, args.runs, *measure([ours, theirs], args.runs, tmp)))

        for kernels in args.kernels:
            runs = args.runs if kernels < 1000 else min(args.runs, 3)
            hip = "".join(HIP_KERNEL.format(i=i) for i in range(kernels))
            bare_source = write(f"clang{kernels}.hip", CLANG_BARE_PRELUDE + hip)
            theirs = [args.clang] + clang_flags + [bare_source, "-o", f"clang{kernels}.hsaco"]
            wrapped_source = write(f"clang-wrapper{kernels}.hip", CLANG_COMMON + hip)
            wrapped = [args.clang] + clang_flags + CLANG_WRAPPER_FLAGS + [wrapped_source, "-o", f"clang-w{kernels}.hsaco"]
            # C++ (HIP) through hrxcc.
            hrx_source = write(f"hrx{kernels}.hip", HRX_PRELUDE + hip)
            ours = [hrxcc, "--offload-arch=gfx1151", "-O3", hrx_source, "-o", f"hip{kernels}.hsaco"]
            no_twin = ours[:1] + ["--host-twin=never"] + ours[1:-1] + [f"hip{kernels}-never.hsaco"]
            ours_t, theirs_t, wrapped_t, no_twin_t = measure([ours, theirs, wrapped, no_twin], runs, tmp)
            emit(record("hip", kernels, runs, ours_t, theirs_t, wrapped_t, no_twin_t))
            # The same kernels in Loom (compile_bench's elementwise kernels: y = 2x over a
            # configured count).
            loom_source = write(f"loom{kernels}.loom", elementwise_module(0, kernels))
            ours = [hrxcc, "--offload-arch=gfx1151", "--config=scale.count=1024", loom_source, "-o",
                    f"loom{kernels}.hsaco"]
            no_twin = ours[:1] + ["--host-twin=never"] + ours[1:-1] + [f"loom{kernels}-never.hsaco"]
            ours_t, theirs_t, no_twin_t = measure([ours, theirs, no_twin], runs, tmp)
            emit(record("loom", kernels, runs, ours_t, theirs_t, None, no_twin_t))


if __name__ == "__main__":
    main()

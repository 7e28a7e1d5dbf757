#!/usr/bin/env python3
"""Compiler benchmarks: whole hrxcc processes, median over N runs, comparisons alternating within
one run. Prints one JSON object per measurement (one per line); a program that prints figures,
never a timed test. Wall time and the child's CPU time (getrusage) are both reported because the
machine may be shared.

  (c) the batched GEMM pipeline to .xdna, Loom worker and C++ worker
  (e) scaling: 1, 10 and 100 elementwise kernels in one Loom module, for gfx1151 and host
  (f) -j2 against -j1 on 8 independent Loom inputs linked into one artifact

usage: compile_bench.py [--hrxcc PATH] [--runs N] [BUILD_DIR]"""
import argparse
import json
import os
import resource
import statistics
import subprocess
import tempfile
import time

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(os.path.dirname(here))
xdna_inputs = os.path.join(root, "test", "lit", "xdna", "Inputs")


def run_timed(command, cwd):
    """Wall seconds and the child's user+system CPU seconds of one process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"compile_bench: {' '.join(command)} failed:\n{done.stderr}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def measure(commands, runs, cwd):
    """Median wall and CPU seconds of each command, alternating their order run by run."""
    for command in commands:
        run_timed(command, cwd)  # warm the page cache
    walls = [[] for _ in commands]
    cpus = [[] for _ in commands]
    for r in range(runs):
        order = range(len(commands)) if r % 2 == 0 else reversed(range(len(commands)))
        for i in order:
            wall, cpu = run_timed(commands[i], cwd)
            walls[i].append(wall)
            cpus[i].append(cpu)
    return [(statistics.median(w), statistics.median(c)) for w, c in zip(walls, cpus)]


def elementwise_kernel(index, tag):
    """One kernel.def: y[i] = 2 * x[i] over a configured count, named scale<index>; the workload
    argument is the element count (the grid is count / 128 workgroups)."""
    return f"""
kernel.def target(@gpu{tag}) export("scale{index}") @scale{index}(%n: index) {{
  %one = index.constant 1 : index
  %wg = index.constant 128 : index
  %groups = index.div %n, %wg : index
  kernel.launch.config workgroups(%groups, %one, %one) workgroup_size(%wg, %one, %one) : index
}} launch(%x: buffer, %y: buffer) {{
  %wg = index.constant 128 : index
  %zero = index.constant 0 : offset
  %count = config.get @scale{tag}.count : index
  %item = kernel.workitem.id<x> : index
  %block = kernel.workgroup.id<x> : index
  %first = index.mul %block, %wg : index
  %i = index.add %first, %item : index
  %gx = buffer.assume.memory_space<global> %x : buffer
  %gy = buffer.assume.memory_space<global> %y : buffer
  %in = buffer.view %gx[%zero] : buffer -> view<[%count]xf32>
  %out = buffer.view %gy[%zero] : buffer -> view<[%count]xf32>
  %inside = index.cmp ult, %i, %count : index
  scf.if %inside {{
    %at = index.assume %i [range(%i, 0, 67108864), lt(%i, %count)] : index
    %v = view.load %in[%at] : view<[%count]xf32> -> f32
    %d = scalar.addf %v, %v : f32
    view.store %d, %out[%at] : f32, view<[%count]xf32>
  }}
  kernel.return
}}
"""


def elementwise_module(first, count, tag=""):
    """`count` kernels; `tag` keeps the target and configuration symbols of separate inputs apart."""
    header = (f"amdgpu.target<gfx11-generic> @gpu{tag} {{subgroup_size = 32}}\n"
              f"config.decl @scale{tag}.count : %value: index where [range(%value, 128, 67108864)]\n")
    return header + "".join(elementwise_kernel(i, tag) for i in range(first, first + count))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("build", nargs="?", default=os.path.join(root, "build"))
    parser.add_argument("--hrxcc", help="hrxcc to measure (default BUILD/bin/hrxcc)")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    hrxcc = os.path.abspath(args.hrxcc or os.path.join(args.build, "bin", "hrxcc"))

    def emit(record):
        print(json.dumps(record), flush=True)

    with tempfile.TemporaryDirectory() as tmp:
        # (c) batched GEMM pipeline -> .xdna, Loom worker vs C++ worker, alternating.
        loom = [hrxcc, "-target", "xdna", "--config=gemm.batch=64", os.path.join(xdna_inputs, "batched-gemm.loom"),
                "-o", "loom.xdna"]
        cxx = [hrxcc, "-target", "xdna", "--config=gemm.batch=64", os.path.join(xdna_inputs, "batched-gemm-cxx.loom"),
               os.path.join(xdna_inputs, "gemm_worker.cpp"), "-o", "cxx.xdna"]
        (lw, lc), (cw, cc) = measure([loom, cxx], args.runs, tmp)
        emit({"benchmark": "compiler.gemm_xdna", "runs": args.runs, "loom_worker_s": lw, "loom_worker_cpu_s": lc,
              "cxx_worker_s": cw, "cxx_worker_cpu_s": cc, "cxx_over_loom": cw / lw})

        # (e) scaling with the number of kernels in one module.
        for target, flag, suffix in (("gfx1151", "--offload-arch=gfx1151", "hsaco"), ("host", "--target=host", "so")):
            for kernels in (1, 10, 100):
                path = os.path.join(tmp, f"k{kernels}.loom")
                with open(path, "w") as f:
                    f.write(elementwise_module(0, kernels))
                command = [hrxcc, flag, "--config=scale.count=1024", path, "-o", f"k{kernels}.{suffix}"]
                ((wall, cpu),) = measure([command], args.runs, tmp)
                emit({"benchmark": "compiler.scaling", "target": target, "kernels": kernels, "runs": args.runs,
                      "wall_s": wall, "cpu_s": cpu, "wall_ms_per_kernel": wall * 1000 / kernels,
                      "cpu_ms_per_kernel": cpu * 1000 / kernels})

        # (f) -j2 vs -j1 on 8 independent inputs (distinct kernels, linked into one artifact).
        inputs = []
        for i in range(8):
            path = os.path.join(tmp, f"in{i}.loom")
            with open(path, "w") as f:
                f.write(elementwise_module(i, 1, tag=str(i)))
            inputs.append(path)
        base = [hrxcc, "--offload-arch=gfx1151"] + [f"--config=scale{i}.count=1024" for i in range(8)] + inputs
        (w1, c1), (w2, c2) = measure([base + ["-j1", "-o", "j1.hsaco"], base + ["-j2", "-o", "j2.hsaco"]],
                                     args.runs, tmp)
        with open(os.path.join(tmp, "j1.hsaco"), "rb") as a, open(os.path.join(tmp, "j2.hsaco"), "rb") as b:
            identical = a.read() == b.read()
        emit({"benchmark": "compiler.parallel", "inputs": 8, "runs": args.runs, "j1_s": w1, "j1_cpu_s": c1,
              "j2_s": w2, "j2_cpu_s": c2, "speedup": w1 / w2, "identical_outputs": identical})


if __name__ == "__main__":
    main()

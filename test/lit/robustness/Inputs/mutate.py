"""Mutation test of hrxcc's robustness.

Every example source is mutated N times (deterministic seed; byte flips, deletions, duplications,
truncations). hrxcc -fsyntax-only on each mutant must exit 0 or 1: never by a signal, never 2 or
more, never hang. Every tenth mutant is also compiled with -o into an empty directory: when the
compile fails, the directory must stay empty (no output, no temporaries). One in five of those is
instead killed (SIGKILL) after a random delay: an output that exists must then be whole (identical to
an unkilled compile's), never partial.
Failing mutants are kept in the work directory and listed; the exit status is then 1.
"""
import argparse
import concurrent.futures
import glob
import os
import random
import shutil
import subprocess
import sys
import time
import zlib

TIMEOUT_SECONDS = 60


def mutate(data, rng):
    data = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        kind = rng.choice(("flip", "delete", "duplicate", "truncate"))
        if not data:
            break
        start = rng.randrange(len(data))
        length = rng.randint(1, 16)
        if kind == "flip":
            data[start] ^= 1 << rng.randrange(8) if rng.random() < 0.5 else rng.randrange(1, 256)
        elif kind == "delete":
            del data[start:start + length]
        elif kind == "duplicate":
            data[start:start] = data[start:start + length]
        else:
            del data[start:]
    return bytes(data)


def run(command):
    try:
        return subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              timeout=TIMEOUT_SECONDS).returncode
    except subprocess.TimeoutExpired:
        return "timeout"


def run_killed(command, delay):
    """Runs command and SIGKILLs it after delay seconds; returns its exit status (-9 if killed)."""
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(delay)
    process.kill()
    return process.wait()


def check(hrxcc, mutant, out_dir, kill_delay):
    """Returns a list of problems with one mutant."""
    problems = []
    code = run([hrxcc, "-fsyntax-only", "-ferror-limit=0", mutant])
    if code not in (0, 1):
        problems.append("-fsyntax-only exited with %s" % code)
    if out_dir:
        os.makedirs(out_dir)
        out = os.path.join(out_dir, "out")
        if kill_delay is None:
            code = run([hrxcc, mutant, "-o", out])
        else:
            code = run_killed([hrxcc, mutant, "-o", out], kill_delay)
        left = sorted(os.listdir(out_dir))
        if code == -9:
            # A kill may land after the final rename (the process is still tearing down): then the
            # output must be whole, byte for byte what an unkilled compile writes. A kill before
            # the rename may leave a temporary, never a partial output.
            if os.path.exists(out):
                whole_dir = out_dir + "-whole"
                os.makedirs(whole_dir)
                whole = os.path.join(whole_dir, "out")
                if run([hrxcc, mutant, "-o", whole]) != 0:
                    problems.append("killed compile left an output that a full compile does not write")
                elif open(out, "rb").read() != open(whole, "rb").read():
                    problems.append("killed compile left a partial or different output")
                shutil.rmtree(whole_dir)
        elif code not in (0, 1):
            problems.append("-o exited with %s" % code)
        elif code != 0 and left:
            problems.append("failed compile left %s" % ", ".join(left))
        if not problems:
            shutil.rmtree(out_dir)
    return problems


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--hrxcc", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("sources", nargs="+", help="files or glob patterns")
    args = parser.parse_args()

    sources = sorted(f for pattern in args.sources for f in glob.glob(pattern, recursive=True))
    shutil.rmtree(args.work, ignore_errors=True)
    jobs = []
    for source in sources:
        data = open(source, "rb").read()
        name = os.path.basename(source)
        stem, ext = os.path.splitext(name)
        for i in range(args.count):
            rng = random.Random(zlib.crc32(name.encode()) * 1000003 + i)
            directory = os.path.join(args.work, "%s-%03d" % (stem, i))
            os.makedirs(directory)
            mutant = os.path.join(directory, name)
            with open(mutant, "wb") as f:
                f.write(mutate(data, rng))
            out_dir = os.path.join(directory, "out") if i % 10 == 0 else None
            kill_delay = rng.uniform(0, 0.2) if i % 50 == 0 else None
            jobs.append((mutant, out_dir, kill_delay))

    failures = 0
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        results = pool.map(lambda job: (job[0], check(args.hrxcc, *job)), jobs)
        for mutant, problems in results:
            if problems:
                failures += 1
                print("FAIL: %s: %s" % (mutant, "; ".join(problems)))
            else:
                shutil.rmtree(os.path.dirname(mutant))
    killed = sum(1 for job in jobs if job[2] is not None)
    print("%d sources, %d mutants (%d compiled with -o, %d of them killed), %d failures"
          % (len(sources), len(jobs), sum(1 for job in jobs if job[1]), killed, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

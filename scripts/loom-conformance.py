#!/usr/bin/env python3
"""Measure how much real Loom hrxcc accepts: a conformance survey, not a test.

Usage: scripts/loom-conformance.py [--hrxcc PATH] [--jobs N] [--list] DIR...

For every .loom file under the directories it runs
  1. hrxcc -fsyntax-only FILE                (parse + verify)
  2. the file's natural target, if it has one:
       -target xdna            for a file with a pipeline.def,
       --offload-arch=gfx1151  for a file with a kernel.def (and no pipeline.def) that is
                               not aimed only at test/vm/x86/wasm/llvmir target records,
     linked with the sibling files that provide the templates it declares or applies but does
     not provide (a target's providers kept in a file of their own),
     with --config=KEY=VALUE for each config.decl, the value taken from the lower end of
     its range(...) predicate (rounded up to its mul(...) factor), 1 when it has none.
and prints per-folder pass rates, the files that pass only with kept unknown ops (PARSE/101),
and the first-error causes ranked by how many files they stop.

A test module under a `testdata/` folder calls the kernel source at the same path without
`testdata/` and is verified only linked with it (upstream's id4 build:
loom_link_module(srcs = ["testdata/" + source], libraries = [source])); it is checked as the
library's text followed by its own, in one temporary file (error lines then count from the
library's start). Test modules whose library is missing are counted apart ("unlinked"), and so
are those whose library holds the very cases the module defines (a library downloaded at an older
revision than its test module: "version skew"); neither counts in the totals.
"""

import argparse
import collections
import concurrent.futures
import os
import re
import subprocess
import sys
import tempfile

from loom_testdata import library_of_test_module, template_providers

DIAG_RE = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+):(?P<col>\d+): (?P<sev>error|warning|fatal error): "
                     r"(?P<msg>.*?)(?: \[(?P<code>[A-Z]+/\d+)[^\]]*\])?$", re.M)
CONFIG_RE = re.compile(r"^\s*config\.decl\s+@([\w.$-]+)\s*:\s*(?:%\w+\s*:\s*)?(\w+)(.*)$", re.M)
RANGE_RE = re.compile(r"range\(\s*%\w+\s*,\s*(-?\d+)\s*,\s*(-?\d+)\s*\)")
MUL_RE = re.compile(r"mul\(\s*%\w+\s*,\s*(\d+)\s*\)")


def config_flags(text):
    flags = []
    for match in CONFIG_RE.finditer(text):
        key, type_name, rest = match.group(1), match.group(2), match.group(3)
        if type_name.startswith("f"):
            flags.append(f"--config={key}=1.0")
            continue
        value = 1
        ranged = RANGE_RE.search(rest)
        if ranged:
            value = int(ranged.group(1))
        multiple = MUL_RE.search(rest)
        if multiple:
            factor = int(multiple.group(1))
            if factor > 0 and value % factor:
                value += factor - value % factor
        if type_name == "i1":
            value = min(max(value, 0), 1)
        flags.append(f"--config={key}={value}")
    return flags


def natural_target(text):
    if re.search(r"^\s*pipeline\.def\b", text, re.M):
        return "xdna", ["-target", "xdna"]
    kernels = re.findall(r"^\s*kernel\.def\b(.*)$", text, re.M)
    if kernels:
        # Kernels aimed only at records no GPU compiles (test.target, vm/x86/wasm/llvmir.target)
        # are not GPU code: the file has no natural target.
        foreign = set(re.findall(r"^\s*(?:test|vm|x86|wasm|llvmir)\.target\b[^@]*@(\w+)", text, re.M))
        aimed = [re.search(r"target\(@(\w+)\)", k) for k in kernels]
        if foreign and all(a and a.group(1) in foreign for a in aimed):
            return None, []
        return "gfx1151", ["--offload-arch=gfx1151"]
    return None, []


def first_error(output):
    for match in DIAG_RE.finditer(output):
        if match.group("sev") != "warning":
            return match.group("code") or "no-code", match.group("msg")
    lines = [line for line in output.splitlines() if line.strip()]
    return "no-diagnostic", (lines[0] if lines else "(no output)")


SYMBOL_DEF_RE = re.compile(r"^\s*(?:check\.case|check\.scenario|func\.def|kernel\.def)\b[^@\n]*@([\w.$]+)", re.M)


def run(hrxcc, args, timeout=120):
    try:
        proc = subprocess.run([hrxcc] + args, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return 124, "timeout"
    return proc.returncode, proc.stdout + proc.stderr


def survey(hrxcc, path, outdir):
    with open(path, encoding="utf-8", errors="replace") as handle:
        text = handle.read()
    result = {"path": path, "excluded": None}
    library = library_of_test_module(path)
    if library is not None:
        if not os.path.exists(library):
            result.update(excluded="unlinked", syntax=False, kept_unknown=False, crash=False, target=None)
            return result
        with open(library, encoding="utf-8", errors="replace") as handle:
            library_text = handle.read()
        if set(SYMBOL_DEF_RE.findall(library_text)) & set(SYMBOL_DEF_RE.findall(text)):
            result.update(excluded="version skew", syntax=False, kept_unknown=False, crash=False, target=None)
            return result
        path = os.path.join(outdir, re.sub(r"[^\w.-]", "_", path))
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(library_text + "\n" + text)
    source_path = path
    code, output = run(hrxcc, ["-fsyntax-only", path])
    result["syntax"] = code == 0
    result["kept_unknown"] = "PARSE/101" in output
    result["crash"] = code < 0 or code > 2 or "Stack dump" in output
    if not result["syntax"]:
        result["syntax_error"] = first_error(output)
    target, flags = natural_target(text)
    result["target"] = target
    if target and result["syntax"]:
        out = os.path.join(outdir, re.sub(r"[^\w.-]", "_", path) + ".out")
        providers = template_providers(source_path, text) if library is None else []
        code, output = run(hrxcc, flags + config_flags(text) + [path] + providers + ["-o", out])
        result["compiled"] = code == 0
        result["crash"] = result["crash"] or code < 0 or code > 2 or "Stack dump" in output
        if code != 0:
            result["compile_error"] = first_error(output)
    elif target:
        result["compiled"] = False
        result["compile_error"] = ("syntax", "does not parse and verify")
    return result


def folder_of(path, roots):
    for root in roots:
        if path.startswith(root):
            rel = os.path.relpath(os.path.dirname(path), root)
            return os.path.join(os.path.basename(root.rstrip("/")), rel) if rel != "." else os.path.basename(root.rstrip("/"))
    return os.path.dirname(path)


def percent(part, whole):
    return f"{100.0 * part / whole:5.1f}%" if whole else "  n/a "


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dirs", nargs="+")
    parser.add_argument("--hrxcc", default=os.path.join(os.path.dirname(__file__), "..", "build", "bin", "hrxcc"))
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--list", action="store_true", help="print every file's outcome")
    parser.add_argument("--top", type=int, default=25)
    args = parser.parse_args()

    roots = [os.path.abspath(d) for d in args.dirs]
    files = sorted(os.path.join(base, name) for root in roots for base, _, names in os.walk(root)
                   for name in names if name.endswith(".loom"))
    if not files:
        sys.exit("loom-conformance: no .loom files under " + " ".join(args.dirs))
    with tempfile.TemporaryDirectory() as outdir, concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(lambda p: survey(args.hrxcc, p, outdir), files))

    excluded = [r for r in results if r["excluded"]]
    results = [r for r in results if not r["excluded"]]
    folders = collections.OrderedDict()
    for result in results:
        folders.setdefault(folder_of(result["path"], roots), []).append(result)

    print(f"{'folder':60} {'files':>5} {'verify':>7} {'strict':>7} {'targeted':>8} {'compiled':>8}")
    for folder, items in sorted(folders.items()):
        verified = sum(r["syntax"] for r in items)
        strict = sum(r["syntax"] and not r["kept_unknown"] for r in items)
        targeted = [r for r in items if r["target"]]
        compiled = sum(r.get("compiled", False) for r in targeted)
        print(f"{folder[-60:]:60} {len(items):5} {percent(verified, len(items)):>7} {percent(strict, len(items)):>7} "
              f"{len(targeted):8} {compiled:4}/{len(targeted):<3}")

    total = len(results)
    verified = sum(r["syntax"] for r in results)
    strict = sum(r["syntax"] and not r["kept_unknown"] for r in results)
    gpu = [r for r in results if r["target"] == "gfx1151"]
    npu = [r for r in results if r["target"] == "xdna"]
    print()
    print(f"files: {total} (not counted: {len(excluded)} testdata/ modules, "
          f"{sum(r['excluded'] == 'unlinked' for r in excluded)} without their library, "
          f"{sum(r['excluded'] == 'version skew' for r in excluded)} whose library holds their cases)")
    print(f"parse+verify:                      {verified}/{total} {percent(verified, total)}")
    print(f"parse+verify, no kept-unknown ops: {strict}/{total} {percent(strict, total)}")
    print(f"gfx1151 (kernel.def) compile:      {sum(r.get('compiled', False) for r in gpu)}/{len(gpu)} "
          f"{percent(sum(r.get('compiled', False) for r in gpu), len(gpu))}")
    print(f"xdna (pipeline.def) compile:       {sum(r.get('compiled', False) for r in npu)}/{len(npu)} "
          f"{percent(sum(r.get('compiled', False) for r in npu), len(npu))}")
    crashes = [r["path"] for r in results if r["crash"]]
    print(f"crashes:                           {len(crashes)}")
    for path in crashes:
        print(f"  CRASH {path}")

    def ranked(key):
        causes = collections.Counter()
        examples = {}
        for result in results:
            if key in result:
                code, message = result[key]
                if not message.startswith("unknown op"):
                    message = re.sub(r"'[^']*'", "'…'", message)
                causes[(code, message)] += 1
                examples.setdefault((code, message), result["path"])
        return causes, examples

    for key, title in (("syntax_error", "first -fsyntax-only error"), ("compile_error", "first target error")):
        causes, examples = ranked(key)
        print(f"\nranked {title} causes:")
        for (code, message), count in causes.most_common(args.top):
            print(f"  {count:4}  {code:14} {message[:110]}")
            print(f"        e.g. {os.path.relpath(examples[(code, message)])}")

    if args.list:
        print("\nper file:")
        for result in results:
            state = "verify" if result["syntax"] else "FAIL  "
            if result["kept_unknown"]:
                state += "(kept-unknown)"
            if result["target"]:
                state += f" {result['target']}:" + ("ok" if result.get("compiled") else "FAIL")
            detail = result.get("syntax_error") or result.get("compile_error") or ("", "")
            print(f"  {state:34} {os.path.relpath(result['path'])}  {detail[0]} {detail[1][:80]}")


if __name__ == "__main__":
    main()

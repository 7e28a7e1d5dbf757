#!/usr/bin/env python3
"""Measures hrx against upstream Loom's own tests, in a scratch directory of upstream files
(never committed): the share of upstream check cases `hrx check` passes per target, and the
share of upstream verify-fixture cases `hrxcc -fsyntax-only -verify --split-input-file` matches.

usage: scripts/loom-check-conformance.py [--bin build/bin] [--targets host,gfx1151] [-v] DIR...

A check case counts as passing when hrx check prints PASS for it (SKIP and FAIL do not pass;
benchmarks are not cases); a file that only declares a kernel or function is checked with the
sibling .loom files defining it (`hrx check --link`). Configuration values are bound as upstream's
own test build binds them: the `configs = ["key=value", ...]` of the rule in the BUILD.bazel beside
the file whose sources include it (upstream's `loom_link_module(configs=...)`, whose runner takes
them as `--config`), for the keys the file declares. A verify fixture is a file whose RUN line says `verify`; each of its
`// ====` cases counts as matching under -verify when hrxcc's summary does not name it, and under
"code and line" when every annotation meets a diagnostic with its code on its line and no other
error or warning is reported (the issue's criterion: messages and numbering may differ).
A roundtrip fixture (RUN line `roundtrip`) counts each case that `hrxcc --split-input-file
--emit=loom` prints, whose print parses back to itself and equals the case's `// ----` section
when it has one.
"""
import argparse
import fnmatch
import json
import os
import re
import subprocess
import sys


def loom_files(dirs):
    for d in dirs:
        for root, _, names in os.walk(d):
            for n in sorted(names):
                if n.endswith(".loom") or n.endswith(".loom-test"):
                    yield os.path.join(root, n)


def has_checks(text):
    return re.search(r"^check\.(case|scenario)\b", text, re.M) is not None


def is_verify_fixture(text):
    return re.search(r"^//\s*RUN:.*\bverify\b", text, re.M) is not None


def is_roundtrip_fixture(text):
    return re.search(r"^//\s*RUN:\s*roundtrip\b", text, re.M) is not None


def sibling_definitions(path, text):
    """Sibling .loom files defining what `path` only declares (upstream keeps a tests.loom beside
    the kernel.loom it declares)."""
    declared = set(re.findall(r"^(?:kernel|func)\.decl\b[^@\n]*@([\w.$]+)", text, re.M))
    links = []
    if not declared:
        return links
    folder = os.path.dirname(path)
    for name in sorted(os.listdir(folder)):
        other = os.path.join(folder, name)
        if other == path or not name.endswith(".loom"):
            continue
        body = open(other, encoding="utf-8", errors="replace").read()
        defined = set(re.findall(r"^(?:kernel|func)\.def\b[^@\n]*@([\w.$]+)", body, re.M))
        if declared & defined:
            links.append(other)
    return links


_BAZEL_RULE = re.compile(r"^\w+\((.*?)^\)", re.M | re.S)


def bazel_configs(path, text):
    """`--config=key=value` for each config.decl of `path` that a rule of the BUILD.bazel beside it
    binds (`configs = [...]`) when the rule's sources name the file or a glob matching it."""
    build = os.path.join(os.path.dirname(path), "BUILD.bazel")
    declared = set(re.findall(r"^config\.decl\s+@([\w.$]+)", text, re.M))
    if not declared or not os.path.exists(build):
        return []
    body = open(build, encoding="utf-8", errors="replace").read()
    name = os.path.basename(path)
    globbed = any(fnmatch.fnmatch(name, g) for g in re.findall(r'glob\(\s*\[\s*"([^"]+)"', body))
    values = {}
    for rule in _BAZEL_RULE.findall(body):
        configs = re.search(r"\bconfigs\s*=\s*\[(.*?)\]", rule, re.S)
        srcs = re.search(r"\bsrcs\s*=\s*(\[[^\]]*\]|\w+)", rule)
        if not configs or not srcs:
            continue
        listed = srcs.group(1).startswith("[") and f'"{name}"' in srcs.group(1)
        if not listed and not (not srcs.group(1).startswith("[") and globbed):
            continue
        for binding in re.findall(r'"([^"=]+)=([^"]*)"', configs.group(1)):
            if binding[0] in declared:
                values[binding[0]] = binding[1]
    return [f"--config={k}={v}" for k, v in sorted(values.items())]


def run_checks(bin_dir, path, target, verbose):
    text = open(path, encoding="utf-8", errors="replace").read()
    links = [arg for other in sibling_definitions(path, text) for arg in ("--link", other)]
    p = subprocess.run([os.path.join(bin_dir, "hrx"), "check", "--format=json", "--target=" + target, path] + links +
                       bazel_configs(path, text),
                       capture_output=True, text=True, timeout=600)
    try:
        report = json.loads(p.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        if verbose:
            print(f"  {path}: no JSON ({p.stderr.strip()[:200]})")
        return 0, 0, []
    cases = [c for c in report["cases"] if c["status"] != "benchmark"]
    passed = sum(1 for c in cases if c["status"] == "pass")
    failures = [f'{c["file"]}:{c["line"]} {c["name"]}: {c["status"]} {c.get("message", "")}' for c in cases if c["status"] != "pass"]
    return passed, len(cases), failures


_ANNOTATION = re.compile(r"//\s*(ERROR|WARNING|REMARK)(?:@([+-]\d+))?:\s*([A-Z]+(?:/\d+)?)?")
_SEPARATOR = re.compile(r"^\s*//\s*(====|-----)\s*$")


def split_cases(text):
    """[(first line, [lines])] with 1-based file line numbers, as hrxcc --split-input-file splits."""
    cases, current, first = [], [], 1
    for number, line in enumerate(text.split("\n"), 1):
        if _SEPARATOR.match(line):
            cases.append((first, current))
            current, first = [], number + 1
        else:
            current.append((number, line))
    cases.append((first, current))
    return cases


def decode_arrays(stream):
    decoder, at, out = json.JSONDecoder(), 0, []
    while True:
        while at < len(stream) and stream[at].isspace():
            at += 1
        if at >= len(stream):
            return out
        try:
            value, at = decoder.raw_decode(stream, at)
        except ValueError:
            return out
        out.append(value)


def run_code_line(bin_dir, path):
    """Case-by-case (code, line) agreement: every annotation meets a diagnostic of its severity on
    its line whose code is the annotation's (DOMAIN alone: any code of the domain; none: any),
    and no error or warning is left over. Returns (matched, total, failing case numbers)."""
    text = open(path, encoding="utf-8", errors="replace").read()
    cases = split_cases(text)
    p = subprocess.run([os.path.join(bin_dir, "hrxcc"), "-fsyntax-only", "--split-input-file",
                        "-fdiagnostics-format=json", "-x", "loom", path], capture_output=True, text=True, timeout=600)
    arrays = decode_arrays(p.stderr)
    failing = []
    for index, (_, lines) in enumerate(cases):
        expected = []
        for number, line in lines:
            m = _ANNOTATION.search(line)
            if m:
                expected.append((m.group(1).lower(), number + int(m.group(2) or 0), m.group(3) or ""))
        seen = [(d.get("severity", ""), d.get("line", 0), d.get("code", "")) for d in (arrays[index] if index < len(arrays) else [])
                if d.get("severity") in ("error", "warning", "remark", "fatal")]
        seen = [("error" if s == "fatal" else s, l, c) for s, l, c in seen]
        ok = index < len(arrays)
        for severity, line, code in expected:
            hit = next((k for k, (s, l, c) in enumerate(seen)
                        if s == severity and l == line and (not code or c == code or ("/" not in code and c.split("/")[0] == code))), None)
            if hit is None:
                ok = False
            else:
                seen.pop(hit)
        if any(s in ("error", "warning") for s, _, _ in seen):
            ok = False
        if not ok:
            failing.append(index + 1)
    return len(cases) - len(failing), len(cases), failing


def run_verify(bin_dir, path, verbose):
    text = open(path, encoding="utf-8", errors="replace").read()
    total = len(re.findall(r"^//\s*====\s*$", text, re.M)) + 1
    p = subprocess.run([os.path.join(bin_dir, "hrxcc"), "-fsyntax-only", "-verify", "--split-input-file", "-x", "loom", path],
                       capture_output=True, text=True, timeout=600)
    if p.returncode == 0:
        return total, total, []
    failing = set(re.findall(r"^  case (\d+) \(line \d+\)", p.stderr, re.M))
    if not failing:  # no per-case summary: count the file as failing whole
        return 0, total, [f"{path}: {p.stderr.strip()[:300]}"]
    return total - len(failing), total, [f"{path}: case {c}" for c in sorted(failing, key=int)]


def run_roundtrip(bin_dir, path):
    text = open(path, encoding="utf-8", errors="replace").read()
    total = len(re.findall(r"^//\s*====\s*$", text, re.M)) + 1
    p = subprocess.run([os.path.join(bin_dir, "hrxcc"), "--split-input-file", "--emit=loom", "-x", "loom", path,
                        "-o", os.devnull], capture_output=True, text=True, timeout=600)
    if p.returncode == 0:
        return total, total, []
    failing = set(re.findall(r"^  case (\d+) \(line \d+\)", p.stderr, re.M))
    if not failing:
        return 0, total, [f"{path}: {p.stderr.strip()[:300]}"]
    return total - len(failing), total, [f"{path}: case {c}" for c in sorted(failing, key=int)]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("--bin", default=os.path.join(os.path.dirname(__file__), "..", "build", "bin"))
    ap.add_argument("--targets", default="host,gfx1151")
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args()
    files = list(loom_files(a.dirs))
    check_files, verify_files, roundtrip_files = [], [], []
    for f in files:
        text = open(f, encoding="utf-8", errors="replace").read()
        if is_verify_fixture(text):
            verify_files.append(f)
        elif is_roundtrip_fixture(text):
            roundtrip_files.append(f)
        elif has_checks(text):
            check_files.append(f)
    def tally(label, results, verb, count):
        """Sums (matched, total, failure lines) over `results` and prints one figure line."""
        matched = total = 0
        failures = []
        for m, t, fl in results:
            matched, total, failures = matched + m, total + t, failures + fl
        pct = 100.0 * matched / total if total else 0.0
        print(f"{label}: {matched}/{total} {verb} ({pct:.1f}%) in {count} files")
        if a.verbose:
            for line in failures:
                print("  " + line)

    for target in a.targets.split(","):
        tally(f"check cases --target={target}", (run_checks(a.bin, f, target, a.verbose) for f in check_files),
              "pass", len(check_files))
    tally("verify-fixture cases, -verify (codes, substrings and parameters)",
          (run_verify(a.bin, f, a.verbose) for f in verify_files), "match", len(verify_files))

    def code_line(f):
        m, t, failing = run_code_line(a.bin, f)
        return m, t, [f"{f}: case {c}" for c in failing]
    tally("verify-fixture cases, code and line", (code_line(f) for f in verify_files), "match", len(verify_files))
    tally("roundtrip-fixture cases, print and re-parse", (run_roundtrip(a.bin, f) for f in roundtrip_files), "match",
          len(roundtrip_files))
    return 0


if __name__ == "__main__":
    sys.exit(main())

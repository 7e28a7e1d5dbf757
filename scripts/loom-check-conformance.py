#!/usr/bin/env python3
"""Measures hrx against upstream Loom's own tests, in a scratch directory of upstream files
(never committed): the share of upstream check cases `hrx check` passes per target, and the
share of upstream verify-fixture cases `hrxcc -fsyntax-only -verify --split-input-file` matches.

usage: scripts/loom-check-conformance.py [--bin build/bin] [--targets host,gfx1151] [-v] DIR...

A check case counts as passing when hrx check prints PASS for it (SKIP and FAIL do not pass;
benchmarks are not cases); a file that only declares a kernel or function is checked with the
sibling .loom files defining it (`hrx check --link`), and so is one applying a template whose
providers are in sibling files, and a test module under `testdata/` with the
kernel source at the same path without `testdata/` (upstream's id4 build links them so). Configuration values are bound as upstream's
own test build binds them: the `configs = ["key=value", ...]` of the rule in the BUILD.bazel beside
the file whose sources include it (upstream's `loom_link_module(configs=...)`, whose runner takes
them as `--config`), for the keys the file declares, and the `args = ["--config=k=v", ...]` of each
`loom_test` rule listing the file (a sweep: a case passes when it passes in every such run, linked
with the rule's other srcs). A verify fixture is a file whose RUN line says `verify`; each of its
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

from loom_testdata import library_of_test_module, template_providers


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


def linked_library_of_test_module(path):
    """The kernel source a `testdata/` test module links, when it is present (loom_testdata.py)."""
    library = library_of_test_module(path)
    return [library] if library and os.path.exists(library) else []


def sibling_definitions(path, text):
    """Sibling .loom files defining what `path` only declares (upstream keeps a tests.loom beside
    the kernel.loom it declares), and the library of a testdata/ test module."""
    declared = set(re.findall(r"^(?:kernel|func)\.decl\b[^@\n]*@([\w.$]+)", text, re.M))
    links = linked_library_of_test_module(path)
    if not declared:
        return links + [p for p in template_providers(path, text) if p not in links]
    folder = os.path.dirname(path)
    for name in sorted(os.listdir(folder)):
        other = os.path.join(folder, name)
        if other == path or not name.endswith(".loom"):
            continue
        body = open(other, encoding="utf-8", errors="replace").read()
        defined = set(re.findall(r"^(?:kernel|func)\.def\b[^@\n]*@([\w.$]+)", body, re.M))
        if declared & defined:
            links.append(other)
    return links + [p for p in template_providers(path, text) if p not in links]


_BAZEL_RULE = re.compile(r"^\w+\((.*?)^\)", re.M | re.S)
_BAZEL_CASE = re.compile(r'\{[^{}]*"actual_case"\s*:\s*"@([\w.$]+)"[^{}]*\}', re.S)


def build_files(path, root, overlay):
    """BUILD.bazel files of `path`'s folder and its ancestors up to `root`, nearest first, as
    found beside them or at the same place under `overlay` (upstream build files kept apart)."""
    found = []
    folder = os.path.dirname(os.path.abspath(path))
    root = os.path.abspath(root)
    while True:
        candidates = [os.path.join(folder, "BUILD.bazel")]
        if overlay:
            candidates.append(os.path.join(overlay, os.path.relpath(folder, root), "BUILD.bazel"))
        for build in candidates:
            if os.path.exists(build):
                found.append((folder, open(build, encoding="utf-8", errors="replace").read()))
                break
        if folder == root or os.path.dirname(folder) == folder or not folder.startswith(root):
            return found
        folder = os.path.dirname(folder)


def bazel_configs(path, text, builds):
    """Configuration as upstream's own test build binds it. Returns (file-wide --config args,
    {case: --config args}): a rule beside the file whose srcs name or glob it (`configs =
    ["key=value", ...]`, upstream's loom_link_module), for the keys the file declares; and the
    per-case entries of an ancestor's case table (`{"actual_case": "@c", "configs":
    ["--config=k=v", ...], "source": "dir/kernel.loom"}`, upstream's id4 build, which runs
    iree-test-loom --case=@c with them on the test module testdata/dir/kernel.loom)."""
    declared = set(re.findall(r"^config\.decl\s+@([\w.$]+)", text, re.M))
    name = os.path.basename(path)
    values, per_case = {}, {}
    for folder, body in builds:
        for entry in _BAZEL_CASE.finditer(body):
            source = re.search(r'"source"\s*:\s*"([^"]+)"', entry.group(0))
            configs = re.search(r'"configs"\s*:\s*\[(.*?)\]', entry.group(0), re.S)
            if not source or not configs:
                continue
            sources = {os.path.join(folder, source.group(1)), os.path.join(folder, "testdata", source.group(1))}
            if os.path.abspath(path) in sources:
                per_case[entry.group(1)] = re.findall(r'"(--config=[^"]*)"', configs.group(1))
        if folder != os.path.dirname(os.path.abspath(path)) or not declared:
            continue
        globbed = any(fnmatch.fnmatch(name, g) for g in re.findall(r'glob\(\s*\[\s*"([^"]+)"', body))
        for rule in _BAZEL_RULE.findall(body):
            configs = re.search(r"\bconfigs\s*=\s*\[(.*?)\]", rule, re.S)
            srcs = re.search(r"\bsrcs\s*=\s*(\[[^\]]*\]|\w+)", rule)
            if not configs or not srcs:
                continue
            listed = srcs.group(1).startswith("[") and f'"{name}"' in srcs.group(1)
            if not listed and not (not srcs.group(1).startswith("[") and globbed):
                continue
            for key, value in re.findall(r'"([^"=]+)=([^"]*)"', configs.group(1)):
                if key in declared:
                    values[key] = value
    return [f"--config={k}={v}" for k, v in sorted(values.items())], per_case


def resolve_source(entry, folder, repo_root):
    """A srcs entry of a BUILD rule in `folder`: "name.loom" or the label "//pkg:path"."""
    if entry.startswith("//"):
        package, _, name = entry[2:].partition(":")
        return os.path.join(repo_root, package, name)
    return os.path.join(folder, entry.lstrip(":"))


def bazel_test_runs(path, builds, repo_root):
    """The runs of upstream's loom_test rules beside the file that list it in srcs and bind
    configuration in args (`args = ["--config=k=v", ...]`) or list C/C++ sources with it:
    [(--config args, other srcs to link)]. Each rule is one run of the file (a sweep runs it under
    several configurations)."""
    runs = []
    folder = os.path.dirname(os.path.abspath(path))
    for build_folder, body in builds:
        if build_folder != folder:
            continue
        for rule in _BAZEL_RULE.findall(body):
            srcs = re.search(r"\bsrcs\s*=\s*\[([^\]]*)\]", rule)
            args = re.search(r"\bargs\s*=\s*\[(.*?)\]", rule, re.S)
            if not srcs:
                continue
            sources = [resolve_source(e, folder, repo_root) for e in re.findall(r'"([^"]+)"', srcs.group(1))]
            if os.path.abspath(path) not in map(os.path.abspath, sources):
                continue
            configs = re.findall(r'"(--config=[^"]*)"', args.group(1)) if args else []
            others = [s for s in sources if os.path.abspath(s) != os.path.abspath(path) and os.path.exists(s)]
            # A rule without configuration still links its other sources (a C++ kernel file).
            if configs or (others and any(not s.endswith(".loom") for s in others)):
                runs.append((configs, others))
    return runs


def hrx_check_cases(bin_dir, path, target, args):
    try:
        p = subprocess.run([os.path.join(bin_dir, "hrx"), "check", "--format=json", "--target=" + target, path] + args,
                           capture_output=True, text=True, timeout=600)
    except subprocess.TimeoutExpired:
        return None, "hrx check did not finish within 600 s"
    try:
        report = json.loads(p.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return None, p.stderr.strip()[:200]
    return [c for c in report["cases"] if c["status"] != "benchmark"], ""


def run_checks(bin_dir, path, target, verbose, root, overlay):
    text = open(path, encoding="utf-8", errors="replace").read()
    links = [arg for other in sibling_definitions(path, text) for arg in ("--link", other)]
    for other in links[1::2]:
        text += open(other, encoding="utf-8", errors="replace").read()  # its config.decls too
    builds = build_files(path, root, overlay)
    file_configs, case_configs = bazel_configs(path, text, builds)
    repo_root = os.path.join(os.path.abspath(root), os.path.relpath(os.path.abspath(path), os.path.abspath(root)).split(os.sep)[0])
    runs = bazel_test_runs(path, builds, repo_root)
    if runs:
        # A case passes when it passes in every run upstream makes of the file; else its first
        # run that did not pass speaks for it.
        cases = None
        for configs, others in runs:
            extra = [arg for other in others for arg in ("--link", other) if other not in links]
            got, why = hrx_check_cases(bin_dir, path, target, links + extra + file_configs + configs)
            if got is None:
                cases = None
                break
            if cases is None:
                cases = got
            else:
                for index, case in enumerate(got):
                    if index < len(cases) and cases[index]["status"] == "pass" and case["status"] != "pass":
                        cases[index] = case
    else:
        cases, why = hrx_check_cases(bin_dir, path, target, links + file_configs)
    if cases is None:
        # No report (hrx check did not finish, or crashed): every case the file lists fails.
        listed, _ = hrx_check_cases(bin_dir, path, target, links + file_configs + ["--list"])
        listed = [c for c in listed or [] if c.get("message") != "check.benchmark"]
        if verbose:
            print(f"  {path}: no JSON ({why}); its {len(listed)} case(s) count as failing")
        return 0, len(listed), [f'{c["file"]}:{c["line"]} {c["name"]}: fail {why}' for c in listed]
    for index, case in enumerate(cases):
        if case["name"] in case_configs:
            rerun, _ = hrx_check_cases(bin_dir, path, target, links + file_configs + case_configs[case["name"]] +
                                       ["--filter=^" + re.escape(case["name"]) + "$"])
            if rerun:
                cases[index] = rerun[0]
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
    ap.add_argument("--only", default=None, help="measure only the files whose path matches this regex")
    ap.add_argument("--build-files", default=None,
                    help="a folder laid out like DIR holding upstream BUILD.bazel files kept apart from the sources")
    a = ap.parse_args()
    files = [f for f in loom_files(a.dirs) if not a.only or re.search(a.only, f)]
    check_files, verify_files, roundtrip_files = [], [], []
    root_of = {}
    for d in a.dirs:
        for f in loom_files([d]):
            root_of.setdefault(f, d)
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
        tally(f"check cases --target={target}", (run_checks(a.bin, f, target, a.verbose, root_of[f], a.build_files) for f in check_files),
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

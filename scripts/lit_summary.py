#!/usr/bin/env python3
"""Turns lit's summary into the closing line 'N passed, N failed[, N skipped]'."""
import re
import sys

text = open(sys.argv[1], encoding="utf-8", errors="replace").read()
lit_status = int(sys.argv[2])
counts = {}
for name, n in re.findall(r"^\s*(Passed|Failed|Unsupported|Expectedly Failed|Unexpectedly Passed|"
                          r"Unresolved|Timed Out|Excluded|Skipped)\s*:\s*(\d+)", text, re.M):
    counts[name] = counts.get(name, 0) + int(n)
passed = counts.get("Passed", 0) + counts.get("Expectedly Failed", 0)
failed = sum(counts.get(k, 0) for k in ("Failed", "Unexpectedly Passed", "Unresolved", "Timed Out"))
skipped = counts.get("Unsupported", 0) + counts.get("Skipped", 0)
if lit_status != 0 and failed == 0:
    failed = 1  # lit itself failed (configuration error, crash): never report green
if passed + failed == 0:
    failed = 1  # a run that executed nothing is a failure
line = f"{passed} passed, {failed} failed"
if skipped:
    line += f", {skipped} skipped"
print(line)
sys.exit(1 if failed else 0)

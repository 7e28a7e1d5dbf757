"""Fails on any symbol libhrx-runtime.so exports outside the allow-list.

usage: check-exports.py ALLOW_LIST NM_OUTPUT  (NM_OUTPUT: llvm-nm -D --defined-only -C)
Prints "N exported symbols, all in the documented API", or each symbol that is not.
"""
import re
import sys

PREFIXES = ("typeinfo name for ", "typeinfo for ", "vtable for ", "VTT for ", "non-virtual thunk to ")


def main():
    allow_path, nm_path = sys.argv[1:3]
    patterns = []
    with open(allow_path) as f:
        for number, line in enumerate(f, 1):
            line = line.strip()
            if line and not line.startswith("#"):
                try:
                    patterns.append(re.compile(line))
                except re.error as e:
                    sys.exit(f"{allow_path}:{number}: bad pattern: {e}")
    names = []
    with open(nm_path) as f:
        for line in f:
            parts = line.rstrip("\n").split(" ", 2)
            if len(parts) == 3:
                names.append(parts[2])
    outside = []
    for name in names:
        bare = name
        for prefix in PREFIXES:
            if bare.startswith(prefix):
                bare = bare[len(prefix):]
                break
        if not any(p.fullmatch(bare) for p in patterns):
            outside.append(name)
    if outside:
        print(f"{len(outside)} of {len(names)} exported symbols are outside the documented API ({allow_path}):")
        for name in outside:
            print(f"  {name}")
        return 1
    print(f"{len(names)} exported symbols, all in the documented API")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Compares the AMDGPU metadata notes of two code objects (llvm-readelf --notes): the kernel
names and, per kernel, every explicit argument's offset, size, value kind, address space and
access qualifiers (.access, .actual_access). Hidden arguments are compared by kind and offset
only when both sides have them. Prints the table it compared; exits 1 on a difference."""
import subprocess
import sys


def kernels(readelf, path):
    text = subprocess.run([readelf, "--notes", path], check=True, capture_output=True, text=True).stdout
    out, current, arg, in_args = {}, None, None, False
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("- .args:") or line == ".args:":
            in_args, current = True, {"args": []}
            arg = {}
            current["args"].append(arg)
            key, _, value = line[2:].partition(":") if line.startswith("- ") else ("", "", "")
            continue
        if in_args and line.startswith("- ."):
            arg = {}
            current["args"].append(arg)
            line = line[2:]
        key, _, value = line.partition(":")
        key, value = key.strip(), value.strip()
        if key == ".name" and current is not None:
            out[value] = current
            in_args = False
            current = None
            continue
        if in_args and key in (".offset", ".size", ".value_kind", ".address_space", ".access", ".actual_access"):
            arg[key] = value
        if key in (".group_segment_fixed_size", ".kernarg_segment_size") and current is not None:
            in_args = False
    for k in out.values():
        k["args"] = [a for a in k["args"] if a and not a.get(".value_kind", "").startswith("hidden_")]
    return out


def main():
    readelf, ours, theirs = sys.argv[1:4]
    a, b = kernels(readelf, ours), kernels(readelf, theirs)
    ok = sorted(a) == sorted(b)
    print("kernels:", " ".join(sorted(a)), "" if ok else "| clang: " + " ".join(sorted(b)))
    for name in sorted(set(a) & set(b)):
        for i, (x, y) in enumerate(zip(a[name]["args"], b[name]["args"])):
            same = x == y
            ok &= same
            row = " ".join(f"{k}={v}" for k, v in sorted(x.items()))
            print(f"{name} arg {i}: {row}" + ("" if same else "  | clang: " + " ".join(f"{k}={v}" for k, v in sorted(y.items()))))
        if len(a[name]["args"]) != len(b[name]["args"]):
            ok = False
            print(f"{name}: {len(a[name]['args'])} arguments, clang {len(b[name]['args'])}")
    print("notes match" if ok else "NOTES DIFFER")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

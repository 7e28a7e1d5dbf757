"""Remote-execution stand-ins for test/lit/driver/hermetic*.test.

  sandbox.py copy DEPFILE ROOT DEST
      Creates DEST holding only the files DEPFILE lists (paths relative to ROOT), the way a
      remote-execution worker materializes exactly the declared inputs of an action.
  sandbox.py check-trace TRACE DEPFILE CWD TMPDIR OUTPUT...
      Reads an `strace -f -e trace=%file` log of one compile run in CWD and fails naming every
      path the compiler touched that is neither a listed dependency (or a directory above one),
      an output (or its staging file), nor scratch space under TMPDIR. The dynamic loader's
      library search, which ends with the last shared library it opens, is not the compiler's and
      is skipped.
"""
import os
import re
import shutil
import sys


def dependencies(depfile):
    text = open(depfile).read().replace("\\\n", " ")
    rule = text.split("\n\n")[0]
    _, _, deps = rule.partition(": ")
    names, current, i = [], "", 0
    while i < len(deps):
        c = deps[i]
        if c == "\\" and i + 1 < len(deps) and deps[i + 1] in " #":
            current += deps[i + 1]
            i += 2
            continue
        if c == "$" and deps[i + 1 : i + 2] == "$":
            current += "$"
            i += 2
            continue
        if c.isspace():
            if current:
                names.append(current)
            current = ""
        else:
            current += c
        i += 1
    if current:
        names.append(current)
    return names


def copy(depfile, root, dest):
    os.makedirs(dest)
    for name in dependencies(depfile):
        if os.path.isabs(name):
            sys.exit(f"sandbox: depfile names an absolute path: {name}")
        target = os.path.join(dest, name)
        os.makedirs(os.path.dirname(target) or dest, exist_ok=True)
        shutil.copyfile(os.path.join(root, name), target)
    print(f"sandbox: {len(dependencies(depfile))} files")


LOADER = re.compile(r"(\.so(\.\d+)*|/ld\.so\.(cache|preload))$")
CALL = re.compile(r'^\d+\s+(\w+)\((?:[^"]*?)"([^"]*)"')


def check_trace(trace, depfile, cwd, tmpdir, outputs):
    cwd = os.path.realpath(cwd)
    allowed = set()
    for name in dependencies(depfile):
        path = os.path.normpath(os.path.join(cwd, name))
        while path != os.path.dirname(path):
            allowed.add(path)
            path = os.path.dirname(path)
    staged = [os.path.normpath(os.path.join(cwd, o)) for o in outputs]
    tmpdir = os.path.realpath(tmpdir)
    calls = [m for m in map(CALL.match, open(trace)) if m and m.group(2)]
    loaded = max((i for i, m in enumerate(calls) if LOADER.search(m.group(2))), default=-1)
    bad, seen = [], 0
    for m in calls[loaded + 1 :]:
        path = m.group(2)
        if path == "/proc/self/exe":
            continue
        seen += 1
        full = os.path.normpath(os.path.join(cwd, path))
        if full in allowed or full == cwd or full.startswith(tmpdir + "/"):
            continue
        # An output, or the hidden staging file it is written through (".name.tmp-XXXX").
        d, b = os.path.split(full)
        if any(full == o or (d == os.path.dirname(o) and b.startswith("." + os.path.basename(o) + ".tmp-"))
               for o in staged):
            continue
        bad.append(f"{m.group(1)}: {path}")
    for entry in sorted(set(bad)):
        print(f"hermetic: undeclared access {entry}")
    print(f"hermetic: {'ok' if not bad else 'FAILED'}, {seen} accesses checked")
    return 0 if not bad else 1


if __name__ == "__main__":
    if sys.argv[1] == "copy":
        copy(*sys.argv[2:5])
    elif sys.argv[1] == "check-trace":
        sys.exit(check_trace(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6:]))
    else:
        sys.exit("usage: sandbox.py copy|check-trace ...")

"""run_tutorial.py TUTORIAL.md WORKDIR: runs docs/tutorial.md as a newcomer would, in order.

In the markdown, a code block right after `<!-- file: NAME -->` is written to WORKDIR/NAME; in a
```sh block each `$ ` line (with `\\` continuations) is a command, run by bash in WORKDIR, which
must succeed; a ```text block after commands lists lines that must appear in the output of the
commands just run (stdout and stderr), `...` standing for anything. Prints one line per command.
"""
import os
import re
import subprocess
import sys

tutorial, workdir = sys.argv[1:3]
os.makedirs(workdir, exist_ok=True)
lines = open(tutorial).read().splitlines()
pending_file, output, failures, commands = None, "", 0, 0
i = 0
while i < len(lines):
    line = lines[i]
    marker = re.match(r"<!-- file: (\S+) -->", line)
    if marker:
        pending_file = marker.group(1)
    elif line.startswith("```"):
        kind = line[3:].strip()
        body = []
        i += 1
        while not lines[i].startswith("```"):
            body.append(lines[i])
            i += 1
        if pending_file:
            path = os.path.join(workdir, pending_file)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as out:
                out.write("\n".join(body) + "\n")
            pending_file = None
        elif kind == "sh":
            output = ""
            command = ""
            for text in body:
                if text.startswith("$ "):
                    command = text[2:]
                elif command:
                    command += "\n" + text
                if command and not command.endswith("\\"):
                    result = subprocess.run(["bash", "-c", command], cwd=workdir, capture_output=True, text=True)
                    output += result.stdout + result.stderr
                    commands += 1
                    print("%s: exit %d" % (command.split()[0] + " " + command.split()[1], result.returncode))
                    if result.returncode != 0:
                        failures += 1
                        print("FAILED: %s\n%s%s" % (command, result.stdout, result.stderr))
                    command = ""
        elif kind == "text" and output:
            for expected in body:
                if not expected.strip():
                    continue
                pattern = ".*".join(re.escape(part) for part in expected.strip().split("..."))
                if not re.search(pattern, output):
                    failures += 1
                    print("MISSING OUTPUT: %r\nin:\n%s" % (expected, output))
    i += 1
print("tutorial: %d commands, %d failures" % (commands, failures))
sys.exit(1 if failures else 0)

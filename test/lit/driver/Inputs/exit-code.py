# Runs a command and fails unless it exits with the expected code: exit-code.py CODE CMD ARGS...
# The command's output passes through for FileCheck.
import subprocess
import sys

expected = int(sys.argv[1])
code = subprocess.call(sys.argv[2:])
if code != expected:
    sys.stderr.write(f"exit-code.py: expected exit code {expected}, got {code}\n")
    sys.exit(1)

# Prints the part of a Markdown file between the "BEGIN GENERATED" and "END GENERATED" markers.
import sys

lines = open(sys.argv[1], encoding="utf-8").read().splitlines(keepends=True)
begin = next(i for i, line in enumerate(lines) if "BEGIN GENERATED" in line)
end = next(i for i, line in enumerate(lines) if "END GENERATED" in line)
sys.stdout.write("".join(lines[begin + 1:end]))

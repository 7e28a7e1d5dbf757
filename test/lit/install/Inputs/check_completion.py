"""check_completion.py <completion-file> <options-file> [<command path>]: every option spelling
listed in <options-file> (one per line, as printed by --help, e.g. --target=<t> trimmed to
--target=) is a word of the completion's option list for <command path> (default: the tool,
the completion file's name; e.g. "hrx inspect"); prints the missing ones and fails otherwise."""
import os
import re
import sys

completion_path, options_path = sys.argv[1], sys.argv[2]
command = sys.argv[3] if len(sys.argv) > 3 else os.path.basename(completion_path)
text = open(completion_path).read()
match = re.search(r'options\["%s"\]="([^"]*)"' % re.escape(command), text)
if not match:
    sys.exit("%s: no option list for '%s'" % (completion_path, command))
offered = set(match.group(1).split())
expected = [line.strip() for line in open(options_path) if line.strip()]
if not expected:
    sys.exit("%s: no options read from --help" % options_path)
missing = [option for option in expected if option not in offered]
if missing:
    sys.exit("%s: missing %s" % (completion_path, " ".join(missing)))
print("%d options offered" % len(expected))

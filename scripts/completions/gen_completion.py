#!/usr/bin/env python3
"""Writes a bash completion for an hrx tool from the option tables its --help prints (for a tool
with subcommands, also `TOOL SUB... --help` for each subcommand).

usage: gen_completion.py <tool-name> <tool-executable> <output-file>

Reads both help layouts in use: hrxcc's (`  --target=<target>   text`, `  -o <file>   text`)
and CLI11's (`  -h,--help   text`, `  --entry,--function TEXT   text`, plus `Subcommands:`).
Options that take a value joined by '=' complete without a trailing space.
"""
import re
import subprocess
import sys

OPTION_LINE = re.compile(r"^  (-\S*)")
SUBCOMMAND_LINE = re.compile(r"^  ([a-z][\w-]*)\s")


def option_words(spelling):
    """`--target=<target>` -> ['--target='], `-h,--help` -> ['-h', '--help'], `-O<level>` -> ['-O']."""
    words = []
    for part in spelling.split(","):
        word = re.split(r"[<\[]", part, maxsplit=1)[0]
        if word:
            words.append(word)
    return words


def parse_help(text):
    options, subcommands = [], []
    section = ""
    for line in text.splitlines():
        if line and not line.startswith(" "):
            section = line.rstrip(":")
            continue
        match = OPTION_LINE.match(line)
        if match:
            options.extend(w for w in option_words(match.group(1)) if w not in options)
        elif section == "Subcommands":
            match = SUBCOMMAND_LINE.match(line)
            if match:
                subcommands.append(match.group(1))
    return options, subcommands


def read_tree(executable, path=()):
    """{path: (options, subcommands)} for the tool and, recursively, each subcommand's --help."""
    result = subprocess.run([executable, *path, "--help"], capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError("'%s --help' failed (exit %d):\n%s"
                           % (" ".join([executable, *path]), result.returncode, result.stderr))
    options, subcommands = parse_help(result.stdout)
    tree = {path: (options, subcommands)}
    for subcommand in subcommands:
        tree.update(read_tree(executable, path + (subcommand,)))
    return tree


def render(tool, tree):
    function = "_" + re.sub(r"\W", "_", tool)
    key = lambda path: " ".join((tool,) + path)
    lines = [
        "# bash completion for %s, generated from `%s [SUBCOMMAND...] --help` by scripts/completions/gen_completion.py."
        % (tool, tool),
        "%s() {" % function,
        '  local current="${COMP_WORDS[COMP_CWORD]}" path="%s" word i' % tool,
        "  local -A options subcommands",
    ]
    for path, (options, subcommands) in tree.items():
        lines.append('  options["%s"]="%s"' % (key(path), " ".join(options)))
        if subcommands:
            lines.append('  subcommands["%s"]="%s"' % (key(path), " ".join(subcommands)))
    lines += [
        "  # The subcommand path: each earlier word that names a subcommand of the path so far.",
        "  for ((i = 1; i < COMP_CWORD; i++)); do",
        '    word="${COMP_WORDS[i]}"',
        '    if [[ " ${subcommands[$path]} " == *" $word "* ]]; then path="$path $word"; fi',
        "  done",
        '  if [[ "$current" != -* && -n "${subcommands[$path]}" ]]; then',
        '    COMPREPLY=($(compgen -W "${subcommands[$path]}" -- "$current"))',
        '  elif [[ "$current" == -* ]]; then',
        '    COMPREPLY=($(compgen -W "${options[$path]}" -- "$current"))',
        "    # Joined-value options (--target=) take their value without a space.",
        '    if [[ ${#COMPREPLY[@]} -eq 1 && "${COMPREPLY[0]}" == *= ]]; then compopt -o nospace; fi',
        "  else",
        '    COMPREPLY=($(compgen -f -- "$current"))',
        "  fi",
        "}",
        "complete -o filenames -F %s %s" % (function, tool),
        "",
    ]
    return "\n".join(lines)


def main(argv):
    if len(argv) != 4:
        sys.stderr.write("usage: gen_completion.py <tool-name> <tool-executable> <output-file>\n")
        return 2
    tool, executable, output = argv[1:]
    try:
        tree = read_tree(executable)
    except RuntimeError as error:
        sys.stderr.write("gen_completion.py: %s" % error)
        return 1
    if not tree[()][0]:
        sys.stderr.write("gen_completion.py: no options found in '%s --help'\n" % executable)
        return 1
    with open(output, "w") as out:
        out.write(render(tool, tree))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

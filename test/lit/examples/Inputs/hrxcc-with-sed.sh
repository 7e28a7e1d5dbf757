#!/usr/bin/env bash
# hrxcc ($REAL_HRXCC) with every .loom/.cpp input first rewritten by the sed script $SED_SCRIPT
# into a scratch copy: lets a test hand an example a wrong kernel through $HRXCC.
set -euo pipefail
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
arguments=()
for argument in "$@"; do
  case "$argument" in
    *.loom | *.cpp)
      copy="$scratch/$(basename "$argument")"
      sed -e "$SED_SCRIPT" "$argument" > "$copy"
      arguments+=("$copy")
      ;;
    *) arguments+=("$argument") ;;
  esac
done
"$REAL_HRXCC" "${arguments[@]}"

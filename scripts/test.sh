#!/usr/bin/env bash
# README test command: set up, build, then run every lit and unit test; then, unless lit
# arguments were given or HRX_SANITIZERS=0, the sanitizer stage (scripts/sanitize.sh: ASan+UBSan
# and TSan builds of the runtime layers, docs/testing.md "Sanitizers"). Ends with the line
# "N passed, N failed[, N skipped]" counting both, and exits non-zero on any failure.
# Extra arguments are passed to lit (e.g. a filter: scripts/test.sh --filter=diag).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${HRX_BUILD_DIR:-$root/build}
HRX_BUILD_DIR=$build bash "$root/scripts/build.sh"
cmake --build "$build" --target check-deps >/dev/null
# The lit CMake found (test/CMakeLists.txt writes its path into the build directory).
lit=$(<"$build/lit-path")
log=$(mktemp)
trap 'rm -f "$log"' EXIT
set +e
"$lit" -sv --order=lexical "$@" "$build/test" "$build/test/unit" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
if [[ $# -eq 0 && ${HRX_SANITIZERS:-1} != 0 ]]; then
  HRX_BUILD_DIR=$build bash "$root/scripts/sanitize.sh" 2>&1 | tee -a "$log"
  [[ ${PIPESTATUS[0]} -eq 0 ]] || status=1
fi
set -e
python3 "$root/scripts/lit_summary.py" "$log" "$status"

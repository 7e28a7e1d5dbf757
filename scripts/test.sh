#!/usr/bin/env bash
# README test command: set up, build, then run every lit and unit test. Ends with the line
# "N passed, N failed[, N skipped]" and exits non-zero on any failure.
# Extra arguments are passed to lit (e.g. a filter: scripts/test.sh --filter=diag).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${HRX_BUILD_DIR:-$root/build}
HRX_BUILD_DIR=$build bash "$root/scripts/build.sh"
cmake --build "$build" --target check-deps >/dev/null
log=$(mktemp)
trap 'rm -f "$log"' EXIT
set +e
/usr/lib/llvm-22/bin/lit -sv --order=lexical "$@" "$build/test" "$build/test/unit" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e
python3 "$root/scripts/lit_summary.py" "$log" "$status"

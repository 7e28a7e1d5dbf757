#!/usr/bin/env bash
# Regenerates docs/diagnostics.md from the diagnostic registry (defs/*.def) and the prose in
# frontend/diag/DiagDocsIntro.md.inc. Builds only the generator, in ${HRX_BUILD_DIR:-build}.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${HRX_BUILD_DIR:-$root/build}
if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$root" -B "$build" -G Ninja \
    -DCMAKE_BUILD_TYPE="${HRX_BUILD_TYPE:-Release}" \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 >/dev/null
fi
if ! log=$(cmake --build "$build" --target hrx-diag-docs 2>&1); then
  echo "$log" >&2
  echo "gen-diag-docs: building hrx-diag-docs in $build failed" >&2
  exit 1
fi
tmp=$(mktemp "$root/docs/.diagnostics.md.XXXXXX")
trap 'rm -f "$tmp"' EXIT
"$build/bin/hrx-diag-docs" > "$tmp"
mv "$tmp" "$root/docs/diagnostics.md"
trap - EXIT
echo "wrote docs/diagnostics.md"

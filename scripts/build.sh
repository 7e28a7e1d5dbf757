#!/usr/bin/env bash
# Configures (once) and builds hrx into ${HRX_BUILD_DIR:-build}. Incremental.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${HRX_BUILD_DIR:-$root/build}
bash "$root/scripts/setup.sh"
if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$root" -B "$build" -G Ninja \
    -DCMAKE_BUILD_TYPE="${HRX_BUILD_TYPE:-Release}" \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    ${HRX_CMAKE_ARGS:-} >/dev/null
fi
cmake --build "$build" -- ${HRX_NINJA_ARGS:-}

#!/usr/bin/env bash
# The sanitizer stage of scripts/test.sh: builds the layers that link no LLVM (runtime/, the
# format library, hrx-run, hrx) with ASan+UBSan and with TSan, each in a build directory of its
# own, and runs the subsets docs/testing.md lists under "Sanitizers". Prints lit's output (test.sh
# adds its counts to the closing line) and exits non-zero on any failure; every sanitizer report
# aborts the process that made it, so it fails its test even under `not`.
#
#   scripts/sanitize.sh [address] [thread]      (default: both)
#
# Environment: HRX_BUILD_DIR (the main build; default build), HRX_ASAN_BUILD_DIR (default
# $HRX_BUILD_DIR-asan), HRX_TSAN_BUILD_DIR (default $HRX_BUILD_DIR-tsan), HRX_JOBS (default 2).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
main_build=${HRX_BUILD_DIR:-$root/build}
jobs=${HRX_JOBS:-2}
if [[ $# -gt 0 ]]; then stages=("$@"); else stages=(address thread); fi

export ASAN_OPTIONS=abort_on_error=1:halt_on_error=1:detect_leaks=1:check_initialization_order=1
export UBSAN_OPTIONS=abort_on_error=1:halt_on_error=1:print_stacktrace=1
export TSAN_OPTIONS=abort_on_error=1:halt_on_error=1:second_deadlock_stack=1

# -O1 and line tables only: a quarter less compile time than -O2 -g, and reports still name
# files and lines.
flags="-O1 -g1 -DNDEBUG"

# configure_and_build DIR SANITIZERS TARGETS...: quiet unless the build fails.
configure_and_build() {
  local dir=$1 sanitizers=$2 log
  shift 2
  log=$(mktemp)
  if ! { [[ -f $dir/build.ninja ]] ||
         cmake -S "$root" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
               -DCMAKE_C_FLAGS_RELWITHDEBINFO="$flags" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$flags" \
               -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
               -DHRX_SANITIZE="$sanitizers" ${HRX_CMAKE_ARGS:-}; } >"$log" 2>&1 ||
     ! cmake --build "$dir" --target "$@" -- -j"$jobs" >>"$log" 2>&1; then
    echo "sanitize.sh: the $sanitizers build in $dir failed:" >&2
    tail -40 "$log" >&2
    rm -f "$log"
    return 1
  fi
  rm -f "$log"
  # The lit CMake found for this build (test/CMakeLists.txt writes its path).
  lit=$(<"$dir/lit-path")
}

# The lit tests of test/lit/AREA... that need no compiler (they never run %hrxcc), as a --filter
# regex over their names.
compiler_free_tests() {
  local area file names=()
  for area in "$@"; do
    for file in "$root/test/lit/$area"/*.test; do
      grep -q '%hrxcc' "$file" || names+=("$area/$(basename "$file" .test)")
    done
  done
  local IFS='|'
  printf '(%s)\\.test$' "${names[*]}"
}

status=0
run_lit() { "$lit" -sv --order=lexical "$@" || status=1; }

for stage in "${stages[@]}"; do
  case $stage in
    address)
      # ASan+UBSan: the format and runtime unit tests, and the lit tests of hrx-run, hrx, hrx-mc and the
      # hostile-artifact mutations that need no compiler (their artifacts come from the format
      # library's writers: hrx-runtime-testgen, hrx-format-testgen).
      dir=${HRX_ASAN_BUILD_DIR:-$main_build-asan}
      echo "sanitize.sh: ASan+UBSan build in $dir"
      if configure_and_build "$dir" address,undefined FormatTests RuntimeTests RunnerValuesTests IndexFoldTests \
           hrx-run hrx hrx-mc hrx-runtime-testgen hrx_test_host_kernels hrx-format-testgen hrx-artifact-mutate; then
        run_lit "$dir/test/unit/format" "$dir/test/unit/runtime"
        # The compiler's constant folder (loom-bridge/core/IndexFold.h), without the rest of the bridge.
        run_lit "$dir/test/unit/bridge" --filter='IndexFoldTests'
        run_lit "$dir/test" --filter="$(compiler_free_tests runtime hrx robustness)"
      else
        status=1
      fi
      ;;
    thread)
      # TSan: the runtime's unit tests (lanes, completions, the 10,000-submission stress test
      # from 4 threads, host NPU workers and GPU SPMD over the thread pool) and hrx-run on host
      # NPU and GPU entries.
      dir=${HRX_TSAN_BUILD_DIR:-$main_build-tsan}
      echo "sanitize.sh: TSan build in $dir"
      if configure_and_build "$dir" thread RuntimeTests hrx_test_host_kernels hrx-run hrx-runtime-testgen; then
        run_lit "$dir/test/unit/runtime"
        run_lit "$dir/test" --filter='runtime/(run-npu-host|run-gpu-host|timeout)\.test$'
      else
        status=1
      fi
      ;;
    *)
      echo "sanitize.sh: unknown stage '$stage' (address or thread)" >&2
      exit 2
      ;;
  esac
done
exit $status

#!/usr/bin/env bash
# Installs exactly the Debian packages hrx needs. Idempotent; quiet when all are present.
set -euo pipefail
packages=(
  # LLVM/Clang/lld 22 (bookworm-security) as shared libraries, plus lit and FileCheck.
  llvm-22-dev llvm-22-tools libclang-22-dev libclang-cpp22-dev clang-22 lld-22 liblld-22-dev
  # The sanitizer and libFuzzer runtimes (only recommended by clang-22; the sanitizer CI needs them).
  libclang-rt-22-dev
  # Project libraries.
  libcli11-dev nlohmann-json3-dev libzstd-dev libgtest-dev libgmock-dev
  # <linux/kfd_ioctl.h>: the KFD GPU device (runtime/core/kfd) uses the system's header.
  linux-libc-dev
  # Build tools.
  cmake ninja-build python3 pkg-config
  # The .clang-format style (git clang-format-22 on changed lines; docs/BUILDING.md).
  clang-format-22
  # Test tools: hermetic-trace.test watches hrxcc's file accesses with strace.
  strace
  # test/lit/xdna/plan-svg-chromium.test renders hrx's array-plan SVG headless (skipped without it).
  chromium
  # test/lit/driver/ccache.test shows hrxcc -c under ccache's depend mode (docs/distributed-builds.md).
  ccache
  # HIP units for gfx1151: ROCm's device libraries (ocml/ockl bitcode), linked into every HIP
  # kernel's code object; hrx mounts them read-only into the importer as declared inputs.
  rocm-device-libs
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "hrx setup: installing ${missing[*]}" >&2
SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq "${missing[@]}" >/dev/null

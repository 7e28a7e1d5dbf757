#!/usr/bin/env bash
# Hardware checks on a qualified Strix Halo (NPU5 PCI 1022:17f0 revision 0x11 under amdxdna,
# gfx1151 iGPU). Elsewhere it prints what it found and exits 77 (skipped). Reads sysfs through
# $HRX_SYSFS_ROOT (default /sys), like the runtime's admission.
#
# On qualified hardware it runs each xdna example image with hrx-run --device=npu (the amdxdna
# uAPI) and compares its outputs byte for byte with --device=host, then runs every example on the
# native devices (--device=npu, never the host fallback of --device=auto), so a failure there is a real hardware failure. Today
# hrxcc's .xdna images are reference-only (no AIE2P core code generator), so on real hardware the
# NPU checks fail with that explanation (docs/runtime.md); this script reports it rather than
# hiding it. With HRX_AMDXDNA=emulated the npu device is the emulated amdxdna. Nothing has run on
# a real NPU yet.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${HRX_BUILD_DIR:-$root/build}/bin
sysfs=${HRX_SYSFS_ROOT:-/sys}

skip() {
  echo "test-npu-hardware: SKIPPED: $*"
  exit 77
}

npu=""
found=""
for node in "$sysfs"/class/accel/*; do
  [ -d "$node/device" ] || continue
  vendor=$(cat "$node/device/vendor" 2>/dev/null)
  device=$(cat "$node/device/device" 2>/dev/null)
  revision=$(cat "$node/device/revision" 2>/dev/null)
  driver=$(basename "$(readlink "$node/device/driver" 2>/dev/null)" 2>/dev/null)
  found+=" $(basename "$node"): PCI ${vendor#0x}:${device#0x} revision ${revision:-?} under driver ${driver:-none};"
  if [ "$vendor" = 0x1022 ] && [ "$device" = 0x17f0 ] && [ "$revision" = 0x11 ] && [ "$driver" = amdxdna ]; then
    npu=$(basename "$node")
  fi
done
[ -n "$npu" ] || skip "no qualified NPU5 under $sysfs/class/accel (found:${found:- nothing}); required PCI 1022:17f0 revision 0x11 under driver amdxdna"

gpu=""
for properties in "$sysfs"/class/kfd/kfd/topology/nodes/*/properties; do
  version=$(awk '$1 == "gfx_target_version" { print $2 }' "$properties" 2>/dev/null)
  if [ -n "$version" ] && [ "$version" != 0 ]; then
    gpu=$version
    break
  fi
done
[ "$gpu" = 110501 ] || skip "NPU5 $npu found, but the first KFD GPU is gfx_target_version ${gpu:-none}; required 110501 (gfx1151)"

for tool in shared_roundtrip shared_bench gemm_pipeline gpu_npu_parallel hrx-run; do
  [ -x "$bin/$tool" ] || { echo "test-npu-hardware: FAILED: $bin/$tool is missing; build with scripts/build.sh" >&2; exit 1; }
done

echo "test-npu-hardware: qualified hardware: NPU5 $npu, gfx1151"
# The npu device drives the amdxdna uAPI itself (HRX_AMDXDNA=native) unless told otherwise.
export HRX_AMDXDNA=${HRX_AMDXDNA:-native}
status=0

# Each xdna example image on the npu device (amdxdna) against the host reference device, on the
# same random bindings: the outputs must be byte-identical.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
compare() {
  local image=$1
  shift
  local args=() outs_host=() outs_npu=() i=0
  for size in "$@"; do
    head -c "$size" /dev/urandom >"$work/b$i"
    args+=("--binding=$work/b$i")
    outs_host+=("--output=$i=$work/host$i")
    outs_npu+=("--output=$i=$work/npu$i")
    i=$((i + 1))
  done
  echo "== hrx-run --device=npu $image"
  if ! "$bin/hrx-run" "$image" --device=host "${args[@]}" "${outs_host[@]}" >/dev/null 2>"$work/log" ||
    ! env -u HRX_DEVICE "$bin/hrx-run" "$image" --device=npu "${args[@]}" "${outs_npu[@]}" >/dev/null 2>"$work/log"; then
    grep 'error' "$work/log" >&2
    echo "test-npu-hardware: FAILED: $image on the npu device" >&2
    status=1
    return
  fi
  for ((j = 0; j < i; j++)); do
    if ! cmp -s "$work/host$j" "$work/npu$j"; then
      echo "test-npu-hardware: FAILED: $image binding $j differs between the npu and host devices" >&2
      status=1
      return
    fi
  done
  echo "test-npu-hardware: npu matches host: $image"
}
compare "$bin/copy-256.xdna" 1048576 1048576
compare "$bin/batched_gemm-1.xdna" 128 128 256
compare "$bin/batched_gemm-1024.xdna" 131072 131072 262144

check() {
  echo "== $*"
  if ! env -u HRX_DEVICE "$@"; then
    echo "test-npu-hardware: FAILED: $*" >&2
    status=1
  fi
}
check "$bin/shared_roundtrip" --device=npu
check "$bin/shared_bench" --device=npu
check "$bin/gemm_pipeline" --device=npu
check "$bin/gpu_npu_parallel" --device=npu
exit $status

#!/usr/bin/env bash
# GPU hardware checks on a qualified gfx1151 through KFD (--device=gpu). Elsewhere it prints
# what it found and exits 77 (skipped). Reads sysfs through $HRX_SYSFS_ROOT (default /sys),
# like the runtime's admission.
#
# On a qualified machine it runs the GPU examples with --device=gpu (their NPU work on the host
# reference device) and hrx-run over the GPU kernels the lit tests use, each on --device=gpu and
# --device=host with the same inputs, and requires byte-identical outputs. Nothing in this
# repository has run on the hardware until someone runs this script there (docs/runtime.md).
# HRX_KFD=emulated runs the same checks against the emulated KFD (for testing this script; it is
# then not a hardware run, and says so).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${HRX_BUILD_DIR:-$root/build}/bin
sysfs=${HRX_SYSFS_ROOT:-/sys}

skip() {
  echo "test-gpu-hardware: SKIPPED: $*"
  exit 77
}

node=""
version=""
for properties in "$sysfs"/class/kfd/kfd/topology/nodes/*/properties; do
  v=$(awk '$1 == "gfx_target_version" { print $2 }' "$properties" 2>/dev/null)
  if [ -n "$v" ] && [ "$v" != 0 ]; then
    version=$v
    node=$(basename "$(dirname "$properties")")
    break
  fi
done
[ "$version" = 110501 ] ||
  skip "no qualified GPU: the first KFD GPU under $sysfs/class/kfd/kfd/topology/nodes is gfx_target_version ${version:-none}; required 110501 (gfx1151)"
minor=$(awk '$1 == "drm_render_minor" { print $2 }' "$sysfs/class/kfd/kfd/topology/nodes/$node/properties")
render=/dev/dri/renderD${minor:-?}

if [ "${HRX_KFD:-linux}" = emulated ]; then
  echo "test-gpu-hardware: using the emulated KFD (HRX_KFD=emulated): this is NOT a hardware run"
else
  for dev in /dev/kfd "$render"; do
    [ -e "$dev" ] || skip "gfx1151 at KFD node $node, but $dev does not exist (is the amdgpu driver with KFD loaded?)"
    [ -r "$dev" ] && [ -w "$dev" ] ||
      skip "gfx1151 at KFD node $node, but $dev is not readable and writable by $(id -un) (group $(stat -c %G "$dev")); add the user to that group"
  done
fi

for tool in hrxcc hrx-run gemm_pipeline gpu_npu_parallel; do
  [ -x "$bin/$tool" ] || { echo "test-gpu-hardware: FAILED: $bin/$tool is missing; build with scripts/build.sh" >&2; exit 1; }
done

echo "test-gpu-hardware: qualified hardware: gfx1151 at KFD node $node ($render)"
status=0
failed() {
  echo "test-gpu-hardware: FAILED: $*" >&2
  status=1
}
check() {
  echo "== $*"
  env -u HRX_DEVICE "$@" || failed "$*"
}
check "$bin/gpu_npu_parallel" --device=gpu
check "$bin/gemm_pipeline" --device=gpu

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
inputs=$root/test/lit/amdgpu/Inputs
python3 -c "import struct, sys; sys.stdout.buffer.write(struct.pack('<200i', *[i * 7 % 23 - 11 for i in range(200)]))" > "$work/x.bin"
python3 -c "import struct, sys; sys.stdout.buffer.write(struct.pack('<1024f', *[(i * 3 + 1) % 7 - 3 for i in range(1024)]))" > "$work/a.bin"
python3 -c "import struct, sys; sys.stdout.buffer.write(struct.pack('<1024f', *[(i * 5 + 2) % 9 - 4 for i in range(1024)]))" > "$work/b.bin"
python3 -c "import struct, sys; sys.stdout.buffer.write(struct.pack('<64i', *[(i * 29) % 61 - 30 for i in range(64)]))" > "$work/lanes.bin"
python3 -c "import struct, sys; sys.stdout.buffer.write(struct.pack('<300f', *[(i * 37) % 101 - 50.5 for i in range(300)]))" > "$work/max.bin"
python3 -c "import struct, sys; sys.stdout.buffer.write(struct.pack('<4096i', *[i * 37 % 2001 - 1000 for i in range(4096)]))" > "$work/in.bin"

# compare NAME SOURCE-ARGS -- RUN-ARGS: compile, run on gpu and host, compare every output.
compare() {
  local name=$1
  shift
  local compile=()
  while [ "$1" != -- ]; do compile+=("$1"); shift; done
  shift
  echo "== $name: gpu vs host"
  if ! "$bin/hrxcc" --offload-arch=gfx1151 "${compile[@]}" -o "$work/$name.hsaco"; then
    failed "hrxcc ${compile[*]}"
    return
  fi
  for device in gpu host; do
    if ! env -u HRX_DEVICE "$bin/hrx-run" "$work/$name.hsaco" --device=$device "$@" > "$work/$name.$device.txt"; then
      failed "$name on --device=$device"
      return
    fi
  done
  cmp -s "$work/$name.gpu.txt" "$work/$name.host.txt" || failed "$name: --device=gpu and --device=host outputs differ"
}
compare add --config=add.groups=4 "$inputs/add_delta.loom" -- --workload=500 --input=i64=500 --input=f32=1.5 --input=500xf32=2
compare sum "$inputs/group_sum.loom" -- --workload=200 --input=i64=200 --input=@"$work/x.bin" --input=4xi32=0
compare gemm-cu --processor-mode=cu "$inputs/tiled_gemm.loom" -- --input=@"$work/a.bin" --input=@"$work/b.bin" --input=1024xf32=0
compare gemm-wgp --processor-mode=wgp "$inputs/tiled_gemm.loom" -- --input=@"$work/a.bin" --input=@"$work/b.bin" --input=1024xf32=0
compare subgroup "$inputs/subgroup.loom" -- --input=@"$work/lanes.bin" --input=64xi64=0
compare max "$inputs/atomic_max.loom" -- --entry=max_device --workload=300 --input=i64=300 --input=@"$work/max.bin" --input=f32=-1000
compare mixed "$inputs/mixed.loom" "$inputs/twice.c" -- --input=64xf32=3
compare counted "$inputs/counted.cpp" -- --input=512xf32=0
compare affine -DELEMENTS=4096 "$root/examples/kernels/affine.cpp" -- --input=@"$work/in.bin" --input=4096xi32=0
exit $status

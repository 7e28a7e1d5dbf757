#!/bin/sh
# make-gfx1151-sysfs.sh DIR: a fake sysfs tree (HRX_SYSFS_ROOT) with the KFD topology of a
# Strix Halo: node 0 the CPU, node 1 the gfx1151 iGPU (40 CUs; docs/runtime.md lists the
# values and which are inferred). The emulated KFD (HRX_KFD=emulated) admits and sizes its
# queue from it.
set -e
nodes="$1/class/kfd/kfd/topology/nodes"
mkdir -p "$nodes/0" "$nodes/1"
printf 'cpu_cores_count 16\nsimd_count 0\ngfx_target_version 0\n' > "$nodes/0/properties"
echo 0 > "$nodes/0/gpu_id"
cat > "$nodes/1/properties" <<PROPS
cpu_cores_count 0
simd_count 80
max_waves_per_simd 16
lds_size_in_kb 64
wave_front_size 32
array_count 4
simd_arrays_per_engine 2
cu_per_simd_array 10
simd_per_cu 2
max_slots_scratch_cu 32
gfx_target_version 110501
vendor_id 4098
device_id 5510
drm_render_minor 128
num_xcc 1
PROPS
echo 52565 > "$nodes/1/gpu_id"

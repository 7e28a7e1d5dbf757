// The seed's affine kernel (examples/kernels/affine.cpp) spelled for plain clang++-22, which has
// neither hrx's <hip/hip_runtime.h> nor the loom:: attributes, and no C library headers for amdgcn
// (bench/amdgpu/compile_vs_clang.py).
extern "C" __attribute__((amdgpu_kernel, amdgpu_flat_work_group_size(256, 256), visibility("protected")))
void affine(const int *input, int *output) {
  unsigned i = __builtin_amdgcn_workgroup_id_x() * 256 + __builtin_amdgcn_workitem_id_x();
  output[i] = input[i] * 3 + 7;
}

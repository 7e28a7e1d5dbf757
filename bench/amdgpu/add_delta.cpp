// The C++ twin of test/lit/amdgpu/Inputs/add_delta.loom, for clang++-22 (bench/amdgpu/compile_vs_clang.py).
extern "C" __attribute__((amdgpu_kernel, visibility("protected"))) void add_delta(long n, float delta,
                                                                                   float *y) {
  long i = long(__builtin_amdgcn_workgroup_id_x()) * 128 + __builtin_amdgcn_workitem_id_x();
  if (i < n) y[i] += delta;
}

// Four kernels; three reach constructs the host twin cannot compile (see host-twin-per-kernel.test).
#include <hip/hip_runtime.h>

extern "C" __global__ void
lane0(int *p) {
  p[threadIdx.x] = __builtin_amdgcn_readfirstlane(p[threadIdx.x]);
}

__device__ float move(float x) {
  float y;
  asm volatile("v_mov_b32 %0, %1" : "=v"(y) : "v"(x));
  return y;
}

extern "C" __global__ void copy_asm(float *out, const float *in) { out[threadIdx.x] = move(in[threadIdx.x]); }
extern "C" __global__ void copy_asm_too(float *out, const float *in) { out[threadIdx.x] = 2 * move(in[threadIdx.x]); }

extern "C" __global__ void twice(int *p) { p[threadIdx.x] *= 2; }

// An hcc-era HIP unit (HIP before ROCm 4): "hip_runtime.h" without "hip/", kernels whose first
// parameter is a hipLaunchParm, the old hipLaunchKernel, HIP_DYNAMIC_SHARED, hc:: intrinsics and
// uint32_t occupancy queries in host code.
#include "hip_runtime.h"
#include <stdint.h>

__global__ void scale(hipLaunchParm lp, float *out, const float *in, float factor) {
  int i = hipBlockDim_x * hipBlockIdx_x + hipThreadIdx_x;
  out[i] = in[i] * factor;
}

__global__ void reverse(hipLaunchParm lp, int *data) {
  HIP_DYNAMIC_SHARED(int, tile)
  unsigned t = hipThreadIdx_x;
  tile[t] = data[t];
  __syncthreads();
  data[t] = tile[hipBlockDim_x - 1 - t];
}

__global__ void nibble(hipLaunchParm lp, uint32_t *out, const uint32_t *in) {
  unsigned i = hipThreadIdx_x;
#ifdef __HIP_PLATFORM_HCC__
  out[i] = hc::__bitextract_u32(in[i], 8, 4);
#else
  out[i] = (in[i] & 0xf00) >> 8;
#endif
}

int main() {
  float *out = nullptr, *in = nullptr;
  int *data = nullptr;
  uint32_t grid = 0, block = 0;
  hipOccupancyMaxPotentialBlockSize(&grid, &block, scale, 0, 0);
  hipLaunchKernel(scale, dim3(4), dim3(64), 0, 0, out, in, 2.0f);
  hipLaunchKernel(HIP_KERNEL_NAME(reverse), dim3(1), dim3(64), 64 * sizeof(int), 0, data);
  return 0;
}

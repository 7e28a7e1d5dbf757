// A HIP-style block reduction through __shared__ memory and __syncthreads(): on gfx1151 LDS
// (ds_* instructions) and s_barrier between workgroup fences.
#include <hip/hip_runtime.h>

extern "C" __global__ [[loom::workgroup_size(128, 1, 1)]]
void block_sum(const float *input, float *sums) {
  __shared__ float partial[128];
  uint32_t item = threadIdx.x;
  partial[item] = input[blockIdx.x * 128 + item];
  __syncthreads();
  for (uint32_t stride = 64; stride > 0; stride /= 2) {
    if (item < stride) partial[item] += partial[item + stride];
    __syncthreads();
  }
  if (item == 0) sums[blockIdx.x] = partial[0];
}

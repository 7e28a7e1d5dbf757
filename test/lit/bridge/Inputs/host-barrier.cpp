// A kernel that waits at a workgroup barrier.
#include <hip/hip_runtime.h>

extern "C" __global__ [[loom::workgroup_size(64, 1, 1)]] void reverse(const int32_t *input, int32_t *output) {
  __shared__ int32_t tile[64];
  tile[threadIdx.x] = input[blockIdx.x * 64 + threadIdx.x];
  __syncthreads();
  output[blockIdx.x * 64 + threadIdx.x] = tile[63 - threadIdx.x];
}

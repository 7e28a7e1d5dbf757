// __shared__ storage without a barrier: thread_local on the host, one workgroup per thread.
#include <hip/hip_runtime.h>

extern "C" __global__ [[loom::workgroup_size(64, 1, 1)]] void stage(const int32_t *input, int32_t *output) {
  __shared__ int32_t tile[64];
  tile[threadIdx.x] = input[blockIdx.x * 64 + threadIdx.x];
  output[blockIdx.x * 64 + threadIdx.x] = tile[threadIdx.x] + 1;
}

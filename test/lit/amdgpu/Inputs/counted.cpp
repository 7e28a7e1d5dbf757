// A fixed grid of 4 workgroups whose size comes from the launch bound (128 work-items each).
#include <hip/hip_runtime.h>

extern "C" __global__ [[loom::workgroup_count(4, 1, 1)]] void __launch_bounds__(128) fill(float *out) {
  out[blockIdx.x * blockDim.x + threadIdx.x] = 1.0f;
}

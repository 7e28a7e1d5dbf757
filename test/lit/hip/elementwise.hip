// Element-wise kernels in the style of the public HIP samples: coordinates, hip* macros,
// size_t bounds checks, __restrict__, scalar arguments.
// RUN: %hip_case --out %t %s | FileCheck %s
// CHECK: notes match
// CHECK-NOT: FAIL
#include <hip/hip_runtime.h>

// CASE: saxpy workload=100
// ARG: f32=2
// ARG: 100xf32=100:range
// ARG: 100xf32=1
// EXPECT: 1 [2 * i + 1 for i in range(100)]
extern "C" __global__ void __launch_bounds__(64) saxpy(const float a, const float *__restrict__ x, float *__restrict__ y) {
  const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < 100) y[i] = a * x[i] + y[i];
}

// CASE: vector_add workload=256
// ARG: 256xi32=0
// ARG: 256xi32=256:range
// ARG: 256xi32=256:range*3
// EXPECT: 0 [4 * i for i in range(256)]
extern "C" __global__ void vector_add(int *out, const int *a, const int *b) {
  size_t i = hipBlockDim_x * hipBlockIdx_x + hipThreadIdx_x;
  out[i] = a[i] + b[i];
}

// CASE: scale_offset workload=64
// ARG: 64xf32=0
// ARG: 64xf32=64:range
// ARG: f32=0.5
// ARG: f32=3
// EXPECT: 0 [i * 0.5 + 3 for i in range(64)]
extern "C" __global__ void __launch_bounds__(64) scale_offset(float *out, const float *in, float scale, float offset) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  out[i] = in[i] * scale + offset;
}

// CASE: grid_stride workload=32
// ARG: 32xi32=0
// ARG: 1000xi32=1000:range
// EXPECT: 0 [sum(range(t, 1000, 32)) for t in range(32)]
extern "C" __global__ void __launch_bounds__(32) grid_stride(int *out, const int *in) {
  int sum = 0;
  for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < 1000; k += blockDim.x * gridDim.x) sum += in[k];
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

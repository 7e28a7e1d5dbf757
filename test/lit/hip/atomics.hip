// HIP atomics on int, unsigned, unsigned long long, float and double; __device__ globals.
// RUN: %hip_case --out %t %s | FileCheck %s
// CHECK: notes match
// CHECK-NOT: FAIL
#include <hip/hip_runtime.h>

// CASE: histogram workload=256
// ARG: 8xi32=0
// ARG: 256xi32=256:range
// EXPECT: 0 [32] * 8
extern "C" __global__ void __launch_bounds__(128) histogram(int *bins, const int *in) {
  atomicAdd(&bins[in[blockIdx.x * blockDim.x + threadIdx.x] % 8], 1);
}

// CASE: atomic_mix workload=128
// ARG: 8xui32=0
// EXPECT: 0 [128, 127, 128, 127, 0xFFFFFFFF, 0, 7, 0]
extern "C" __global__ void __launch_bounds__(128) atomic_mix(unsigned *out) {
  unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  atomicAdd(&out[0], 1u);
  atomicMax(&out[1], t);
  atomicInc(&out[2], 1000u);
  atomicMax(&out[3], t);
  atomicOr(&out[4], 1u << (t % 32));
  atomicAnd(&out[5], t);
  atomicExch(&out[6], 7u);
  atomicMin(&out[7], t);
}

// CASE: float_atomics workload=64
// ARG: 4xf32=0
// EXPECT: 0 [64.0, 63.0, -63.0, 0.0]
extern "C" __global__ void __launch_bounds__(64) float_atomics(float *out) {
  float t = threadIdx.x;
  atomicAdd(&out[0], 1.0f);
  atomicMax(&out[1], t);
  atomicMin(&out[2], -t);
  atomicSub(&out[3], 0.0f);
}

// CASE: wide_atomics workload=64
// ARG: 2xui64=0
// ARG: 2xf64=0
// EXPECT: 0 [64 * (1 << 40), 64]
// EXPECT: 1 [32.0, 0.0]
extern "C" __global__ void __launch_bounds__(64) wide_atomics(unsigned long long *counts, double *sums) {
  atomicAdd(&counts[0], 1ull << 40);
  unsigned long long old = counts[1];
  while (atomicCAS(&counts[1], old, old + 1) != old) old = counts[1];
  atomicAdd(&sums[0], 0.5);
}

__device__ int ticket;
__device__ int table[4] = {10, 20, 30, 40};
__constant__ float weights[4] = {0.5f, 0.25f, 2.0f, 4.0f};

// CASE: device_globals workload=64
// ARG: 64xf32=0
// EXPECT: 0 [[10, 20, 30, 40][i % 4] * [0.5, 0.25, 2.0, 4.0][i % 4] for i in range(64)]
extern "C" __global__ void __launch_bounds__(64) device_globals(float *out) {
  unsigned t = threadIdx.x;
  atomicAdd(&ticket, 1);
  out[t] = table[t % 4] * weights[t % 4];
}

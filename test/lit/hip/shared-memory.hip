// Workgroup memory and barriers: static __shared__ arrays, extern __shared__ (dynamic LDS),
// __syncthreads and __syncthreads_count/_and/_or; on the host device the workgroup's work-items
// run as fibers.
// RUN: %hip_case --out %t %s | FileCheck %s
// CHECK: notes match
// CHECK-NOT: FAIL
#include <hip/hip_runtime.h>

// CASE: reverse_tile workload=128
// ARG: 128xi32=0
// ARG: 128xi32=128:range
// EXPECT: 0 [(i // 64) * 64 + 63 - i % 64 for i in range(128)]
extern "C" __global__ void __launch_bounds__(64) reverse_tile(int *out, const int *in) {
  __shared__ int tile[64];
  tile[threadIdx.x] = in[blockIdx.x * 64 + threadIdx.x];
  __syncthreads();
  out[blockIdx.x * 64 + threadIdx.x] = tile[63 - threadIdx.x];
}

// CASE: block_sum workload=512
// ARG: 2xi32=0
// ARG: 512xi32=512:range
// EXPECT: 0 [sum(range(0, 256)), sum(range(256, 512))]
extern "C" __global__ void __launch_bounds__(256) block_sum(int *sums, const int *in) {
  __shared__ int partial[256];
  unsigned t = threadIdx.x;
  partial[t] = in[blockIdx.x * blockDim.x + t];
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (t < stride) partial[t] += partial[t + stride];
    __syncthreads();
  }
  if (t == 0) sums[blockIdx.x] = partial[0];
}

// CASE: dynamic_rotate workload=64
// ARG: 64xf32=0
// ARG: 64xf32=64:range
// EXPECT: 0 [(i + 1) % 64 for i in range(64)]
extern "C" __global__ void __launch_bounds__(64) dynamic_rotate(float *out, const float *in) {
  extern __shared__ float buffer[];
  buffer[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = buffer[(threadIdx.x + 1) % blockDim.x];
}

// CASE: count_odd workload=64
// ARG: 4xi32=0
// ARG: 64xi32=64:range
// EXPECT: 0 [32, 0, 1, 32]
extern "C" __global__ void __launch_bounds__(64) count_odd(int *out, const int *in) {
  int odd = in[threadIdx.x] & 1;
  int count = __syncthreads_count(odd);
  int all = __syncthreads_and(in[threadIdx.x] >= 0 && odd);
  int any = __syncthreads_or(in[threadIdx.x] == 17);
  if (threadIdx.x == 0) {
    out[0] = count;
    out[1] = all;
    out[2] = any;
  }
  if (threadIdx.x == 1) out[3] = count;
}

// CASE: early_exit_barrier workload=64
// ARG: 64xi32=0
// EXPECT: 0 [0 if i < 16 else 63 - i + 16 + 1000 for i in range(64)]
extern "C" __global__ void __launch_bounds__(64) early_exit_barrier(int *out) {
  __shared__ int values[64];
  if (threadIdx.x < 16) return;  // finished work-items do not hold the barrier up
  values[threadIdx.x] = threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = values[63 - threadIdx.x + 16] + 1000;
}

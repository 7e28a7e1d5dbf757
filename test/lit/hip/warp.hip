// Warp functions on wave32: __shfl, __shfl_up/down/xor with width, __ballot, __any, __all,
// __activemask, __lane_id, warpSize, and a warp reduction.
// RUN: %hip_case --out %t %s | FileCheck %s
// CHECK: notes match
// CHECK-NOT: FAIL
#include <hip/hip_runtime.h>

// CASE: shuffles workload=64
// ARG: 64xi32=0
// ARG: 64xi32=0
// ARG: 64xi32=0
// ARG: 64xi32=0
// EXPECT: 0 [(i // 32) * 32 + 5 for i in range(64)]
// EXPECT: 1 [i if i % 32 < 3 else i - 3 for i in range(64)]
// EXPECT: 2 [i if i % 8 >= 6 else i + 2 for i in range(64)]
// EXPECT: 3 [i ^ 1 for i in range(64)]
extern "C" __global__ void __launch_bounds__(64) shuffles(int *bcast, int *up, int *down, int *xors) {
  int v = threadIdx.x;
  bcast[v] = __shfl(v, 5);
  up[v] = __shfl_up(v, 3);
  down[v] = __shfl_down(v, 2, 8);
  xors[v] = __shfl_xor(v, 1);
}

// CASE: votes workload=64
// ARG: 64xi64=0
// ARG: 64xi32=0
// EXPECT: 0 [0x55555555 for i in range(64)]
// EXPECT: 1 [(1 if i % 32 == 0 else 0) + 2 + 0 + 8 * (i % 32) + 1000 * 32 for i in range(64)]
extern "C" __global__ void __launch_bounds__(64) votes(unsigned long long *ballots, int *flags) {
  unsigned t = threadIdx.x;
  ballots[t] = __ballot((t & 1) == 0);
  flags[t] = __any(t % 32 == 0 && __lane_id() == 0) * (__lane_id() == 0) + __all(t < 64) * 2 + __all(t < 20) * 4 +
             8 * __lane_id() + 1000 * warpSize;
}

// CASE: warp_reduce workload=64
// ARG: 2xf32=0
// ARG: 64xf32=64:range
// EXPECT: 0 [sum(range(0, 32)), sum(range(32, 64))]
extern "C" __global__ void __launch_bounds__(64) warp_reduce(float *out, const float *in) {
  float v = in[threadIdx.x];
  for (int offset = warpSize / 2; offset > 0; offset /= 2) v += __shfl_down(v, offset);
  if (__lane_id() == 0) out[threadIdx.x / warpSize] = v;
}

// CASE: active_lanes workload=64
// ARG: 64xi64=0
// EXPECT: 0 [0xFFFF0000 if i % 32 >= 16 else 0 for i in range(64)]
extern "C" __global__ void __launch_bounds__(64) active_lanes(unsigned long long *out) {
  if (__lane_id() >= 16) out[threadIdx.x] = __activemask();
}

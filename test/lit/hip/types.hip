// Vector types, __half, __hip_bfloat16 and the integer intrinsics.
// RUN: %hip_case --out %t %s | FileCheck %s
// CHECK: notes match
// CHECK-NOT: FAIL
#include <hip/hip_runtime.h>

// CASE: float4_axpy workload=16
// ARG: 64xf32=0
// ARG: 64xf32=64:range
// EXPECT: 0 [2 * i + [1, 2, 3, 4][i % 4] for i in range(64)]
extern "C" __global__ void __launch_bounds__(16) float4_axpy(float4 *out, const float4 *in) {
  float4 v = in[threadIdx.x];
  float4 bias = make_float4(1, 2, 3, 4);
  out[threadIdx.x] = v * 2.0f + bias;
}

// CASE: int2_swap workload=32
// ARG: 64xi32=0
// ARG: 64xi32=64:range
// EXPECT: 0 [i + 1 if i % 2 == 0 else i - 1 for i in range(64)]
extern "C" __global__ void __launch_bounds__(32) int2_swap(int2 *out, const int2 *in) {
  int2 v = in[threadIdx.x];
  out[threadIdx.x] = make_int2(v.y, v.x);
}

// CASE: half_and_bfloat workload=64
// ARG: 64xf32=0
// ARG: 64xf32=0
// ARG: 64xf32=64:range*0.5
// EXPECT: 0 [x * 2 + 0.25 for x in [i * 0.5 for i in range(64)]]
// EXPECT: 1 [x + 1 for x in [i * 0.5 for i in range(64)]]
extern "C" __global__ void __launch_bounds__(64) half_and_bfloat(float *h, float *b, const float *in) {
  __half x = __float2half(in[threadIdx.x]);
  h[threadIdx.x] = __half2float(__hfma(x, __float2half(2.0f), __float2half(0.25f)));
  __hip_bfloat16 y = __float2bfloat16(in[threadIdx.x]);
  b[threadIdx.x] = __bfloat162float(__hadd(y, __float2bfloat16(1.0f)));
}

// CASE: bit_intrinsics workload=64
// ARG: 64xi32=0
// ARG: 64xui32=64:range*12345+7
// EXPECT: 0 [bin(x).count('1') + 100 * (32 - x.bit_length()) + 10000 * ((x & -x).bit_length()) for x in [i * 12345 + 7 for i in range(64)]]
extern "C" __global__ void __launch_bounds__(64) bit_intrinsics(int *out, const unsigned *in) {
  unsigned x = in[threadIdx.x];
  out[threadIdx.x] = __popc(x) + 100 * __clz((int)x) + 10000 * __ffs((int)x);
}

// CASE: mul_intrinsics workload=64
// ARG: 64xui32=0
// ARG: 64xui32=64:range*65599+3
// EXPECT: 0 [((x & 0xFFFFFF) * 3 + ((x * 0x9E3779B9) >> 32) + int('{:032b}'.format(x)[::-1], 2)) % 2**32 for x in [i * 65599 + 3 for i in range(64)]]
extern "C" __global__ void __launch_bounds__(64) mul_intrinsics(unsigned *out, const unsigned *in) {
  unsigned x = in[threadIdx.x];
  out[threadIdx.x] = __umul24(x, 3u) + __umulhi(x, 0x9E3779B9u) + __brev(x);
}

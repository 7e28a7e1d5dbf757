// The HIP math API in float and double: on gfx1151 ocml's, on the host device the host libm's
// (docs/cxx.md gives the measured bounds); the oracle is Python's double-precision math.
// RUN: %hip_case --out %t %s | FileCheck %s
// CHECK: notes match
// CHECK-NOT: FAIL
#include <hip/hip_runtime.h>

// CASE: exact_ops workload=64
// ARG: 64xf32=0
// ARG: 64xf32=64:range*0.75+-20
// EXPECT: 0 [fsum32(math.sqrt(abs(x)), abs(x), math.floor(x), math.ceil(x), math.trunc(x), min(x, 1.0), max(x, -1.0)) for x in [f32(i * 0.75 - 20) for i in range(64)]]
extern "C" __global__ void __launch_bounds__(64) exact_ops(float *out, const float *in) {
  float x = in[threadIdx.x];
  // Each term is exactly rounded; the sum is evaluated in the same order by the oracle.
  out[threadIdx.x] = sqrtf(fabsf(x)) + fabsf(x) + floorf(x) + ceilf(x) + truncf(x) + fminf(x, 1.0f) + fmaxf(x, -1.0f);
}

// CASE: transcendental workload=64 tol=2
// ARG: 64xf32=0
// ARG: 64xf32=0
// ARG: 64xf32=0
// ARG: 64xf32=0
// ARG: 64xf32=64:range*0.125+0.0625
// EXPECT: 0 [math.exp(x) for x in [i * 0.125 + 0.0625 for i in range(64)]]
// EXPECT: 1 [math.log(x) for x in [i * 0.125 + 0.0625 for i in range(64)]]
// EXPECT: 2 [math.sin(x) for x in [i * 0.125 + 0.0625 for i in range(64)]]
// EXPECT: 3 [math.tanh(x) for x in [i * 0.125 + 0.0625 for i in range(64)]]
extern "C" __global__ void __launch_bounds__(64) transcendental(float *e, float *l, float *s, float *t, const float *in) {
  float x = in[threadIdx.x];
  e[threadIdx.x] = expf(x);
  l[threadIdx.x] = logf(x);
  s[threadIdx.x] = sinf(x);
  t[threadIdx.x] = tanhf(x);
}

// CASE: more_math workload=64 tol=4
// ARG: 64xf32=0
// ARG: 64xf32=0
// ARG: 64xf32=0
// ARG: 64xf32=64:range*0.125+0.0625
// EXPECT: 0 [2 ** x + math.log2(x) for x in [i * 0.125 + 0.0625 for i in range(64)]]
// EXPECT: 1 [math.pow(x, 1.5) for x in [i * 0.125 + 0.0625 for i in range(64)]]
// EXPECT: 2 [math.erf(x) + 1 for x in [i * 0.125 + 0.0625 for i in range(64)]]
extern "C" __global__ void __launch_bounds__(64) more_math(float *a, float *p, float *c, const float *in) {
  float x = in[threadIdx.x];
  a[threadIdx.x] = exp2f(x) + log2f(x);
  p[threadIdx.x] = powf(x, 1.5f);
  float sn, cs;
  sincosf(x, &sn, &cs);
  c[threadIdx.x] = erff(x) + (sn * sn + cs * cs);
}

// CASE: fast_intrinsics workload=64 tol=4
// ARG: 64xf32=0
// ARG: 64xf32=64:range*0.125+0.0625
// EXPECT: 0 [1 / math.sqrt(x) for x in [i * 0.125 + 0.0625 for i in range(64)]]
extern "C" __global__ void __launch_bounds__(64) fast_intrinsics(float *out, const float *in) {
  out[threadIdx.x] = rsqrtf(in[threadIdx.x]);
}

// CASE: fused workload=64
// ARG: 64xf32=0
// ARG: 64xf32=64:range*0.5
// EXPECT: 0 [f32(f32(x) * f32(x) + 1.0) for x in [i * 0.5 for i in range(64)]]
extern "C" __global__ void __launch_bounds__(64) fused(float *out, const float *in) {
  float x = in[threadIdx.x];
  out[threadIdx.x] = fmaf(x, x, 1.0f);
}

// CASE: double_math workload=64
// ARG: 64xf64=0
// ARG: 64xf64=64:range*0.25+1
// EXPECT: 0 [math.sqrt(x) + math.floor(x) for x in [i * 0.25 + 1 for i in range(64)]]
extern "C" __global__ void __launch_bounds__(64) double_math(double *out, const double *in) {
  double x = in[threadIdx.x];
  out[threadIdx.x] = sqrt(x) + floor(x);
}

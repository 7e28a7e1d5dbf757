// Texture objects on the host device: hrx-run builds the texture from --input=texture<...>(VALUE)
// and the host twin samples it with HIP's formulas (point and linear filtering, clamp, wrap,
// mirror and border addressing, normalized coordinates, tex1Dfetch); the oracle is the same
// formula in float32 (tex_sample in Inputs/hip_case.py). On gfx1151 the same kernels sample
// through ockl's image functions (compared with clang-22's notes).
// RUN: %hip_case --out %t %s | FileCheck %s
// CHECK: notes match
// CHECK-NOT: FAIL
#include <hip/hip_runtime.h>

// A 4x4 texture T[y][x] = 4y + x + 1; 16 sample points on and between texels, inside and outside.
// CASE: sample2d grid=1 block=16
// ARG: texture<point,clamp>(4x4xf32=[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16])
// ARG: 16xf32=[0.0,0.5,1.25,2.75,3.5,4.2,-0.7,1.0,2.0,3.9,0.1,5.5,-2.5,1.5,2.5,3.0]
// ARG: 16xf32=[0.0,0.5,0.75,1.5,3.5,-0.3,2.2,4.6,1.0,3.1,2.9,0.6,1.7,-1.2,2.5,0.25]
// ARG: 16xf32=0
// EXPECT: 3 [tex_sample(list(range(1, 17)), (4, 4), (x, y)) for x, y in zip([0.0,0.5,1.25,2.75,3.5,4.2,-0.7,1.0,2.0,3.9,0.1,5.5,-2.5,1.5,2.5,3.0], [0.0,0.5,0.75,1.5,3.5,-0.3,2.2,4.6,1.0,3.1,2.9,0.6,1.7,-1.2,2.5,0.25])]
extern "C" __global__ void sample2d(hipTextureObject_t texture, const float *xs, const float *ys, float *out) {
  int i = threadIdx.x;
  out[i] = tex2D<float>(texture, xs[i], ys[i]);
}

// CASE: sample2d grid=1 block=16
// ARG: texture<linear,clamp>(4x4xf32=[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16])
// ARG: 16xf32=[0.0,0.5,1.25,2.75,3.5,4.2,-0.7,1.0,2.0,3.9,0.1,5.5,-2.5,1.5,2.5,3.0]
// ARG: 16xf32=[0.0,0.5,0.75,1.5,3.5,-0.3,2.2,4.6,1.0,3.1,2.9,0.6,1.7,-1.2,2.5,0.25]
// ARG: 16xf32=0
// EXPECT: 3 [tex_sample(list(range(1, 17)), (4, 4), (x, y), linear=True) for x, y in zip([0.0,0.5,1.25,2.75,3.5,4.2,-0.7,1.0,2.0,3.9,0.1,5.5,-2.5,1.5,2.5,3.0], [0.0,0.5,0.75,1.5,3.5,-0.3,2.2,4.6,1.0,3.1,2.9,0.6,1.7,-1.2,2.5,0.25])]

// The optical-flow samples' mode: linear, mirror, normalized coordinates (x / 4 here).
// CASE: sample2d grid=1 block=16
// ARG: texture<linear,mirror,normalized>(4x4xf32=[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16])
// ARG: 16xf32=[0.0,0.125,0.3125,0.6875,0.875,1.05,-0.175,0.25,0.5,0.975,0.025,1.375,-0.625,0.375,0.625,0.75]
// ARG: 16xf32=[0.0,0.125,0.1875,0.375,0.875,-0.075,0.55,1.15,0.25,0.775,0.725,0.15,0.425,-0.3,0.625,0.0625]
// ARG: 16xf32=0
// EXPECT: 3 [tex_sample(list(range(1, 17)), (4, 4), (x, y), linear=True, address="mirror", normalized=True) for x, y in zip([0.0,0.125,0.3125,0.6875,0.875,1.05,-0.175,0.25,0.5,0.975,0.025,1.375,-0.625,0.375,0.625,0.75], [0.0,0.125,0.1875,0.375,0.875,-0.075,0.55,1.15,0.25,0.775,0.725,0.15,0.425,-0.3,0.625,0.0625])]

// Wrap and border on one dimension (and two address words for a 2-D texture: x wraps, y borders).
// CASE: sample1d grid=1 block=16
// ARG: texture<linear,wrap,normalized>(8xf32=[1,2,4,8,16,32,64,128])
// ARG: 16xf32=[0.0,0.0625,0.1,0.2,0.33,0.5,0.61,0.75,0.9,0.99,1.0,1.3,-0.1,-0.6,2.05,0.4375]
// ARG: 16xf32=0
// EXPECT: 2 [tex_sample([1,2,4,8,16,32,64,128], (8,), (x,), linear=True, address="wrap", normalized=True) for x in [0.0,0.0625,0.1,0.2,0.33,0.5,0.61,0.75,0.9,0.99,1.0,1.3,-0.1,-0.6,2.05,0.4375]]
extern "C" __global__ void sample1d(hipTextureObject_t texture, const float *xs, float *out) {
  int i = threadIdx.x;
  out[i] = tex1D<float>(texture, xs[i]);
}

// CASE: sample1d grid=1 block=16
// ARG: texture<point,border>(8xf32=[1,2,4,8,16,32,64,128])
// ARG: 16xf32=[0.0,0.5,1.5,2.5,3.5,4.5,5.5,6.5,7.5,7.99,8.0,8.5,-0.01,-1.0,12.0,3.0]
// ARG: 16xf32=0
// EXPECT: 2 [tex_sample([1,2,4,8,16,32,64,128], (8,), (x,), address="border") for x in [0.0,0.5,1.5,2.5,3.5,4.5,5.5,6.5,7.5,7.99,8.0,8.5,-0.01,-1.0,12.0,3.0]]

// tex1Dfetch: integer indices into the texels, 0 outside.
// CASE: fetch grid=1 block=8
// ARG: texture<point>(6xf32=[10,20,30,40,50,60])
// ARG: 8xi32=[0,1,2,3,4,5,6,-1]
// ARG: 8xf32=0
// EXPECT: 2 [10.0,20.0,30.0,40.0,50.0,60.0,0.0,0.0]
extern "C" __global__ void fetch(hipTextureObject_t texture, const int *index, float *out) {
  int i = threadIdx.x;
  out[i] = tex1Dfetch<float>(texture, index[i]);
}

// Four channels, read as float4.
// CASE: sample_rgba grid=1 block=4
// ARG: texture<point,clamp,channels=4>(2x2x4xf32=[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16])
// ARG: 16xf32=0
// EXPECT: 1 [1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16]
extern "C" __global__ void sample_rgba(hipTextureObject_t texture, float4 *out) {
  int i = threadIdx.x;
  out[i] = tex2D<float4>(texture, float(i % 2), float(i / 2));
}

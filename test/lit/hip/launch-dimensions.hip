// 2-D and 3-D HIP launches on the host device: hrx-run --grid/--block/--dynamic-lds, checked
// against __launch_bounds__.
// RUN: %hip_case --out %t %s | FileCheck %s
// CHECK: notes match
// CHECK-NOT: FAIL
// RUN: not %hrx-run %t/hrx.hsaco --device=host --entry=transpose --grid=1,1 --block=32,32 --input=1024xf32=0 --input=1024xf32=0 2>&1 | FileCheck %s --check-prefix=BOUNDS
// BOUNDS: the block 32x32x1 (1024 work-items) exceeds the kernel's max_flat_workgroup_size (__launch_bounds__) 256
// RUN: not %hrx-run %t/hrx.hsaco --device=host --entry=dynamic_sum --grid=1 --block=64 --dynamic-lds=70000 --input=1xi32=0 --input=64xi32=1 2>&1 | FileCheck %s --check-prefix=LDS
// LDS: --dynamic-lds=70000 exceeds the 65536 bytes of LDS a gfx1151 workgroup has
// RUN: not %hrx-run %t/hrx.hsaco --device=host --entry=dynamic_sum --grid=1 --input=1xi32=0 --input=64xi32=1 2>&1 | FileCheck %s --check-prefix=PAIR
// PAIR: --grid and --block go together
#include <hip/hip_runtime.h>

// CASE: transpose grid=2,2 block=4,4
// ARG: 64xf32=0
// ARG: 64xf32=64:range
// EXPECT: 0 [(i % 8) * 8 + i // 8 for i in range(64)]
extern "C" __global__ void __launch_bounds__(256) transpose(float *out, const float *in) {
  __shared__ float tile[4][4];
  unsigned x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  unsigned width = gridDim.x * blockDim.x;
  tile[threadIdx.y][threadIdx.x] = in[y * width + x];
  __syncthreads();
  unsigned tx = blockIdx.y * blockDim.y + threadIdx.x, ty = blockIdx.x * blockDim.x + threadIdx.y;
  out[ty * width + tx] = tile[threadIdx.x][threadIdx.y];
}

// CASE: volume grid=2,1,2 block=2,3,2
// ARG: 48xi32=0
// EXPECT: 0 [i for i in range(48)]
extern "C" __global__ void volume(int *out) {
  unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned y = blockIdx.y * blockDim.y + threadIdx.y;
  unsigned z = blockIdx.z * blockDim.z + threadIdx.z;
  unsigned w = gridDim.x * blockDim.x, h = gridDim.y * blockDim.y;
  out[(z * h + y) * w + x] = (z * h + y) * w + x;
}

// CASE: dynamic_sum grid=1 block=64 dynamic-lds=256
// ARG: 1xi32=0
// ARG: 64xi32=64:range
// EXPECT: 0 [sum(range(64))]
extern "C" __global__ void dynamic_sum(int *out, const int *in) {
  extern __shared__ int scratch[];
  scratch[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  if (threadIdx.x == 0) {
    int total = 0;
    for (unsigned k = 0; k < blockDim.x; ++k) total += scratch[k];
    out[0] = total;
  }
}

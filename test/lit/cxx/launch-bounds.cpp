// HIP's __launch_bounds__ is an upper bound on the workgroup size (not a fixed size), written
// where HIP allows it, after the return type.
// RUN: hrx-cxx-import --target=gfx1151 --emit=llvm %s | FileCheck %s --check-prefix=GPU
// RUN: hrx-cxx-import --target=host --emit=signatures %s | FileCheck %s --check-prefix=HOST
// GPU: define protected amdgpu_kernel void @fill(ptr
// GPU: "amdgpu-flat-work-group-size"="1,128"
// HOST: kernel fill symbol=fill result=void
// HOST-NOT: {{^}}  workgroup_size
#include <hip/hip_runtime.h>

extern "C" __global__ void __launch_bounds__(128) fill(float *data) {
  data[blockIdx.x * blockDim.x + threadIdx.x] = 1.0f;
}

// affine: output[i] = input[i] * 3 + 7 over i32, the GPU half of gpu_npu_parallel. HIP style:
// one work-item per element, workgroups of 256, and the workgroup count baked in from ELEMENTS
// (a multiple of 256; the example passes -DELEMENTS=<gpu-elements>).
#include <hip/hip_runtime.h>

#ifndef ELEMENTS
#define ELEMENTS 16777216
#endif
static_assert(ELEMENTS % 256 == 0, "ELEMENTS must be a multiple of the workgroup size, 256");

extern "C" __global__ [[loom::workgroup_size(256, 1, 1), loom::workgroup_count(ELEMENTS / 256, 1, 1)]]
void affine(const int32_t *input, int32_t *output) {
  uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  output[i] = input[i] * 3 + 7;
}

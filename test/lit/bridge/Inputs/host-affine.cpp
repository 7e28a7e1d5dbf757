// The seed's affine kernel, HIP style: output[i] = input[i] * 3 + 7 over i32.
#include <hip/hip_runtime.h>

#ifndef ELEMENTS
#define ELEMENTS 16777216
#endif

extern "C" __global__ [[loom::workgroup_size(256, 1, 1), loom::workgroup_count(ELEMENTS / 256, 1, 1)]]
void affine(const int32_t *input, int32_t *output) {
  uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  output[i] = input[i] * 3 + 7;
}

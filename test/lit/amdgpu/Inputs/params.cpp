// Kernel parameters that are not buffers: a record (passed byref in the kernarg segment), a
// vector and a scalar are kernel arguments by value; only the pointer is a global buffer.
#include <hrx/kernel.h>

struct Affine {
  float scale;
  int32_t bias;
};
typedef float float4v __attribute__((vector_size(16)));

extern "C" HRX_KERNEL void params(float *data, struct Affine affine, float4v offsets, uint32_t lane) {
  uint32_t i = hrx_global_id(0);
  data[i] = affine.scale * data[i] + (float)affine.bias + offsets[lane & 3];
}

// The C++ worker of batched-gemm-cxx.loom: one 8x8 BF16 x 8x8 BF16 -> 8x8 F32 product.
#include <hrx/worker.h>

extern "C" void gemm_record(const hrx::bf16 *lhs, const hrx::bf16 *rhs, float *out) {
  for (int r = 0; r < 8; ++r)
    for (int c = 0; c < 8; ++c) {
      float sum = 0.0f;
      for (int k = 0; k < 8; ++k)
        sum += static_cast<float>(lhs[r * 8 + k]) * static_cast<float>(rhs[k * 8 + c]);
      out[r * 8 + c] = sum;
    }
}

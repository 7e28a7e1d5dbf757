// The strongest simple baseline of the batched GEMM benchmark: C[m] = A[m] x B[m] for 8x8 f32
// matrices through typed __restrict pointers, built -O3 -march=native (bench/runtime/CMakeLists.txt).
#include "TypedGemm.h"

namespace hrx::bench {

void typedGemm8x8(const float *__restrict a, const float *__restrict b, float *__restrict c, size_t matrices) {
  for (size_t m = 0; m < matrices; ++m, a += 64, b += 64, c += 64)
    for (size_t r = 0; r < 8; ++r) {
      float row[8] = {};
      for (size_t k = 0; k < 8; ++k)
        for (size_t col = 0; col < 8; ++col) row[col] += a[r * 8 + k] * b[k * 8 + col];
      for (size_t col = 0; col < 8; ++col) c[r * 8 + col] = row[col];
    }
}

}  // namespace hrx::bench

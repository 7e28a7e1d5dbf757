// An NPU worker in C++26: one 8x8 BF16 x 8x8 BF16 -> 8x8 FP32 product (row-major).
#include <hrx/worker.h>

#include <array>
#include <cstddef>

template <std::size_t... Extents> struct Shape {
  static constexpr std::size_t rows = Extents...[0];  // C++26 pack indexing
  static constexpr std::size_t cols = Extents...[sizeof...(Extents) - 1];
};
using Tile = Shape<8, 8>;
static_assert(Tile::rows == 8 && Tile::cols == 8);

static float dot(const hrx::bf16 *row, const hrx::bf16 *column, std::size_t stride) {
  float acc = 0.0f;
  for (std::size_t k = 0; k < Tile::cols; ++k)
    acc += static_cast<float>(row[k]) * static_cast<float>(column[k * stride]);
  return acc;
}

extern "C" void gemm_8x8(const hrx::bf16 *lhs, const hrx::bf16 *rhs, float *out) {
  for (std::size_t r = 0; r < Tile::rows; ++r)
    for (std::size_t c = 0; c < Tile::cols; ++c)
      out[r * Tile::cols + c] = dot(lhs + r * Tile::cols, rhs + c, Tile::cols);
}

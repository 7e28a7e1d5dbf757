#include "Bf16Gemm.h"

#include <algorithm>
#include <climits>
#include <cmath>

namespace hrx::examples {
namespace {
constexpr unsigned kBlock = 8;  // bfp16ebs8: 8 elements share one exponent
}

Tile encodeBfp16(const Tile &values) {
  Tile encoded{};
  for (unsigned block = 0; block < kTileElements; block += kBlock) {
    int maxExponent = INT_MIN;
    for (unsigned i = block; i < block + kBlock; ++i)
      if (std::isnormal(values[i])) maxExponent = std::max(maxExponent, std::ilogb(values[i]));
    if (maxExponent == INT_MIN) continue;  // all zero or subnormal
    float step = std::ldexp(1.0f, maxExponent - 6);
    for (unsigned i = block; i < block + kBlock; ++i) {
      if (!std::isnormal(values[i])) continue;
      float mantissa = std::clamp(std::nearbyint(values[i] / step), -127.0f, 127.0f);
      encoded[i] = mantissa * step;
    }
  }
  return encoded;
}

Tile multiply(const Tile &a, const Tile &b) {
  Tile c{};
  for (unsigned r = 0; r < kTileDim; ++r)
    for (unsigned col = 0; col < kTileDim; ++col) {
      float sum = 0.0f;
      for (unsigned k = 0; k < kTileDim; ++k) sum += a[r * kTileDim + k] * b[k * kTileDim + col];
      c[r * kTileDim + col] = sum;
    }
  return c;
}

}  // namespace hrx::examples

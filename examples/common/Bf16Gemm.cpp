#include "Bf16Gemm.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace hrx::examples {

Tile encodeBfp16(const Tile &values, unsigned stride) {
  Tile encoded{};
  const unsigned step = stride == 1 ? kTileDim : 1;  // from one block's first element to the next's
  for (unsigned block = 0; block < kTileDim; ++block) {
    auto at = [&](unsigned i) { return block * step + i * stride; };
    auto field = [&](unsigned i) { return int((std::bit_cast<uint32_t>(values[at(i)]) >> 23) & 0xFF); };
    int shared = 0;
    for (unsigned i = 0; i < kTileDim; ++i) shared = std::max(shared, field(i));
    for (unsigned i = 0; i < kTileDim; ++i) {
      uint32_t bits = std::bit_cast<uint32_t>(values[at(i)]);
      double significand = double((bits & 0x7FFFFF) | (field(i) ? 0x800000 : 0));
      double q = std::floor((bits >> 31 ? -significand : significand) / std::ldexp(1.0, 17 + shared - field(i)));
      encoded[at(i)] = static_cast<float>(std::ldexp(q, shared - 133));
    }
  }
  return encoded;
}

Tile multiply(const Tile &a, const Tile &b) {
  Tile c{};
  for (unsigned r = 0; r < kTileDim; ++r)
    for (unsigned col = 0; col < kTileDim; ++col) {
      double sum = 0.0;
      for (unsigned k = 0; k < kTileDim; ++k) sum += double(a[r * kTileDim + k]) * double(b[k * kTileDim + col]);
      c[r * kTileDim + col] = static_cast<float>(sum);
    }
  return c;
}

}  // namespace hrx::examples

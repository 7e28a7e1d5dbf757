// An independent bfp16ebs8 oracle for the tests, written from npu5-hardware.md §6.1's closed form
// (q = floor(±M / 2^(17 + E - e)), value = q * 2^(E - 133)) with integer floor division, not
// the shift sequence the implementation uses.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <random>

namespace hrx::bridge::test {

struct OracleBlock {
  uint8_t exponent;
  int8_t q[8];
};

inline int64_t floorDiv(int64_t value, int64_t divisor) {
  return value >= 0 ? value / divisor : -((-value + divisor - 1) / divisor);
}

inline OracleBlock oracleEncode(const float *values) {
  OracleBlock block{};
  int fields[8];
  for (int i = 0; i < 8; ++i) {
    fields[i] = static_cast<int>((std::bit_cast<uint32_t>(values[i]) >> 23) & 0xFF);
    block.exponent = std::max<uint8_t>(block.exponent, static_cast<uint8_t>(fields[i]));
  }
  for (int i = 0; i < 8; ++i) {
    uint32_t bits = std::bit_cast<uint32_t>(values[i]);
    int64_t magnitude = (bits & 0x7FFFFF) | (fields[i] ? 0x800000 : 0);
    int64_t signedMagnitude = (bits >> 31) ? -magnitude : magnitude;
    int shift = 17 + block.exponent - fields[i];
    block.q[i] = static_cast<int8_t>(shift >= 62 ? (signedMagnitude < 0 ? -1 : 0)
                                                 : floorDiv(signedMagnitude, int64_t{1} << shift));
  }
  return block;
}

inline double oracleDecode(const OracleBlock &block, int i) {
  return std::ldexp(double(block.q[i]), block.exponent - 133);
}

inline float bf16ToFloat(uint16_t bits) { return std::bit_cast<float>(uint32_t(bits) << 16); }

// One block of 8 values: mixed signs, exponents spread over >= 8 octaves, zeros and subnormals.
inline void randomBlock(std::mt19937 &rng, uint16_t *out) {
  int base = std::uniform_int_distribution<int>(1, 230)(rng);
  int spread = std::uniform_int_distribution<int>(8, 24)(rng);
  for (int i = 0; i < 8; ++i) {
    int kind = std::uniform_int_distribution<int>(0, 15)(rng);
    uint32_t sign = std::uniform_int_distribution<uint32_t>(0, 1)(rng) << 15;
    uint32_t mantissa = std::uniform_int_distribution<uint32_t>(0, 127)(rng);
    uint32_t exponent = std::min(254, base + std::uniform_int_distribution<int>(0, spread)(rng));
    if (kind == 0)
      exponent = 0, mantissa = 0;  // ±0
    else if (kind == 1)
      exponent = 0;  // subnormal (or zero)
    out[i] = static_cast<uint16_t>(sign | (exponent << 7) | mantissa);
  }
  if (std::uniform_int_distribution<int>(0, 3)(rng) == 0) {  // force the full spread
    out[0] = static_cast<uint16_t>((out[0] & 0x807F) | (std::min(254, base + 8) << 7));
    out[1] = static_cast<uint16_t>((out[1] & 0x807F) | (base << 7));
  }
}

// The 8 blocks of a 64-value bf16 operand: block b holds values[b * blockStride + i * step].
inline void oracleBlocks(const uint16_t *values, int blockStride, int step, OracleBlock *blocks) {
  for (int blk = 0; blk < 8; ++blk) {
    float v[8];
    for (int i = 0; i < 8; ++i) v[i] = bf16ToFloat(values[blk * blockStride + i * step]);
    blocks[blk] = oracleEncode(v);
  }
}

// C = acc + A·B over encoded 8x8 operands (A, B given as 64 bf16 each): A's rows are its blocks;
// B's rows (the payload MMA's definition) or, with rhsColumns, its columns (the fused bf16 MMA's,
// as the AIE2P MMA computes it: B is converted transposed, so each dot product has one exponent).
inline void oracleMmaBlocked(const uint16_t *lhs, const uint16_t *rhs, const float *acc, float *out, bool rhsColumns) {
  OracleBlock lb[8], rb[8];
  oracleBlocks(lhs, 8, 1, lb);
  oracleBlocks(rhs, rhsColumns ? 1 : 8, rhsColumns ? 8 : 1, rb);
  for (int r = 0; r < 8; ++r)
    for (int c = 0; c < 8; ++c) {
      double sum = 0.0;
      for (int k = 0; k < 8; ++k)
        sum += oracleDecode(lb[r], k) * (rhsColumns ? oracleDecode(rb[c], k) : oracleDecode(rb[k], c));
      out[r * 8 + c] = static_cast<float>(sum + double(acc[r * 8 + c]));
    }
}

inline void oracleMma(const uint16_t *lhs, const uint16_t *rhs, const float *acc, float *out) {
  oracleMmaBlocked(lhs, rhs, acc, out, false);
}

inline void oracleMmaFused(const uint16_t *lhs, const uint16_t *rhs, const float *acc, float *out) {
  oracleMmaBlocked(lhs, rhs, acc, out, true);
}

}  // namespace hrx::bridge::test

// The CPU model of the bundled 8x8 BF16 GEMM (examples/kernels/batched_gemm.loom): BF16 by
// truncation, the worker's bfp16ebs8 encoding of each 64-element operand, and the MMA from a
// zero accumulator. The examples compare the NPU's outputs with it bit for bit.
#pragma once

#include <array>
#include <bit>
#include <cstdint>

namespace hrx::examples {

inline constexpr unsigned kTileDim = 8;  // M = K = N of one product
inline constexpr unsigned kTileElements = kTileDim * kTileDim;
using Tile = std::array<float, kTileElements>;  // row-major

// BF16 by truncation: the top 16 bits of the f32 (no rounding), as the product converts.
inline uint16_t toBf16(float value) { return static_cast<uint16_t>(std::bit_cast<uint32_t>(value) >> 16); }
inline float fromBf16(uint16_t bits) { return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16); }

// The values a tile holds after bfp16ebs8 encoding in blocks of 8 elements `stride` apart (1:
// each row is a block, 8: each column). A block shares its largest exponent; each element keeps
// a signed 8-bit mantissa, floored (docs/aie2p.md, "The bfp16 MMA"); subnormals count as
// exponent 0. Small integers are exact.
Tile encodeBfp16(const Tile &values, unsigned stride);

// C = A x B in f32 from a zero accumulator, each element's products summed exactly (they share
// one exponent) and rounded once.
Tile multiply(const Tile &a, const Tile &b);

// What the worker computes for one pair of BF16 tiles: A's rows and B's columns are the blocks,
// as the AIE2P MMA needs.
inline Tile gemmOracle(const Tile &a, const Tile &b) { return multiply(encodeBfp16(a, 1), encodeBfp16(b, kTileDim)); }

}  // namespace hrx::examples

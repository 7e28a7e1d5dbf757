// A typed f32 batched 8x8 GEMM: the benchmark's baseline for the NPU GEMM on the host device.
#pragma once

#include <cstddef>

namespace hrx::bench {

// c[m] = a[m] x b[m], row-major 8x8 f32 matrices, k ascending from a zero accumulator.
void typedGemm8x8(const float *__restrict a, const float *__restrict b, float *__restrict c, size_t matrices);

}  // namespace hrx::bench

/* Numeric helpers the Loom lowering calls, compiled to LLVM bitcode at build time and linked
 * (internalized) into every lowered module, the way libclc/libdevice serve their compilers.
 *
 * bfp16ebs8 (npu5-hardware.md §6.1): a block of 8 values is 9 bytes, the shared exponent E
 * (the largest biased f32 exponent field of the block, subnormals counting as 0) followed by 8
 * int8 mantissas q; the value is q * 2^(E-133). Mantissas keep sign + 7 bits of the 24-bit
 * significand and are truncated toward -inf (arithmetic shifts). Non-finite input cannot be
 * encoded: its block gets the marker exponent 0xFF (never produced by finite data) and zero
 * mantissas, and every product that reads such a block is NaN. */
#include <stdint.h>

#define HRX_BFP_BLOCK 8
#define HRX_BFP_INVALID_EXPONENT 0xFFu

static uint32_t f32_bits(float value) {
  uint32_t bits;
  __builtin_memcpy(&bits, &value, sizeof bits);
  return bits;
}

static void encode_block(const uint32_t bits[HRX_BFP_BLOCK], uint8_t out[1 + HRX_BFP_BLOCK]) {
  uint32_t shared = 0;
  int finite = 1;
  for (int i = 0; i < HRX_BFP_BLOCK; ++i) {
    uint32_t exponent = (bits[i] >> 23) & 0xFFu;
    finite &= exponent != 0xFFu;
    shared = exponent > shared ? exponent : shared;
  }
  out[0] = (uint8_t)(finite ? shared : HRX_BFP_INVALID_EXPONENT);
  for (int i = 0; i < HRX_BFP_BLOCK; ++i) {
    uint32_t exponent = (bits[i] >> 23) & 0xFFu;
    int32_t significand = (int32_t)((bits[i] & 0x7FFFFFu) | (exponent ? 0x800000u : 0u));
    if (bits[i] >> 31) significand = -significand;
    int32_t q = (int8_t)(significand >> 17);
    uint32_t shift = shared - exponent;
    q >>= shift > 31 ? 31 : shift;
    out[1 + i] = finite ? (uint8_t)q : 0;
  }
}

void __hrx_bfp16ebs8_encode_f32(const float *in, uint8_t *out, uint32_t blocks) {
  for (uint32_t b = 0; b < blocks; ++b) {
    uint32_t bits[HRX_BFP_BLOCK];
    for (int i = 0; i < HRX_BFP_BLOCK; ++i) bits[i] = f32_bits(in[b * HRX_BFP_BLOCK + i]);
    encode_block(bits, out + b * (1 + HRX_BFP_BLOCK));
  }
}

void __hrx_bfp16ebs8_encode_bf16(const uint16_t *in, uint8_t *out, uint32_t blocks) {
  for (uint32_t b = 0; b < blocks; ++b) {
    uint32_t bits[HRX_BFP_BLOCK];
    for (int i = 0; i < HRX_BFP_BLOCK; ++i) bits[i] = (uint32_t)in[b * HRX_BFP_BLOCK + i] << 16;
    encode_block(bits, out + b * (1 + HRX_BFP_BLOCK));
  }
}

/* 2^(exponent - 133) as a double, or NaN for the invalid-block marker. */
static double block_scale(uint8_t exponent) {
  uint64_t bits =
      exponent == HRX_BFP_INVALID_EXPONENT ? 0x7FF8000000000000ull : (uint64_t)(exponent - 133 + 1023) << 52;
  double scale;
  __builtin_memcpy(&scale, &bits, sizeof scale);
  return scale;
}

static void decode_all(const uint8_t *payload, uint32_t count, double *out) {
  for (uint32_t b = 0; b < count / HRX_BFP_BLOCK; ++b) {
    const uint8_t *block = payload + b * (1 + HRX_BFP_BLOCK);
    double scale = block_scale(block[0]);
    for (int i = 0; i < HRX_BFP_BLOCK; ++i) out[b * HRX_BFP_BLOCK + i] = (double)(int8_t)block[1 + i] * scale;
  }
}

/* The smallest and largest shared exponent of an operand's blocks; 0 when a block is invalid. */
static int exponent_range(const uint8_t *payload, uint32_t count, uint32_t *low, uint32_t *high) {
  uint32_t lo = 0xFFu, hi = 0;
  for (uint32_t b = 0; b < count / HRX_BFP_BLOCK; ++b) {
    uint32_t e = payload[b * (1 + HRX_BFP_BLOCK)];
    lo = e < lo ? e : lo;
    hi = e > hi ? e : hi;
  }
  *low = lo;
  *high = hi;
  return hi != HRX_BFP_INVALID_EXPONENT;
}

/* Mantissas scaled to the operand's smallest exponent: q << (E - low), exact in int32. */
static void decode_aligned(const uint8_t *payload, uint32_t count, uint32_t low, int32_t *out) {
  for (uint32_t b = 0; b < count / HRX_BFP_BLOCK; ++b) {
    const uint8_t *block = payload + b * (1 + HRX_BFP_BLOCK);
    uint32_t shift = block[0] - low;
    for (int i = 0; i < HRX_BFP_BLOCK; ++i) out[b * HRX_BFP_BLOCK + i] = (int32_t)(int8_t)block[1 + i] * (1 << shift);
  }
}

/* out[r][c] = acc[r][c] + sum_k lhs[r][k] * rhs[k][c] over bfp16ebs8 operands (lhs m x k and rhs
 * k x n, both row-major, blocks of 8 consecutive elements; the lowering guarantees m*k and k*n
 * are multiples of 8). The products are exact; they are summed in f64 in increasing k, the
 * accumulator added last, and the sum rounded once to f32.
 *
 * When the operands' exponent spreads are small enough that every product and partial sum is an
 * integer multiple of 2^(lowL+lowR-266) below 2^31, that f64 sum is exact: it equals the int32
 * sum of the aligned mantissas, which is computed instead (vectorizable integer
 * multiply-adds) and scaled by a power of two, so the result is bit-identical. */
void __hrx_bfp16ebs8_mma(const uint8_t *lhs, const uint8_t *rhs, const float *acc, float *out, uint32_t m, uint32_t n,
                         uint32_t k) {
  uint32_t lowL, highL, lowR, highR, kBits = 0;
  while ((1u << kBits) < k) ++kBits;
  int valid = exponent_range(lhs, m * k, &lowL, &highL) & exponent_range(rhs, k * n, &lowR, &highR);
  if (valid && 14 + (highL - lowL) + (highR - lowR) + kBits <= 30) {
    int32_t a[m * k], b[k * n];
    decode_aligned(lhs, m * k, lowL, a);
    decode_aligned(rhs, k * n, lowR, b);
    double scale;
    uint64_t bits = (uint64_t)((int64_t)lowL + (int64_t)lowR - 266 + 1023) << 52;
    __builtin_memcpy(&scale, &bits, sizeof scale);
    for (uint32_t r = 0; r < m; ++r) {
      int32_t sums[n];
      for (uint32_t c = 0; c < n; ++c) sums[c] = 0;
      for (uint32_t i = 0; i < k; ++i)
        for (uint32_t c = 0; c < n; ++c) sums[c] += a[r * k + i] * b[i * n + c];
      for (uint32_t c = 0; c < n; ++c) out[r * n + c] = (float)((double)sums[c] * scale + (double)acc[r * n + c]);
    }
    return;
  }
  double a[m * k], b[k * n];
  decode_all(lhs, m * k, a);
  decode_all(rhs, k * n, b);
  for (uint32_t r = 0; r < m; ++r)
    for (uint32_t c = 0; c < n; ++c) {
      double sum = 0.0;
      for (uint32_t i = 0; i < k; ++i) sum += a[r * k + i] * b[i * n + c];
      out[r * n + c] = (float)(sum + (double)acc[r * n + c]);
    }
}

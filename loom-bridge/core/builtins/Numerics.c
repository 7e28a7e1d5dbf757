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

#include <immintrin.h>

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

/* Whether the CPU and OS run AVX-512 F/BW/VL with VBMI and VNNI (cpuid and XCR0; the shared object has no
 * libgcc for __builtin_cpu_supports). Cached: 0 unknown, 1 no, 2 yes. Functions whose names end
 * in _avx512 keep their target attributes when linked (Builtins.cpp) and run only when this holds. */
static int hrx_avx512_state;

static void hrx_cpuid(uint32_t leaf, uint32_t sub, uint32_t regs[4]) {
  __asm__ volatile("cpuid" : "=a"(regs[0]), "=b"(regs[1]), "=c"(regs[2]), "=d"(regs[3]) : "a"(leaf), "c"(sub));
}

static int has_avx512(void) {
  int state = __atomic_load_n(&hrx_avx512_state, __ATOMIC_RELAXED);
  if (state) return state == 2;
  uint32_t r[4];
  int ok = 0;
  hrx_cpuid(0, 0, r);
  if (r[0] >= 7) {
    hrx_cpuid(1, 0, r);
    if (r[2] & (1u << 27)) { /* OSXSAVE: XCR0 says the OS saves SSE, AVX and the AVX-512 state */
      uint32_t low, high;
      __asm__ volatile("xgetbv" : "=a"(low), "=d"(high) : "c"(0));
      (void)high;
      if ((low & 0xE6u) == 0xE6u) {
        hrx_cpuid(7, 0, r);
        ok = (r[1] >> 16 & 1) && (r[1] >> 30 & 1) && (r[1] >> 31 & 1) && (r[2] >> 1 & 1) && (r[2] >> 11 & 1);
      }
    }
  }
  __atomic_store_n(&hrx_avx512_state, ok ? 2 : 1, __ATOMIC_RELAXED);
  return ok;
}

#define HRX_AVX512_ISA target("avx512f,avx512bw,avx512vl,avx512vnni,avx512vbmi")
#define HRX_AVX512 __attribute__((HRX_AVX512_ISA, noinline))

/* encode_block on four blocks at once, one block of 8 bf16 values per 128-bit lane: the shared
 * exponent (broadcast to the block's lanes) and the mantissas as int16. zeroInvalid clears the
 * mantissas of blocks with the invalid marker (the MMA rejects such blocks before reading them). */
__attribute__((HRX_AVX512_ISA, always_inline)) static inline __m512i
encode4_avx512(const uint16_t *in, __m512i *sharedOut, int zeroInvalid) {
  __m512i h = _mm512_loadu_si512(in);
  __m512i magnitude = _mm512_and_si512(h, _mm512_set1_epi16(0x7FFF));
  __m512i e = _mm512_srli_epi16(magnitude, 7);
  /* The block maximum: swap neighbouring 16-, 32- and 64-bit parts within each lane. */
  __m512i shared = _mm512_max_epu16(e, _mm512_rol_epi32(e, 16));
  shared = _mm512_max_epu16(shared, _mm512_shuffle_epi32(shared, _MM_PERM_CDAB));
  shared = _mm512_max_epu16(shared, _mm512_shuffle_epi32(shared, _MM_PERM_BADC));
  /* q = (+-M >> 17) >> min(E - e, 31) on the bf16 fields: M >> 16 is the 7 stored bits plus the
   * implicit one, and (+-v) >> 1 floors like the f32 shift; 15 suffices for int16 (vpsravw
   * fills larger counts with the sign). v = 0x80 | the 7 stored bits for a normal value (its
   * magnitude field is at least 0x80, and above it unless e is 1), the magnitude itself for a
   * zero or subnormal one (below 0x80): the smaller of the two. */
  __m512i v =
      _mm512_min_epu16(magnitude, _mm512_ternarylogic_epi32(h, _mm512_set1_epi16(0x7F), _mm512_set1_epi16(0x80), 0xEA));
  v = _mm512_mask_sub_epi16(v, _mm512_movepi16_mask(h), _mm512_setzero_si512(), v);
  __m512i q = _mm512_srav_epi16(_mm512_srai_epi16(v, 1), _mm512_sub_epi16(shared, e));
  *sharedOut = shared;
  if (!zeroInvalid) return q;
  return _mm512_maskz_mov_epi16(_mm512_cmpneq_epi16_mask(shared, _mm512_set1_epi16(HRX_BFP_INVALID_EXPONENT)), q);
}

/* Eight blocks (64 values, 72 payload bytes) at a time, packed with one byte permute. */
HRX_AVX512 static void encode_bf16_avx512(const uint16_t *in, uint8_t *out, uint32_t groups) {
  /* Payload byte i < 64 is the exponent of block i / 9 (at 64 + 8 * block in the second table)
   * or its mantissa i % 9 - 1 (at 8 * block + i % 9 - 1 in the first). */
  const __m512i packIndex = _mm512_set_epi8(120, 55, 54, 53, 52, 51, 50, 49, 48, 112, 47, 46, 45, 44, 43, 42, 41, 40, 104, 39, 38, 37, 36, 35, 34, 33, 32, 96, 31, 30, 29, 28, 27, 26, 25, 24, 88, 23, 22, 21, 20, 19, 18, 17, 16, 80, 15, 14, 13, 12, 11, 10, 9, 8, 72, 7, 6, 5, 4, 3, 2, 1, 0, 64);
  for (uint32_t g = 0; g < groups; ++g) {
    __m512i shared0, shared1;
    __m512i q0 = encode4_avx512(in + g * 64, &shared0, 1), q1 = encode4_avx512(in + g * 64 + 32, &shared1, 1);
    __m512i mantissas = _mm512_inserti64x4(_mm512_castsi256_si512(_mm512_cvtepi16_epi8(q0)), _mm512_cvtepi16_epi8(q1), 1);
    __m512i exponents =
        _mm512_inserti64x4(_mm512_castsi256_si512(_mm512_cvtepi16_epi8(shared0)), _mm512_cvtepi16_epi8(shared1), 1);
    uint8_t *payload = out + g * 8 * (1 + HRX_BFP_BLOCK);
    _mm512_storeu_si512(payload, _mm512_permutex2var_epi8(mantissas, packIndex, exponents));
    _mm_storel_epi64((__m128i *)(payload + 64), _mm_unpackhi_epi64(_mm512_extracti32x4_epi32(mantissas, 3),
                                                                   _mm512_extracti32x4_epi32(mantissas, 3)));
  }
}

void __hrx_bfp16ebs8_encode_bf16(const uint16_t *in, uint8_t *out, uint32_t blocks) {
  uint32_t b = 0;
  if (blocks >= 8 && has_avx512()) {
    encode_bf16_avx512(in, out, blocks / 8);
    b = blocks / 8 * 8;
  }
  for (; b < blocks; ++b) {
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
/* The 8x8x8 product when the operands allow it, bit-identical to the f64 definition: row r of lhs
 * is one block (exponent Ea[r]) and row k of rhs one block (Eb[k]), so
 * out[r][c] = 2^s(r) * S[r][c] with S = sum_k qa[r][k] * (qb[k][c] << (Eb[k] - base)),
 * s(r) = Ea[r] + base - 266 and base = max_k Eb[k] - 6. A row whose mantissas are all zero adds
 * nothing whatever its shift; every other row k needs Eb[k] >= base (a spread of at most 6).
 * Then the aligned mantissas fit in int16 (|q| <= 128, shifted by at most 6) and |S| < 2^24, so S
 * is exact in int32 (VNNI dot products) and in f32; with s(r) in [-126, 103] so is S * 2^s(r),
 * and one f32 fused add of the accumulator rounds the exact sum once, as the f64 definition does
 * (its f64 rounding, if any, cannot reach an f32 rounding boundary). A row of S that is all zero
 * needs no scale (the result is the accumulator). Returns 0 (nothing written) when a condition
 * fails.
 *
 * The operands come as int16 mantissas q (row-major, rows 0-3 and 4-7, one row per 128-bit lane)
 * and each lane's block exponent E beside them (the same in the 8 lanes of a row). */
__attribute__((HRX_AVX512_ISA, always_inline)) static inline int
mma8_core_avx512(__m512i lhsQ03, __m512i lhsQ47, __m512i lhsE03, __m512i lhsE47, __m512i rhsQ03, __m512i rhsQ47,
                 __m512i rhsE03, __m512i rhsE47, const float *acc, float *out) {
  /* lhs mantissas as int16, two to an int32: a[r][2j] | a[r][2j+1] << 16 at index 4r + j, stored
   * first: the vpdpwssd broadcasts below load them. */
  int32_t lhsPairs[32];
  _mm512_storeu_si512(lhsPairs, lhsQ03);
  _mm512_storeu_si512(lhsPairs + 16, lhsQ47);
  __m512i rhsHigh = _mm512_max_epu16(rhsE03, rhsE47);
  __m512i anyHigh = _mm512_max_epu16(_mm512_max_epu16(lhsE03, lhsE47), rhsHigh);
  if (_mm512_cmpeq_epi16_mask(anyHigh, _mm512_set1_epi16(HRX_BFP_INVALID_EXPONENT))) return 0;
  /* base = the largest rhs exponent - 6, in every lane (rows are lanes of 128 bits). */
  rhsHigh = _mm512_max_epu16(rhsHigh, _mm512_shuffle_i64x2(rhsHigh, rhsHigh, _MM_SHUFFLE(1, 0, 3, 2)));
  rhsHigh = _mm512_max_epu16(rhsHigh, _mm512_shuffle_i64x2(rhsHigh, rhsHigh, _MM_SHUFFLE(2, 3, 0, 1)));
  __m512i base = _mm512_sub_epi16(rhsHigh, _mm512_set1_epi16(6));
  __m512i shift03 = _mm512_sub_epi16(rhsE03, base), shift47 = _mm512_sub_epi16(rhsE47, base);
  const __m512i zero = _mm512_setzero_si512();
  if (_mm512_mask_cmplt_epi16_mask(_mm512_test_epi16_mask(rhsQ03, rhsQ03), shift03, zero) |
      _mm512_mask_cmplt_epi16_mask(_mm512_test_epi16_mask(rhsQ47, rhsQ47), shift47, zero))
    return 0;
  /* Zero lanes may have a negative shift: as a count above 15 it gives 0, as it should. */
  __m512i rhsRows03 = _mm512_sllv_epi16(rhsQ03, shift03), rhsRows47 = _mm512_sllv_epi16(rhsQ47, shift47);
  /* s(r) per row, clamped to the normal range (rows out of range must have an all-zero S). */
  const __m512i rowLanes = _mm512_set_epi16(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                            56, 48, 40, 32, 24, 16, 8, 0);
  __m128i s = _mm_add_epi16(_mm512_castsi512_si128(_mm512_permutex2var_epi16(lhsE03, rowLanes, lhsE47)),
                            _mm_sub_epi16(_mm512_castsi512_si128(base), _mm_set1_epi16(266)));
  __m128i clamped = _mm_min_epi16(_mm_max_epi16(s, _mm_set1_epi16(-126)), _mm_set1_epi16(103));
  __mmask8 unscaled = _mm_cmpneq_epi16_mask(s, clamped);
  float scales[8];
  _mm256_storeu_si256((__m256i *)scales,
                      _mm256_slli_epi32(_mm256_cvtepi16_epi32(_mm_add_epi16(clamped, _mm_set1_epi16(127))), 23));
  /* pairs[j]: (b[2j][c], b[2j+1][c]) for c = 0..7, the int16 pairs vpdpwssd multiplies lane c by:
   * word w of a half's two pair registers is row 2 (w / 16) + w % 2, column (w % 16) / 2. */
  const __m512i pairIndex = _mm512_set_epi16(31, 23, 30, 22, 29, 21, 28, 20, 27, 19, 26, 18, 25, 17, 24, 16, 15, 7, 14,
                                             6, 13, 5, 12, 4, 11, 3, 10, 2, 9, 1, 8, 0);
  __m512i pairs01 = _mm512_permutexvar_epi16(pairIndex, rhsRows03);
  __m512i pairs23 = _mm512_permutexvar_epi16(pairIndex, rhsRows47);
  __m256i pairs[4] = {_mm512_castsi512_si256(pairs01), _mm512_extracti64x4_epi64(pairs01, 1),
                      _mm512_castsi512_si256(pairs23), _mm512_extracti64x4_epi64(pairs23, 1)};
  /* The (r, j) pairs are broadcast from memory inside vpdpwssd ({1to8}); written as intrinsics,
   * the compiler extracts them from registers instead (shuffles, twice the cycles here). */
  __asm__ volatile("" ::: "memory");
  __m256i sums[8];
#pragma clang loop unroll(full)
  for (int r = 0; r < 8; ++r) {
    sums[r] = _mm256_setzero_si256();
#pragma clang loop unroll(full)
    for (int j = 0; j < 4; ++j)
      __asm__("vpdpwssd %2%{1to8%}, %1, %0" : "+v"(sums[r]) : "v"(pairs[j]), "m"(lhsPairs[r * 4 + j]));
  }
  if (unscaled)
    for (int r = 0; r < 8; ++r)
      if ((unscaled >> r & 1) && !_mm256_testz_si256(sums[r], sums[r])) return 0;
  /* Two rows per register: S as f32 times its row's scale, plus the accumulator. */
  __m512i scaleBits = _mm512_castsi256_si512(_mm256_loadu_si256((const __m256i *)scales));
#pragma clang loop unroll(full)
  for (int r = 0; r < 8; r += 2) {
    __m512 products = _mm512_cvtepi32_ps(_mm512_inserti64x4(_mm512_castsi256_si512(sums[r]), sums[r + 1], 1));
    __m512 rowScales = _mm512_castsi512_ps(_mm512_permutexvar_epi32(
        _mm512_set_epi32(r + 1, r + 1, r + 1, r + 1, r + 1, r + 1, r + 1, r + 1, r, r, r, r, r, r, r, r), scaleBits));
    _mm512_storeu_ps(out + r * 8, _mm512_fmadd_ps(products, rowScales, _mm512_loadu_ps(acc + r * 8)));
  }
  return 1;
}

/* mma8_core_avx512 on two 72-byte payloads. */
HRX_AVX512 static int mma8_avx512(const uint8_t *lhs, const uint8_t *rhs, const float *acc, float *out) {
  /* Byte i of the 64 mantissas (row-major) is payload byte 9 * (i / 8) + 1 + i % 8; the
   * exponent of row i / 8 is payload byte 9 * (i / 8). */
  const __m512i mantissaIndex = _mm512_set_epi8(
      71, 70, 69, 68, 67, 66, 65, 64, 62, 61, 60, 59, 58, 57, 56, 55, 53, 52, 51, 50, 49, 48, 47, 46, 44, 43, 42, 41,
      40, 39, 38, 37, 35, 34, 33, 32, 31, 30, 29, 28, 26, 25, 24, 23, 22, 21, 20, 19, 17, 16, 15, 14, 13, 12, 11, 10, 8,
      7, 6, 5, 4, 3, 2, 1);
  const __m512i exponentIndex = _mm512_set_epi8(
      63, 63, 63, 63, 63, 63, 63, 63, 54, 54, 54, 54, 54, 54, 54, 54, 45, 45, 45, 45, 45, 45, 45, 45, 36, 36, 36, 36,
      36, 36, 36, 36, 27, 27, 27, 27, 27, 27, 27, 27, 18, 18, 18, 18, 18, 18, 18, 18, 9, 9, 9, 9, 9, 9, 9, 9, 0, 0, 0,
      0, 0, 0, 0, 0);
  __m512i lhs0 = _mm512_loadu_si512(lhs), lhs1 = _mm512_maskz_loadu_epi8(0xFF, lhs + 64);
  __m512i rhs0 = _mm512_loadu_si512(rhs), rhs1 = _mm512_maskz_loadu_epi8(0xFF, rhs + 64);
  __m512i lhsQ = _mm512_permutex2var_epi8(lhs0, mantissaIndex, lhs1);
  __m512i rhsQ = _mm512_permutex2var_epi8(rhs0, mantissaIndex, rhs1);
  __m512i lhsE = _mm512_permutexvar_epi8(exponentIndex, lhs0);
  __m512i rhsE = _mm512_permutexvar_epi8(exponentIndex, rhs0);
  return mma8_core_avx512(_mm512_cvtepi8_epi16(_mm512_castsi512_si256(lhsQ)),
                          _mm512_cvtepi8_epi16(_mm512_extracti64x4_epi64(lhsQ, 1)),
                          _mm512_cvtepu8_epi16(_mm512_castsi512_si256(lhsE)),
                          _mm512_cvtepu8_epi16(_mm512_extracti64x4_epi64(lhsE, 1)),
                          _mm512_cvtepi8_epi16(_mm512_castsi512_si256(rhsQ)),
                          _mm512_cvtepi8_epi16(_mm512_extracti64x4_epi64(rhsQ, 1)),
                          _mm512_cvtepu8_epi16(_mm512_castsi512_si256(rhsE)),
                          _mm512_cvtepu8_epi16(_mm512_extracti64x4_epi64(rhsE, 1)), acc, out);
}

void __hrx_bfp16ebs8_mma(const uint8_t *lhs, const uint8_t *rhs, const float *acc, float *out, uint32_t m, uint32_t n,
                         uint32_t k) {
  if (m == 8 && n == 8 && k == 8 && has_avx512() && mma8_avx512(lhs, rhs, acc, out)) return;
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

/* vector.mma of two vector.encode<bfp16ebs8> results of 64 bf16 values each, 8x8x8 (the lowering
 * calls this when the payloads feed only the MMA), as the AIE2P MMA computes it: that unit's
 * blocks run along K in both operands, so a worker converts B transposed, and lhs row r and rhs
 * column c are the blocks (docs/aie2p.md, "The bfp16 MMA"). Each result is then one exact integer
 * sum S = sum_k qa[r][k] * qb[k][c] (|S| <= 2^17) times 2^(Ea[r] + Eb[c] - 266), plus the
 * accumulator, rounded once to f32: the double product is exact and the double sum of two values
 * of at most 24 significant bits rounds to f32 as the exact sum does. No payload bytes are
 * written. */
void __hrx_bfp16ebs8_mma_bf16(const uint16_t *lhs, const uint16_t *rhs, const float *acc, float *out) {
  uint16_t columns[64];
  for (int k = 0; k < 8; ++k)
    for (int c = 0; c < 8; ++c) columns[c * 8 + k] = rhs[k * 8 + c];
  uint8_t a[8 * (1 + HRX_BFP_BLOCK)], b[8 * (1 + HRX_BFP_BLOCK)];
  __hrx_bfp16ebs8_encode_bf16(lhs, a, 8);
  __hrx_bfp16ebs8_encode_bf16(columns, b, 8);
  for (int r = 0; r < 8; ++r) {
    const uint8_t *row = a + r * (1 + HRX_BFP_BLOCK);
    for (int c = 0; c < 8; ++c) {
      const uint8_t *column = b + c * (1 + HRX_BFP_BLOCK);
      int32_t sum = 0;
      for (int k = 0; k < 8; ++k) sum += (int32_t)(int8_t)row[1 + k] * (int32_t)(int8_t)column[1 + k];
      double scale = row[0] == HRX_BFP_INVALID_EXPONENT || column[0] == HRX_BFP_INVALID_EXPONENT
                         ? block_scale(HRX_BFP_INVALID_EXPONENT)
                         : block_scale(row[0]) * block_scale(column[0]);
      out[r * 8 + c] = (float)((double)acc[r * 8 + c] + (double)sum * scale);
    }
  }
}

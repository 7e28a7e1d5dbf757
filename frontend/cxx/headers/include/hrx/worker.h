/* hrx <hrx/worker.h>: types and helpers for vector workers (C23 and C++26).
 *
 * bf16 follows the product's numerics: conversion from f32 keeps the top 16 bits of the f32
 * encoding (truncation, not round-to-nearest), and conversion back is exact. */
#ifndef HRX_WORKER_H
#define HRX_WORKER_H

#include <stdint.h>

#define HRX_WORKER_INLINE static inline __attribute__((always_inline))

/* Scalar bf16: 16 bits of storage with no implicit arithmetic, so every conversion from f32
 * goes through the truncating helper. The annotation lets signature tables report it as bf16. */
#ifdef __cplusplus
namespace hrx {
struct [[clang::annotate("hrx.bf16")]] bf16 {
  uint16_t bits = 0;
  constexpr bf16() = default;
  constexpr explicit bf16(float value) : bits(uint16_t(__builtin_bit_cast(uint32_t, value) >> 16)) {}
  static constexpr bf16 fromBits(uint16_t raw) {
    bf16 b;
    b.bits = raw;
    return b;
  }
  constexpr explicit operator float() const { return __builtin_bit_cast(float, uint32_t(bits) << 16); }
  friend constexpr bool operator==(bf16, bf16) = default;
};
}  // namespace hrx
typedef hrx::bf16 hrx_bf16;
#else
typedef struct [[clang::annotate("hrx.bf16")]] hrx_bf16 {
  uint16_t bits;
} hrx_bf16;
#endif

HRX_WORKER_INLINE hrx_bf16 hrx_bf16_from_f32(float value) {
  hrx_bf16 b;
  b.bits = (uint16_t)(__builtin_bit_cast(uint32_t, value) >> 16);
  return b;
}
HRX_WORKER_INLINE float hrx_bf16_to_f32(hrx_bf16 value) {
  return __builtin_bit_cast(float, (uint32_t)value.bits << 16);
}

/* Vectors of 16, 32 and 64 lanes (GCC vector_size): hrx_<elem>x<lanes>. Element-wise
 * operators, subscripts and __builtin_convertvector work on them; the bf16 vectors hold
 * Clang's __bf16 and convert only through the helpers below. */
#define HRX_VECTOR_TYPES(NAME, ELEM)                                         \
  typedef ELEM hrx_##NAME##x16 __attribute__((vector_size(16 * sizeof(ELEM)))); \
  typedef ELEM hrx_##NAME##x32 __attribute__((vector_size(32 * sizeof(ELEM)))); \
  typedef ELEM hrx_##NAME##x64 __attribute__((vector_size(64 * sizeof(ELEM))));
HRX_VECTOR_TYPES(f32, float)
HRX_VECTOR_TYPES(i32, int32_t)
HRX_VECTOR_TYPES(u32, uint32_t)
HRX_VECTOR_TYPES(i16, int16_t)
HRX_VECTOR_TYPES(u16, uint16_t)
HRX_VECTOR_TYPES(i8, int8_t)
HRX_VECTOR_TYPES(u8, uint8_t)
HRX_VECTOR_TYPES(bf16, __bf16)
#undef HRX_VECTOR_TYPES

#define HRX_BF16_VECTOR_CONVERSIONS(LANES)                                                   \
  HRX_WORKER_INLINE hrx_bf16x##LANES hrx_bf16x##LANES##_from_f32x##LANES(hrx_f32x##LANES v) { \
    hrx_u32x##LANES high = __builtin_bit_cast(hrx_u32x##LANES, v) >> 16;                     \
    return __builtin_bit_cast(hrx_bf16x##LANES, __builtin_convertvector(high, hrx_u16x##LANES)); \
  }                                                                                          \
  HRX_WORKER_INLINE hrx_f32x##LANES hrx_f32x##LANES##_from_bf16x##LANES(hrx_bf16x##LANES v) { \
    hrx_u32x##LANES wide =                                                                   \
        __builtin_convertvector(__builtin_bit_cast(hrx_u16x##LANES, v), hrx_u32x##LANES);   \
    return __builtin_bit_cast(hrx_f32x##LANES, wide << 16);                                  \
  }
HRX_BF16_VECTOR_CONVERSIONS(16)
HRX_BF16_VECTOR_CONVERSIONS(32)
HRX_BF16_VECTOR_CONVERSIONS(64)
#undef HRX_BF16_VECTOR_CONVERSIONS

/* Element-wise and reduction helpers, valid for every vector type above (and scalars where
 * the builtin allows). */
#define hrx_min(a, b) __builtin_elementwise_min((a), (b))
#define hrx_max(a, b) __builtin_elementwise_max((a), (b))
#define hrx_fma(a, b, c) __builtin_elementwise_fma((a), (b), (c))
#define hrx_reduce_add(v) __builtin_reduce_add(v)
#define hrx_reduce_min(v) __builtin_reduce_min(v)
#define hrx_reduce_max(v) __builtin_reduce_max(v)

#endif /* HRX_WORKER_H */

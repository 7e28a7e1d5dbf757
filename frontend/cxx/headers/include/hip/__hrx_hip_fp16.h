// __half (IEEE binary16, Clang's _Float16) and __hip_bfloat16 (Clang's __bf16) with HIP's
// conversion and arithmetic functions. Conversions from float round to nearest even.
#ifndef HRX_HIP_FP16_H
#define HRX_HIP_FP16_H
#define __HRX_H __host__ __device__ inline __attribute__((always_inline))

typedef _Float16 __half;
typedef _Float16 half;
struct __attribute__((aligned(4))) __half2 {
  __half x, y;
  __half2() = default;
  __HRX_H constexpr __half2(__half x_, __half y_) : x(x_), y(y_) {}
};
typedef __half2 half2;

__HRX_H __half __float2half(float f) { return (__half)f; }
__HRX_H __half __float2half_rn(float f) { return (__half)f; }
__HRX_H float __half2float(__half h) { return (float)h; }
__HRX_H __half __double2half(double d) { return (__half)d; }
__HRX_H __half __int2half_rn(int i) { return (__half)i; }
__HRX_H int __half2int_rn(__half h) { return (int)__builtin_rintf((float)h); }
__HRX_H int __half2int_rz(__half h) { return (int)(float)h; }
__HRX_H unsigned short __half_as_ushort(__half h) { return __builtin_bit_cast(unsigned short, h); }
__HRX_H short __half_as_short(__half h) { return __builtin_bit_cast(short, h); }
__HRX_H __half __ushort_as_half(unsigned short u) { return __builtin_bit_cast(__half, u); }
__HRX_H __half __short_as_half(short s) { return __builtin_bit_cast(__half, s); }
__HRX_H __half __hadd(__half a, __half b) { return a + b; }
__HRX_H __half __hsub(__half a, __half b) { return a - b; }
__HRX_H __half __hmul(__half a, __half b) { return a * b; }
__HRX_H __half __hdiv(__half a, __half b) { return a / b; }
__HRX_H __half __hneg(__half a) { return -a; }
__HRX_H __half __habs(__half a) { return a < (__half)0 ? -a : a; }
__HRX_H __half __hfma(__half a, __half b, __half c) { return (__half)__builtin_fmaf((float)a, (float)b, (float)c); }
__HRX_H __half __hmax(__half a, __half b) { return a < b ? b : a; }
__HRX_H __half __hmin(__half a, __half b) { return b < a ? b : a; }
__HRX_H bool __heq(__half a, __half b) { return a == b; }
__HRX_H bool __hne(__half a, __half b) { return a != b; }
__HRX_H bool __hlt(__half a, __half b) { return a < b; }
__HRX_H bool __hle(__half a, __half b) { return a <= b; }
__HRX_H bool __hgt(__half a, __half b) { return a > b; }
__HRX_H bool __hge(__half a, __half b) { return a >= b; }
__HRX_H bool __hisnan(__half a) { return a != a; }
__HRX_H __half hsqrt(__half a) { return (__half)__builtin_sqrtf((float)a); }
__HRX_H __half2 __floats2half2_rn(float a, float b) { return __half2((__half)a, (__half)b); }
__HRX_H __half2 __float2half2_rn(float a) { return __half2((__half)a, (__half)a); }
__HRX_H __half2 __halves2half2(__half a, __half b) { return __half2(a, b); }
__HRX_H float __low2float(__half2 h) { return (float)h.x; }
__HRX_H float __high2float(__half2 h) { return (float)h.y; }
__HRX_H __half __low2half(__half2 h) { return h.x; }
__HRX_H __half __high2half(__half2 h) { return h.y; }
__HRX_H __half2 __hadd2(__half2 a, __half2 b) { return __half2(a.x + b.x, a.y + b.y); }
__HRX_H __half2 __hsub2(__half2 a, __half2 b) { return __half2(a.x - b.x, a.y - b.y); }
__HRX_H __half2 __hmul2(__half2 a, __half2 b) { return __half2(a.x * b.x, a.y * b.y); }
__HRX_H __half2 __hfma2(__half2 a, __half2 b, __half2 c) { return __half2(__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y)); }

typedef __bf16 __hip_bfloat16;
typedef __bf16 hip_bfloat16;
// Conversions by bits (round to nearest even; NaN stays a quiet NaN), so that the host twin needs
// no compiler-runtime conversion routine.
__HRX_H __hip_bfloat16 __float2bfloat16(float f) {
  unsigned int u = __builtin_bit_cast(unsigned int, f);
  if ((u & 0x7FFFFFFFu) > 0x7F800000u) return __builtin_bit_cast(__bf16, (unsigned short)((u >> 16) | 0x40u));
  u += 0x7FFFu + ((u >> 16) & 1u);
  return __builtin_bit_cast(__bf16, (unsigned short)(u >> 16));
}
__HRX_H float __bfloat162float(__hip_bfloat16 b) {
  return __builtin_bit_cast(float, (unsigned int)__builtin_bit_cast(unsigned short, b) << 16);
}
__HRX_H unsigned short __bfloat16_as_ushort(__hip_bfloat16 b) { return __builtin_bit_cast(unsigned short, b); }
__HRX_H __hip_bfloat16 __ushort_as_bfloat16(unsigned short u) { return __builtin_bit_cast(__bf16, u); }
__HRX_H __hip_bfloat16 __hadd(__hip_bfloat16 a, __hip_bfloat16 b) { return __float2bfloat16(__bfloat162float(a) + __bfloat162float(b)); }
__HRX_H __hip_bfloat16 __hmul(__hip_bfloat16 a, __hip_bfloat16 b) { return __float2bfloat16(__bfloat162float(a) * __bfloat162float(b)); }
__HRX_H __hip_bfloat16 __hsub(__hip_bfloat16 a, __hip_bfloat16 b) { return __float2bfloat16(__bfloat162float(a) - __bfloat162float(b)); }
__HRX_H __hip_bfloat16 __hfma(__hip_bfloat16 a, __hip_bfloat16 b, __hip_bfloat16 c) {
  return __float2bfloat16(__builtin_fmaf(__bfloat162float(a), __bfloat162float(b), __bfloat162float(c)));
}
#undef __HRX_H
#endif  // HRX_HIP_FP16_H

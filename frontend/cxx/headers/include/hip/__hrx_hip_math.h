// hrx's HIP math API on the host reference device: the host libm, with the HIP-only functions
// built on it (bounds in docs/cxx.md). On amdgcn Clang's HIP math header (ocml) provides all of it.
#ifndef HRX_HIP_MATH_H
#define HRX_HIP_MATH_H
#if !defined(__HRX_TARGET_AMDGPU__)
#define __HRX_M __host__ __device__ inline __attribute__((always_inline))
// Over the host's headers (--host-headers) the C library and libstdc++ declare these, made
// callable from device code by <hip/__hrx_hip_device.h>; hrx adds the HIP-only functions.
#if !defined(__HRX_HOST_HEADERS__)
extern "C" {
__host__ __device__ float acosf(float);
__host__ __device__ double acos(double);
__host__ __device__ float asinf(float);
__host__ __device__ double asin(double);
__host__ __device__ float atanf(float);
__host__ __device__ double atan(double);
__host__ __device__ float acoshf(float);
__host__ __device__ double acosh(double);
__host__ __device__ float asinhf(float);
__host__ __device__ double asinh(double);
__host__ __device__ float atanhf(float);
__host__ __device__ double atanh(double);
__host__ __device__ float cbrtf(float);
__host__ __device__ double cbrt(double);
__host__ __device__ float cosf(float);
__host__ __device__ double cos(double);
__host__ __device__ float coshf(float);
__host__ __device__ double cosh(double);
__host__ __device__ float erff(float);
__host__ __device__ double erf(double);
__host__ __device__ float erfcf(float);
__host__ __device__ double erfc(double);
__host__ __device__ float expf(float);
__host__ __device__ double exp(double);
__host__ __device__ float exp10f(float);
__host__ __device__ double exp10(double);
__host__ __device__ float exp2f(float);
__host__ __device__ double exp2(double);
__host__ __device__ float expm1f(float);
__host__ __device__ double expm1(double);
__host__ __device__ float lgammaf(float);
__host__ __device__ double lgamma(double);
__host__ __device__ float logf(float);
__host__ __device__ double log(double);
__host__ __device__ float log10f(float);
__host__ __device__ double log10(double);
__host__ __device__ float log1pf(float);
__host__ __device__ double log1p(double);
__host__ __device__ float log2f(float);
__host__ __device__ double log2(double);
__host__ __device__ float logbf(float);
__host__ __device__ double logb(double);
__host__ __device__ float sinf(float);
__host__ __device__ double sin(double);
__host__ __device__ float sinhf(float);
__host__ __device__ double sinh(double);
__host__ __device__ float tanf(float);
__host__ __device__ double tan(double);
__host__ __device__ float tanhf(float);
__host__ __device__ double tanh(double);
__host__ __device__ float tgammaf(float);
__host__ __device__ double tgamma(double);
__host__ __device__ float j0f(float);
__host__ __device__ double j0(double);
__host__ __device__ float j1f(float);
__host__ __device__ double j1(double);
__host__ __device__ float y0f(float);
__host__ __device__ double y0(double);
__host__ __device__ float y1f(float);
__host__ __device__ double y1(double);
__host__ __device__ float atan2f(float, float);
__host__ __device__ double atan2(double, double);
__host__ __device__ float fmodf(float, float);
__host__ __device__ double fmod(double, double);
__host__ __device__ float hypotf(float, float);
__host__ __device__ double hypot(double, double);
__host__ __device__ float powf(float, float);
__host__ __device__ double pow(double, double);
__host__ __device__ float remainderf(float, float);
__host__ __device__ double remainder(double, double);
__host__ __device__ float nextafterf(float, float);
__host__ __device__ double nextafter(double, double);
__host__ __device__ float fdimf(float, float);
__host__ __device__ double fdim(double, double);
__host__ __device__ float frexpf(float, int *);
__host__ __device__ double frexp(double, int *);
__host__ __device__ float ldexpf(float, int);
__host__ __device__ double ldexp(double, int);
__host__ __device__ float modff(float, float *);
__host__ __device__ double modf(double, double *);
__host__ __device__ int ilogbf(float);
__host__ __device__ int ilogb(double);
__host__ __device__ float scalbnf(float, int);
__host__ __device__ double scalbn(double, int);
__host__ __device__ float scalblnf(float, long);
__host__ __device__ double scalbln(double, long);
__host__ __device__ float remquof(float, float, int *);
__host__ __device__ double remquo(double, double, int *);
__host__ __device__ float jnf(int, float);
__host__ __device__ double jn(int, double);
__host__ __device__ float ynf(int, float);
__host__ __device__ double yn(int, double);
__host__ __device__ void sincosf(float, float *, float *);
__host__ __device__ void sincos(double, double *, double *);
__HRX_M float sqrtf(float x) { return __builtin_sqrtf(x); }
__HRX_M double sqrt(double x) { return __builtin_sqrt(x); }
__HRX_M float fabsf(float x) { return __builtin_fabsf(x); }
__HRX_M double fabs(double x) { return __builtin_fabs(x); }
__HRX_M float floorf(float x) { return __builtin_floorf(x); }
__HRX_M double floor(double x) { return __builtin_floor(x); }
__HRX_M float ceilf(float x) { return __builtin_ceilf(x); }
__HRX_M double ceil(double x) { return __builtin_ceil(x); }
__HRX_M float truncf(float x) { return __builtin_truncf(x); }
__HRX_M double trunc(double x) { return __builtin_trunc(x); }
__HRX_M float roundf(float x) { return __builtin_roundf(x); }
__HRX_M double round(double x) { return __builtin_round(x); }
__HRX_M float rintf(float x) { return __builtin_rintf(x); }
__HRX_M double rint(double x) { return __builtin_rint(x); }
__HRX_M float nearbyintf(float x) { return __builtin_nearbyintf(x); }
__HRX_M double nearbyint(double x) { return __builtin_nearbyint(x); }
__HRX_M float fminf(float x, float y) { return __builtin_fminf(x, y); }
__HRX_M double fmin(double x, double y) { return __builtin_fmin(x, y); }
__HRX_M float fmaxf(float x, float y) { return __builtin_fmaxf(x, y); }
__HRX_M double fmax(double x, double y) { return __builtin_fmax(x, y); }
__HRX_M float copysignf(float x, float y) { return __builtin_copysignf(x, y); }
__HRX_M double copysign(double x, double y) { return __builtin_copysign(x, y); }
__HRX_M float fmaf(float x, float y, float z) { return __builtin_fmaf(x, y, z); }
__HRX_M double fma(double x, double y, double z) { return __builtin_fma(x, y, z); }
__HRX_M long lrintf(float x) { return (long)__builtin_rintf(x); }
__HRX_M long lrint(double x) { return (long)__builtin_rint(x); }
__HRX_M long long llrintf(float x) { return (long long)__builtin_rintf(x); }
__HRX_M long long llrint(double x) { return (long long)__builtin_rint(x); }
__HRX_M long lroundf(float x) { return (long)__builtin_roundf(x); }
__HRX_M long lround(double x) { return (long)__builtin_round(x); }
__HRX_M long long llroundf(float x) { return (long long)__builtin_roundf(x); }
__HRX_M long long llround(double x) { return (long long)__builtin_round(x); }
__HRX_M float nanf(const char *) { return __builtin_nanf(""); }
__HRX_M double nan(const char *) { return __builtin_nan(""); }
__HRX_M int abs(int x) { return x < 0 ? -x : x; }
__HRX_M long labs(long x) { return x < 0 ? -x : x; }
__HRX_M long long llabs(long long x) { return x < 0 ? -x : x; }
}  // extern "C"
#endif  // !__HRX_HOST_HEADERS__

// HIP-only functions, through double where that keeps them within 1 ulp of the exact result.
__HRX_M float rsqrtf(float x) { return (float)(1.0 / __builtin_sqrt((double)x)); }
__HRX_M double rsqrt(double x) { return 1.0 / __builtin_sqrt(x); }
__HRX_M float rcbrtf(float x) { return (float)(1.0 / cbrt((double)x)); }
__HRX_M double rcbrt(double x) { return 1.0 / cbrt(x); }
__HRX_M float sinpif(float x) { return (float)sin(3.141592653589793 * (double)x); }
__HRX_M float cospif(float x) { return (float)cos(3.141592653589793 * (double)x); }
__HRX_M void sincospif(float x, float *s, float *c) { *s = sinpif(x); *c = cospif(x); }
__HRX_M float rhypotf(float x, float y) { return (float)(1.0 / hypot((double)x, (double)y)); }
__HRX_M double rhypot(double x, double y) { return 1.0 / hypot(x, y); }
__HRX_M float norm3df(float a, float b, float c) { return (float)__builtin_sqrt((double)a * a + (double)b * b + (double)c * c); }
__HRX_M float norm4df(float a, float b, float c, float d) { return (float)__builtin_sqrt((double)a * a + (double)b * b + (double)c * c + (double)d * d); }
__HRX_M float rnorm3df(float a, float b, float c) { return (float)(1.0 / __builtin_sqrt((double)a * a + (double)b * b + (double)c * c)); }
__HRX_M float rnorm4df(float a, float b, float c, float d) { return (float)(1.0 / __builtin_sqrt((double)a * a + (double)b * b + (double)c * c + (double)d * d)); }
__HRX_M double norm3d(double a, double b, double c) { return __builtin_sqrt(a * a + b * b + c * c); }
__HRX_M double rnorm3d(double a, double b, double c) { return 1.0 / __builtin_sqrt(a * a + b * b + c * c); }
__HRX_M float normcdff(float x) { return (float)(0.5 * erfc(-(double)x * 0.7071067811865476)); }
__HRX_M double normcdf(double x) { return 0.5 * erfc(-x * 0.7071067811865476); }
__HRX_M float fdividef(float x, float y) { return x / y; }
__HRX_M float powif(float x, int n) { return (float)pow((double)x, (double)n); }
__HRX_M double powi(double x, int n) { return pow(x, (double)n); }

// Fast and explicitly rounded intrinsics: the host computes them correctly rounded (or, for the
// fast ones, through libm), which is within the GPU's documented error.
__HRX_M float __expf(float x) { return expf(x); }
__HRX_M float __logf(float x) { return logf(x); }
__HRX_M float __log2f(float x) { return log2f(x); }
__HRX_M float __log10f(float x) { return log10f(x); }
__HRX_M float __sinf(float x) { return sinf(x); }
__HRX_M float __cosf(float x) { return cosf(x); }
__HRX_M float __tanf(float x) { return tanf(x); }
__HRX_M float __exp10f(float x) { return exp10f(x); }
__HRX_M float __powf(float x, float y) { return powf(x, y); }
__HRX_M void __sincosf(float x, float *s, float *c) { *s = sinf(x); *c = cosf(x); }
__HRX_M float __fdividef(float x, float y) { return x / y; }
__HRX_M float __saturatef(float x) { return x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : (x == x ? x : 0.0f)); }
__HRX_M float __fadd_rn(float x, float y) { return x + y; }
__HRX_M float __fsub_rn(float x, float y) { return x - y; }
__HRX_M float __fmul_rn(float x, float y) { return x * y; }
__HRX_M float __fdiv_rn(float x, float y) { return x / y; }
__HRX_M float __frcp_rn(float x) { return 1.0f / x; }
__HRX_M float __fsqrt_rn(float x) { return __builtin_sqrtf(x); }
__HRX_M float __frsqrt_rn(float x) { return rsqrtf(x); }
__HRX_M float __fmaf_rn(float x, float y, float z) { return __builtin_fmaf(x, y, z); }
__HRX_M double __dadd_rn(double x, double y) { return x + y; }
__HRX_M double __dsub_rn(double x, double y) { return x - y; }
__HRX_M double __dmul_rn(double x, double y) { return x * y; }
__HRX_M double __ddiv_rn(double x, double y) { return x / y; }
__HRX_M double __drcp_rn(double x) { return 1.0 / x; }
__HRX_M double __dsqrt_rn(double x) { return __builtin_sqrt(x); }
__HRX_M double __fma_rn(double x, double y, double z) { return __builtin_fma(x, y, z); }

#if !defined(__HRX_HOST_HEADERS__)
// C++ overloads, in the global namespace and in std, as Clang's HIP headers declare them.
__HRX_M float acos(float x) { return acosf(x); }
__HRX_M float asin(float x) { return asinf(x); }
__HRX_M float atan(float x) { return atanf(x); }
__HRX_M float acosh(float x) { return acoshf(x); }
__HRX_M float asinh(float x) { return asinhf(x); }
__HRX_M float atanh(float x) { return atanhf(x); }
__HRX_M float cbrt(float x) { return cbrtf(x); }
__HRX_M float cos(float x) { return cosf(x); }
__HRX_M float cosh(float x) { return coshf(x); }
__HRX_M float erf(float x) { return erff(x); }
__HRX_M float erfc(float x) { return erfcf(x); }
__HRX_M float exp(float x) { return expf(x); }
__HRX_M float exp10(float x) { return exp10f(x); }
__HRX_M float exp2(float x) { return exp2f(x); }
__HRX_M float expm1(float x) { return expm1f(x); }
__HRX_M float lgamma(float x) { return lgammaf(x); }
__HRX_M float log(float x) { return logf(x); }
__HRX_M float log10(float x) { return log10f(x); }
__HRX_M float log1p(float x) { return log1pf(x); }
__HRX_M float log2(float x) { return log2f(x); }
__HRX_M float logb(float x) { return logbf(x); }
__HRX_M float sin(float x) { return sinf(x); }
__HRX_M float sinh(float x) { return sinhf(x); }
__HRX_M float tan(float x) { return tanf(x); }
__HRX_M float tanh(float x) { return tanhf(x); }
__HRX_M float tgamma(float x) { return tgammaf(x); }
__HRX_M float j0(float x) { return j0f(x); }
__HRX_M float j1(float x) { return j1f(x); }
__HRX_M float y0(float x) { return y0f(x); }
__HRX_M float y1(float x) { return y1f(x); }
__HRX_M float sqrt(float x) { return sqrtf(x); }
__HRX_M float fabs(float x) { return fabsf(x); }
__HRX_M float floor(float x) { return floorf(x); }
__HRX_M float ceil(float x) { return ceilf(x); }
__HRX_M float trunc(float x) { return truncf(x); }
__HRX_M float round(float x) { return roundf(x); }
__HRX_M float rint(float x) { return rintf(x); }
__HRX_M float nearbyint(float x) { return nearbyintf(x); }
__HRX_M float rsqrt(float x) { return rsqrtf(x); }
__HRX_M float rcbrt(float x) { return rcbrtf(x); }
__HRX_M float atan2(float x, float y) { return atan2f(x, y); }
__HRX_M float fmod(float x, float y) { return fmodf(x, y); }
__HRX_M float hypot(float x, float y) { return hypotf(x, y); }
__HRX_M float pow(float x, float y) { return powf(x, y); }
__HRX_M float remainder(float x, float y) { return remainderf(x, y); }
__HRX_M float nextafter(float x, float y) { return nextafterf(x, y); }
__HRX_M float fdim(float x, float y) { return fdimf(x, y); }
__HRX_M float fmin(float x, float y) { return fminf(x, y); }
__HRX_M float fmax(float x, float y) { return fmaxf(x, y); }
__HRX_M float copysign(float x, float y) { return copysignf(x, y); }
__HRX_M float fma(float x, float y, float z) { return fmaf(x, y, z); }
__HRX_M float pow(float x, int n) { return powif(x, n); }
__HRX_M double pow(double x, int n) { return powi(x, n); }
__HRX_M long abs(long x) { return labs(x); }
__HRX_M long long abs(long long x) { return llabs(x); }
__HRX_M float abs(float x) { return fabsf(x); }
__HRX_M double abs(double x) { return fabs(x); }
__HRX_M bool isnan(float x) { return __builtin_isnan(x); }
__HRX_M bool isnan(double x) { return __builtin_isnan(x); }
__HRX_M bool isinf(float x) { return __builtin_isinf(x); }
__HRX_M bool isinf(double x) { return __builtin_isinf(x); }
__HRX_M bool isfinite(float x) { return __builtin_isfinite(x); }
__HRX_M bool isfinite(double x) { return __builtin_isfinite(x); }
__HRX_M bool signbit(float x) { return __builtin_signbit(x); }
__HRX_M bool signbit(double x) { return __builtin_signbit(x); }
#endif  // !__HRX_HOST_HEADERS__
// HIP's device min/max (Clang's HIP math header defines the same set for amdgcn).
template <class T>
__device__ inline T min(T a, T b) { return a < b ? a : b; }
template <class T>
__device__ inline T max(T a, T b) { return a > b ? a : b; }
__device__ inline int min(int a, int b) { return a < b ? a : b; }
__device__ inline int max(int a, int b) { return a > b ? a : b; }
__device__ inline float min(float a, float b) { return __builtin_fminf(a, b); }
__device__ inline float max(float a, float b) { return __builtin_fmaxf(a, b); }
__device__ inline double min(double a, double b) { return __builtin_fmin(a, b); }
__device__ inline double max(double a, double b) { return __builtin_fmax(a, b); }
#endif  // !__HRX_TARGET_AMDGPU__

// std:: names for device code (Clang's hipRTC math header declares the global ones only; over
// the host's headers libstdc++ declares them).
#if defined(__HRX_TARGET_AMDGPU__) || !defined(__HRX_HOST_HEADERS__)
namespace std {
using ::acos;
using ::asin;
using ::atan;
using ::acosh;
using ::asinh;
using ::atanh;
using ::cbrt;
using ::cos;
using ::cosh;
using ::erf;
using ::erfc;
using ::exp;
using ::exp10;
using ::exp2;
using ::expm1;
using ::lgamma;
using ::log;
using ::log10;
using ::log1p;
using ::log2;
using ::logb;
using ::sin;
using ::sinh;
using ::tan;
using ::tanh;
using ::tgamma;
using ::j0;
using ::j1;
using ::y0;
using ::y1;
using ::sqrt;
using ::fabs;
using ::floor;
using ::ceil;
using ::trunc;
using ::round;
using ::rint;
using ::nearbyint;
using ::atan2;
using ::fmod;
using ::hypot;
using ::pow;
using ::remainder;
using ::nextafter;
using ::fdim;
using ::fmin;
using ::fmax;
using ::copysign;
using ::fma;
using ::abs;
using ::isnan;
using ::isinf;
using ::isfinite;
using ::signbit;
using ::frexp;
using ::ldexp;
using ::modf;
}  // namespace std
#endif

#define HUGE_VALF __builtin_huge_valf()
#define HUGE_VAL __builtin_huge_val()
#define INFINITY __builtin_inff()
#define NAN __builtin_nanf("")
#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif
#endif  // HRX_HIP_MATH_H

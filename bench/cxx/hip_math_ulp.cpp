// The host twin's HIP math accuracy: each float function of <hip/__hrx_hip_math.h> (compiled here
// exactly as the host twin compiles it) on 10^6 inputs, against the host libm's float function
// where one exists and against the double-precision libm result rounded to float. Prints the
// maximum and mean ulp distance per function; docs/cxx.md quotes the figures.
//
//   build/bin/hip_math_ulp [inputs-per-function]
#define __host__
#define __device__
#include <stdint.h>
#include <stddef.h>
#include <hip/__hrx_hip_math.h>

// No <cmath>: the double-precision references are the host libm through the same header.
#include <cstdio>
#include <cstring>

namespace {

int64_t ordered(float f) {
  int32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  return bits < 0 ? int64_t(INT32_MIN) - bits : bits;
}

uint64_t maxOf(uint64_t a, uint64_t b) { return a < b ? b : a; }

// xorshift64*: the same inputs on every run.
struct Random {
  uint64_t state = 0x9E3779B97F4A7C15ull;
  double unit() {
    state ^= state >> 12, state ^= state << 25, state ^= state >> 27;
    return double((state * 0x2545F4914F6CDD1Dull) >> 11) / double(1ull << 53);
  }
};

uint64_t ulpDistance(float a, float b) {
  if (__builtin_isnan(a) && __builtin_isnan(b)) return 0;
  if (__builtin_isnan(a) || __builtin_isnan(b)) return UINT32_MAX;
  int64_t d = ordered(a) - ordered(b);
  return uint64_t(d < 0 ? -d : d);
}

struct Row {
  const char *name;
  float low, high;
  float (*twin)(float);
  float (*libm)(float);  // the host libm's float function; null when libm has none
  double (*reference)(double);
};

double rsqrtRef(double x) { return 1.0 / sqrt(x); }
double rcbrtRef(double x) { return 1.0 / cbrt(x); }
double sinpiRef(double x) { return sin(3.141592653589793 * x); }
double cospiRef(double x) { return cos(3.141592653589793 * x); }
double normcdfRef(double x) { return 0.5 * erfc(-x / sqrt(2.0)); }
double exp10Ref(double x) { return pow(10.0, x); }
float libmExp10f(float x) { return exp10f(x); }

}  // namespace

int main(int argc, char **argv) {
  long count = 1000000;
  if (argc > 1) {
    count = 0;
    for (const char *c = argv[1]; *c >= '0' && *c <= '9'; ++c) count = count * 10 + (*c - '0');
  }
  const Row rows[] = {
      {"sqrtf", 0, 1e6f, [](float x) { return sqrtf(x); }, [](float x) { return sqrt(x); },
       [](double x) { return sqrt(x); }},
      {"rsqrtf", 1e-6f, 1e6f, [](float x) { return rsqrtf(x); }, nullptr, rsqrtRef},
      {"expf", -80, 80, [](float x) { return expf(x); }, [](float x) { return exp(x); },
       [](double x) { return exp(x); }},
      {"exp2f", -120, 120, [](float x) { return exp2f(x); }, [](float x) { return exp2(x); },
       [](double x) { return exp2(x); }},
      {"exp10f", -30, 30, [](float x) { return exp10f(x); }, libmExp10f, exp10Ref},
      {"logf", 1e-30f, 1e30f, [](float x) { return logf(x); }, [](float x) { return log(x); },
       [](double x) { return log(x); }},
      {"log2f", 1e-30f, 1e30f, [](float x) { return log2f(x); }, [](float x) { return log2(x); },
       [](double x) { return log2(x); }},
      {"sinf", -100, 100, [](float x) { return sinf(x); }, [](float x) { return sin(x); },
       [](double x) { return sin(x); }},
      {"cosf", -100, 100, [](float x) { return cosf(x); }, [](float x) { return cos(x); },
       [](double x) { return cos(x); }},
      {"tanf", -10, 10, [](float x) { return tanf(x); }, [](float x) { return tan(x); },
       [](double x) { return tan(x); }},
      {"tanhf", -10, 10, [](float x) { return tanhf(x); }, [](float x) { return tanh(x); },
       [](double x) { return tanh(x); }},
      {"erff", -4, 4, [](float x) { return erff(x); }, [](float x) { return erf(x); }, [](double x) { return erf(x); }},
      {"powf(x,1.7)", 1e-3f, 1e3f, [](float x) { return powf(x, 1.7f); }, [](float x) { return pow(x, 1.7f); },
       [](double x) { return pow(x, double(1.7f)); }},
      {"sinpif", -100, 100, [](float x) { return sinpif(x); }, nullptr, sinpiRef},
      {"cospif", -100, 100, [](float x) { return cospif(x); }, nullptr, cospiRef},
      {"rcbrtf", 1e-6f, 1e6f, [](float x) { return rcbrtf(x); }, nullptr, rcbrtRef},
      {"normcdff", -10, 10, [](float x) { return normcdff(x); }, nullptr, normcdfRef},
      {"__expf", -80, 80, [](float x) { return __expf(x); }, [](float x) { return exp(x); },
       [](double x) { return exp(x); }},
      {"__logf", 1e-30f, 1e30f, [](float x) { return __logf(x); }, [](float x) { return log(x); },
       [](double x) { return log(x); }},
      {"__sinf", -100, 100, [](float x) { return __sinf(x); }, [](float x) { return sin(x); },
       [](double x) { return sin(x); }},
      {"__cosf", -100, 100, [](float x) { return __cosf(x); }, [](float x) { return cos(x); },
       [](double x) { return cos(x); }},
      {"__tanf", -10, 10, [](float x) { return __tanf(x); }, [](float x) { return tan(x); },
       [](double x) { return tan(x); }},
      {"__log2f", 1e-30f, 1e30f, [](float x) { return __log2f(x); }, [](float x) { return log2(x); },
       [](double x) { return log2(x); }},
      {"__powf(x,1.7)", 1e-3f, 1e3f, [](float x) { return __powf(x, 1.7f); }, [](float x) { return pow(x, 1.7f); },
       [](double x) { return pow(x, double(1.7f)); }},
      {"log10f", 1e-30f, 1e30f, [](float x) { return log10f(x); }, [](float x) { return log10(x); },
       [](double x) { return log10(x); }},
      {"sincosf.sin", -100, 100,
       [](float x) {
         float s, c;
         sincosf(x, &s, &c);
         return s;
       },
       [](float x) { return sin(x); }, [](double x) { return sin(x); }},
      {"sincosf.cos", -100, 100,
       [](float x) {
         float s, c;
         sincosf(x, &s, &c);
         return c;
       },
       [](float x) { return cos(x); }, [](double x) { return cos(x); }},
      // Exact operations: 0 ulp is the only correct answer.
      {"fabsf", -1e6f, 1e6f, [](float x) { return fabsf(x); }, [](float x) { return fabs(x); },
       [](double x) { return fabs(x); }},
      {"floorf", -1e6f, 1e6f, [](float x) { return floorf(x); }, [](float x) { return floor(x); },
       [](double x) { return floor(x); }},
      {"ceilf", -1e6f, 1e6f, [](float x) { return ceilf(x); }, [](float x) { return ceil(x); },
       [](double x) { return ceil(x); }},
      {"truncf", -1e6f, 1e6f, [](float x) { return truncf(x); }, [](float x) { return trunc(x); },
       [](double x) { return trunc(x); }},
      {"roundf", -1e6f, 1e6f, [](float x) { return roundf(x); }, [](float x) { return round(x); },
       [](double x) { return round(x); }},
      {"fminf(x,0.5)", -10, 10, [](float x) { return fminf(x, 0.5f); }, [](float x) { return fmin(x, 0.5f); },
       [](double x) { return fmin(x, 0.5); }},
      {"fmaxf(x,0.5)", -10, 10, [](float x) { return fmaxf(x, 0.5f); }, [](float x) { return fmax(x, 0.5f); },
       [](double x) { return fmax(x, 0.5); }},
      {"fmaf(x,x,0.25)", -1e3f, 1e3f, [](float x) { return fmaf(x, x, 0.25f); },
       [](float x) { return fma(x, x, 0.25f); }, [](double x) { return fma(x, x, 0.25); }},
  };
  std::printf("%-14s %10s %12s %12s %12s\n", "function", "inputs", "max ulp", "max ulp", "mean ulp");
  std::printf("%-14s %10s %12s %12s %12s\n", "", "", "vs libm f32", "vs f64 ref", "vs f64 ref");
  for (const Row &row : rows) {
    Random random;
    // Logarithmic sampling for wide positive ranges, uniform otherwise.
    bool logarithmic = row.low > 0 && row.high / row.low > 1e3f;
    double from = logarithmic ? log(double(row.low)) : row.low, to = logarithmic ? log(double(row.high)) : row.high;
    uint64_t maxLibm = 0, maxRef = 0;
    double sumRef = 0;
    for (long i = 0; i < count; ++i) {
      double u = from + (to - from) * random.unit();
      float x = float(logarithmic ? exp(u) : u);
      float got = row.twin(x);
      if (row.libm) maxLibm = maxOf(maxLibm, ulpDistance(got, row.libm(x)));
      uint64_t d = ulpDistance(got, float(row.reference(double(x))));
      maxRef = maxOf(maxRef, d);
      sumRef += double(d);
    }
    char libm[32];
    if (row.libm)
      std::snprintf(libm, sizeof libm, "%llu", (unsigned long long)maxLibm);
    else
      std::snprintf(libm, sizeof libm, "(no libm f32)");
    std::printf("%-14s %10ld %12s %12llu %12.4f\n", row.name, count, libm, (unsigned long long)maxRef,
                sumRef / double(count));
  }
  return 0;
}

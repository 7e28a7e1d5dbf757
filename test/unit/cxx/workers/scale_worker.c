// An NPU worker in C23: scales 16-lane f32 vectors by coefficients embedded from "coefficients.bin".
#include <hrx/worker.h>
#include <stdint.h>

static constexpr uint8_t kCoefficients[] = {
#embed "coefficients.bin"
};
constexpr int kLanes = 16;
static_assert(sizeof(kCoefficients) == kLanes, "one coefficient per lane");

void scale(const hrx_f32x16 *input, hrx_f32x16 *output) {
  hrx_f32x16 factors;
  for (int lane = 0; lane < kLanes; ++lane) factors[lane] = (float)kCoefficients[lane];
  *output = *input * factors;
}

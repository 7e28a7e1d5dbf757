// The array-plan reader (hrx/format/ArrayPlan.h) and writer: every accepted document validates,
// the one-pass reader of the writer's own form and the document reader agree (the input with a
// trailing tab is never in the writer's form, so it takes the document reader), and the plans
// written back, compact (the one-pass reader) and indented (the document reader), read back
// equal. Any disagreement aborts: that is a finding.
#include "hrx/format/ArrayPlan.h"
#include "hrx/format/ArrayPlanWriter.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view text(reinterpret_cast<const char *>(data), size);
  auto plans = hrx::format::readArrayPlans(text);
  auto viaDocument = hrx::format::readArrayPlans(std::string(text) + "\t");
  if (plans.isOk() != viaDocument.isOk()) std::abort();
  if (!plans.isOk()) return 0;
  if (plans.value() != viaDocument.value()) std::abort();
  for (const auto &plan : plans.value()) {
    if (!hrx::format::validateArrayPlan(plan).isOk()) std::abort();
    (void)hrx::format::printArrayPlan(plan);
  }
  for (int indent : {-1, 1}) {
    auto again = hrx::format::readArrayPlans(hrx::format::writeArrayPlans(plans.value(), indent));
    if (!again.isOk() || again.value() != plans.value()) std::abort();
  }
  return 0;
}

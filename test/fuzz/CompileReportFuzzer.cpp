// The compile-report reader, show and diff; also the other JSON payload readers (array plan,
// kernel contract, identity), which share its strict JSON layer, and the plan's two printers
// (text and SVG picture).
#include "hrx/format/ArrayPlan.h"
#include "hrx/format/ArrayPlanSvg.h"
#include "hrx/format/ReportRender.h"
#include "hrx/format/Identity.h"
#include "hrx/format/KernelContract.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view text(reinterpret_cast<const char *>(data), size);
  auto report = hrx::format::readCompileReport(text);
  if (report.isOk()) {
    (void)hrx::format::formatReport(report.value());
    (void)hrx::format::showReport(report.value()).dump();
    (void)hrx::format::diffReports(report.value(), report.value());
  }
  auto plans = hrx::format::readArrayPlans(text);
  if (plans.isOk()) {
    for (const auto &plan : plans.value()) (void)hrx::format::printArrayPlan(plan);
    (void)hrx::format::renderArrayPlanSvg(plans.value());
  }
  (void)hrx::format::readContractTable(text);
  (void)hrx::format::readIdentity(text);
  return 0;
}

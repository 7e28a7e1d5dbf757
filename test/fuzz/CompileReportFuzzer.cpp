// The compile-report reader, show and diff; also the other JSON payload readers (array plan,
// kernel contract, identity, the AMDGPU manifest with its launch-argument types and the launch
// table), which share its strict JSON layer, and the plan's two printers (text and SVG picture).
#include "hrx/format/AmdgpuManifest.h"
#include "hrx/format/ArrayPlan.h"
#include "hrx/format/ArrayPlanSvg.h"
#include "hrx/format/ReportRender.h"
#include "hrx/ReportFields.h"
#include "hrx/format/Identity.h"
#include "hrx/format/KernelContract.h"
#include "hrx/format/ArrayPlanWriter.h"

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view text(reinterpret_cast<const char *>(data), size);
  auto report = hrx::format::readCompileReport(text);
  if (report.isOk()) {
    auto fields = hrx::reportFieldsFor(report->backend());
    (void)hrx::format::formatReport(report.value(), fields);
    (void)hrx::format::showReport(report.value(), fields).dump();
    (void)hrx::format::diffReports(report.value(), report.value(), fields);
  }
  auto plans = hrx::format::readArrayPlans(text);
  if (plans.isOk()) {
    for (const auto &plan : plans.value()) (void)hrx::format::printArrayPlan(plan);
    (void)hrx::format::renderArrayPlanSvg(plans.value());
  }
  (void)hrx::format::readContractTable(text);
  (void)hrx::format::readIdentity(text);
  auto manifest = hrx::format::readAmdgpuManifest(text);
  if (manifest.isOk())
    for (const auto &e : manifest.value().exports) {
      std::vector<uint8_t> constants(e.constantBytes, 0xff);
      for (size_t i = 0; i < e.arguments.size(); ++i) (void)hrx::format::describeLaunchArgument(e.arguments, i);
      for (const auto &extent : e.extents) (void)hrx::format::requiredExtentBytes(extent, e.arguments, constants);
    }
  auto launches = hrx::format::readAmdgpuLaunches(text);
  if (manifest.isOk() && launches.isOk())
    (void)hrx::format::checkManifestAgainstLaunches(manifest.value(), launches.value());
  return 0;
}

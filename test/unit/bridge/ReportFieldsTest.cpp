// The report fields each backend declares (its ReportFields.def): what its info() says and the
// table the report tools read without the backends (hrx/ReportFields.h) are the same.
#include "hrx/ReportFields.h"
#include "hrx/TargetRegistry.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace hrx {
namespace {

TEST(ReportFields, TableMatchesEachBackendsInfo) {
  size_t declared = 0;
  for (const TargetInfo *info : registeredTargets()) {
    auto row = std::ranges::find(registeredReportFields(), info->backend, &BackendReportFields::backend);
    if (info->reportFields.empty()) {
      EXPECT_EQ(row, registeredReportFields().end()) << info->backend;
      continue;
    }
    ++declared;
    ASSERT_NE(row, registeredReportFields().end()) << info->backend;
    EXPECT_TRUE(std::ranges::equal(row->fields, info->reportFields)) << info->backend;
    EXPECT_TRUE(std::ranges::equal(row->reportBackends, info->reportBackends)) << info->backend;
  }
  EXPECT_EQ(declared, registeredReportFields().size());
}

TEST(ReportFields, OwnBackendFirstThenEveryOther) {
  auto amdgpu = reportFieldsFor("amdgpu-hsaco");
  auto xdna = reportFieldsFor("xdna-array");
  auto unknown = reportFieldsFor("not-a-backend");
  ASSERT_FALSE(amdgpu.empty());
  EXPECT_EQ(amdgpu.front().name, "code_bytes");
  EXPECT_EQ(xdna.front().name, "columns");
  EXPECT_EQ(amdgpu.size(), xdna.size());  // every field once, whichever comes first
  EXPECT_EQ(amdgpu.size(), unknown.size());
  for (const auto &f : amdgpu) EXPECT_EQ(std::ranges::count(amdgpu, f.name, &format::ReportField::name), 1) << f.name;
}

}  // namespace
}  // namespace hrx

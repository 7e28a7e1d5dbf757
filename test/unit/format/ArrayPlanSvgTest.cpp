// The array-plan picture (hrx/format/ArrayPlanSvg.h): one element per worker, channel and tile,
// deterministic bytes, and resource colours at the tile's limits.
#include "Samples.h"

#include "hrx/format/ArrayPlanSvg.h"

#include <gtest/gtest.h>

using namespace hrx::format;

namespace {

size_t count(const std::string &text, const std::string &needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

}  // namespace

TEST(ArrayPlanSvg, OneElementPerWorkerChannelAndTile) {
  ArrayPlan plan = samples::splitKPlan();
  ASSERT_TRUE(validateArrayPlan(plan).isOk());
  std::string svg = renderArrayPlanSvg(std::span(&plan, 1));
  EXPECT_TRUE(svg.starts_with("<?xml")) << svg.substr(0, 80);
  EXPECT_EQ(count(svg, "<g class=\"worker\""), plan.workers.size());
  EXPECT_EQ(count(svg, "<g class=\"channel\""), plan.channels.size());
  EXPECT_EQ(count(svg, "<g class=\"tile\""), plan.columns * npu5::kRows);
  EXPECT_EQ(count(svg, "<g class=\"plan\""), 1u);
  for (const PlanWorker &w : plan.workers) EXPECT_NE(svg.find("data-entry=\"" + w.entry + "\""), std::string::npos);
  EXPECT_NE(svg.find("data-transport=\"neighbor-memory\""), std::string::npos);
  EXPECT_EQ(svg, renderArrayPlanSvg(std::span(&plan, 1)));  // deterministic
}

TEST(ArrayPlanSvg, ColoursResourcesNearAndAtTheLimit) {
  ArrayPlan plan = samples::copyPlan();
  std::string plain = renderArrayPlanSvg(std::span(&plan, 1));
  EXPECT_EQ(plain.find("class=\"res full\""), std::string::npos);
  // Fill the worker tile's data memory to the last byte: its memory line turns red, its
  // border too.
  PlanSlot big = plan.slots.front();
  big.offset = 0;
  big.bytes = npu5::kComputeDataBytes;
  for (PlanSlot &s : plan.slots)
    if (s.owner == big.owner) s = big;
  std::string full = renderArrayPlanSvg(std::span(&plan, 1));
  EXPECT_NE(full.find("<text class=\"res full\""), std::string::npos);
  EXPECT_NE(full.find("memory 64 KiB / 64 KiB"), std::string::npos);
  EXPECT_NE(full.find("edge-full"), std::string::npos);
}

TEST(ArrayPlanSvg, EscapesNamesAndDrawsNoPlans) {
  ArrayPlan plan = samples::copyPlan();
  plan.name = "a<b&c";
  std::string svg = renderArrayPlanSvg(std::span(&plan, 1));
  EXPECT_NE(svg.find("a&lt;b&amp;c"), std::string::npos);
  EXPECT_EQ(svg.find("a<b"), std::string::npos);
  EXPECT_NE(renderArrayPlanSvg({}).find("no array plans"), std::string::npos);
}

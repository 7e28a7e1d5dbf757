// Randomly generated pipelines (fixed seeds): every plan the planner returns passes the
// array-plan validator and packages into an image the .xdna reader accepts; every refusal
// comes with an XDNA diagnostic. Nothing crashes.
#include "Graphs.h"

#include "hrx/format/Xdna.h"
#include "hrx/format/ArrayPlanWriter.h"
#include "hrx/format/XdnaWriter.h"
#include "hrx/xdna/Planner.h"
#include "hrx/xdna/XdnaImage.h"

#include <gtest/gtest.h>

#include <iostream>
#include <random>

using namespace hrx;
using namespace hrx::xdna;
using namespace hrx::xdna::testing;

namespace {

// A chain of groups: the first reads (or scatters) its input, each later group consumes the
// previous group's output lane by lane, or gathers it with a reduce onto one lane; the last
// writes. Record sizes, lane counts, record counts and capacities vary.
PipelineGraph randomGraph(std::mt19937 &rng) {
  auto pick = [&](uint32_t lo, uint32_t hi) { return std::uniform_int_distribution<uint32_t>(lo, hi)(rng); };
  PipelineGraph g;
  g.name = "random";
  uint32_t stages = pick(1, 4);
  uint32_t recordBytes = 64u << pick(0, 6);  // 64 B .. 4 KiB
  uint32_t records = pick(1, 300);
  uint32_t lanes = pick(1, 4);
  bool scatter = lanes > 1 && pick(0, 1);
  uint64_t laneBytes = scatter ? uint64_t(records) * recordBytes : 0;
  g.bindings.push_back({"%in", PlanAccess::Read, (scatter ? lanes : 1) * uint64_t(records) * recordBytes, true, {}});
  g.flows.push_back(flow(FlowEnd::binding(0, contiguous(recordBytes, records, laneBytes)), FlowEnd::worker(0, 0),
                         recordBytes, "tile<" + std::to_string(recordBytes / 4) + "xi32>", pick(1, 4)));
  for (uint32_t s = 0; s < stages; ++s) {
    bool gather = s > 0 && lanes > 1 && pick(0, 3) == 0;
    uint32_t groupLanes = gather ? 1 : lanes;
    g.groups.push_back({groupLanes, {}});
    GraphWorker w;
    w.group = s;
    w.entry = "stage" + std::to_string(s);
    w.iterations = records;
    uint32_t inputs = gather ? lanes : 1;
    for (uint32_t i = 0; i < inputs; ++i)
      w.ports.push_back(port(PortDirection::Input, uint32_t(g.flows.size() - 1), recordBytes));
    w.ports.push_back(port(PortDirection::Output, uint32_t(g.flows.size()), recordBytes));
    if (gather) g.flows.back().map = LaneMap::Gather;
    g.workers.push_back(w);
    lanes = groupLanes;
    FlowEnd next =
        s + 1 < stages
            ? FlowEnd::worker(s + 1, 0)
            : FlowEnd::binding(1, contiguous(recordBytes, records, lanes > 1 ? uint64_t(records) * recordBytes : 0));
    g.flows.push_back(flow(FlowEnd::worker(s, inputs), next, recordBytes, g.flows.back().recordType, pick(1, 4)));
  }
  g.bindings.push_back({"%out", PlanAccess::Write, lanes * uint64_t(records) * recordBytes, true, {}});
  return g;
}

}  // namespace

TEST(RandomPipelines, PlansValidateAndPackageOrAreRefusedWithAReason) {
  unsigned planned = 0, refused = 0;
  for (uint32_t seed = 1; seed <= 80; ++seed) {
    std::mt19937 rng(seed);
    PipelineGraph g = randomGraph(rng);
    unsigned columns = std::uniform_int_distribution<unsigned>(1, 8)(rng);
    diag::SourceManager sm;
    diag::DiagnosticEngine diags(sm);
    Collector c;
    diags.addConsumer(&c);
    auto plan = planArray(g, {columns}, diags);
    if (!plan) {
      ++refused;
      ASSERT_TRUE(diags.hasErrors()) << "seed " << seed;
      for (const auto &d : c.seen) EXPECT_EQ(d.code.substr(0, 5), "XDNA/") << "seed " << seed << ": " << d.message;
      continue;
    }
    ++planned;
    Status valid = format::validateArrayPlan(*plan);
    ASSERT_TRUE(valid.isOk()) << "seed " << seed << ": " << valid.message() << "\n" << format::printArrayPlan(*plan);
    bridge::KernelContract contract;
    for (const GraphBinding &b : g.bindings)
      contract.bindings.push_back({b.name, true, b.bytes, 64,
                                   b.access == PlanAccess::Read ? bridge::Access::Read : bridge::Access::Write,
                                   "global", 0, ""});
    auto image = buildImage({{*plan, contract, {}}}, columns, {}, diags);
    ASSERT_TRUE(image) << "seed " << seed << "\n" << c.messages();
    auto bytes = format::xdna::writeImage(*image);
    ASSERT_TRUE(bytes.isOk()) << "seed " << seed << ": " << bytes.status().message();
    auto read = format::xdna::readImage(*bytes);
    ASSERT_TRUE(read.isOk()) << "seed " << seed << ": " << read.status().message();
  }
  std::cout << "random pipelines: " << planned << " planned, " << refused << " refused\n";
  // Both outcomes occur, so the test exercises the packaging and the refusals.
  EXPECT_GT(planned, 40u);
  EXPECT_GT(refused, 3u);
}

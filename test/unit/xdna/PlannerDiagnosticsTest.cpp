// Every XDNA resource diagnostic, with its numbers.
#include "Graphs.h"

#include "hrx/xdna/Planner.h"

#include <gtest/gtest.h>

using namespace hrx;
using namespace hrx::xdna;
using namespace hrx::xdna::testing;

namespace {

struct PlanRun {
  Collector collector;
  bool planned = false;
  const diag::Diagnostic *find(std::string_view code) const {
    for (const auto &d : collector.seen)
      if (d.code == code) return &d;
    return nullptr;
  }
};

PlanRun plan(const PipelineGraph &g, unsigned columns = 1) {
  PlanRun run;
  diag::SourceManager sm;
  diag::DiagnosticEngine diags(sm);
  diags.addConsumer(&run.collector);
  run.planned = planArray(g, {columns}, diags).has_value();
  return run;
}

// One group of `lanes` lanes running a copy stage with a scattered input.
PipelineGraph lanesGraph(uint32_t lanes) {
  PipelineGraph g = copyGraph(1);
  g.groups[0].lanes = lanes;
  g.bindings[0].bytes = g.bindings[1].bytes = uint64_t(lanes) * 4096;
  g.flows[0].from.walk.laneBytes = 4096;
  g.flows[1].to.walk.laneBytes = 4096;
  return g;
}

}  // namespace

TEST(PlannerDiagnostics, ColumnsOutOfRange) {
  for (unsigned columns : {0u, 9u}) {
    PlanRun r = plan(copyGraph(1), columns);
    EXPECT_FALSE(r.planned);
    const auto *d = r.find("XDNA/001");
    ASSERT_TRUE(d) << r.collector.messages();
    EXPECT_EQ(d->message, "--columns=" + std::to_string(columns) + " is not an NPU5 context width; use 1 to 8");
  }
}

TEST(PlannerDiagnostics, TooManyWorkersNamesTheShortfallAndTheFix) {
  PlanRun r = plan(lanesGraph(9), 1);
  EXPECT_FALSE(r.planned);
  const auto *d = r.find("XDNA/002");
  ASSERT_TRUE(d) << r.collector.messages();
  EXPECT_EQ(d->message, "pipeline needs 9 compute tiles; 1 column provides 4 (use --columns=3)");
  PlanRun two = plan(lanesGraph(9), 2);
  EXPECT_EQ(two.find("XDNA/002")->message, "pipeline needs 9 compute tiles; 2 columns provide 8 (use --columns=3)");
  PlanRun whole = plan(lanesGraph(33), 8);
  EXPECT_EQ(whole.find("XDNA/002")->message,
            "pipeline needs 33 compute tiles; 8 columns provide 32 (the whole array has 32)");
}

TEST(PlannerDiagnostics, DataMemoryPerTile) {
  PipelineGraph g = copyGraph(1);
  for (auto &f : g.flows) f.recordBytes = 20000;
  for (auto &p : g.workers[0].ports) p.recordBytes = 20000;
  for (int i = 0; i < 2; ++i) g.flows[i].from.walk.runBytes = g.flows[i].to.walk.runBytes = 20000;
  PlanRun r = plan(g);
  EXPECT_FALSE(r.planned);
  const auto *d = r.find("XDNA/003");
  ASSERT_TRUE(d) << r.collector.messages();
  // 4 slots of 20000 bytes rounded to 64 (20032) + 1024 stack reserve.
  EXPECT_EQ(d->message, "tile (0,2) needs 81152 bytes of data memory; it has 65536");
  EXPECT_EQ(d->notes.size(), 2u);  // both channels on the tile
}

TEST(PlannerDiagnostics, LocksExhausted) {
  // Nine small neighbour-memory channels between two adjacent workers: 18 locks on one tile.
  PipelineGraph g;
  g.name = "fan";
  g.bindings = {{"%in", format::PlanAccess::Read, 64, true, {}}, {"%out", format::PlanAccess::Write, 64, true, {}}};
  g.groups = {{1, {}}, {1, {}}};
  GraphWorker a, b;
  a.group = 0, a.entry = "a";
  b.group = 1, b.entry = "b";
  g.flows.push_back(flow(FlowEnd::binding(0, contiguous(64, 1)), FlowEnd::worker(0, 0), 64, "tile<16xi32>"));
  a.ports.push_back(port(format::PortDirection::Input, 0, 64));
  for (uint32_t i = 0; i < 9; ++i) {
    uint32_t f = uint32_t(g.flows.size());
    g.flows.push_back(flow(FlowEnd::worker(0, i + 1), FlowEnd::worker(1, i), 64, "tile<16xi32>"));
    a.ports.push_back(port(format::PortDirection::Output, f, 64));
    b.ports.push_back(port(format::PortDirection::Input, f, 64));
  }
  g.flows.push_back(flow(FlowEnd::worker(1, 9), FlowEnd::binding(1, contiguous(64, 1)), 64, "tile<16xi32>"));
  b.ports.push_back(port(format::PortDirection::Output, 10, 64));
  g.workers = {a, b};
  PlanRun r = plan(g);
  EXPECT_FALSE(r.planned);
  const auto *d = r.find("XDNA/004");
  ASSERT_TRUE(d) << r.collector.messages();
  EXPECT_EQ(d->message, "tile (0,2) needs 20 locks; it has 16");
}

TEST(PlannerDiagnostics, BuffersDescriptorsExhausted) {
  PipelineGraph g = copyGraph(4);
  g.flows[0].capacity = 9;
  g.flows[1].capacity = 9;
  for (auto &f : g.flows) f.recordBytes = 64;
  for (auto &p : g.workers[0].ports) p.recordBytes = 64;
  for (int i = 0; i < 2; ++i) {
    g.flows[i].from.walk = g.flows[i].to.walk = contiguous(64, 4);
  }
  g.flows[0].to = FlowEnd::worker(0, 0);
  g.flows[1].from = FlowEnd::worker(0, 1);
  PlanRun r = plan(g);
  EXPECT_FALSE(r.planned);
  const auto *d = r.find("XDNA/005");
  ASSERT_TRUE(d) << r.collector.messages();
  EXPECT_EQ(d->message, "tile (0,2) needs 18 buffer descriptors; it has 16");
}

TEST(PlannerDiagnostics, DmaChannelsExhaustedOnTileAndShimRow) {
  PipelineGraph g = batchedGemmGraph(4);
  // A third external input on the same worker.
  g.bindings.insert(g.bindings.begin() + 2, {"%extra", format::PlanAccess::Read, 512, true, {}});
  g.flows[2].to.index = 3;
  g.flows.insert(g.flows.begin() + 2,
                 flow(FlowEnd::binding(2, contiguous(128, 4)), FlowEnd::worker(0, 2), 128, "tile<8x8xbf16>"));
  g.workers[0].ports = {port(format::PortDirection::Input, 0, 128), port(format::PortDirection::Input, 1, 128),
                        port(format::PortDirection::Input, 2, 128), port(format::PortDirection::Output, 3, 256)};
  PlanRun r = plan(g);
  EXPECT_FALSE(r.planned);
  std::string all = r.collector.messages();
  EXPECT_NE(all.find("XDNA/006: tile (0,2) needs 3 stream-to-memory DMA channels; 2 available"), std::string::npos)
      << all;
  EXPECT_NE(all.find("XDNA/006: the shim row of 1 column(s) needs 3 memory-to-stream DMA channels; 2 available"),
            std::string::npos)
      << all;
}

TEST(PlannerDiagnostics, StreamPortsExhausted) {
  // A chain of four workers, each writing two records out through shim DMA.
  PipelineGraph g;
  g.name = "tower";
  g.bindings = {{"%in", format::PlanAccess::Read, 64, true, {}}, {"%out", format::PlanAccess::Write, 8 * 64, true, {}}};
  for (uint32_t w = 0; w < 4; ++w) {
    g.groups.push_back({1, {}});
    GraphWorker worker;
    worker.group = w;
    worker.entry = "w" + std::to_string(w);
    uint32_t in = uint32_t(g.flows.size());
    g.flows.push_back(w == 0 ? flow(FlowEnd::binding(0, contiguous(64, 1)), FlowEnd::worker(0, 0), 64, "tile<16xi32>")
                             : flow(FlowEnd::worker(w - 1, 3), FlowEnd::worker(w, 0), 64, "tile<16xi32>"));
    worker.ports.push_back(port(format::PortDirection::Input, in, 64));
    for (uint32_t k = 0; k < 2; ++k) {
      uint32_t f = uint32_t(g.flows.size());
      g.flows.push_back(flow(FlowEnd::worker(w, 1 + k), FlowEnd::binding(1, contiguous(64, 1, 0, (w * 2 + k) * 64)), 64,
                             "tile<16xi32>"));
      worker.ports.push_back(port(format::PortDirection::Output, f, 64));
    }
    worker.ports.push_back(port(format::PortDirection::Output, w + 1 < 4 ? uint32_t(g.flows.size() + 0) : 0, 64));
    g.workers.push_back(worker);
  }
  // Fix the chain outputs' flow indices now that every flow exists.
  for (uint32_t f = 0; f < g.flows.size(); ++f)
    if (g.flows[f].from.kind == FlowEnd::Kind::Worker && g.flows[f].from.port == 3)
      g.workers[g.flows[f].from.index].ports[3].flow = f;
  g.workers[3].ports.pop_back();
  PlanRun r = plan(g, 4);
  EXPECT_FALSE(r.planned);
  const auto *d = r.find("XDNA/007");
  ASSERT_TRUE(d) << r.collector.messages();
  // Three of the four stacked workers land in column 0 (the chain's first worker goes beside
  // its neighbour in column 1): six streams come down column 0, whose links carry four.
  std::string all = r.collector.messages();
  EXPECT_NE(all.find("XDNA/007: tile (0,1) needs 6 south stream-switch master ports; it has 4"), std::string::npos)
      << all;
  EXPECT_NE(all.find("XDNA/007: tile (0,0) needs 6 north stream-switch slave ports; it has 4"), std::string::npos)
      << all;
}

TEST(PlannerDiagnostics, MoreThanFiveBindings) {
  PipelineGraph g = copyGraph(1);
  for (int i = 0; i < 4; ++i)
    g.bindings.push_back({"%extra" + std::to_string(i), format::PlanAccess::Read, 64, true, {}});
  PlanRun r = plan(g);
  EXPECT_FALSE(r.planned);
  const auto *d = r.find("XDNA/008");
  ASSERT_TRUE(d) << r.collector.messages();
  EXPECT_EQ(d->message, "pipeline @copy has 6 buffer bindings; an NPU command carries at most 5");
  EXPECT_EQ(d->notes.size(), 1u);
  // Unused bindings become NONE rows and do not count.
  g.bindings[5].used = false;
  EXPECT_FALSE(plan(g).find("XDNA/008"));
}

TEST(PlannerDiagnostics, ProgramMemoryEstimateIsAWarning) {
  PipelineGraph g = copyGraph(1);
  g.workers[0].codeBytes = 20000;
  PlanRun r = plan(g);
  EXPECT_TRUE(r.planned);
  const auto *d = r.find("XDNA/010");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->severity, diag::Severity::Warning);
  EXPECT_EQ(d->message, "worker @copy_record is estimated at 20000 bytes of program memory; a core has 16384 "
                        "(an estimate from its LLVM IR: the worker has no native AIE2P code)");
}

TEST(PlannerDiagnostics, UnsupportedConstructs) {
  PipelineGraph g = copyGraph(1);
  g.flows.push_back(
      flow(FlowEnd::binding(0, contiguous(4096, 1)), FlowEnd::binding(1, contiguous(4096, 1)), 4096, "tile<1024xi32>"));
  PlanRun r = plan(g);
  const auto *d = r.find("XDNA/011");
  ASSERT_TRUE(d) << r.collector.messages();
  EXPECT_EQ(d->message, "a flow from a binding straight to a binding (no stage) is not supported by the NPU5 "
                        "array planner");
  PipelineGraph bad = copyGraph(1);
  bad.flows[0].to.index = 7;
  EXPECT_TRUE(plan(bad).find("XDNA/011"));
  PipelineGraph gatherFromBinding = copyGraph(1);
  gatherFromBinding.flows[0].map = LaneMap::Gather;
  PlanRun g2 = plan(gatherFromBinding);
  ASSERT_TRUE(g2.find("XDNA/011"));
  EXPECT_EQ(g2.find("XDNA/011")->message,
            "a reduce whose source or target is not a worker group is not supported by the NPU5 array planner");
}

TEST(PlannerDiagnostics, MultiProducerChannel) {
  PipelineGraph g = copyGraph(1);
  g.flows.push_back(flow(FlowEnd::binding(0, contiguous(4096, 1)), FlowEnd::worker(0, 0), 4096, "tile<1024xi32>"));
  PlanRun r = plan(g);
  const auto *d = r.find("XDNA/012");
  ASSERT_TRUE(d) << r.collector.messages();
  EXPECT_EQ(d->message, "port 0 of worker @copy_record has 2 producers; NPU channels have exactly one");
  EXPECT_EQ(d->notes.size(), 2u);
}

TEST(PlannerDiagnostics, CapacityOutOfLockRange) {
  PipelineGraph g = copyGraph(1);
  g.flows[0].capacity = 64;
  PlanRun r = plan(g);
  ASSERT_TRUE(r.find("XDNA/013"));
  EXPECT_EQ(r.find("XDNA/013")->message, "channel capacity 64 is outside 1..63");
}

TEST(PlannerDiagnostics, DmaPatternOutsideBdFields) {
  PipelineGraph g = copyGraph(4);
  g.flows[0].from.walk.repeatCount = 300;
  PlanRun r = plan(g);
  EXPECT_FALSE(r.planned);
  const auto *d = r.find("XDNA/014");
  ASSERT_TRUE(d) << r.collector.messages();
  EXPECT_EQ(d->message, "the transfer of binding 0 needs repeat_count = 300; the shim buffer descriptor allows 256");
  PipelineGraph odd = copyGraph(4);
  odd.flows[1].to.walk.byteOffset = 2;
  EXPECT_TRUE(plan(odd).find("XDNA/014"));
  PipelineGraph wide = copyGraph(2000);
  wide.flows[0].from.walk.recordStride = 8192;  // 2000 records: more than a 10-bit wrap
  wide.bindings[0].bytes = 2000 * 8192;
  PlanRun w = plan(wide);
  ASSERT_TRUE(w.find("XDNA/014")) << w.collector.messages();
  EXPECT_EQ(w.find("XDNA/014")->message,
            "the transfer of binding 0 needs d2_wrap = 2000; the shim buffer descriptor allows 1023");
}

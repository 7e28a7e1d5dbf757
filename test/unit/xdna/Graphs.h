// Hand-built pipeline graphs shaped like the reference pipelines (copy, batched GEMM, split-k),
// shared by the planner and packaging tests.
#pragma once

#include "hrx/diag/Diagnostic.h"
#include "hrx/xdna/PipelineGraph.h"

#include <string>
#include <vector>

namespace hrx::xdna::testing {

// Collects every diagnostic with its formatted message.
struct Collector : diag::DiagnosticConsumer {
  std::vector<diag::Diagnostic> seen;
  void handle(const diag::Diagnostic &d, const diag::SourceManager &) override { seen.push_back(d); }
  bool has(std::string_view code) const {
    for (const auto &d : seen)
      if (d.code == code) return true;
    return false;
  }
  std::string messages() const {
    std::string all;
    for (const auto &d : seen) all += d.code + ": " + d.message + "\n";
    return all;
  }
};

inline BindingWalk contiguous(uint32_t recordBytes, uint32_t records, uint64_t laneBytes = 0, uint64_t offset = 0) {
  BindingWalk w;
  w.byteOffset = offset;
  w.laneBytes = laneBytes;
  w.runBytes = recordBytes;
  w.recordStride = recordBytes;
  w.recordCount = records;
  return w;
}

inline GraphPort port(PortDirection d, uint32_t flow, uint32_t bytes, uint32_t period = 1) {
  GraphPort p;
  p.direction = d;
  p.flow = flow;
  p.recordBytes = bytes;
  p.period = period;
  return p;
}

inline GraphFlow flow(FlowEnd from, FlowEnd to, uint32_t bytes, std::string type, uint32_t capacity = 2) {
  GraphFlow f;
  f.from = std::move(from);
  f.to = std::move(to);
  f.recordBytes = bytes;
  f.recordType = std::move(type);
  f.capacity = capacity;
  return f;
}

// copy.xdna.loom: read view<[N]x1024xi32> -> @copy_record -> write.
inline PipelineGraph copyGraph(uint32_t packets) {
  PipelineGraph g;
  g.name = "copy";
  g.bindings = {{"%input", PlanAccess::Read, uint64_t(packets) * 4096, true, {}},
                {"%output", PlanAccess::Write, uint64_t(packets) * 4096, true, {}}};
  g.groups = {{1, {}}};
  GraphWorker w;
  w.entry = "copy_record";
  w.iterations = packets;
  w.codeBytes = 512;
  w.ports = {port(PortDirection::Input, 0, 4096), port(PortDirection::Output, 1, 4096)};
  g.workers = {w};
  g.flows = {flow(FlowEnd::binding(0, contiguous(4096, packets)), FlowEnd::worker(0, 0), 4096, "tile<1024xi32>"),
             flow(FlowEnd::worker(0, 1), FlowEnd::binding(1, contiguous(4096, packets)), 4096, "tile<1024xi32>")};
  return g;
}

// batched_gemm.xdna.loom: lhs/rhs 8x8 bf16 records, 8x8 f32 result per batch element.
inline PipelineGraph batchedGemmGraph(uint32_t batch) {
  PipelineGraph g;
  g.name = "gemm";
  g.bindings = {{"%lhs", PlanAccess::Read, uint64_t(batch) * 128, true, {}},
                {"%rhs", PlanAccess::Read, uint64_t(batch) * 128, true, {}},
                {"%out", PlanAccess::Write, uint64_t(batch) * 256, true, {}}};
  g.groups = {{1, {}}};
  GraphWorker w;
  w.entry = "gemm_record";
  w.iterations = batch;
  w.codeBytes = 2048;
  w.ports = {port(PortDirection::Input, 0, 128), port(PortDirection::Input, 1, 128),
             port(PortDirection::Output, 2, 256)};
  g.workers = {w};
  g.flows = {flow(FlowEnd::binding(0, contiguous(128, batch)), FlowEnd::worker(0, 0), 128, "tile<8x8xbf16>"),
             flow(FlowEnd::binding(1, contiguous(128, batch)), FlowEnd::worker(0, 1), 128, "tile<8x8xbf16>"),
             flow(FlowEnd::worker(0, 2), FlowEnd::binding(2, contiguous(256, batch)), 256, "tile<8x8xf32>")};
  return g;
}

// split_k.loom: A scattered over 2 lanes, B read (broadcast) by both, per-lane partial products reduced
// with a bias on a 1-lane group, result written.
inline PipelineGraph splitKGraph() {
  PipelineGraph g;
  g.name = "split_k";
  g.bindings = {{"%a", PlanAccess::Read, 2 * 128, true, {}},
                {"%b", PlanAccess::Read, 128, true, {}},
                {"%bias", PlanAccess::Read, 256, true, {}},
                {"%c", PlanAccess::Write, 256, true, {}}};
  g.groups = {{2, {}}, {1, {}}};
  GraphWorker mma;
  mma.group = 0;
  mma.entry = "mma_partial";
  mma.ports = {port(PortDirection::Input, 0, 128), port(PortDirection::Input, 1, 128),
               port(PortDirection::Output, 2, 256)};
  GraphWorker reduce;
  reduce.group = 1;
  reduce.entry = "reduce_bias";
  reduce.ports = {port(PortDirection::Input, 2, 256), port(PortDirection::Input, 2, 256),
                  port(PortDirection::Input, 3, 256), port(PortDirection::Output, 4, 256)};
  g.workers = {mma, reduce};
  GraphFlow gather = flow(FlowEnd::worker(0, 2), FlowEnd::worker(1, 0), 256, "tile<8x8xf32>");
  gather.map = LaneMap::Gather;
  g.flows = {flow(FlowEnd::binding(0, contiguous(128, 1, 128)), FlowEnd::worker(0, 0), 128, "tile<8x8xbf16>"),
             flow(FlowEnd::binding(1, contiguous(128, 1)), FlowEnd::worker(0, 1), 128, "tile<8x8xbf16>"), gather,
             flow(FlowEnd::binding(2, contiguous(256, 1)), FlowEnd::worker(1, 2), 256, "tile<8x8xf32>"),
             flow(FlowEnd::worker(1, 3), FlowEnd::binding(3, contiguous(256, 1)), 256, "tile<8x8xf32>")};
  return g;
}

}  // namespace hrx::xdna::testing

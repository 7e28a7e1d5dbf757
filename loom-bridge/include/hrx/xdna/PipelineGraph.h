// PipelineGraph: one flow-form `pipeline.def<kernel>` after specialization, as the array
// planner sees it (the "array program" of loom-language §9.1): bindings with access from use,
// scheduling groups with lane counts, one worker template per group (the group's stages fused
// into one entry), and flows between bindings and worker ports with their record shapes,
// capacities and lane mappings. Every element keeps the Loom source range of the op that made
// it, so resource diagnostics point at the cause.
#pragma once

#include "hrx/diag/SourceManager.h"
#include "hrx/format/ArrayPlan.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hrx::xdna {

using format::AccessDim;
using format::PlanAccess;
using format::PortDirection;

// A launch buffer (`launch(%a: buffer, ...)`), in source argument order.
struct GraphBinding {
  std::string name;  // the SSA name, for diagnostics ("%input")
  PlanAccess access = PlanAccess::Read;
  uint64_t bytes = 0;  // bytes the pipeline touches (the contract's minimum length)
  bool used = true;    // an unused launch buffer becomes a NONE binding row
  diag::SourceRange loc;
};

// A `group.create %n`.
struct GraphGroup {
  uint32_t lanes = 1;
  diag::SourceRange loc;
};

// One callee argument of a group's worker. Input/Output ports are fed by `flow` (a reduce's
// partial ports, one per source lane, all name the gathered flow).
struct GraphPort {
  PortDirection direction = PortDirection::Input;
  std::optional<uint32_t> flow;
  uint32_t recordBytes = 0;
  uint32_t period = 1;
};

// The worker every lane of one group runs: the group's stages fused into one entry.
struct GraphWorker {
  uint32_t group = 0;
  std::string entry;        // host symbol suffix ("copy_record", "split_k$group$1")
  uint32_t iterations = 1;  // entry calls per invocation
  uint32_t codeBytes = 0;   // program-memory estimate (no native code exists)
  uint64_t stackBytes = 0;  // C/C++ workers: the stack their locals need at least
  std::vector<GraphPort> ports;
  diag::SourceRange loc;  // the first stage op
};

// How a flow's records map onto lanes.
enum class LaneMap {
  PerLane,  // lane i of the producer feeds lane i of the consumer (bindings: at i * laneBytes)
  Gather,   // every lane of a worker group feeds one lane of the consumer (pipeline.reduce)
};

// How a binding end walks its buffer: record k of lane i starts at
// byteOffset + i * laneBytes + k * recordStride (format::BindingTransfer semantics).
struct BindingWalk {
  uint64_t byteOffset = 0;
  uint64_t laneBytes = 0;  // 0: every lane sees the same records (pipeline.read)
  uint32_t runBytes = 0;
  std::vector<AccessDim> dims;
  uint64_t recordStride = 0;
  uint32_t recordCount = 1;
  uint32_t repeatCount = 1;
};

struct FlowEnd {
  enum class Kind { Binding, Worker };
  Kind kind = Kind::Worker;
  uint32_t index = 0;  // binding index or worker (group template) index
  uint32_t port = 0;   // worker port; for Gather the first partial port
  BindingWalk walk;    // binding ends only

  static FlowEnd binding(uint32_t index, BindingWalk walk) { return {Kind::Binding, index, 0, std::move(walk)}; }
  static FlowEnd worker(uint32_t index, uint32_t port) { return {Kind::Worker, index, port, {}}; }
};

struct GraphFlow {
  FlowEnd from;
  FlowEnd to;
  LaneMap map = LaneMap::PerLane;
  std::string recordType;  // "tile<1024xi32>"
  uint32_t recordBytes = 0;
  uint32_t capacity = 2;          // ring slots; pipeline.buffer raises it
  diag::SourceRange loc;          // the op that creates the flow
  diag::SourceRange capacityLoc;  // the pipeline.buffer that set the capacity, if any
};

struct PipelineGraph {
  std::string name;  // the pipeline symbol
  diag::SourceRange loc;
  std::vector<GraphBinding> bindings;
  std::vector<GraphGroup> groups;
  std::vector<GraphWorker> workers;
  std::vector<GraphFlow> flows;

  uint32_t laneCount(uint32_t worker) const { return groups.at(workers.at(worker).group).lanes; }
  uint32_t totalWorkers() const;
};

}  // namespace hrx::xdna

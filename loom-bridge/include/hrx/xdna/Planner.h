// The NPU5 array planner: PipelineGraph -> format::ArrayPlan (loom-language §9.2).
//
// Placement puts every worker on a compute tile of the requested columns, preferring tiles
// whose memory a producer and its consumer can both reach (neighbour-memory channels); other
// records travel by DMA through stream-switch routes, external ones through shim DMA channels
// spread over the columns. Each channel end gets ring slots, a credit/ready lock pair, DMA
// channels and buffer descriptors. Every resource demand is checked against Npu5Model before
// a plan is returned; a shortfall is reported with its numbers (XDNA/0NN) and no plan results.
// The same graph and options always give the same plan.
#pragma once

#include "hrx/diag/Diagnostic.h"
#include "hrx/format/ArrayPlan.h"
#include "hrx/xdna/PipelineGraph.h"

#include <optional>

namespace hrx::xdna {

struct PlanOptions {
  unsigned columns = 1;  // context width 1..8 (--columns)
};

std::optional<format::ArrayPlan> planArray(const PipelineGraph &graph, const PlanOptions &options,
                                           diag::DiagnosticEngine &diags);

}  // namespace hrx::xdna

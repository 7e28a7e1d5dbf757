// Builds the PipelineGraph of one verified flow-form `pipeline.def<kernel>` of a linked,
// specialized program (loom-language §5.10, §9.1): launch buffers become bindings with access
// from use, each group.create a group, each group's stage (or reduce) its worker, and every
// flow a channel template with its record shape, capacity and lane mapping. Dynamic extents
// and lane counts come from the specialization (Program::evaluateInteger).
#pragma once

#include "hrx/bridge/Program.h"
#include "hrx/diag/Diagnostic.h"
#include "hrx/xdna/PipelineGraph.h"

#include <optional>

namespace hrx::xdna {

// `contract` is the export's KernelContract (binding byte lengths and use); nullopt after
// reporting errors (XDNA/011 for constructs the planner does not support).
std::optional<PipelineGraph> extractPipelineGraph(const bridge::Program &program, const loom::Operation &pipeline,
                                                  const bridge::KernelContract &contract,
                                                  diag::DiagnosticEngine &diags);

// The program-memory estimate of a worker entry: 64 bytes plus 32 per Loom op in the callee
// and every function it calls (AIE2P instructions are up to 16 bytes and most ops expand to a
// few). 0 when the callee has no Loom body (a C/C++ worker), whose size is then unknown.
uint32_t estimateCodeBytes(const bridge::Program &program, std::string_view callee);

}  // namespace hrx::xdna

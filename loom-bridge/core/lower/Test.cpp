// Lowering of upstream's analysis-test ops that real corpus kernels carry: test.use observes
// values (nothing to emit: its operands are already computed), and a fact probe
// (test.fact_uniform, test.fact_lane_varying, test.fact_lane_predicate) folds to the i1 answer of
// the lane-distribution analysis below. Other test.* ops have no target meaning.
#include "LoweringImpl.h"

#include <unordered_map>

namespace hrx::bridge {

namespace {

using loom::OpCode;

// A value is lane-varying when it depends on a lane's own coordinate (its work-item id, its
// dispatch-wide id or its subgroup lane id). Kernel arguments, workgroup coordinates and the
// results of collectives (one value for all lanes) are uniform. A region's block arguments and
// results vary when any operand of the op that owns them does, or any value it yields.
class LaneDistribution {
public:
  bool varying(const Value *v) {
    auto [it, inserted] = memo_.emplace(v, false);
    if (!inserted) return it->second;  // a cycle through a loop-carried value: uniform so far
    bool result = compute(v);
    memo_[v] = result;
    return result;
  }

private:
  bool anyOperand(const Operation &op) {
    for (const Value *operand : op.operands())
      if (varying(operand)) return true;
    return false;
  }
  bool anyYielded(const Operation &op) {
    for (const loom::Region &r : op.regions())
      for (loom::Block *b : r.blocks())
        if (const Operation *t = b->terminator())
          for (const Value *v : t->operands())
            if (varying(v)) return true;
    return false;
  }
  bool compute(const Value *v) {
    if (v->isBlockArgument()) {
      const Operation *owner = v->ownerBlock()->parentOp();
      if (!owner || owner->opcode() == OpCode::KernelDef || owner->opcode() == OpCode::FuncDef) return false;
      return anyOperand(*owner) || anyYielded(*owner);
    }
    const Operation *def = v->definingOp();
    if (!def) return false;
    switch (def->opcode()) {
    case OpCode::KernelWorkitemId:
    case OpCode::KernelWorkitemDispatchId:
    case OpCode::KernelSubgroupLaneId: return true;
    case OpCode::KernelSubgroupReduce:
    case OpCode::KernelWorkgroupReduce:
    case OpCode::KernelSubgroupBroadcast: return false;
    default: break;
    }
    return anyOperand(*def) || (def->numRegions() && anyYielded(*def));
  }
  std::unordered_map<const Value *, bool> memo_;
};

}  // namespace

bool Lowering::Impl::lowerAnalysisTest(const Operation &op) {
  switch (op.opcode()) {
  case OpCode::TestUse: return true;
  case OpCode::TestFactUniform:
  case OpCode::TestFactLaneVarying:
  case OpCode::TestFactLanePredicate: {
    LaneDistribution lanes;
    const Value *in = op.operandNamed("in");
    bool varying = in && lanes.varying(in);
    bool answer = op.opcode() == OpCode::TestFactUniform       ? !varying
                  : op.opcode() == OpCode::TestFactLaneVarying ? varying
                                                               : varying && in->type() && in->type()->isInteger(1);
    set(op, 0, b_->getInt1(answer));
    return true;
  }
  default: break;
  }
  if (op.name().starts_with("test."))
    unsupported(op, "test.* ops exist only for Loom's own analysis tests; no target compiles them");
  return false;
}

}  // namespace hrx::bridge

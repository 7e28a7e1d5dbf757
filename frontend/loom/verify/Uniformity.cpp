// STRUCTURE/038: a workgroup barrier must run under control that every work-item of the
// workgroup takes alike. Values are classed by how they are distributed: uniform (constants,
// launch arguments, workgroup coordinates, workgroup collectives), subgroup (uniform only within
// a subgroup: subgroup collectives), lane-varying (work-item coordinates, scans) or unknown (ops
// with no distribution rule, test.* ops); an op's results take the widest class of its operands.
// A barrier under an scf.if whose condition, an scf.for whose bounds, or a cfg.cond_br whose
// condition is not uniform is reported with the control op and value.
#include "HookContext.h"

#include <map>
#include <set>
#include <vector>

namespace hrx::loom::verify {

using diag::DiagId;

namespace {

enum class Distribution { Uniform, Subgroup, LaneVarying, Unknown };

class Uniformity {
public:
  explicit Uniformity(const Operation &kernel) : kernel_(kernel) {}

  Distribution of(const Value *v) {
    if (!v) return Distribution::Unknown;
    if (auto it = memo_.find(v); it != memo_.end()) return it->second;
    memo_[v] = Distribution::Uniform;  // a cycle through loop-carried values adds nothing
    Distribution d = compute(v);
    memo_[v] = d;
    return d;
  }

private:
  Distribution compute(const Value *v) {
    const Operation *def = v->definingOp();
    if (!def) return blockArgument(v);
    switch (def->opcode()) {
    case OpCode::KernelWorkitemId:
    case OpCode::KernelWorkitemDispatchId:
    case OpCode::KernelSubgroupLaneId:
    case OpCode::KernelWorkgroupScan:
    case OpCode::KernelSubgroupScan:
    case OpCode::KernelSubgroupShuffle: return Distribution::LaneVarying;
    case OpCode::KernelSubgroupId:
    case OpCode::KernelSubgroupVoteAny:
    case OpCode::KernelSubgroupVoteAll:
    case OpCode::KernelSubgroupVoteBallot:
    case OpCode::KernelSubgroupReduce:
    case OpCode::KernelSubgroupBroadcast:
    case OpCode::KernelSubgroupBroadcastFirst:
    case OpCode::KernelSubgroupActiveMask: return Distribution::Subgroup;
    case OpCode::KernelWorkgroupId:
    case OpCode::KernelWorkgroupSize:
    case OpCode::KernelWorkgroupCount:
    case OpCode::KernelSubgroupSize:
    case OpCode::KernelSubgroupCount:
    case OpCode::KernelWorkgroupReduce:
    case OpCode::KernelWorkgroupVoteAny:
    case OpCode::KernelWorkgroupVoteAll:
    case OpCode::KernelWorkgroupVoteCount: return Distribution::Uniform;
    default: break;
    }
    if (def->name().starts_with("test.") || def->isOpaque()) return Distribution::Unknown;
    Distribution d = Distribution::Uniform;
    for (const Value *operand : def->operands()) d = std::max(d, of(operand));
    return d;
  }

  // The kernel's own arguments are uniform; a loop's induction variable is as uniform as its
  // bounds; other block arguments as the values their region's op takes.
  Distribution blockArgument(const Value *v) {
    const Block *block = v->ownerBlock();
    const Operation *owner = block ? block->parentOp() : nullptr;
    if (!owner || owner == &kernel_) return Distribution::Uniform;
    Distribution d = Distribution::Uniform;
    for (const Value *operand : owner->operands()) d = std::max(d, of(operand));
    return d;
  }

  const Operation &kernel_;
  std::map<const Value *, Distribution> memo_;
};

// Whether every work-item of the kernel's workgroup is in one subgroup: a constant workgroup size
// no larger than the target record's subgroup_size (32 when it names none).
bool singleSubgroup(const Operation &kernel, const HookContext &ctx) {
  int64_t subgroup = 32;
  if (const Attribute *target = kernel.attr("target"); target && ctx.module())
    if (const Operation *record = ctx.module()->lookupSymbol(target->str()))
      if (const Attribute *size = record->attr("subgroup_size"); size && size->kind() == AttrKind::Integer)
        subgroup = size->integer();
  const Region *config = kernel.numRegions() ? kernel.region(0) : nullptr;
  if (!config || config->empty()) return false;
  for (const Operation &op : *config->entryBlock()) {
    if (op.opcode() != OpCode::KernelLaunchConfig) continue;
    int64_t items = 1;
    for (const Value *v : op.operandGroup("workgroup_size")) {
      const Operation *def = v->definingOp();
      const Attribute *n = def && def->opcode() == OpCode::IndexConstant ? def->attr("value") : nullptr;
      if (!n || n->kind() != AttrKind::Integer) return false;
      items *= n->integer();
    }
    return items >= 1 && items <= subgroup;
  }
  return false;
}

// Whether every path leaving `from` to the end of the body passes `through` (it post-dominates:
// control that diverged at `from` has reconverged there). The paths start at `from`'s
// successors, so a loop whose varying back edge leaves from the barrier's own block (a loop
// header continued by some work-items only) has not reconverged there.
bool passesThrough(const Block *from, const Block *through) {
  std::vector<const Block *> work;
  std::set<const Block *> seen;
  const Operation *exit = from->terminator();
  if (!exit || exit->successors().empty()) return from == through;
  for (const Successor &s : exit->successors())
    if (s.block && seen.insert(s.block).second) work.push_back(s.block);
  while (!work.empty()) {
    const Block *b = work.back();
    work.pop_back();
    if (b == through) continue;
    const Operation *t = b->terminator();
    if (!t || t->successors().empty()) return false;  // an exit reached without `through`
    for (const Successor &s : t->successors())
      if (s.block && seen.insert(s.block).second) work.push_back(s.block);
  }
  return true;
}

// Whether `target` is reachable from `from`'s successors.
bool reaches(const Block *from, const Block *target) {
  std::vector<const Block *> work;
  std::set<const Block *> seen;
  if (const Operation *t = from->terminator())
    for (const Successor &s : t->successors())
      if (s.block && seen.insert(s.block).second) work.push_back(s.block);
  while (!work.empty()) {
    const Block *b = work.back();
    work.pop_back();
    if (b == target) return true;
    if (const Operation *t = b->terminator())
      for (const Successor &s : t->successors())
        if (s.block && seen.insert(s.block).second) work.push_back(s.block);
  }
  return false;
}

std::string_view distributionName(Distribution d, const Value *v) {
  switch (d) {
  case Distribution::Subgroup: return "subgroup";
  case Distribution::LaneVarying: return v && v->type() && v->type()->isInteger(1) ? "lane_predicate" : "lane_varying";
  case Distribution::Unknown: return "unknown";
  default: return "uniform";
  }
}

}  // namespace

void checkBarrierUniformity(const Operation &barrier, const Operation &kernel, HookContext &ctx) {
  const Attribute *scope = barrier.attr("scope");
  if (scope && scope->str() != "workgroup") return;
  Uniformity uniformity(kernel);
  const bool oneSubgroup = singleSubgroup(kernel, ctx);
  auto report = [&](std::string_view kind, const Value *value, const Operation &control) {
    Distribution d = uniformity.of(value);
    if (d == Distribution::Uniform || (d == Distribution::Subgroup && oneSubgroup)) return false;
    ctx.report(DiagId::StructureDivergentBarrier, barrier)
        .arg("op_name", std::string(barrier.name()))
        .arg("required_uniform_scope", "workgroup")
        .arg("control_kind", std::string(kind))
        .arg("control_value", value ? std::string(value->name()) : std::string())
        .arg("control_op_name", std::string(control.name()))
        .arg("control_distribution", std::string(distributionName(d, value)));
    return true;
  };
  for (const Operation *at = &barrier; at && at != &kernel; at = at->parentOp()) {
    const Operation *parent = at->parentOp();
    if (!parent) break;
    if (parent->opcode() == OpCode::ScfIf && report("region_selector", parent->operandNamed("cond"), *parent)) return;
    if (parent->opcode() == OpCode::ScfFor) {
      if (report("loop_lower_bound", parent->operandNamed("lo"), *parent) ||
          report("loop_upper_bound", parent->operandNamed("hi"), *parent) ||
          report("loop_step", parent->operandNamed("step"), *parent))
        return;
    }
    // In a body of several blocks: a divergent cfg.cond_br from which the block is reachable
    // and which it does not post-dominate (control has not reconverged there).
    const Block *block = at->parentBlock();
    const Region *region = block ? block->parentRegion() : nullptr;
    if (region && region->blocks().size() > 1)
      for (const Block *b : region->blocks())
        if (const Operation *t = b->terminator(); t && t->opcode() == OpCode::CfgCondBr)
          if (reaches(b, block) && !passesThrough(b, block) && report("cfg_selector", t->operand(0), *t)) return;
  }
}

}  // namespace hrx::loom::verify

// kernel.launch (a host function launching a kernel.def/kernel.decl: workload and ABI arguments
// against the kernel's signature) and kernel.dispatch (an entry launched on explicit workgroup
// counts, static or from a view<3xi32>, and an optional three-axis workgroup size); the subgroup
// lane collectives (votes, lane masks, match, scan clusters).
#include "HookContext.h"
#include "hrx/loom/TextBody.h"

#include <algorithm>

namespace hrx::loom::verify {

using diag::DiagId;

namespace {

bool insideKernel(const Operation &op) {
  for (const Operation *p = op.parentOp(); p; p = p->parentOp())
    if (p->opcode() == OpCode::KernelDef) return true;
  return false;
}

// The kernel's ABI takes buffers; a view or tensor of one is passed as its buffer.
bool passesAs(const Type *given, const Type *param) {
  if (given == param) return true;
  return param->kind() == TypeKind::Buffer &&
         (given->kind() == TypeKind::View || given->kind() == TypeKind::Tensor || given->kind() == TypeKind::Buffer);
}

void checkList(const Operation &op, HookContext &ctx, std::span<Value *const> given, const Block *sig,
               std::string_view field, std::string_view contract) {
  size_t n = sig ? sig->arguments().size() : 0;
  if (given.size() != n) return ctx.countMismatch(op, std::string(field), given.size(), std::string(contract), n);
  for (size_t k = 0; k < n; ++k) {
    const Type *t = given[k]->type(), *want = sig->argument(unsigned(k))->type();
    if (unknownType(t) || unknownType(want) || passesAs(t, want)) continue;
    if (!want->hasStaticShape() && t->kind() == want->kind()) continue;  // dependent shapes: checked at the use
    ctx.fieldMismatch(op, std::string(field) + " " + std::to_string(k), t,
                      std::string(contract) + " " + std::to_string(k), want);
  }
}

const Operation *callee(const Operation &op, HookContext &ctx, std::initializer_list<OpCode> kinds,
                        std::string_view expected) {
  return ctx.resolveSymbol(op, "callee", kinds, expected);
}

void checkLaunch(const Operation &op, HookContext &ctx) {
  if (insideKernel(op))
    ctx.report(DiagId::StructureMisplacedOp, op)
        .arg("placement", "")
        .arg("op", std::string(op.name()))
        .arg("parent", "a host function or command program (kernels do not launch kernels)")
        .arg("op_name", std::string(op.name()))
        .arg("constraint_kind", "forbidden")
        .arg("ancestor_name", "kernel.def")
        .arg("actual_ancestor", "kernel.def");
  const Operation *kernel =
      callee(op, ctx, {OpCode::KernelDef, OpCode::KernelDecl}, "kernel (a kernel.def or kernel.decl)");
  if (!kernel) return;
  checkList(op, ctx, op.operandGroup("workload"), kernel->region(0)->entryBlock(), "workload", "kernel workload");
  const Block *abi = kernel->numRegions() > 1 ? kernel->region(1)->entryBlock() : nullptr;
  checkList(op, ctx, op.operandGroup("args"), abi, "argument", "kernel ABI argument");
}

// The parameter types a kernel.entry.decl writes (`@name(%a: T, %b: U)`), spaces removed.
std::vector<std::string> entryParameterTypes(const Operation &entry, HookContext &ctx) {
  std::vector<Token> tokens = textBodyTokens(ctx.sourceText(entry), entry).tokens;
  std::vector<std::string> types;
  size_t k = 0;
  while (k < tokens.size() && !tokens[k].is(Tok::LParen)) ++k;
  if (k == tokens.size()) return types;
  int depth = 0;
  std::string current;
  bool inType = false;
  for (++k; k < tokens.size(); ++k) {
    const Token &t = tokens[k];
    if (depth == 0 && (t.is(Tok::Comma) || t.is(Tok::RParen))) {
      if (inType) types.push_back(current);
      current.clear();
      inType = false;
      if (t.is(Tok::RParen)) break;
      continue;
    }
    if (depth == 0 && !inType && t.is(Tok::Colon)) {
      inType = true;
      continue;
    }
    if (t.is(Tok::LParen) || t.is(Tok::Less) || t.is(Tok::LSquare)) ++depth;
    if (t.is(Tok::RParen) || t.is(Tok::Greater) || t.is(Tok::RSquare)) --depth;
    if (inType) current += std::string(t.text);
  }
  return types;
}

void checkDispatch(const Operation &op, HookContext &ctx) {
  if (insideKernel(op))
    ctx.report(DiagId::StructureMisplacedOp, op)
        .arg("placement", "")
        .arg("op", std::string(op.name()))
        .arg("parent", "a host function or command program (kernels do not dispatch kernels)")
        .arg("op_name", std::string(op.name()))
        .arg("constraint_kind", "forbidden")
        .arg("ancestor_name", "kernel.def")
        .arg("actual_ancestor", "kernel.def");
  std::span<Value *const> counts = op.operandGroup("workgroup_counts");
  std::span<Value *const> sizes = op.operandGroup("workgroup_size");
  if (!sizes.empty() && sizes.size() != 3)
    ctx.attrConstraint(op, "workgroup size operand count", std::to_string(sizes.size()), "zero or three");
  if (counts.empty() || counts.size() > 3)
    return ctx.attrConstraint(op, "workgroup count operand count", std::to_string(counts.size()), "one to three");
  for (Value *c : counts) {
    const Type *t = c->type();
    if (unknownType(t) || t->isIndex()) continue;
    bool indirect = counts.size() == 1 && t->kind() == TypeKind::View && t->rank() == 1 && t->shape()[0].isStatic() &&
                    t->shape()[0].extent == 3 && t->elementType()->isInteger(32);
    if (!indirect) ctx.operandError(op, "workgroup_counts", t, "index or dense view<3xi32>");
  }
  for (Value *s : sizes)
    if (!unknownType(s->type()) && !s->type()->isIndex()) ctx.operandError(op, "workgroup_size", s->type(), "index");
  const Operation *entry = callee(op, ctx, {OpCode::KernelEntryDecl, OpCode::KernelDef, OpCode::KernelDecl},
                                  "kernel (a kernel.entry.decl, kernel.def or kernel.decl)");
  if (!entry) return;
  if (entry->opcode() != OpCode::KernelEntryDecl) {
    const Block *abi = entry->numRegions() > 1 ? entry->region(1)->entryBlock() : nullptr;
    return checkList(op, ctx, op.operandGroup("args"), abi, "argument", "kernel entry ABI argument");
  }
  // A kernel.entry.decl is kept as text: its ABI is the types written in its `(%name: T, ...)`.
  std::vector<std::string> params = entryParameterTypes(*entry, ctx);
  std::span<Value *const> args = op.operandGroup("args");
  if (args.size() != params.size())
    return ctx.countMismatch(op, "argument", args.size(), "kernel entry ABI argument", params.size());
  for (size_t k = 0; k < params.size(); ++k) {
    const Type *t = args[k]->type();
    if (unknownType(t)) continue;
    bool buffer = params[k] == "buffer" &&
                  (t->kind() == TypeKind::Buffer || t->kind() == TypeKind::View || t->kind() == TypeKind::Tensor);
    std::string given = t->str();
    std::erase(given, ' ');
    if (buffer || given == params[k]) continue;
    ctx.report(DiagId::TypeFieldMismatch, op)
        .arg("op", std::string(op.name()))
        .arg("field_a", "argument " + std::to_string(k))
        .arg("type_a", t->str())
        .arg("field_b", "kernel entry ABI argument " + std::to_string(k))
        .arg("type_b", params[k]);
  }
}

// Upstream's lane masks are i32 or i64 (bit i is lane i).
void checkMaskResult(const Operation &op, HookContext &ctx) {
  const Type *mask = op.numResults() ? op.result(0)->type() : nullptr;
  if (mask && !unknownType(mask) && !mask->isInteger(32) && !mask->isInteger(64))
    ctx.resultError(op, "mask", mask, "i32 or i64");
}

void checkPredicate(const Operation &op, HookContext &ctx) {
  const Value *p = op.operandNamed("predicate");
  if (p && !unknownType(p->type()) && !p->type()->isInteger(1)) ctx.operandError(op, "predicate", p->type(), "i1");
}

// cluster_size / cluster_stride (subgroup reduce and scan): positive when given, and a stride
// only with a size; the value a scalar or a rank-1 vector (one collective per lane of it).
void checkClusterAttrs(const Operation &op, HookContext &ctx) {
  if (const Value *v = op.operandNamed("in");
      v && !unknownType(v->type()) && v->type()->kind() == TypeKind::Vector && v->type()->rank() != 1)
    ctx.operandError(op, "value", v->type(), "scalar or rank-1 vector");
  if (op.attr("cluster_stride") && !op.attr("cluster_size"))
    ctx.attrConstraint(op, "cluster_size", "0", "present when cluster_stride is present");
  for (std::string_view key : {"cluster_size", "cluster_stride"}) {
    const Attribute *a = op.attr(key);
    if (!a) continue;
    if (a->kind() != AttrKind::Integer || a->integer() <= 0 || a->integer() > int64_t(UINT32_MAX))
      ctx.attrConstraint(op, std::string(key),
                         a->kind() == AttrKind::Integer ? std::to_string(a->integer()) : std::string(a->str()),
                         "positive u32");
  }
}

// Upstream's STRUCTURE/029 for an op whose direct parent is not the one it needs.
void directPlacement(const Operation &op, HookContext &ctx, std::string_view kind, std::string_view parent) {
  std::string actual = op.parentOp() ? std::string(op.parentOp()->name()) : std::string("the module");
  ctx.report(DiagId::StructureMisplacedOp, op)
      .arg("op", std::string(op.name()))
      .arg("parent", std::string(parent))
      .arg("placement", " (" + std::string(kind) + " parent; the parent is " + actual + ")")
      .arg("constraint_kind", std::string(kind))
      .arg("ancestor_name", std::string(parent))
      .arg("actual_ancestor", actual);
}

// kernel.exit: the condition is an i1, and the op is a direct op of the kernel.def body.
void checkExit(const Operation &op, HookContext &ctx) {
  const Value *c = op.operandNamed("condition");
  if (c && !unknownType(c->type()) && !c->type()->isInteger(1)) ctx.operandError(op, "condition", c->type(), "i1");
  if (!op.parentOp() || op.parentOp()->opcode() != OpCode::KernelDef) directPlacement(op, ctx, "parent", "kernel.def");
}

// A launch schedule's body holds launches, dispatches, nested schedules and kernel.launch.yield.
void checkSchedule(const Operation &op, HookContext &ctx) {
  for (const Region &r : op.regions())
    for (const Block *b : r.blocks())
      for (const Operation &inner : *b) {
        switch (inner.opcode()) {
        case OpCode::KernelLaunch:
        case OpCode::KernelDispatch:
        case OpCode::KernelLaunchSerial:
        case OpCode::KernelLaunchConcurrent:
        case OpCode::KernelLaunchYield: continue;
        default: directPlacement(inner, ctx, "direct", "kernel launch schedule"); return;
        }
      }
}

}  // namespace

void checkLaneCollectiveOp(const Operation &op, HookContext &ctx) {
  switch (op.opcode()) {
  case OpCode::KernelSubgroupVoteAny:
  case OpCode::KernelSubgroupVoteAll: return checkPredicate(op, ctx);
  case OpCode::KernelSubgroupVoteBallot: checkPredicate(op, ctx); return checkMaskResult(op, ctx);
  case OpCode::KernelSubgroupActiveMask: return checkMaskResult(op, ctx);
  case OpCode::KernelSubgroupMatchAny:
  case OpCode::KernelSubgroupMatchAll: {
    const Type *v = op.operandNamed("in")->type();
    if (!unknownType(v) && !v->isScalar() && !v->isIndex()) ctx.operandError(op, "value", v, "a scalar");
    if (op.opcode() == OpCode::KernelSubgroupMatchAll && op.numResults() != 2)
      return ctx.countMismatch(op, "results", op.numResults(), "mask and all_equal", 2);
    checkMaskResult(op, ctx);
    if (op.opcode() == OpCode::KernelSubgroupMatchAll && !unknownType(op.result(1)->type()) &&
        !op.result(1)->type()->isInteger(1))
      ctx.resultError(op, "all_equal", op.result(1)->type(), "i1");
    return;
  }
  case OpCode::KernelSubgroupReduce:
  case OpCode::KernelSubgroupScan: return checkClusterAttrs(op, ctx);
  case OpCode::KernelWorkgroupVoteAny:
  case OpCode::KernelWorkgroupVoteAll: return checkPredicate(op, ctx);
  case OpCode::KernelWorkgroupVoteCount: {
    checkPredicate(op, ctx);
    const Type *r = op.result(0)->type();
    if (!unknownType(r) && !r->isInteger(32) && !r->isInteger(64)) ctx.resultError(op, "result", r, "i32 or i64");
    return;
  }
  default: return;
  }
}

// A kernel.def's linkage(...) names how an exported symbol links: it needs export("...").
void checkKernelLinkage(const Operation &op, HookContext &ctx) {
  if (op.attr("linkage") && !op.attr("export"))
    ctx.attrConstraint(op, "export", "0", "present when linkage is present");
}

void checkKernelLaunchOp(const Operation &op, HookContext &ctx) {
  switch (op.opcode()) {
  case OpCode::KernelLaunch: return checkLaunch(op, ctx);
  case OpCode::KernelDispatch: return checkDispatch(op, ctx);
  case OpCode::KernelExit: return checkExit(op, ctx);
  case OpCode::KernelLaunchYield: {
    const Operation *parent = op.parentOp();
    if (!parent ||
        (parent->opcode() != OpCode::KernelLaunchSerial && parent->opcode() != OpCode::KernelLaunchConcurrent))
      directPlacement(op, ctx, "direct", "kernel.launch.serial or kernel.launch.concurrent");
    return;
  }
  case OpCode::KernelLaunchSerial:
  case OpCode::KernelLaunchConcurrent: return checkSchedule(op, ctx);
  default: return;
  }
}

}  // namespace hrx::loom::verify

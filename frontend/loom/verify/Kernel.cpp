// kernel.launch (a host function launching a kernel.def/kernel.decl: workload and ABI arguments
// against the kernel's signature) and kernel.dispatch (an entry launched on explicit workgroup
// counts, static or from a view<3xi32>, and an optional three-axis workgroup size); the subgroup
// lane collectives (votes, lane masks, match, scan clusters); the kernel.async.* transfers, groups
// and waits (footprints, memory spaces, cache policies, token and group uses).
#include "HookContext.h"
#include "hrx/loom/TextBody.h"

#include <algorithm>
#include <vector>

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

// ---------------------------------------------------------------------------------------------
// kernel.async.*: a transfer (copy, per-lane gather, cluster gather, tensor load/store through
// LDS) moves a static byte footprint between views whose memory spaces the IR states, and gives
// a kernel.async.token; each token joins exactly one kernel.async.group, each group is waited on
// (or carried), and a wait names a group made by kernel.async.group. Like upstream Loom, every
// rule of an op is checked (one report per rule), so several may be reported at one op.
// ---------------------------------------------------------------------------------------------
namespace {

bool absentType(const Type *t) { return !t || t->isUnknown(); }
bool opaqueNamed(const Type *t, std::string_view name) {
  return t && t->kind() == TypeKind::Opaque && t->name() == name;
}
std::string valueName(const Value *v) { return v->name().empty() ? std::string("<unnamed>") : std::string(v->name()); }

constexpr std::string_view kAsyncCacheScopes[] = {"cu", "se", "device", "system"};
template <size_t N> int asyncCase(const std::string_view (&cases)[N], const Attribute *a) {
  return a ? caseNumber(cases, a->str()) : -1;
}

// Bytes of one element of a memory view: a whole-byte integer or a float (i1, index and offset
// have no byte width).
int64_t elementBytes(const Type *t) {
  const Type *e = t->elementType();
  if (!e || (!e->isInteger() && !e->isFloat()) || e->width() == 0 || e->width() % 8 != 0) return 0;
  return e->width() / 8;
}

// The static byte footprint of view `t` from axis `first` on; false if an extent is dynamic or
// the element has no byte width.
bool staticBytes(const Type *t, size_t first, int64_t &bytes) {
  if (!t || t->kind() != TypeKind::View || first > t->rank()) return false;
  int64_t n = elementBytes(t);
  if (n == 0) return false;
  for (size_t d = first; d < t->rank(); ++d) {
    const Dim &dim = t->shape()[d];
    if (!dim.isStatic() || dim.extent < 0 || __builtin_mul_overflow(n, dim.extent, &n)) return false;
  }
  bytes = n;
  return true;
}

// The memory space stated for a buffer: by the buffer.alloca or buffer.assume.memory_space that
// made it (through buffer.assume.noalias), or `global` for a buffer argument of a kernel.def's
// launch body (the kernel ABI's buffers are device memory). Empty when nothing states one.
std::string_view bufferSpace(const Value *b) {
  for (int depth = 0; b && depth < 32; ++depth) {
    if (b->isBlockArgument()) {
      const Block *block = b->ownerBlock();
      const Operation *owner = block ? block->parentOp() : nullptr;
      bool launchArg = owner && owner->opcode() == OpCode::KernelDef && owner->numRegions() > 1 &&
                       owner->region(1)->entryBlock() == block && b->type() && b->type()->kind() == TypeKind::Buffer;
      return launchArg ? std::string_view("global") : std::string_view();
    }
    const Operation *def = b->definingOp();
    if (!def) return {};
    switch (def->opcode()) {
    case OpCode::BufferAlloca:
    case OpCode::BufferAssumeMemorySpace: {
      if (const Attribute *space = def->templateParam(0)) return space->str();
      const Attribute *space = def->attr("memory_space");
      return space ? space->str() : std::string_view();
    }
    case OpCode::BufferAssumeNoalias:
      if (b->index() >= def->numOperands()) return {};
      b = def->operand(b->index());
      continue;
    default: return {};
    }
  }
  return {};
}

// The memory space of the buffer a view was made from (through view.subview and view.refine).
std::string_view viewSpace(const Value *v) {
  for (int depth = 0; v && depth < 32; ++depth) {
    const Operation *def = v->isBlockArgument() ? nullptr : v->definingOp();
    if (!def) return {};
    switch (def->opcode()) {
    case OpCode::BufferView: return bufferSpace(def->operandNamed("source"));
    case OpCode::ViewSubview: v = def->operandNamed("base"); continue;
    case OpCode::ViewRefine: v = def->operandNamed("in"); continue;
    default: return {};
    }
  }
  return {};
}

bool globalSource(std::string_view s) { return s == "global" || s == "constant" || s == "descriptor"; }
bool globalDest(std::string_view s) { return s == "global" || s == "descriptor"; }
bool workgroupSpace(std::string_view s) { return s == "workgroup"; }

struct AsyncOperands {
  const Value *source, *dest;
  const Type *from, *to;
  bool known;  // both endpoint types are known (an unparsed producer leaves them unknown)
};

AsyncOperands endpoints(const Operation &op) {
  const Value *s = op.operandNamed("source"), *d = op.operandNamed("dest");
  const Type *from = s ? s->type() : nullptr, *to = d ? d->type() : nullptr;
  return {s, d, from, to, !absentType(from) && !absentType(to)};
}

// Whether a copy or gather's endpoints are both views whose footprints and spaces can be checked
// (TYPE/003 at each that is not a view).
bool viewEndpoints(const Operation &op, HookContext &ctx, const AsyncOperands &io) {
  if (!io.known) return false;
  bool views = true;
  for (auto [field, t] : {std::pair{"source", io.from}, std::pair{"dest", io.to}})
    if (t->kind() != TypeKind::View) {
      ctx.operandError(op, field, t, "a view");
      views = false;
    }
  return views;
}

// A view's byte footprint, or 0 after a TYPE/003 at `field`.
int64_t footprint(const Operation &op, HookContext &ctx, std::string_view field, const Type *t) {
  int64_t bytes = 0;
  if (!staticBytes(t, 0, bytes)) ctx.operandError(op, field, t, "view with a static byte-addressable footprint");
  return bytes;
}

void sameFootprint(const Operation &op, HookContext &ctx, const AsyncOperands &io) {
  int64_t from = footprint(op, ctx, "source", io.from), to = footprint(op, ctx, "dest", io.to);
  if (from != to) ctx.operandError(op, "dest", io.to, "same static byte footprint as source");
}

// The memory spaces a transfer's direction needs (global_to_workgroup: a global, constant or
// descriptor source into workgroup memory; workgroup_to_global: workgroup memory into global or
// descriptor memory).
void directionSpaces(const Operation &op, HookContext &ctx, const AsyncOperands &io, std::string_view direction) {
  if (direction == "global_to_workgroup") {
    if (!globalSource(viewSpace(io.source)))
      return ctx.operandError(op, "source", io.from, "global, constant, or descriptor memory-space fact");
    if (!workgroupSpace(viewSpace(io.dest))) ctx.operandError(op, "dest", io.to, "workgroup memory-space fact");
    return;
  }
  if (direction == "workgroup_to_global") {
    if (!workgroupSpace(viewSpace(io.source)))
      return ctx.operandError(op, "source", io.from, "workgroup memory-space fact");
    if (!globalDest(viewSpace(io.dest))) ctx.operandError(op, "dest", io.to, "global or descriptor memory-space fact");
    return;
  }
  ctx.attrConstraint(op, "direction", std::string(direction), "global_to_workgroup or workgroup_to_global");
}

// cache_scope / cache_temporal of a transfer: bypass needs system scope, last_use a non-system
// one; a load (into LDS) takes no writeback hint, a store (out of LDS) no last_use hint.
void asyncCachePolicy(const Operation &op, HookContext &ctx, bool store) {
  const Attribute *scopeAttr = op.attr("cache_scope"), *temporalAttr = op.attr("cache_temporal");
  if (!scopeAttr || !temporalAttr) return;
  int scope = asyncCase(kAsyncCacheScopes, scopeAttr), temporal = asyncCase(kTemporalHints, temporalAttr);
  if (scope < 0)
    return ctx.attrConstraint(op, "cache_scope", std::string(scopeAttr->str()), "cu, se, device, or system");
  if (temporal < 0)
    return ctx.attrConstraint(op, "cache_temporal", std::string(temporalAttr->str()), "supported cache temporal hint");
  std::string_view hint = kTemporalHints[temporal];
  bool system = kAsyncCacheScopes[scope] == "system";
  if (hint == "last_use" && system)
    return ctx.attrConstraint(op, "cache_scope", std::to_string(scope), "non-system scope for last_use temporal hint");
  if (hint == "bypass" && !system)
    return ctx.attrConstraint(op, "cache_scope", std::to_string(scope), "system scope for bypass temporal hint");
  if (!store && (hint == "writeback" || hint == "non_temporal_writeback"))
    return ctx.attrConstraint(op, "cache_temporal", std::to_string(temporal), "load-compatible temporal hint");
  if (store && hint == "last_use")
    ctx.attrConstraint(op, "cache_temporal", std::to_string(temporal), "store-compatible temporal hint");
}

// The ops that use `v` as an operand, in the whole top-level op around `op`.
std::vector<const Operation *> usersOf(const Operation &op, const Value *v) {
  const Operation *root = &op;
  while (root->parentOp()) root = root->parentOp();
  std::vector<const Operation *> users;
  root->walk([&](const Operation &inner) {
    for (const Value *operand : inner.operands())
      if (operand == v) users.push_back(&inner);
  });
  return users;
}

void useCountError(const Operation &op, HookContext &ctx, const Value *v, size_t count, std::string expected) {
  ctx.report(DiagId::DominanceUseCount, op)
      .arg("op", std::string(op.name()))
      .arg("value", valueName(v))
      .arg("count", std::to_string(count))
      .arg("expected", std::move(expected));
}

void originError(const Operation &op, HookContext &ctx, const Value *v, const Operation *other, std::string expected) {
  ctx.report(DiagId::DominanceValueOrigin, op)
      .arg("op", std::string(op.name()))
      .arg("value", valueName(v))
      .arg("other", other ? std::string(other->name()) : std::string("<null>"))
      .arg("expected", std::move(expected));
}

bool isTransfer(OpCode code) {
  switch (code) {
  case OpCode::KernelAsyncCopy:
  case OpCode::KernelAsyncCopyMask:
  case OpCode::KernelAsyncGather:
  case OpCode::KernelAsyncGatherMask:
  case OpCode::KernelAsyncClusterGather:
  case OpCode::KernelAsyncClusterGatherMask:
  case OpCode::KernelAsyncTensorLoadToLds:
  case OpCode::KernelAsyncTensorStoreFromLds: return true;
  default: return false;
  }
}

// A transfer's token: a kernel.async.token used once, by a kernel.async.group.
void tokenJoinsOneGroup(const Operation &op, HookContext &ctx) {
  if (op.numResults() == 0) return;
  const Value *token = op.result(0);
  std::vector<const Operation *> users = usersOf(op, token);
  if (users.size() != 1) return useCountError(op, ctx, token, users.size(), "exactly one kernel.async.group use");
  if (users[0]->opcode() != OpCode::KernelAsyncGroup)
    originError(op, ctx, token, users[0], "kernel.async.group token operand");
}

bool tokenResult(const Operation &op, HookContext &ctx) {
  const Type *r = op.numResults() ? op.result(0)->type() : nullptr;
  if (!absentType(r) && !opaqueNamed(r, "kernel.async.token")) {
    ctx.resultError(op, "token", r, "kernel.async.token");
    return false;
  }
  return true;
}

void checkPredicateOperand(const Operation &op, HookContext &ctx) {
  if (const Value *p = op.operandNamed("predicate"); p && !absentType(p->type()) && !p->type()->isInteger(1))
    ctx.operandError(op, "predicate", p->type(), "i1");
}

// kernel.async.copy(.mask): same byte footprint, the direction's memory spaces, its cache policy.
void checkAsyncCopy(const Operation &op, HookContext &ctx) {
  tokenResult(op, ctx);
  checkPredicateOperand(op, ctx);
  AsyncOperands io = endpoints(op);
  if (viewEndpoints(op, ctx, io)) {
    sameFootprint(op, ctx, io);
    const Attribute *direction = op.attr("direction");
    std::string_view dir = direction ? direction->str() : std::string_view();
    if (direction) directionSpaces(op, ctx, io, dir);
    asyncCachePolicy(op, ctx, dir == "workgroup_to_global");
  }
  tokenJoinsOneGroup(op, ctx);
}

// kernel.async.gather(.mask): each lane's source lands in its slot of the dest's leading
// subgroup-lane axis, a slot at least the source's size.
void gatherDestination(const Operation &op, HookContext &ctx, const AsyncOperands &io) {
  if (io.to->rank() != io.from->rank() + 1)
    return ctx.operandError(op, "dest", io.to, "view with one leading subgroup-lane axis");
  int64_t source = footprint(op, ctx, "source", io.from), slot = 0;
  if (!staticBytes(io.to, 1, slot))
    return ctx.operandError(op, "dest", io.to, "view with static byte-addressable trailing lane footprint");
  if (source > slot) ctx.operandError(op, "dest", io.to, "trailing lane byte footprint at least source footprint");
}

void gatherSpaces(const Operation &op, HookContext &ctx, const AsyncOperands &io) {
  if (!globalSource(viewSpace(io.source)))
    return ctx.operandError(op, "source", io.from, "global, constant, or descriptor memory-space fact");
  if (!workgroupSpace(viewSpace(io.dest))) ctx.operandError(op, "dest", io.to, "workgroup memory-space fact");
}

void checkAsyncGather(const Operation &op, HookContext &ctx) {
  tokenResult(op, ctx);
  checkPredicateOperand(op, ctx);
  AsyncOperands io = endpoints(op);
  if (viewEndpoints(op, ctx, io)) {
    gatherDestination(op, ctx, io);
    gatherSpaces(op, ctx, io);
    asyncCachePolicy(op, ctx, false);
  }
  tokenJoinsOneGroup(op, ctx);
}

// kernel.async.cluster.gather(.mask): one 1, 4, 8 or 16 byte transfer per participant.
void checkAsyncClusterGather(const Operation &op, HookContext &ctx) {
  tokenResult(op, ctx);
  checkPredicateOperand(op, ctx);
  AsyncOperands io = endpoints(op);
  bool views = viewEndpoints(op, ctx, io);
  if (views) {
    int64_t from = footprint(op, ctx, "source", io.from), to = footprint(op, ctx, "dest", io.to);
    if (from != to)
      ctx.operandError(op, "dest", io.to, "same static byte footprint as source");
    else if (from != 1 && from != 4 && from != 8 && from != 16)
      ctx.operandError(op, "source", io.from, "view with static 1, 4, 8, or 16 byte footprint");
    gatherSpaces(op, ctx, io);
  }
  if (const Value *m = op.operandNamed("cluster_mask"); m && !absentType(m->type()) && !m->type()->isInteger(32))
    ctx.operandError(op, "cluster_mask", m->type(), "i32");
  if (views) asyncCachePolicy(op, ctx, false);
  tokenJoinsOneGroup(op, ctx);
}

// kernel.async.tensor.load.to.lds / store.from.lds: views of one rank (1 to 5) and one element
// type of 1, 2, 4 or 8 bytes, global memory on one side and LDS on the other.
void tensorEndpoints(const Operation &op, HookContext &ctx, const AsyncOperands &io) {
  if (io.from->kind() != TypeKind::View) return ctx.operandError(op, "source", io.from, "view");
  if (io.to->kind() != TypeKind::View) return ctx.operandError(op, "dest", io.to, "view");
  if (io.from->rank() == 0 || io.from->rank() > 5)
    return ctx.operandError(op, "source", io.from, "view rank in [1, 5]");
  if (io.from->rank() != io.to->rank()) return ctx.operandError(op, "dest", io.to, "same rank as source");
  if (io.from->elementType() != io.to->elementType())
    return ctx.operandError(op, "dest", io.to, "same element type as source");
  int64_t bytes = elementBytes(io.from);
  if (bytes != 1 && bytes != 2 && bytes != 4 && bytes != 8)
    ctx.operandError(op, "source", io.from, "view with 1, 2, 4, or 8 byte element type");
}

void checkAsyncTensor(const Operation &op, HookContext &ctx) {
  tokenResult(op, ctx);
  if (const Value *d = op.operandNamed("descriptor");
      d && !absentType(d->type()) && !opaqueNamed(d->type(), "kernel.tensor.lds.descriptor"))
    ctx.operandError(op, "descriptor", d->type(), "kernel.tensor.lds.descriptor");
  bool store = op.opcode() == OpCode::KernelAsyncTensorStoreFromLds;
  AsyncOperands io = endpoints(op);
  if (io.known) {
    tensorEndpoints(op, ctx, io);
    directionSpaces(op, ctx, io, store ? "workgroup_to_global" : "global_to_workgroup");
    asyncCachePolicy(op, ctx, store);
  }
  tokenJoinsOneGroup(op, ctx);
}

// kernel.tensor.lds.descriptor: two or four dgroups, D0 vector<4xi32>, D1 vector<8xi32>, D2/D3
// vector<4xi32>.
void checkTensorDescriptor(const Operation &op, HookContext &ctx) {
  std::span<Value *const> dgroups = op.operandGroup("dgroups");
  if (dgroups.size() != 2 && dgroups.size() != 4)
    return ctx.attrConstraint(op, "dgroups", std::to_string(dgroups.size()), "two or four AMDGPU tensor dgroups");
  for (size_t i = 0; i < dgroups.size(); ++i) {
    const Type *t = dgroups[i]->type();
    int64_t lanes = i == 1 ? 8 : 4;
    if (!absentType(t) && (t->kind() != TypeKind::Vector || t->rank() != 1 || !t->elementType()->isInteger(32) ||
                           t->staticElementCount() != lanes))
      return ctx.operandError(op, "dgroups", t, i == 1 ? "D1 vector<8xi32>" : "D0/D2/D3 vector<4xi32>");
  }
  const Type *r = op.result(0)->type();
  if (!absentType(r) && !opaqueNamed(r, "kernel.tensor.lds.descriptor"))
    ctx.resultError(op, "descriptor", r, "kernel.tensor.lds.descriptor");
}

// kernel.async.group: tokens of transfers in; the group waited on or carried.
void checkAsyncGroup(const Operation &op, HookContext &ctx) {
  for (const Value *t : op.operandGroup("tokens")) {
    if (absentType(t->type())) continue;
    if (!opaqueNamed(t->type(), "kernel.async.token")) {
      ctx.operandError(op, "tokens", t->type(), "kernel.async.token");
      continue;
    }
    const Operation *def = t->isBlockArgument() ? nullptr : t->definingOp();
    if (!def || !isTransfer(def->opcode())) originError(op, ctx, t, def, "kernel async transfer result");
  }
  const Type *r = op.result(0)->type();
  if (!absentType(r) && !opaqueNamed(r, "kernel.async.group")) ctx.resultError(op, "group", r, "kernel.async.group");
  if (usersOf(op, op.result(0)).empty())
    useCountError(op, ctx, op.result(0), 0, "at least one wait or carried group use");
}

// kernel.async.wait: a group, a newer-group count in [0, 65535], and a group made here by
// kernel.async.group (a block argument carries one from elsewhere).
void checkAsyncWait(const Operation &op, HookContext &ctx) {
  const Value *g = op.operandNamed("group");
  if (!g) return;
  if (!absentType(g->type()) && !opaqueNamed(g->type(), "kernel.async.group"))
    ctx.operandError(op, "group", g->type(), "kernel.async.group");
  if (const Attribute *n = op.attr("newer_groups"); n && n->kind() == AttrKind::Integer) {
    if (n->integer() < 0 || n->integer() > 65535)
      return ctx.attrConstraint(op, "newer_groups", std::to_string(n->integer()), "nonnegative i16 wait count");
  }
  if (g->isBlockArgument()) return;
  const Operation *def = g->definingOp();
  if (!def || def->opcode() != OpCode::KernelAsyncGroup) originError(op, ctx, g, def, "kernel.async.group result");
}

}  // namespace

void checkKernelAsyncFlow(const Operation &op, HookContext &ctx) {
  switch (op.opcode()) {
  case OpCode::KernelAsyncCopy:
  case OpCode::KernelAsyncCopyMask: return checkAsyncCopy(op, ctx);
  case OpCode::KernelAsyncGather:
  case OpCode::KernelAsyncGatherMask: return checkAsyncGather(op, ctx);
  case OpCode::KernelAsyncClusterGather:
  case OpCode::KernelAsyncClusterGatherMask: return checkAsyncClusterGather(op, ctx);
  case OpCode::KernelAsyncTensorLoadToLds:
  case OpCode::KernelAsyncTensorStoreFromLds: return checkAsyncTensor(op, ctx);
  case OpCode::KernelTensorLdsDescriptor: return checkTensorDescriptor(op, ctx);
  case OpCode::KernelAsyncGroup: return checkAsyncGroup(op, ctx);
  case OpCode::KernelAsyncWait: return checkAsyncWait(op, ctx);
  default: return;
  }
}

}  // namespace hrx::loom::verify

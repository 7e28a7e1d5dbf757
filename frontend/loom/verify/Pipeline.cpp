// The strand form of pipelines (pipeline.strand, pipeline.memory, pipeline.compose) and the
// channel dialect: worker domains, pool selection, composition against the child's signature,
// and the record types of channel endpoints. Codes and wording follow upstream's verifiers.
#include "HookContext.h"

#include <cstdint>
#include <vector>

namespace hrx::loom::verify {

using diag::DiagId;

namespace {

const Operation *enclosing(const Operation &op, OpCode code) {
  for (const Operation *p = op.parentOp(); p; p = p->parentOp())
    if (p->opcode() == code) return p;
  return nullptr;
}

// One worker-axis list (`[%column, 2]`): its rank, and each static entry at least `minimum`.
// Dynamic entries must be index values. False after a report.
bool checkWorkerAxes(const Operation &op, HookContext &ctx, std::string_view field, size_t rank, int64_t minimum) {
  const Attribute *list = op.attr(field);
  size_t n = list ? list->elements().size() : 0;
  if (n != rank) {
    ctx.countMismatch(op, std::string(field), n, "worker rank", rank);
    return false;
  }
  for (const Attribute *e : list->elements()) {
    if (e->kind() == AttrKind::ValueRef) {
      const Type *t = e->value()->type();
      if (!unknownType(t) && !t->isIndex()) {
        ctx.operandError(op, field, t, "index");
        return false;
      }
    } else if (e->kind() == AttrKind::Integer && e->integer() < minimum) {
      ctx.attrConstraint(op, std::string(field), std::to_string(e->integer()),
                         minimum == 0 ? "nonnegative worker coordinate or count" : "positive worker stride");
      return false;
    }
  }
  return true;
}

bool checkWorkerRank(const Operation &op, HookContext &ctx, std::string_view field) {
  const Attribute *list = op.attr(field);
  if (list && !list->elements().empty()) return true;
  ctx.attrConstraint(op, "worker rank", "0", "at least one worker dimension");
  return false;
}

void checkStrand(const Operation &op, HookContext &ctx) {
  if (op.hasAttr("target")) ctx.resolveSymbol(op, "target", kTargetRecordOps, "a target record");
  if (!checkWorkerRank(op, ctx, "origins")) return;
  size_t rank = op.attr("origins")->elements().size();
  if (!checkWorkerAxes(op, ctx, "origins", rank, 0)) return;
  if (!checkWorkerAxes(op, ctx, "counts", rank, 0)) return;
  checkWorkerAxes(op, ctx, "strides", rank, 1);
}

// A pool is selected while the invocation is constructed: in a pipeline.def<kernel> body, not
// inside a strand.
void checkMemory(const Operation &op, HookContext &ctx) {
  const Operation *pipeline = enclosing(op, OpCode::PipelineDef);
  const Attribute *scope = pipeline ? pipeline->templateParam() : nullptr;
  if (pipeline && !(scope && scope->isIdent("kernel"))) {
    ctx.report(DiagId::StructureMisplacedOp, op)
        .arg("op", std::string(op.name()))
        .arg("parent", "a pipeline.def<kernel> body")
        .arg("placement", " (required ancestor pipeline.def<kernel>; the pipeline has no kernel scope)")
        .arg("constraint_kind", "required")
        .arg("ancestor_name", "pipeline.def<kernel>")
        .arg("actual_ancestor", "pipeline.def without kernel scope");
    return;
  }
  if (enclosing(op, OpCode::PipelineStrand)) {
    ctx.report(DiagId::StructureMisplacedOp, op)
        .arg("op", std::string(op.name()))
        .arg("parent", "the pipeline's construction code")
        .arg("placement", " (forbidden ancestor pipeline.strand: pools are selected outside strand bodies)")
        .arg("constraint_kind", "forbidden")
        .arg("ancestor_name", "pipeline.strand")
        .arg("actual_ancestor", "pipeline.strand");
    return;
  }
  if (!checkWorkerRank(op, ctx, "coordinates")) return;
  if (!checkWorkerAxes(op, ctx, "coordinates", op.attr("coordinates")->elements().size(), 0)) return;
  const Type *r = op.result(0)->type();
  if (r->kind() != TypeKind::Opaque || r->str() != "pool") ctx.resultError(op, "result", r, "pool");
}

// The child's specialization and run arguments, in order, against the operands.
void checkCompose(const Operation &op, HookContext &ctx) {
  const Operation *child = ctx.resolveSymbol(op, "callee", {OpCode::PipelineDef}, "expected pipeline");
  if (!child || !child->region(0)->entryBlock()) return;
  std::span<Value *const> args = child->region(0)->entryBlock()->arguments();
  const Attribute *specAttr = child->attr("spec");
  size_t specs = specAttr ? size_t(specAttr->integer()) : 0;
  if (specs > args.size()) return;  // the definition reports its own signature
  std::span<Value *const> given[] = {op.operandGroup("specializations"), op.operandGroup("bindings")};
  std::span<Value *const> wanted[] = {args.subspan(0, specs), args.subspan(specs)};
  const char *fields[] = {"specialization", "binding"};
  const char *contracts[] = {"pipeline specialization argument", "pipeline run argument"};
  for (int g = 0; g < 2; ++g) {
    if (given[g].size() != wanted[g].size())
      return ctx.countMismatch(op, fields[g], given[g].size(), contracts[g], wanted[g].size());
    for (size_t k = 0; k < given[g].size(); ++k) {
      const Type *t = given[g][k]->type(), *want = wanted[g][k]->type();
      if (t == want || t->isUnknown() || want->isUnknown()) continue;
      if (t->str() == want->str()) continue;  // opaque types spelled alike (pool)
      // A type naming the child's own arguments (`channel<tile<[%width]xi32>>`) is substituted at
      // the use: its family must still agree.
      if (!want->hasStaticShape() || (want->elementType() && !want->elementType()->hasStaticShape()))
        if (t->kind() == want->kind() && t->isChannel() == want->isChannel() &&
            t->isChannelRead() == want->isChannelRead() && t->isChannelWrite() == want->isChannelWrite())
          continue;
      return ctx.fieldMismatch(op, std::string(fields[g]) + " " + std::to_string(k), t,
                               std::string(contracts[g]) + " " + std::to_string(k), want);
    }
  }
}

// ---- channels ----

enum class Endpoint { Channel, Read, Write };

void checkChannelTypes(const Operation &op, HookContext &ctx);

// The tile payload of a channel endpoint of kind `kind`, or null.
const Type *payloadOf(const Type *t, Endpoint kind) {
  bool fits = kind == Endpoint::Channel ? t->isChannel()
              : kind == Endpoint::Read  ? t->isChannelRead()
                                        : t->isChannelWrite();
  if (!fits || !t->elementType() || t->elementType()->kind() != TypeKind::Tile) return nullptr;
  return t->elementType();
}

std::string_view constraintOf(Endpoint kind) {
  return kind == Endpoint::Channel ? "channel<tile<...>>"
         : kind == Endpoint::Read  ? "read<tile<...>> with optional mutable permission"
                                   : "write<tile<...>>";
}

// `view` has `prefix` leading dimensions, then exactly the payload's shape and element type.
bool viewMatches(const Type *payload, const Type *view, size_t prefix) {
  if (view->kind() != TypeKind::View || view->elementType() != payload->elementType() ||
      view->rank() != payload->rank() + prefix)
    return false;
  for (size_t k = 0; k < payload->rank(); ++k)
    if (!(payload->shape()[k] == view->shape()[k + prefix])) return false;
  return true;
}

// The operand `field`'s payload when it is an endpoint of kind `kind`; else TYPE/003 and null.
const Type *endpointOperand(const Operation &op, HookContext &ctx, std::string_view field, Endpoint kind) {
  const Type *t = op.operandGroup(field).empty() ? nullptr : op.operandGroup(field)[0]->type();
  if (!t || t->isUnknown()) return nullptr;
  if (const Type *p = payloadOf(t, kind)) return p;
  ctx.operandError(op, field, t, std::string(constraintOf(kind)));
  return nullptr;
}

bool checkResultCount(const Operation &op, HookContext &ctx, size_t expected) {
  if (op.numResults() == expected) return true;
  ctx.countMismatch(op, "result", op.numResults(), "channel access result", expected);
  return false;
}

// reserve, accept, acquire and select: a channel to an owned access of the same payload (the
// read's permission is the op's mode), plus the borrowed view of the record for reserve/acquire.
void checkSelection(const Operation &op, HookContext &ctx, Endpoint access, size_t accessResult, bool withView) {
  const Type *payload = endpointOperand(op, ctx, "channel", Endpoint::Channel);
  if (!payload) return;
  const Type *a = op.result(unsigned(accessResult))->type();
  const char *name = access == Endpoint::Read ? "read" : "write";
  const Type *accessPayload = payloadOf(a, access);
  if (accessPayload != payload)
    return ctx.resultError(op, name, a,
                           "owned access matching the channel payload (" +
                               std::string(access == Endpoint::Read ? "read<" : "write<") + payload->str() + ">)");
  if (access == Endpoint::Read) {
    const Attribute *mode = op.templateParam();
    bool mutableOp = mode && mode->isIdent("mutable");
    if (a->readIsMutable() != mutableOp)
      return ctx.resultError(op, name, a, "read permission matching the operation's access mode");
  }
  if (withView) {
    const Type *v = op.result(1)->type();
    if (!viewMatches(payload, v, 0))
      ctx.resultError(op, "view", v, "view matching the channel payload shape (view<" + payload->str().substr(5) + ")");
  }
}

// ---- record ownership ----
// A reservation is published, a read released, exactly once on every path after the op that
// gives it (in its block and the regions nested there). channel.wait only borrows; any other use
// (publish, release, fanout, copy, or passing the handle on) retires it.

// The ops from `use` up to the one directly in `home`, innermost first; empty if not under it.
std::vector<const Operation *> chainTo(const Operation *use, const Block *home) {
  std::vector<const Operation *> chain;
  for (const Operation *o = use; o; o = o->parentOp()) {
    chain.push_back(o);
    if (o->parentBlock() == home) return chain;
  }
  return {};
}

bool branches(const Operation &op) { return op.opcode() == OpCode::ScfIf || op.opcode() == OpCode::ScfSwitch; }
bool loops(const Operation &op) { return op.opcode() == OpCode::ScfFor || op.opcode() == OpCode::ScfWhile; }

// True when `a` and `b` lie in different branches of one scf.if or scf.switch.
bool exclusive(const std::vector<const Operation *> &a, const std::vector<const Operation *> &b) {
  size_t i = 0;
  while (i < a.size() && i < b.size() && a[a.size() - 1 - i] == b[b.size() - 1 - i]) ++i;
  if (i == 0 || i == a.size() || i == b.size()) return false;
  const Operation *parent = a[a.size() - i];
  const Operation *ia = a[a.size() - 1 - i], *ib = b[b.size() - 1 - i];
  return branches(*parent) && ia->parentBlock()->parentRegion() != ib->parentBlock()->parentRegion();
}

bool retires(const Operation &op, const Value *handle) {
  if (op.opcode() == OpCode::ChannelWait) return false;
  for (const Value *v : op.operands())
    if (v == handle) return true;
  return false;
}

// Whether every path through `block` from after `start` (from its beginning when null) retires.
bool retiredOnEveryPath(const Block &block, const Operation *start, const Value *handle) {
  for (const Operation *o = start ? start->nextInBlock() : (block.empty() ? nullptr : &*block.begin()); o;
       o = o->nextInBlock()) {
    if (retires(*o, handle)) return true;
    if (!branches(*o) || o->numRegions() == 0) continue;
    bool all = true, any = false;
    for (unsigned r = 0; r < o->numRegions(); ++r) {
      const Block *entry = o->region(r)->entryBlock();
      bool covered = entry && retiredOnEveryPath(*entry, nullptr, handle);
      all &= covered;
      any |= covered;
    }
    if (all) return true;
    if (any) return false;  // one branch retires it, another does not
  }
  return false;
}

void checkOwnership(const Operation &op, HookContext &ctx, const Value *handle, bool write) {
  const Block *home = op.parentBlock();
  if (!home) return;
  std::string access = write ? "a write reservation" : "a read";
  std::vector<std::vector<const Operation *>> uses;
  for (const Operation *o = op.nextInBlock(); o; o = o->nextInBlock())
    o->walk([&](const Operation &inner) {
      if (retires(inner, handle)) uses.push_back(chainTo(&inner, home));
    });
  for (size_t k = 0; k < uses.size(); ++k) {
    const Operation &use = *uses[k].front();
    auto twice = [&](std::string earlier) {
      ctx.report(DiagId::StructureAccessRetiredTwice, use)
          .arg("op", std::string(use.name()))
          .arg("handle", std::string(handle->name()))
          .arg("access", access)
          .arg("earlier", std::move(earlier))
          .note(op.loc(), "the access is given here");
    };
    bool inLoop = false;
    for (size_t a = 1; a < uses[k].size(); ++a) inLoop |= loops(*uses[k][a]);
    if (inLoop) return twice("the previous iteration of its loop");
    for (size_t j = 0; j < k; ++j)
      if (!exclusive(uses[j], uses[k])) return twice("'" + std::string(uses[j].front()->name()) + "'");
  }
  if (!retiredOnEveryPath(*home, &op, handle))
    ctx.report(DiagId::StructureAccessNotRetired, op)
        .arg("op", std::string(op.name()))
        .arg("handle", std::string(handle->name()))
        .arg("access", access)
        .arg("retired", write ? "published" : "released");
}

void checkChannel(const Operation &op, HookContext &ctx) {
  switch (op.opcode()) {
  case OpCode::ChannelReserve:
  case OpCode::ChannelAcquire:
  case OpCode::ChannelAccept:
    if (op.numResults()) checkOwnership(op, ctx, op.result(0), op.opcode() == OpCode::ChannelReserve);
    break;
  case OpCode::ChannelSelect:
    if (op.numResults() == 2) checkOwnership(op, ctx, op.result(1), false);
    break;
  case OpCode::ChannelFanout:
    for (unsigned k = 0; k < op.numResults(); ++k) checkOwnership(op, ctx, op.result(k), false);
    break;
  default: break;
  }
  checkChannelTypes(op, ctx);
}

void checkChannelTypes(const Operation &op, HookContext &ctx) {
  switch (op.opcode()) {
  case OpCode::ChannelBind: {
    const Type *r = op.result(0)->type();
    const Type *payload = payloadOf(r, Endpoint::Channel);
    if (!payload) return ctx.resultError(op, "result", r, std::string(constraintOf(Endpoint::Channel)));
    const Type *storage = op.operandGroup("storage")[0]->type();
    if (!storage->isUnknown() && !viewMatches(payload, storage, 1))
      ctx.operandError(op, "storage", storage, "one leading slot dimension followed by the channel payload shape");
    const Type *capacity = op.operandGroup("capacity")[0]->type();
    if (!capacity->isUnknown() && !capacity->isIndex()) ctx.operandError(op, "capacity", capacity, "index");
    return;
  }
  case OpCode::ChannelReserve:
    if (checkResultCount(op, ctx, 2)) checkSelection(op, ctx, Endpoint::Write, 0, true);
    return;
  case OpCode::ChannelAccept: return checkSelection(op, ctx, Endpoint::Read, 0, false);
  case OpCode::ChannelAcquire:
    if (checkResultCount(op, ctx, 2)) checkSelection(op, ctx, Endpoint::Read, 0, true);
    return;
  case OpCode::ChannelSelect: {
    if (!checkResultCount(op, ctx, 2)) return;
    const Type *rank = op.result(0)->type();
    if (!rank->isIndex()) return ctx.resultError(op, "source_rank", rank, "index");
    return checkSelection(op, ctx, Endpoint::Read, 1, false);
  }
  case OpCode::ChannelWait: {
    const Type *payload = endpointOperand(op, ctx, "read", Endpoint::Read);
    const Type *v = op.result(0)->type();
    if (payload && !viewMatches(payload, v, 0))
      ctx.resultError(op, "view", v, "view matching the read payload shape (view<" + payload->str().substr(5) + ")");
    return;
  }
  case OpCode::ChannelPublish: endpointOperand(op, ctx, "write", Endpoint::Write); return;
  case OpCode::ChannelRelease: endpointOperand(op, ctx, "read", Endpoint::Read); return;
  case OpCode::ChannelFanout: {
    const Type *read = op.operandGroup("read")[0]->type();
    if (read->isUnknown()) return;
    if (!payloadOf(read, Endpoint::Read) || read->readIsMutable())
      return ctx.operandError(op, "read", read, "immutable read<tile<...>>");
    if (op.numResults() < 2)
      return ctx.countMismatch(op, "reads", op.numResults(), "at least two independently retiring reads", 2);
    for (unsigned k = 0; k < op.numResults(); ++k)
      if (op.result(k)->type() != read)
        return ctx.resultError(op, "reads", op.result(k)->type(), "the same immutable read type as the source");
    return;
  }
  case OpCode::ChannelCopy: {
    const Type *payload = endpointOperand(op, ctx, "source", Endpoint::Read);
    if (!payload) return;
    const Type *dest = op.operandGroup("destination")[0]->type();
    if (!dest->isUnknown() && payloadOf(dest, Endpoint::Write) != payload)
      ctx.operandError(op, "destination", dest, "write with the same payload type as the source read");
    return;
  }
  default: return;
  }
}

}  // namespace

void checkStrandFormOp(const Operation &op, HookContext &ctx) {
  switch (op.def()->hook) {
  case VerifyHook::PipelineStrand: return checkStrand(op, ctx);
  case VerifyHook::PipelineMemory: return checkMemory(op, ctx);
  case VerifyHook::PipelineCompose: return checkCompose(op, ctx);
  case VerifyHook::Channel: return checkChannel(op, ctx);
  default: return;
  }
}

}  // namespace hrx::loom::verify

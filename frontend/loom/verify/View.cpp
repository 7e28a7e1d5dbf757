// Scalar view accesses and the buffers and views they go through: view.load / view.store and the
// view.atomic.* family, buffer.alloca, buffer.assume.memory_space, buffer.view, view.subview and
// view.refine, with upstream Loom's codes (its view verify fixtures are the facts; the numbers
// printed for enum attributes are upstream's case numbers).
#include "HookContext.h"

#include <string>

namespace hrx::loom::verify {

namespace {

using diag::DiagId;

constexpr std::string_view kOrderings[] = {"relaxed", "acquire", "release", "acq_rel", "seq_cst"};
constexpr std::string_view kMemorySpaces[] = {"unknown",  "global",  "workgroup", "private",
                                              "constant", "generic", "host",      "descriptor"};
// An enum attribute as upstream prints it in STRUCTURE/014: its case number (the name when it
// is not a case).
template <size_t N> std::string numbered(const std::string_view (&cases)[N], std::string_view name) {
  int k = caseNumber(cases, name);
  return k < 0 ? std::string(name) : std::to_string(k);
}

std::string_view identOf(const Attribute *a) { return a ? a->str() : std::string_view(); }

Type *typeOf(const Value *v) { return v ? v->type() : nullptr; }

// Memory objects are byte-addressable fixed-width payloads: an integer of whole bytes or a float
// (i1, index and offset have no fixed memory width).
bool byteAddressable(const Type *t) {
  return (t->isInteger() && t->width() >= 8 && t->width() % 8 == 0) || t->isFloat();
}

// The memory space a buffer.alloca or buffer.assume.memory_space states.
std::string_view memorySpaceOf(const Operation &op) {
  if (const Attribute *space = op.templateParam(0)) return space->str();
  return identOf(op.attr("memory_space"));
}

// The first name of a combining-kind template parameter (`<addi>`, `<addf, noftz>`).
std::string_view combiningKind(const Operation &op) {
  const Attribute *kind = op.templateParam(0);
  if (!kind) return {};
  if (kind->kind() == AttrKind::Flags && !kind->elements().empty()) return kind->elements()[0]->str();
  return kind->str();
}

bool isExchange(std::string_view kind) { return kind == "xchgi" || kind == "xchgf"; }
// Subtraction is an atomic read-modify-write (atomicrmw sub/fsub), not an associative fold.
bool isSubtraction(std::string_view kind) { return kind == "subi" || kind == "subf"; }

// The byte alignment an element access through `view` may assume: the element's size, or the
// view's align(N) when that is smaller.
int64_t accessAlignment(const Type *view) {
  const Type *e = view->elementType();
  int64_t bytes = (e->isInteger() || e->isFloat()) ? std::max<int64_t>(1, e->width() / 8) : 0;
  const Attribute *a = view->slot().attr;
  if (a && a->kind() == AttrKind::Predicate && a->str() == "align" && a->elements().size() == 1)
    bytes = bytes ? std::min(bytes, a->elements()[0]->integer()) : a->elements()[0]->integer();
  return bytes;
}

// The orderings of an atomic: cases the access allows (PARSE/017: a load does not release, a
// store does not acquire), and cmpxchg's failure ordering a load no stronger than its success
// ordering (STRUCTURE/014). Absent orderings and scopes are relaxed and system (hrx's defaults;
// upstream requires them, LOOM-205); cmpxchg's success ordering may be written `ordering`.
void checkAtomicOrdering(const Operation &op, HookContext &ctx) {
  auto allowed = [&](std::string_view name, std::initializer_list<std::string_view> cases) {
    std::string_view given = identOf(op.attr(name));
    if (given.empty()) return -1;
    for (std::string_view c : cases)
      if (c == given) return caseNumber(kOrderings, given);
    std::string list;
    for (std::string_view c : cases) list += (list.empty() ? "" : ", ") + std::string(c);
    ctx.report(DiagId::ParseUnknownEnum, op)
        .arg("kind", std::string(op.opcode() == OpCode::ViewAtomicLoad    ? "load ordering"
                                 : op.opcode() == OpCode::ViewAtomicStore ? "store ordering"
                                                                          : "ordering"))
        .arg("value", std::string(given))
        .arg("expected", list);
    return -2;
  };
  if (op.opcode() == OpCode::ViewAtomicCmpxchg || op.opcode() == OpCode::VectorAtomicCmpxchg) {
    int success = allowed(op.attr("success_ordering") ? "success_ordering" : "ordering",
                          {"relaxed", "acquire", "release", "acq_rel", "seq_cst"});
    int failure = allowed("failure_ordering", {"relaxed", "acquire", "release", "acq_rel", "seq_cst"});
    if (failure < 0) return;
    std::string_view f = kOrderings[failure];
    if (f == "release" || f == "acq_rel")
      return ctx.attrConstraint(op, "failure_ordering", std::to_string(failure),
                                "relaxed, acquire, or seq_cst failure ordering");
    // The failure ordering is a load's: it may not acquire more than the success ordering does.
    auto acquires = [](std::string_view o) { return o == "seq_cst" ? 2 : (o == "acquire" || o == "acq_rel") ? 1 : 0; };
    std::string_view s = success >= 0 ? kOrderings[success] : "relaxed";
    if (success != -2 && acquires(f) > acquires(s))
      ctx.attrConstraint(op, "failure_ordering", std::to_string(failure),
                         "failure ordering no stronger than success ordering (" + std::string(s) + ")");
    return;
  }
  if (op.opcode() == OpCode::ViewAtomicLoad)
    allowed("ordering", {"relaxed", "acquire", "seq_cst"});
  else if (op.opcode() == OpCode::ViewAtomicStore)
    allowed("ordering", {"relaxed", "release", "seq_cst"});
  else
    allowed("ordering", {"relaxed", "acquire", "release", "acq_rel", "seq_cst"});
}

}  // namespace

// cache_scope and cache_temporal come as a pair; stores take no last-use hint, loads no writeback
// hint, and atomics only the regular and non-temporal ones.
void checkCachePolicy(const Operation &op, HookContext &ctx, bool atomic) {
  const Attribute *scope = op.attr("cache_scope"), *temporal = op.attr("cache_temporal");
  if (scope && !temporal) return ctx.attrConstraint(op, "cache_temporal", "0", "present when cache_scope is present");
  if (temporal && !scope) return ctx.attrConstraint(op, "cache_scope", "0", "present when cache_temporal is present");
  if (!temporal) return;
  std::string_view hint = temporal->str();
  if (caseNumber(kTemporalHints, hint) < 0)
    return ctx.attrConstraint(op, "cache_temporal", std::string(hint),
                              "a temporal hint (regular, non_temporal, high_temporal, last_use, writeback, "
                              "non_temporal_regular, regular_non_temporal, non_temporal_high_temporal, "
                              "non_temporal_writeback or bypass)");
  if (atomic && hint != "regular" && hint != "non_temporal")
    return ctx.attrConstraint(op, "cache_temporal", numbered(kTemporalHints, hint),
                              "regular or non_temporal temporal hint");
  const OpDef *def = op.def();
  bool store = op.opcode() == OpCode::ViewStore || def->hook == VerifyHook::VectorStore;
  bool load = op.opcode() == OpCode::ViewLoad || def->hook == VerifyHook::VectorLoad;
  if (store && hint == "last_use")
    ctx.attrConstraint(op, "cache_temporal", numbered(kTemporalHints, hint), "store-compatible temporal hint");
  if (load && hint == "writeback")
    ctx.attrConstraint(op, "cache_temporal", numbered(kTemporalHints, hint), "load-compatible temporal hint");
}

namespace {

// An atomic's combining kind: no exchange for a reduce (`rmw` names the op that exchanges), and
// of the family of `element` (the payload's scalar type; `given` is the value operand's type).
// False after a report.
bool checkAtomicKind(const Operation &op, HookContext &ctx, bool reduce, std::string_view rmw, const Type *given,
                     const Type *element) {
  std::string_view kind = combiningKind(op);
  if (reduce && isExchange(kind)) {
    ctx.attrConstraint(op, "kind", std::string(kind),
                       "non-exchange atomic reduce kind (an exchange is " + std::string(rmw) + ")");
    return false;
  }
  const char *family = kind.ends_with("f") && !element->isFloat()     ? "floating-point"
                       : kind.ends_with("i") && !element->isInteger() ? "integer"
                                                                      : nullptr;
  if (kind.empty() || !family) return true;
  ctx.operandError(op, "value", given,
                   std::string(family) + " element type for atomic kind <" + std::string(kind) + ">");
  return false;
}

// view.load, view.store and view.atomic.*: a view, one index per axis (SUBRANGE/001), static
// indices inside static extents (SUBRANGE/004), the view's element type, and for atomics a
// byte-addressable payload, valid orderings, and a combining kind of the payload's family.
void checkViewAccess(const Operation &op, HookContext &ctx) {
  bool load = op.opcode() == OpCode::ViewLoad || op.opcode() == OpCode::ViewAtomicLoad;
  bool atomic = op.opcode() != OpCode::ViewLoad && op.opcode() != OpCode::ViewStore;
  for (Value *v : op.operandGroup("indices"))
    if (!unknownType(v->type()) && !v->type()->isIndex()) ctx.operandError(op, "indices", v->type(), "index");
  if (atomic) checkAtomicOrdering(op, ctx);
  checkCachePolicy(op, ctx, atomic);
  if (!load) checkPoisonObserved(op, ctx, "effectful operation");
  Type *view = typeOf(op.operandNamed("base"));
  Type *scalar = load ? (op.numResults() ? op.result(0)->type() : nullptr) : typeOf(op.operandNamed("value"));
  if (unknownType(view) || unknownType(scalar)) return;
  if (view->kind() != TypeKind::View) return ctx.operandError(op, "base", view, "a view");
  const Attribute *indicesAttr = op.attr("indices");
  std::span<Attribute *const> indices = indicesAttr ? indicesAttr->elements() : std::span<Attribute *const>();
  if (indices.size() != view->rank()) return ctx.indexCountMismatch(op, "view", indices.size(), view->rank());
  for (size_t d = 0; d < view->rank(); ++d) {
    const Dim &extent = view->shape()[d];
    if (!extent.isStatic() || indices[d]->kind() != AttrKind::Integer) continue;
    int64_t at = indices[d]->integer();
    if (at < 0 || at >= extent.extent)
      return (void)ctx.report(DiagId::SubrangeOutOfBounds, op)
          .arg("op", std::string(op.name()))
          .arg("detail", "index " + std::to_string(at) + " on axis " + std::to_string(d))
          .arg("type", view->str());
  }
  if (atomic) {
    // cmpxchg's first operand is the expected value; upstream names it.
    std::string_view field = op.opcode() == OpCode::ViewAtomicCmpxchg ? "expected" : "value";
    const std::string payload = "byte-addressable fixed-width integer or floating-point scalar";
    if (!byteAddressable(scalar))
      return load ? ctx.resultError(op, "result", scalar, payload) : ctx.operandError(op, field, scalar, payload);
    std::string_view kind = combiningKind(op);
    // noftz keeps denormal results of a float addition; it means nothing for another kind.
    for (const Attribute *param : op.templateParams()) {
      bool noftz = param->str() == "noftz";
      for (const Attribute *flag : param->elements()) noftz = noftz || flag->str() == "noftz";
      if (noftz && kind != "addf")
        return ctx.attrConstraint(op, "noftz", std::string(kind),
                                  "noftz requires floating-point atomic addition (<addf, noftz>)");
    }
    if (!checkAtomicKind(op, ctx, op.opcode() == OpCode::ViewAtomicReduce, "view.atomic.rmw", scalar, scalar)) return;
  }
  if (scalar != view->elementType())
    return load ? ctx.resultError(op, "result", scalar, view->elementType()->str())
                : ctx.operandError(op, "value", scalar, view->elementType()->str());
}

// buffer.alloca<space> align(N) %byte_length: an offset length, a power-of-two alignment and a
// space an allocation can live in.
void checkAlloca(const Operation &op, HookContext &ctx) {
  if (Type *length = typeOf(op.operandNamed("size")); !unknownType(length) && !length->isOffset())
    ctx.operandError(op, "byte_length", length, "offset");
  Type *r = op.numResults() ? op.result(0)->type() : nullptr;
  if (r && !unknownType(r) && r->kind() != TypeKind::Buffer) ctx.resultError(op, "result", r, "buffer");
  if (const Attribute *align = op.attr("align"); align && align->kind() == AttrKind::Integer) {
    int64_t a = align->integer();
    if (a <= 0 || (a & (a - 1)) != 0)
      ctx.attrConstraint(op, "base_alignment", std::to_string(a), "positive power-of-two byte alignment");
  }
  std::string_view space = memorySpaceOf(op);
  if (!space.empty() && space != "global" && space != "workgroup" && space != "private" && space != "host" &&
      space != "generic")
    ctx.attrConstraint(op, "memory_space", numbered(kMemorySpaces, space),
                       "global, workgroup, private, host, or generic memory space");
}

// buffer.assume.memory_space<space>: a concrete space, not contradicting the space the buffer's
// own allocation or an earlier assumption states.
void checkAssumeMemorySpace(const Operation &op, HookContext &ctx) {
  std::string_view space = memorySpaceOf(op);
  if (space.empty()) return;
  if (space == "unknown") return ctx.attrConstraint(op, "memory_space", "0", "concrete memory space");
  const Value *in = op.operandNamed("in");
  const Operation *def = in ? in->definingOp() : nullptr;
  if (!def || (def->opcode() != OpCode::BufferAlloca && def->opcode() != OpCode::BufferAssumeMemorySpace)) return;
  std::string_view known = memorySpaceOf(*def);
  auto concrete = [](std::string_view s) { return !s.empty() && s != "unknown" && s != "generic"; };
  if (concrete(known) && concrete(space) && known != space)
    ctx.attrConstraint(op, "memory_space", numbered(kMemorySpaces, space),
                       "existing memory-space fact " + numbered(kMemorySpaces, known) + " (" + std::string(known) +
                           ")");
}

// buffer.view %buffer[%byte_offset] -> view<...>: a buffer, one offset byte count, and a static
// strided layout with one stride per view axis.
void checkBufferView(const Operation &op, HookContext &ctx) {
  if (Type *source = typeOf(op.operandNamed("source")); !unknownType(source) && source->kind() != TypeKind::Buffer)
    ctx.operandError(op, "source", source, "buffer");
  for (Value *v : op.operandGroup("offset"))
    if (!unknownType(v->type()) && !v->type()->isOffset()) ctx.operandError(op, "byte_offset", v->type(), "offset");
  const Attribute *offsets = op.attr("offset");
  if (!offsets || offsets->elements().size() != 1) ctx.operandError(op, "byte_offset", nullptr, "one byte offset");
  Type *r = op.numResults() ? op.result(0)->type() : nullptr;
  if (!r || unknownType(r)) return;
  if (r->kind() != TypeKind::View) return ctx.resultError(op, "result", r, "a view");
  const Attribute *layout = r->slot().attr;
  if (!layout || layout->kind() != AttrKind::Hash || layout->str() != "encoding.layout.strided") return;
  const Attribute *strides = layout->get("strides");
  if (strides && strides->kind() == AttrKind::Array && strides->elements().size() != r->rank())
    ctx.report(DiagId::ShapeRankMismatch, op)
        .arg("op", std::string(op.name()))
        .arg("field_a", "result type")
        .arg("rank_a", std::to_string(r->rank()))
        .arg("field_b", "layout stride list")
        .arg("rank_b", std::to_string(strides->elements().size()));
}

// view.subview %source[offsets] -> view: one offset per source axis and the source's access
// alignment (a subview neither strengthens nor weakens it; view.refine changes it).
void checkSubview(const Operation &op, HookContext &ctx) {
  for (Value *v : op.operandGroup("offsets"))
    if (!unknownType(v->type()) && !v->type()->isIndex()) ctx.operandError(op, "offsets", v->type(), "index");
  Type *source = typeOf(op.operandNamed("base"));
  Type *r = op.numResults() ? op.result(0)->type() : nullptr;
  if (unknownType(source)) return;
  if (source->kind() != TypeKind::View) return ctx.operandError(op, "source", source, "a view");
  const Attribute *offsets = op.attr("offsets");
  size_t count = offsets ? offsets->elements().size() : 0;
  if (count != source->rank()) return ctx.indexCountMismatch(op, "source", count, source->rank());
  if (!r || unknownType(r)) return;
  if (r->kind() != TypeKind::View || r->elementType() != source->elementType() || r->rank() != source->rank())
    return ctx.resultError(op, "result", r, "a view of the same rank and element type as " + source->str());
  if (accessAlignment(source) != accessAlignment(r))
    ctx.operandError(op, "source", source,
                     "the same element-access alignment as the result view (" + r->str() + ", " +
                         std::to_string(accessAlignment(r)) + "-byte accesses)");
}

// view.refine %source -> view: the same element type and rank, static extents that agree.
void checkRefine(const Operation &op, HookContext &ctx) {
  Type *source = typeOf(op.operandNamed("in"));
  Type *r = op.numResults() ? op.result(0)->type() : nullptr;
  if (unknownType(source) || !r || unknownType(r)) return;
  if (source->kind() != TypeKind::View) return ctx.operandError(op, "in", source, "a view");
  if (r->kind() != TypeKind::View || r->elementType() != source->elementType() || r->rank() != source->rank())
    return ctx.resultError(op, "result", r,
                           "a view of " + source->elementType()->str() + " with " + std::to_string(source->rank()) +
                               " axes");
  ctx.sameStaticDims(op, source, r);
}

}  // namespace

void checkViewOp(const Operation &op, HookContext &ctx) {
  switch (op.opcode()) {
  case OpCode::ViewLoad:
  case OpCode::ViewStore:
  case OpCode::ViewAtomicReduce:
  case OpCode::ViewAtomicRmw:
  case OpCode::ViewAtomicCmpxchg:
  case OpCode::ViewAtomicLoad:
  case OpCode::ViewAtomicStore: return checkViewAccess(op, ctx);
  case OpCode::BufferAlloca: return checkAlloca(op, ctx);
  case OpCode::BufferAssumeMemorySpace: return checkAssumeMemorySpace(op, ctx);
  case OpCode::BufferView: return checkBufferView(op, ctx);
  case OpCode::ViewSubview: return checkSubview(op, ctx);
  case OpCode::ViewRefine: return checkRefine(op, ctx);
  default: return;
  }
}

// vector.atomic.*: the orderings, cache policy, poison and combining-kind family rules of the
// scalar atomics, lane-wise over the value vector's elements.
void checkVectorAtomic(const Operation &op, HookContext &ctx) {
  checkAtomicOrdering(op, ctx);
  checkCachePolicy(op, ctx, true);
  checkPoisonObserved(op, ctx, "effectful operation");
  Type *value = typeOf(op.operandNamed("value"));
  if (unknownType(value) || value->kind() != TypeKind::Vector) return;
  bool reduce = op.opcode() == OpCode::VectorAtomicReduce || op.opcode() == OpCode::VectorAtomicReduceMask;
  checkAtomicKind(op, ctx, reduce, "vector.atomic.rmw", value, value->elementType());
}

// An exchange only makes sense where the old value comes back: view.atomic.rmw and
// vector.atomic.rmw.mask; a subtraction is an atomic update of memory (any atomic op). Elsewhere
// (reductions, scans, collectives, folds) neither is a combining kind.
void checkExchangeKind(const Operation &op, HookContext &ctx) {
  std::string_view kind = combiningKind(op);
  bool atomic = op.opcode() == OpCode::ViewAtomicRmw || op.opcode() == OpCode::VectorAtomicRmwMask ||
                op.opcode() == OpCode::VectorAtomicRmw || op.opcode() == OpCode::ViewAtomicReduce ||
                op.opcode() == OpCode::VectorAtomicReduce || op.opcode() == OpCode::VectorAtomicReduceMask;
  if (isSubtraction(kind) && !atomic)
    ctx.attrConstraint(op, "kind", std::string(kind),
                       "a combining kind (a subtraction is only an atomic update's: view.atomic.* or vector.atomic.*)");
  if (atomic) return;  // vector.atomic.reduce*'s exchange: checkVectorAtomic
  if (isExchange(kind))
    ctx.attrConstraint(op, "kind", std::string(kind),
                       "a combining kind (an exchange is only view.atomic.rmw's or vector.atomic.rmw.mask's)");
}

}  // namespace hrx::loom::verify

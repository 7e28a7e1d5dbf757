// sanitizer.*: checked accesses and their static boxes, race-detector accesses and
// synchronisation, asserted value facts and restated layouts (upstream's codes).
#include "HookContext.h"

#include <algorithm>
#include <optional>

namespace hrx::loom::verify {

using diag::DiagId;

namespace {

std::optional<std::vector<int64_t>> intList(const Operation &op, std::string_view name) {
  const Attribute *a = op.attr(name);
  if (!a) return std::nullopt;
  std::vector<int64_t> out;
  for (const Attribute *e : a->elements()) out.push_back(e->kind() == AttrKind::Integer ? e->integer() : 0);
  return out;
}

std::string joined(const std::vector<int64_t> &v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

void checkAccess(const Operation &op, HookContext &ctx) {
  Value *base = op.operandNamed("base");
  if (!base || unknownType(base->type())) return;
  const Type *view = base->type();
  if (view->kind() != TypeKind::View) return ctx.operandError(op, "base", view, "a view");
  const Attribute *indicesAttr = op.attr("indices");
  std::span<Attribute *const> indices = indicesAttr ? indicesAttr->elements() : std::span<Attribute *const>();
  size_t rank = view->rank();
  if (indices.size() != rank) return ctx.indexCountMismatch(op, "view", indices.size(), rank);
  bool repeated = op.opcode() == OpCode::SanitizerAssertAccesses;
  int64_t count = 1;
  if (repeated) {
    const Attribute *c = op.attr("static_count");
    count = c && c->kind() == AttrKind::Integer ? c->integer() : 1;
    if (count <= 0) return ctx.attrConstraint(op, "static_count", std::to_string(count), "positive count");
  }
  std::vector<int64_t> extents = intList(op, "static_extents").value_or(std::vector<int64_t>(rank, 1));
  if (extents.size() != rank)
    return (void)ctx.report(DiagId::SubrangeListLength, op)
        .arg("op", std::string(op.name()))
        .arg("attr_name", "static_extents")
        .arg("count", (long long)extents.size())
        .arg("expected", (long long)rank);
  for (int64_t e : extents)
    if (e <= 0) return ctx.attrConstraint(op, "static_extents", std::to_string(e), "positive extent");
  std::vector<int64_t> strides(rank, 0);
  if (repeated) {
    strides = intList(op, "static_strides").value_or(strides);
    if (strides.size() != rank)
      return (void)ctx.report(DiagId::SubrangeListLength, op)
          .arg("op", std::string(op.name()))
          .arg("attr_name", "static_strides")
          .arg("count", (long long)strides.size())
          .arg("expected", (long long)rank);
    for (int64_t s : strides)
      if (s < 0) return ctx.attrConstraint(op, "static_strides", std::to_string(s), "non-negative stride");
    if (count > 1 && std::all_of(strides.begin(), strides.end(), [](int64_t s) { return s == 0; }))
      return ctx.attrConstraint(op, "static_strides", "0", "non-zero stride for repeated accesses");
  }
  if (op.opcode() == OpCode::SanitizerRaceAccess) {
    const Attribute *atomic = op.attr("atomic");
    bool isAtomic = atomic && atomic->kind() == AttrKind::Bool && atomic->boolean();
    bool ordered = op.attr("ordering") != nullptr;
    if (isAtomic && !ordered) return ctx.attrConstraint(op, "ordering", "0", "present when atomic is true");
    if (!isAtomic && ordered) return ctx.attrConstraint(op, "ordering", "0", "absent when atomic is false");
  }
  // The box's last element along each axis with a static index and extent must be inside it.
  for (size_t d = 0; d < rank; ++d) {
    const Dim &dim = view->shape()[d];
    if (!dim.isStatic() || indices[d]->kind() != AttrKind::Integer) continue;
    int64_t last = indices[d]->integer() + extents[d] - 1 + (count - 1) * strides[d];
    if (indices[d]->integer() < 0 || last >= dim.extent)
      return (void)ctx.report(DiagId::SubrangeOutOfBounds, op)
          .arg("op", std::string(op.name()))
          .arg("detail", "index " + std::to_string(last) + " on axis " + std::to_string(d) + " (start " +
                             std::to_string(indices[d]->integer()) + ", extents " + joined(extents) +
                             (repeated ? ", " + std::to_string(count) + " repeats" : std::string()) + ")")
          .arg("type", view->str());
  }
}

void checkSync(const Operation &op, HookContext &ctx) {
  const Attribute *ordering = op.attr("ordering");
  if (ordering && ordering->str() == "relaxed")
    ctx.attrConstraint(op, "ordering", "0", "acquire, release, acq_rel, or seq_cst ordering");
}

// Each predicate names only the asserted values, of the family the predicate needs.
void checkFacts(const Operation &op, HookContext &ctx) {
  const Attribute *facts = op.attr("facts");
  if (!facts) return;
  std::span<Value *const> asserted = op.operandGroup("in");
  bool isOp = op.opcode() == OpCode::SanitizerAssertOp;
  size_t p = 0;
  for (const Attribute *pred : facts->elements()) {
    bool floatPredicate = pred->str() == "finite";
    size_t a = 0;
    for (const Attribute *arg : pred->elements()) {
      std::string field = "predicates[" + std::to_string(p) + "].arg[" + std::to_string(a++) + "]";
      Value *v = arg->value();
      if (!v) continue;
      if (std::find(asserted.begin(), asserted.end(), v) == asserted.end()) {
        ctx.report(DiagId::StructurePredicateOperand, op)
            .arg("op", std::string(op.name()))
            .arg("field", field)
            .arg("expected", isOp ? "an assertion operand" : "an asserted value operand");
        continue;
      }
      const Type *t = v->type();
      if (unknownType(t)) continue;
      if (floatPredicate && !t->isFloat()) ctx.operandError(op, field, t, "floating-point value");
      if (!floatPredicate && !t->isInteger() && !t->isAddress())
        ctx.operandError(op, field, t, "integer, index, or offset value");
    }
    ++p;
  }
}

void checkLayout(const Operation &op, HookContext &ctx) {
  Value *in = op.operandNamed("in");
  Type *result = op.numResults() ? op.result(0)->type() : nullptr;
  if (!in || unknownType(in->type()) || unknownType(result)) return;
  const Type *source = in->type();
  if (source->kind() != TypeKind::View) return ctx.operandError(op, "in", source, "a view");
  if (result->kind() != TypeKind::View || result->elementType() != source->elementType() ||
      result->rank() != source->rank())
    return ctx.resultError(op, "result", result,
                           "a view of " + source->elementType()->str() + " with " + std::to_string(source->rank()) +
                               " axes");
  if (!source->slot().empty() && result->slot().empty())
    return (void)ctx.report(DiagId::EncodingLayoutMissing, op)
        .arg("op", std::string(op.name()))
        .arg("field", "result type layout")
        .arg("other", "view type");
  ctx.sameStaticDims(op, source, result);
}

}  // namespace

void checkSanitizerOp(const Operation &op, HookContext &ctx) {
  switch (op.opcode()) {
  case OpCode::SanitizerAssertAccess:
  case OpCode::SanitizerAssertAccesses:
  case OpCode::SanitizerRaceAccess: return checkAccess(op, ctx);
  case OpCode::SanitizerRaceSync: return checkSync(op, ctx);
  case OpCode::SanitizerAssertValue:
  case OpCode::SanitizerAssertOp: return checkFacts(op, ctx);
  case OpCode::SanitizerAssertLayout: return checkLayout(op, ctx);
  default: return;
  }
}

}  // namespace hrx::loom::verify

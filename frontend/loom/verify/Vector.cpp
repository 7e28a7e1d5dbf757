// vector.reduce.axes: the listed axes (sorted, unique, inside the input's rank) are reduced into
// an accumulator of the remaining shape, a scalar when every axis goes.
#include "HookContext.h"

#include <algorithm>

namespace hrx::loom::verify {

using diag::DiagId;

static void checkReduceAxes(const Operation &op, HookContext &ctx) {
  Value *in = op.operandNamed("in"), *init = op.operandNamed("init");
  Type *result = op.numResults() ? op.result(0)->type() : nullptr;
  const Attribute *axesAttr = op.attr("axes");
  std::span<Attribute *const> axes = axesAttr ? axesAttr->elements() : std::span<Attribute *const>();
  if (axes.empty()) return ctx.attrConstraint(op, "axes", "[]", "non-empty axes list");
  std::vector<int64_t> list;
  for (const Attribute *a : axes) {
    if (a->kind() != AttrKind::Integer) return ctx.attrConstraint(op, "axes", "an SSA value", "static axis numbers");
    list.push_back(a->integer());
  }
  for (size_t i = 1; i < list.size(); ++i)
    if (list[i] <= list[i - 1])
      return ctx.attrConstraint(op, "axes", std::to_string(list[i]), "strictly sorted unique axes");
  if (!in || unknownType(in->type()) || in->type()->kind() != TypeKind::Vector) return;
  const Type *source = in->type();
  for (int64_t a : list)
    if (a < 0 || size_t(a) >= source->rank())
      return ctx.attrConstraint(op, "axes", std::to_string(a), "axis in input rank bounds");
  if (const Attribute *kind = op.templateParam(0)) {
    std::string_view k =
        kind->kind() == AttrKind::Flags && !kind->elements().empty() ? kind->elements()[0]->str() : kind->str();
    const Type *element = source->elementType();
    if (k.ends_with("f") && !element->isFloat())
      return ctx.operandError(op, "in", source, "floating-point element type for reduce kind <" + std::string(k) + ">");
    if (k.ends_with("i") && !element->isInteger())
      return ctx.operandError(op, "in", source, "integer element type for reduce kind <" + std::string(k) + ">");
  }
  if (init && result && !unknownType(init->type()) && !unknownType(result) && init->type() != result)
    return ctx.fieldMismatch(op, "init", init->type(), "result", result);
  if (!result || unknownType(result)) return;
  if (list.size() == source->rank()) {
    if (result != source->elementType())
      ctx.resultError(op, "result", result,
                      "scalar result when all axes are reduced (" + source->elementType()->str() + ")");
    return;
  }
  if (result->kind() != TypeKind::Vector || result->elementType() != source->elementType())
    return ctx.resultError(op, "result", result, "a vector of " + source->elementType()->str());
  std::vector<Dim> kept;
  for (size_t d = 0; d < source->rank(); ++d)
    if (std::find(list.begin(), list.end(), int64_t(d)) == list.end()) kept.push_back(source->shape()[d]);
  bool same = kept.size() == result->rank();
  for (size_t d = 0; same && d < kept.size(); ++d) same = kept[d] == result->shape()[d];
  if (!same) ctx.shapeMismatch(op, "input without the reduced axes", source, "result", result);
}

// vector.load/store and their masked, expanding and compressing forms: one index per view axis,
// the view's element type, a footprint no higher than the view's rank that fits its static
// extents (an expanding or compressing access counts every lane: no mask facts prove fewer), an
// i1 mask of the vector's shape, and cache hints of the access's direction.
void checkVectorMemoryOp(const Operation &op, HookContext &ctx) {
  bool load = op.def()->hook == VerifyHook::VectorLoad;
  bool compact = op.opcode() == OpCode::VectorLoadExpand || op.opcode() == OpCode::VectorStoreCompress;
  checkCachePolicy(op, ctx, false);
  if (!load) checkPoisonObserved(op, ctx, "effectful operation");
  for (Value *v : op.operandGroup("indices"))
    if (!unknownType(v->type()) && !v->type()->isIndex()) ctx.operandError(op, "indices", v->type(), "index");
  Value *baseValue = op.operandNamed("base");
  Type *view = baseValue ? baseValue->type() : nullptr;
  Type *vec = load ? (op.numResults() ? op.result(0)->type() : nullptr)
                   : (op.operandNamed("value") ? op.operandNamed("value")->type() : nullptr);
  if (unknownType(view) || unknownType(vec)) return;
  if (view->kind() != TypeKind::View) return ctx.operandError(op, "base", view, "a view");
  auto vectorError = [&](std::string expected) {
    return load ? ctx.resultError(op, "result", vec, std::move(expected))
                : ctx.operandError(op, "value", vec, std::move(expected));
  };
  if (vec->kind() != TypeKind::Vector) return vectorError("a vector");
  const Attribute *indicesAttr = op.attr("indices");
  std::span<Attribute *const> indices = indicesAttr ? indicesAttr->elements() : std::span<Attribute *const>();
  if (indices.size() != view->rank()) return ctx.indexCountMismatch(op, "view", indices.size(), view->rank());
  if (vec->elementType() != view->elementType()) return ctx.elementMismatch(op, "vector", vec, "view", view);
  if (compact && vec->rank() != 1) return vectorError("a rank-1 vector");
  if (vec->rank() > view->rank()) return vectorError("rank no greater than view rank (" + view->str() + ")");
  size_t lead = view->rank() - vec->rank();
  for (size_t d = 0; d < view->rank(); ++d) {
    const Dim &wd = view->shape()[d];
    if (!wd.isStatic()) continue;
    int64_t start = indices[d]->kind() == AttrKind::Integer ? indices[d]->integer() : 0;
    bool staticStart = indices[d]->kind() == AttrKind::Integer;
    int64_t extent = 1;
    if (d >= lead) {
      const Dim &vd = vec->shape()[d - lead];
      extent = vd.isStatic() ? vd.extent : 1;
    }
    if ((staticStart && start + extent > wd.extent) || extent > wd.extent)
      return (void)ctx.report(DiagId::SubrangeOutOfBounds, op)
          .arg("op", std::string(op.name()))
          .arg("detail",
               "a " + vec->str() + " footprint from index " + std::to_string(start) + " on axis " + std::to_string(d))
          .arg("type", view->str());
  }
  if (Value *mask = op.operandNamed("mask"); mask && !unknownType(mask->type())) {
    Type *m = mask->type();
    if (m->kind() != TypeKind::Vector || !m->elementType()->isInteger(1))
      return ctx.operandError(op, "mask", m, "an i1_element vector shaped like " + vec->str());
    bool same = m->rank() == vec->rank();
    for (size_t d = 0; same && d < m->rank(); ++d) same = m->shape()[d] == vec->shape()[d];
    if (!same) ctx.shapeMismatch(op, "mask", m, load ? "result" : "value", vec);
  }
}

void checkVectorAxesOp(const Operation &op, HookContext &ctx) {
  if (op.opcode() == OpCode::VectorReduceAxes) return checkReduceAxes(op, ctx);
  // vector.poison has lanes to poison; vector.empty is exactly the static zero-lane vector.
  Type *r = op.numResults() ? op.result(0)->type() : nullptr;
  if (!r || unknownType(r) || r->kind() != TypeKind::Vector) return;
  bool zeroLanes = r->staticElementCount() == 0;
  if (op.opcode() == OpCode::VectorPoison && zeroLanes)
    ctx.resultError(op, "result", r, "a vector with lanes (use vector.empty for a zero-lane vector)");
  if (op.opcode() == OpCode::VectorEmpty && !zeroLanes)
    ctx.resultError(op, "result", r, "static zero-lane vector type");
}

// vector.gather: a view, one index per axis, integer offsets; the result is a vector of the
// view's element type shaped like the offsets. vector.bitpack<W>: integer lanes whose W low bits
// each fill the result's bits exactly. view.prefetch: a view and one index per axis.
void checkVectorGatherPackOp(const Operation &op, HookContext &ctx) {
  auto checkIndices = [&](const Type *view) {
    size_t given = 0;
    if (const Attribute *indices = op.attr("indices")) given = indices->elements().size();
    for (Value *v : op.operandGroup("indices"))
      if (!unknownType(v->type()) && !v->type()->isIndex()) ctx.operandError(op, "indices", v->type(), "index");
    if (given != view->rank()) ctx.indexCountMismatch(op, "view", given, view->rank());
  };
  if (op.opcode() == OpCode::VectorGather || op.opcode() == OpCode::ViewPrefetch) {
    const Type *view = op.operandNamed("base")->type();
    if (unknownType(view)) return;
    if (view->kind() != TypeKind::View) return ctx.operandError(op, "base", view, "a view");
    // Gather offsets move along the last axis, so a gather needs a view with one.
    if (op.opcode() == OpCode::VectorGather && view->rank() == 0)
      return ctx.operandError(op, "view", view, "rank >= 1 view");
    checkIndices(view);
    if (op.opcode() == OpCode::ViewPrefetch) return;
    if (const Attribute *indices = op.attr("indices"); indices && indices->elements().size() == view->rank())
      for (size_t d = 0; d < view->rank(); ++d) {
        const Attribute *index = indices->elements()[d];
        const Dim &extent = view->shape()[d];
        if (index->kind() == AttrKind::Integer && extent.isStatic() &&
            (index->integer() < 0 || index->integer() >= extent.extent))
          return (void)ctx.report(DiagId::SubrangeOutOfBounds, op)
              .arg("op", std::string(op.name()))
              .arg("detail", "origin index " + std::to_string(index->integer()) + " on axis " + std::to_string(d))
              .arg("type", view->str());
      }
    const Type *offsets = op.operandNamed("offsets")->type(), *r = op.result(0)->type();
    if (unknownType(offsets) || unknownType(r)) return;
    const Type *lane = offsets->kind() == TypeKind::Vector ? offsets->elementType() : nullptr;
    if (!lane || !(lane->isIndex() || (lane->isInteger() && lane->width() > 1)))
      return ctx.operandError(op, "offsets", offsets, "index or non-i1 integer element type");
    if (r->kind() != TypeKind::Vector) return ctx.resultError(op, "result", r, "a vector");
    if (!std::equal(r->shape().begin(), r->shape().end(), offsets->shape().begin(), offsets->shape().end()))
      return ctx.shapeMismatch(op, "offsets", offsets, "result", r);
    if (r->elementType() != view->elementType()) ctx.elementMismatch(op, "result", r, "view", view);
    return;
  }
  if (op.opcode() != OpCode::VectorBitpack) return;
  const Type *in = op.operandNamed("in")->type(), *r = op.result(0)->type();
  if (unknownType(in) || unknownType(r)) return;
  if (in->kind() != TypeKind::Vector || !in->elementType()->isInteger())
    return ctx.operandError(op, "source", in, "a vector of integers");
  if (r->kind() != TypeKind::Vector || !r->elementType()->isInteger())
    return ctx.resultError(op, "result", r, "a vector of integers");
  const Attribute *width = op.templateParam(0);
  int64_t w = width && width->kind() == AttrKind::Integer ? width->integer() : 0;
  if (w <= 0) return ctx.attrConstraint(op, "width", std::to_string(w), "positive bit width");
  if (w > int64_t(in->elementType()->width()))
    return ctx.operandError(op, "source", in, "element bit width at least width");
  int64_t lanes = in->staticElementCount(), resultLanes = r->staticElementCount();
  if (lanes > 0 && resultLanes > 0 && lanes * w != resultLanes * int64_t(r->elementType()->width()))
    ctx.resultError(op, "result", r, "packed payload bit count equal to result storage bit count");
}

}  // namespace hrx::loom::verify

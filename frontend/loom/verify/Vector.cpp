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

void checkVectorAxesOp(const Operation &op, HookContext &ctx) {
  if (op.opcode() == OpCode::VectorReduceAxes) checkReduceAxes(op, ctx);
}

}  // namespace hrx::loom::verify

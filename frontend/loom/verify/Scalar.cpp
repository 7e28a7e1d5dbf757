// scalar.* and vector.* rules upstream states per op: geluf's scale attribute (present exactly for
// the logistic approximation), scalar.assume's payload domain, and poison reaching an observation
// boundary (TYPE/012).
#include "HookContext.h"

#include <unordered_set>

namespace hrx::loom::verify {

using diag::DiagId;

namespace {

bool floatLiteral(const Attribute *a) { return a && (a->kind() == AttrKind::Float || a->kind() == AttrKind::Integer); }

// gelu<logistic> is x * logistic(scale * x): it needs its scale; erf and tanh have none.
void checkGelu(const Operation &op, HookContext &ctx) {
  bool logistic = false;
  for (const Attribute *t : op.templateParams())
    if (t->str() == "logistic") logistic = true;
  const Attribute *scale = op.attr("scale");
  if (logistic && !scale)
    ctx.report(DiagId::TypeLiteralKind, op)
        .arg("op", std::string(op.name()))
        .arg("attr_name", "scale")
        .arg("actual", "absent")
        .arg("expected", "a floating-point scale for gelu<logistic>")
        .arg("actual_kind", "0")  // upstream's attribute kinds: 0 absent, 2 a float
        .arg("expected_kind", "2");
  else if (!logistic && scale)
    ctx.report(DiagId::TypeLiteralKind, op)
        .arg("op", std::string(op.name()))
        .arg("attr_name", "scale")
        .arg("actual", "given")
        .arg("expected", "no scale (only gelu<logistic> takes one)")
        .arg("actual_kind", "2")
        .arg("expected_kind", "0");
  else if (scale && !floatLiteral(scale))
    ctx.report(DiagId::TypeLiteralKind, op)
        .arg("op", std::string(op.name()))
        .arg("attr_name", "scale")
        .arg("actual", "not a number")
        .arg("expected", "a floating-point scale for gelu<logistic>");
}

// Address-domain facts are index.assume's; scalar.assume constrains integer and float payloads.
void checkScalarAssume(const Operation &op, HookContext &ctx) {
  std::span<Value *const> values = op.operandGroup("in");
  for (size_t k = 0; k < values.size(); ++k) {
    const Type *t = values[k]->type();
    if (!unknownType(t) && !t->isScalar())
      ctx.resultError(op, "values[" + std::to_string(k) + "]", t, "integer or floating-point scalar; use index.assume");
  }
}

// A value is poison when a poison op made it or an ordinary op computed it from poison.
bool isPoison(const Value *v, std::unordered_set<const Value *> &visiting) {
  const Operation *def = v->definingOp();
  if (!def || !visiting.insert(v).second) return false;
  if (def->opcode() == OpCode::ScalarPoison || def->opcode() == OpCode::VectorPoison) return true;
  if (def->numRegions() || def->isOpaque()) return false;  // structured results: not propagated here
  for (const Value *operand : def->operands())
    if (isPoison(operand, visiting)) return true;
  return false;
}

}  // namespace

bool checkScalarOp(const Operation &op, HookContext &ctx) {
  switch (op.opcode()) {
  case OpCode::ScalarGeluf:
  case OpCode::VectorGeluf: checkGelu(op, ctx); return true;
  case OpCode::ScalarAssume: checkScalarAssume(op, ctx); return true;
  default: return false;
  }
}

void checkPoisonObserved(const Operation &op, HookContext &ctx, std::string_view boundary) {
  for (const Value *v : op.operands()) {
    std::unordered_set<const Value *> visiting;
    if (!isPoison(v, visiting)) continue;
    ctx.report(DiagId::TypePoisonObserved, op)
        .arg("value_kind", "poison")
        .arg("boundary", std::string(boundary))
        .arg("op", std::string(op.name()));
    return;
  }
}

}  // namespace hrx::loom::verify

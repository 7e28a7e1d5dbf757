// global.* (module-level constants and variables, their loads and stores, read-only payloads).
// A global's type names its own dimensions; a load or store matches it structurally: the same
// kinds, element types and static extents, and equal dimension names exactly where the
// declaration's are equal (upstream's rule; the names themselves need not agree).
#include "HookContext.h"

#include <map>

namespace hrx::loom {
std::string printAttribute(const Attribute &attr);  // Printer.cpp
}

namespace hrx::loom::verify {

using diag::DiagId;

namespace {

const Type *declaredType(const Operation &global) {
  const Attribute *t = global.attr("type");
  return t ? t->type() : nullptr;
}

// One-to-one correspondence between the declaration's names and the use's.
struct NameMap {
  std::map<const Value *, const Value *> forward, backward;
  bool bind(const Value *decl, const Value *use) {
    auto [f, fNew] = forward.emplace(decl, use);
    auto [b, bNew] = backward.emplace(use, decl);
    return f->second == use && b->second == decl;
  }
};

bool sameStructure(const Type *decl, const Type *use, NameMap &names) {
  if (decl == use) return true;
  if (!decl || !use || decl->kind() != use->kind()) return false;
  if (!decl->isShaped()) return false;  // scalars and other types are uniqued
  if (decl->rank() != use->rank()) return false;
  for (size_t i = 0; i < decl->rank(); ++i) {
    const Dim &d = decl->shape()[i], &u = use->shape()[i];
    if (d.isStatic() != u.isStatic()) return false;
    if (d.isStatic() ? d.extent != u.extent : !names.bind(d.dynamic, u.dynamic)) return false;
  }
  TypeSlot ds = decl->slot(), us = use->slot();
  if (ds.value || us.value) {
    if (!ds.value || !us.value || !names.bind(ds.value, us.value)) return false;
  } else if (ds.attr || us.attr) {
    if (!ds.attr || !us.attr || printAttribute(*ds.attr) != printAttribute(*us.attr)) return false;
  }
  return sameStructure(decl->elementType(), use->elementType(), names);
}

void collectNames(const Type *t, std::vector<const Value *> &out) {
  if (!t || !t->isShaped()) return;
  for (const Dim &d : t->shape())
    if (d.dynamic) out.push_back(d.dynamic);
  if (t->slot().value) out.push_back(t->slot().value);
  collectNames(t->elementType(), out);
}

std::string literalText(const Attribute &a) {
  switch (a.kind()) {
  case AttrKind::Integer: return "integer literal " + std::to_string(a.integer());
  case AttrKind::Float: return "float literal " + printAttribute(a);
  case AttrKind::Bool: return std::string("boolean literal ") + (a.boolean() ? "true" : "false");
  default: return printAttribute(a);
  }
}

void checkDeclaration(const Operation &op, HookContext &ctx) {
  const Type *type = declaredType(op);
  const Attribute *init = op.attr("initializer");
  if (!type || !init || unknownType(type)) return;
  bool scalar = type->isScalar() || type->isAddress();
  if (!scalar) {
    ctx.report(DiagId::TypeResultMismatch, op)
        .arg("op", std::string(op.name()))
        .arg("field", "initializer")
        .arg("actual", type->str())
        .arg("expected", "a scalar type (inline initializers are scalar-only)");
    return;
  }
  auto literalError = [&](std::string expected) {
    ctx.report(DiagId::TypeLiteralKind, op)
        .arg("op", std::string(op.name()))
        .arg("attr_name", "initializer")
        .arg("actual", literalText(*init))
        .arg("expected", std::move(expected));
  };
  if (type->isFloat()) {
    if (init->kind() != AttrKind::Float) literalError("a float literal for " + type->str() + " (write 1.0)");
    return;
  }
  if (type->isInteger(1)) {
    bool ok = init->kind() == AttrKind::Bool ||
              (init->kind() == AttrKind::Integer && (init->integer() == 0 || init->integer() == 1));
    if (!ok) literalError("0, 1, true or false for i1");
    return;
  }
  if (init->kind() != AttrKind::Integer) literalError("an integer literal for " + type->str());
}

void checkRodata(const Operation &op, HookContext &ctx) {
  if (const Attribute *align = op.attr("align")) {
    int64_t a = align->integer();
    if (a <= 0 || (a & (a - 1)) != 0)
      ctx.attrConstraint(op, "alignment", std::to_string(a), "a positive power-of-two byte alignment");
  }
  if (const Attribute *bytes = op.attr("bytes")) {
    std::string_view hex = bytes->str();
    bool ok = hex.size() % 2 == 0 && hex.find_first_not_of("0123456789abcdefABCDEF") == std::string_view::npos;
    if (!ok) ctx.attrConstraint(op, "bytes", "\"" + std::string(hex) + "\"", "an even number of hexadecimal digits");
  }
}

void checkAccess(const Operation &op, HookContext &ctx) {
  bool load = op.opcode() == OpCode::GlobalLoad;
  // Read-only payload bytes load as a buffer over them (upstream: global.load @rodata : buffer).
  const Operation *global =
      load ? ctx.resolveSymbol(
                 op, "global",
                 {OpCode::GlobalConstant, OpCode::GlobalVariable, OpCode::GlobalRodataDef, OpCode::GlobalRodataDecl},
                 "global")
           : ctx.resolveSymbol(op, "global", {OpCode::GlobalConstant, OpCode::GlobalVariable}, "global");
  if (global && (global->opcode() == OpCode::GlobalRodataDef || global->opcode() == OpCode::GlobalRodataDecl)) {
    const Type *loaded = op.numResults() ? op.result(0)->type() : nullptr;
    if (loaded && !unknownType(loaded) && loaded->kind() != TypeKind::Buffer)
      ctx.fieldMismatch(op, "loaded value", loaded, "read-only payload @" + std::string(global->symbolName()),
                        ctx.module()->types().buffer());
    return;
  }
  const Type *use =
      load ? (op.numResults() ? op.result(0)->type() : nullptr) : (op.numOperands() ? op.operand(0)->type() : nullptr);
  if (load) {
    std::vector<const Value *> named;
    collectNames(use, named);
    for (size_t i = 1; i < op.numResults(); ++i) {
      const Value *r = op.result(unsigned(i));
      if (std::find(named.begin(), named.end(), r) == named.end()) {
        ctx.report(DiagId::StructureResultCount, op)
            .arg("op_name", std::string(op.name()))
            .arg("actual_count", std::to_string(op.numResults()))
            .arg("expected_count", "at most " + std::to_string(1 + named.size()))
            .arg("reason", "result '%" + std::string(r->name()) + "' is not a dimension or encoding of the loaded type " +
                               (use ? use->str() : std::string("none")));
        return;
      }
    }
  }
  if (!global || unknownType(use)) return;
  const Type *decl = declaredType(*global);
  NameMap names;
  if (decl && !sameStructure(decl, use, names))
    ctx.fieldMismatch(op, load ? "loaded value" : "stored value", use, "global @" + std::string(global->symbolName()),
                      decl);
}

}  // namespace

void checkGlobalOp(const Operation &op, HookContext &ctx) {
  switch (op.opcode()) {
  case OpCode::GlobalConstant:
  case OpCode::GlobalVariable: return checkDeclaration(op, ctx);
  case OpCode::GlobalRodataDef: return checkRodata(op, ctx);
  case OpCode::GlobalLoad:
  case OpCode::GlobalStore: return checkAccess(op, ctx);
  default: return;
  }
}

}  // namespace hrx::loom::verify

// First-class function references: func.null, func.compare.null, func.address,
// func.call.indirect and func.ref.cast against the func.ref<[yieldable] (A) -> (R)> types they
// produce and consume; kernel.async.* operand kinds; provider contracts (a provider's target
// record and requires [...]). Upstream's rules and codes; its func verify fixture is the facts.
#include "HookContext.h"

#include <algorithm>
#include <utility>
#include <vector>

namespace hrx::loom::verify {

using diag::DiagId;

namespace {

constexpr const char *kCallableRef = "func.ref with a function signature";

bool callable(const Type *t) { return t && t->isCallableRef(); }
bool skip(const Type *t) { return !t || t->isUnknown(); }

// The callee's signature (entry block arguments and `result_types`) as written in a func.ref.
std::pair<std::vector<Type *>, std::vector<Type *>> signatureOf(const Operation &callee) {
  std::vector<Type *> inputs, results;
  if (Block *sig = callee.numRegions() ? callee.region(0)->entryBlock() : nullptr)
    for (Value *a : sig->arguments()) inputs.push_back(a->type());
  if (const Attribute *r = callee.attr("result_types"))
    for (const Attribute *e : r->elements()) results.push_back(e->type());
  return {inputs, results};
}

std::string spell(const std::vector<Type *> &inputs, const std::vector<Type *> &results) {
  auto list = [](const std::vector<Type *> &types) {
    std::string out = "(";
    for (size_t i = 0; i < types.size(); ++i) out += (i ? ", " : "") + types[i]->str();
    return out + ")";
  };
  return list(inputs) + " -> " + list(results);
}

void checkIndirectCall(const Operation &op, HookContext &ctx) {
  const Type *target = op.operandNamed("target")->type();
  if (skip(target)) return;
  if (!callable(target)) return ctx.operandError(op, "function reference", target, kCallableRef);
  const Type *sig = target->elementType();
  std::span<Value *const> args = op.operandGroup("args");
  std::span<Type *const> inputs = sig->functionInputs(), results = sig->functionResults();
  if (args.size() != inputs.size()) {
    ctx.report(DiagId::StructureOperandCount, op)
        .arg("op_name", std::string(op.name()))
        .arg("actual_count", std::to_string(args.size()))
        .arg("expected_count", std::to_string(inputs.size()));
    return;
  }
  if (op.numResults() != results.size()) {
    ctx.report(DiagId::StructureResultCount, op)
        .arg("op_name", std::string(op.name()))
        .arg("actual_count", std::to_string(op.numResults()))
        .arg("expected_count", std::to_string(results.size()))
        .arg("reason", "its function reference's signature returns that many");
    return;
  }
  for (size_t k = 0; k < args.size(); ++k)
    if (!skip(args[k]->type()) && args[k]->type() != inputs[k])
      return ctx.fieldMismatch(op, "operand " + std::to_string(k), args[k]->type(),
                               "function argument " + std::to_string(k), inputs[k]);
  for (size_t k = 0; k < results.size(); ++k) {
    const Type *r = op.result(unsigned(k))->type();
    if (!skip(r) && r != results[k])
      return ctx.fieldMismatch(op, "result " + std::to_string(k), r, "function result " + std::to_string(k),
                               results[k]);
  }
}

// A cast only adds yieldability at the top: the source is synchronous, the result yieldable,
// and both reference the same signature (nested references keep their own yieldability).
void checkCast(const Operation &op, HookContext &ctx) {
  const Type *from = op.operandNamed("in")->type(), *to = op.result(0)->type();
  if (skip(from) || skip(to)) return;
  if (!callable(from)) return ctx.operandError(op, "source", from, kCallableRef);
  if (from->funcRefYieldable()) return ctx.operandError(op, "source", from, "synchronous func.ref");
  if (!callable(to)) return ctx.resultError(op, "result", to, kCallableRef);
  if (!to->funcRefYieldable()) return ctx.resultError(op, "result", to, "yieldable func.ref");
  if (from->elementType() != to->elementType()) ctx.fieldMismatch(op, "source", from, "result", to);
}

void checkAddress(const Operation &op, HookContext &ctx) {
  const Type *r = op.result(0)->type();
  if (skip(r)) return;
  if (!callable(r)) return ctx.resultError(op, "result", r, kCallableRef);
  const Operation *callee =
      ctx.resolveSymbol(op, "callee", {OpCode::FuncDef, OpCode::FuncDecl}, "a func.def or func.decl");
  if (!callee) return;
  auto [inputs, results] = signatureOf(*callee);
  const Type *sig = r->elementType();
  auto same = [](std::span<Type *const> a, const std::vector<Type *> &b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  };
  if (same(sig->functionInputs(), inputs) && same(sig->functionResults(), results)) return;
  ctx.report(DiagId::TypeFieldMismatch, op)
      .arg("op", std::string(op.name()))
      .arg("field_a", "result")
      .arg("type_a", r->str())
      .arg("field_b", "callee @" + std::string(callee->symbolName()))
      .arg("type_b", spell(inputs, results));
}

// func.location: a nonempty postorder array of location nodes whose ranges are four u32
// coordinates and whose child indices name earlier nodes (upstream's rules and codes).
bool locationRange(const Attribute *range) {
  if (!range || range->kind() != AttrKind::Array || range->elements().size() != 4) return false;
  return std::all_of(range->elements().begin(), range->elements().end(), [](const Attribute *c) {
    return c->kind() == AttrKind::Integer && c->integer() >= 0 && c->integer() <= int64_t(UINT32_MAX);
  });
}

// The positional parameter `k` of a hash attribute (parameters without a name, in order).
const Attribute *positional(const Attribute &hash, size_t k) {
  for (const NamedAttr &p : hash.entries())
    if (p.name.empty() && k-- == 0) return p.value;
  return nullptr;
}

std::string integerText(const Attribute *a, const char *otherwise) {
  return a && a->kind() == AttrKind::Integer ? std::to_string(a->integer()) : std::string(otherwise);
}

void familyError(const Operation &op, HookContext &ctx, const char *attr, const Attribute &found,
                 const char *expected) {
  ctx.report(DiagId::StructureAttrFamily, op)
      .arg("op", std::string(op.name()))
      .arg("attr_name", attr)
      .arg("actual_family", found.kind() == AttrKind::Hash ? std::string(found.str()) : std::string("?"))
      .arg("expected_family", expected);
}

// A file node's fields: #func.location.field<kind, index = N, range = [...]> each.
void checkLocationFields(const Operation &op, HookContext &ctx, const Attribute &fields) {
  std::span<Attribute *const> fs = fields.elements();
  for (size_t j = 0; j < fs.size(); ++j) {
    const Attribute &field = *fs[j];
    if (field.kind() != AttrKind::Hash || field.str() != "func.location.field")
      return familyError(op, ctx, "fields", field, "func.location.field");
    const Attribute *index = field.get("index");
    if (!index || index->kind() != AttrKind::Integer || index->integer() < 0 ||
        index->integer() > int64_t(UINT32_MAX) || !locationRange(field.get("range")))
      return ctx.attrConstraint(op, "fields", std::to_string(j),
                                "source field kind, unsigned index, and four unsigned 32-bit coordinates");
  }
}

void checkLocation(const Operation &op, HookContext &ctx) {
  if (!skip(op.result(0)->type()) && op.result(0)->type()->kind() != TypeKind::Buffer)
    ctx.resultError(op, "result", op.result(0)->type(), "buffer");
  const Attribute *nodes = op.attr("nodes");
  if (!nodes) return;
  if (nodes->kind() != AttrKind::Array || nodes->elements().empty())
    return ctx.attrConstraint(op, "nodes", "0", "nonempty postorder location graph");
  std::span<Attribute *const> list = nodes->elements();
  for (size_t i = 0; i < list.size(); ++i) {
    const Attribute &node = *list[i];
    std::string_view family = node.kind() == AttrKind::Hash ? node.str() : std::string_view();
    if (family == "func.location.file") {
      if (!locationRange(node.get("range")))
        return ctx.attrConstraint(op, "range", std::to_string(i), "four unsigned 32-bit source coordinates");
      if (const Attribute *fields = node.get("fields")) checkLocationFields(op, ctx, *fields);
    } else if (family == "func.location.fused") {
      const Attribute *children = positional(node, 0);
      if (!children) children = node.get("children");
      for (const Attribute *c : children ? children->elements() : std::span<Attribute *const>())
        if (c->kind() != AttrKind::Integer || c->integer() < 0 || uint64_t(c->integer()) >= i)
          return ctx.attrConstraint(op, "children", integerText(c, "?"), "index of a preceding location node");
    } else if (family == "func.location.tagged") {
      const Attribute *tag = positional(node, 0);
      if (!tag) tag = node.get("tag");
      if (!tag || tag->kind() != AttrKind::Integer || tag->integer() <= 0 || tag->integer() > int64_t(UINT32_MAX))
        return ctx.attrConstraint(op, "tag", integerText(tag, "0"), "nonzero unsigned 32-bit tag");
      if (const Attribute *child = node.get("child"))
        if (child->kind() != AttrKind::Integer || child->integer() < 0 || uint64_t(child->integer()) >= i)
          return ctx.attrConstraint(op, "child", integerText(child, "?"), "index of a preceding location node");
    } else if (family != "func.location.unknown" && family != "func.location.opaque") {
      return familyError(op, ctx, "nodes", node, "func.location node");
    }
  }
}

}  // namespace

void checkFuncRefOp(const Operation &op, HookContext &ctx) {
  switch (op.opcode()) {
  case OpCode::FuncLocation: return checkLocation(op, ctx);
  case OpCode::FuncNull:
    if (!skip(op.result(0)->type()) && !callable(op.result(0)->type()))
      ctx.resultError(op, "result", op.result(0)->type(), kCallableRef);
    return;
  case OpCode::FuncCompareNull: {
    const Type *t = op.operandNamed("target")->type();
    if (!skip(t) && !callable(t)) ctx.operandError(op, "function reference", t, kCallableRef);
    return;
  }
  case OpCode::FuncAddress: return checkAddress(op, ctx);
  case OpCode::FuncCallIndirect: return checkIndirectCall(op, ctx);
  case OpCode::FuncRefCast: return checkCast(op, ctx);
  default: return;
  }
}

namespace {

const Attribute *recordField(const Operation &record, std::string_view name) {
  if (const Attribute *a = record.attr(name)) return a;
  for (const NamedAttr &named : record.attributes())
    if (named.value && named.value->kind() == AttrKind::Dict)
      if (const Attribute *a = named.value->get(name)) return a;
  return nullptr;
}

}  // namespace

void checkProviderContract(const Operation &op, HookContext &ctx) {
  std::string name(op.symbolName());
  const Attribute *target = op.attr("target");
  const Operation *record = target && ctx.module() ? ctx.module()->lookupSymbol(target->str()) : nullptr;
  // Upstream's rule covers the template.* providers; func.template and func.ukernel are functions,
  // which may choose (upstream's amdgpu execution tests select a func.template per wave64 record).
  const bool templateProvider = op.opcode() == OpCode::TemplateDef || op.opcode() == OpCode::TemplateUkernel;
  if (record && templateProvider)
    for (std::string_view field :
         {"subgroup_size", "max_workgroup_size_x", "max_workgroup_size_y", "max_workgroup_size_z"})
      if (recordField(*record, field)) {
        ctx.report(DiagId::TargetProviderExecutionChoice, op)
            .arg("provider_name", name)
            .arg("target_name", std::string(target->str()))
            .arg("field_name", std::string(field))
            .note(record->loc(), "target record defined here");
        break;
      }
  const Attribute *conditions = op.attr("requires");
  if (!conditions) conditions = op.attr("when");  // upstream's newer spelling
  if (!conditions) return;
  std::span<Attribute *const> entries = conditions->elements();
  for (size_t k = 0; k < entries.size(); ++k) {
    const Attribute *c = entries[k];
    if (!c || c->kind() != AttrKind::Hash) continue;
    std::string family(c->str()), reason;
    if (!family.starts_with("target.")) {
      reason = "parameterized attribute family '" + family + "' is not a target condition";
    } else if (family == "target.subgroup.size") {
      const Attribute *size = c->entries().empty() ? nullptr : c->entries()[0].value;
      bool valid = size && size->kind() == AttrKind::Integer && size->integer() > 0 && size->integer() <= 0xffffffffll;
      if (!valid)
        reason = "target.subgroup.size requires a nonzero unsigned 32-bit size; got " +
                 (size && size->kind() == AttrKind::Integer ? std::to_string(size->integer()) : std::string("none"));
    }
    if (reason.empty()) continue;
    ctx.report(DiagId::TargetInvalidCondition, op)
        .arg("function_name", name)
        .arg("condition_index", std::to_string(k))
        .arg("reason", reason);
  }
}

}  // namespace hrx::loom::verify

namespace hrx::loom::verify {

// func.def/func.decl `where [...]`: each predicate constrains a signature value (its first
// argument), integer relations an integer, index or offset, float classes a float.
void checkSignaturePredicates(const Operation &op, HookContext &ctx) {
  // Export metadata needs an export boundary (a public or exported function) to travel with.
  if (const Attribute *meta = op.attr("export_metadata"); meta && !meta->entries().empty())
    if (!op.hasAttr("public") && !op.hasAttr("export"))
      ctx.attrConstraint(op, "export_metadata", std::to_string(meta->entries().size()),
                         "zero entries unless the function is public or explicitly exported");
  const Attribute *where = op.attr("where");
  if (!where) return;
  static constexpr std::string_view kIntegerRelations[] = {"eq", "ne",    "lt",  "le",  "gt",
                                                           "ge", "range", "mul", "min", "max"};
  static constexpr std::string_view kFloatClasses[] = {"finite", "nan", "not_nan", "notnan", "inf", "not_inf"};
  std::span<Attribute *const> predicates = where->elements();
  for (size_t k = 0; k < predicates.size(); ++k) {
    const Attribute *p = predicates[k];
    if (!p || p->kind() != AttrKind::Predicate || p->elements().empty()) continue;
    std::string field = "predicates[" + std::to_string(k) + "].arg[0]";
    const Attribute *subject = p->elements()[0];
    if (subject->kind() != AttrKind::ValueRef) {
      ctx.report(DiagId::StructurePredicateOperand, op)
          .arg("op", std::string(op.name()))
          .arg("field", field)
          .arg("expected", "a function argument or named result")
          .arg("field_name", field)
          .arg("required_origin", "a function argument or named result");
      continue;
    }
    const Type *t = subject->value() ? subject->value()->type() : nullptr;
    if (skip(t)) continue;
    auto in = [&](std::span<const std::string_view> names) {
      return std::find(names.begin(), names.end(), p->str()) != names.end();
    };
    if (in(kIntegerRelations) && !t->isInteger() && !t->isAddress())
      ctx.operandError(op, field, t, "integer, index, or offset scalar");
    else if (in(kFloatClasses) && !t->isFloat())
      ctx.operandError(op, field, t, "floating-point scalar");
  }
}

}  // namespace hrx::loom::verify

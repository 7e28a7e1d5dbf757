#include "hrx/bridge/IrQueries.h"

#include <cmath>

namespace hrx::bridge::ir {

using loom::Attribute;
using loom::AttrKind;
using loom::Operation;

std::span<loom::Value *const> signatureValues(const Operation &op, unsigned region) {
  if (region >= op.numRegions() || op.region(region)->empty()) return {};
  return op.region(region)->entryBlock()->arguments();
}

std::vector<const loom::Type *> signatureTypes(const Operation &op, unsigned region) {
  std::vector<const loom::Type *> types;
  for (const loom::Value *v : signatureValues(op, region)) types.push_back(v->type());
  return types;
}

std::vector<const loom::Type *> functionResultTypes(const Operation &op) {
  std::vector<const loom::Type *> types;
  for (std::string_view name : {"results", "fnresults", "result_types"})
    if (const Attribute *a = op.attr(name); a && a->kind() == AttrKind::Array) {
      for (const Attribute *e : a->elements())
        if (e->type()) types.push_back(e->type());
      return types;
    }
  // Otherwise the body's func.return says what the function returns.
  if (op.numRegions() == 0 || op.region(0)->empty()) return types;
  bool found = false;
  for (loom::Block *block : op.region(0)->blocks()) {
    const Operation *term = block->terminator();
    if (found || !term || term->opcode() != loom::OpCode::FuncReturn) continue;
    for (const loom::Value *v : term->operands()) types.push_back(v->type());
    found = true;
  }
  return types;
}

bool sameType(const loom::Type *a, const loom::Type *b) {
  if (a == b) return true;
  if (!a || !b || a->kind() != b->kind()) return false;
  return a->str() == b->str();
}

std::vector<IndexEntry> indexList(const Operation &op, std::string_view group) {
  std::vector<IndexEntry> entries;
  if (const Attribute *list = op.attr(group); list && list->kind() == AttrKind::Array) {
    for (const Attribute *e : list->elements()) {
      if (e->kind() == AttrKind::Integer)
        entries.emplace_back(e->integer());
      else if (e->kind() == AttrKind::ValueRef)
        entries.emplace_back(static_cast<const loom::Value *>(e->value()));
    }
    return entries;
  }
  for (const loom::Value *v : op.operandGroup(group)) entries.emplace_back(v);
  return entries;
}

std::vector<const Attribute *> predicates(const Operation &op) { return loom::predicatesOf(op); }

namespace {

// A predicate argument as a number: the bound value for SSA references, else the literal.
std::optional<double> argumentValue(const Attribute *a, const ConfigValue &value) {
  switch (a->kind()) {
  case AttrKind::ValueRef: return value.isFloat ? value.floating : double(value.integer);
  case AttrKind::Integer: return double(a->integer());
  case AttrKind::Float: return a->floating();
  default: return std::nullopt;
  }
}

std::string attributeText(const Attribute *a) {
  switch (a->kind()) {
  case AttrKind::ValueRef: return "%" + std::string(a->value() ? a->value()->name() : "value");
  case AttrKind::Integer: return std::to_string(a->integer());
  case AttrKind::Float: {
    std::string s = std::to_string(a->floating());
    return s;
  }
  default: return std::string(a->str());
  }
}

}  // namespace

std::optional<bool> evaluatePredicate(const Attribute &predicate, const ConfigValue &value) {
  std::vector<double> args;
  for (const Attribute *a : predicate.elements()) {
    std::optional<double> v = argumentValue(a, value);
    if (!v) return std::nullopt;
    args.push_back(*v);
  }
  std::string_view name = predicate.str();
  auto arity = [&](size_t n) { return args.size() == n; };
  if (name == "range" && arity(3)) return args[0] >= args[1] && args[0] <= args[2];
  if (name == "mul" && arity(2)) return args[1] != 0 && std::fmod(args[0], args[1]) == 0;
  if (name == "pow2" && arity(1)) {
    int64_t v = int64_t(args[0]);
    return double(v) == args[0] && v > 0 && (v & (v - 1)) == 0;
  }
  if (name == "finite" && arity(1)) return std::isfinite(args[0]);
  if (name == "not_nan" && arity(1)) return !std::isnan(args[0]);
  if (name == "not_inf" && arity(1)) return !std::isinf(args[0]);
  if (arity(2)) {
    if (name == "lt") return args[0] < args[1];
    if (name == "le") return args[0] <= args[1];
    if (name == "eq") return args[0] == args[1];
    if (name == "ne") return args[0] != args[1];
    if (name == "gt") return args[0] > args[1];
    if (name == "ge" || name == "min") return args[0] >= args[1];
    if (name == "max") return args[0] <= args[1];
  }
  return std::nullopt;
}

std::string predicateText(const Attribute &predicate) {
  std::string text = std::string(predicate.str()) + "(";
  bool first = true;
  for (const Attribute *a : predicate.elements()) {
    text += (first ? "" : ", ") + attributeText(a);
    first = false;
  }
  return text + ")";
}

bool attributeValue(const Attribute *attr, ConfigValue &value) {
  if (!attr) return false;
  switch (attr->kind()) {
  case AttrKind::Integer:
    value.integer = attr->integer();
    value.spelling = std::to_string(value.integer);
    return true;
  case AttrKind::Bool:
    value.integer = attr->boolean();
    value.spelling = attr->boolean() ? "true" : "false";
    return true;
  case AttrKind::Float:
    value.isFloat = true;
    value.floating = attr->floating();
    value.spelling = attributeText(attr);
    return true;
  default: return false;
  }
}

uint64_t elementBytes(const loom::Type &type) {
  if (type.isAddress()) return 8;
  if (type.isInteger()) return type.width() <= 8 ? 1 : type.width() / 8;
  if (type.isFloat()) return type.width() / 8;
  return 0;
}

std::optional<int64_t> integerAttr(const Operation &op, std::string_view name) {
  const Attribute *a = op.attr(name);
  for (const loom::NamedAttr &named : op.attributes())
    if (!a && named.value && named.value->kind() == AttrKind::Dict) a = named.value->get(name);
  if (a && a->kind() == AttrKind::Integer) return a->integer();
  return std::nullopt;
}

}  // namespace hrx::bridge::ir

namespace hrx::bridge::ir {

std::vector<const loom::Operation *> providerCandidates(const Program &program, const loom::Operation &apply) {
  std::vector<const loom::Operation *> out;
  const loom::Attribute *family = apply.templateParam(0);
  if (!family) return out;
  // A family is one name: template.apply<@f> and func.apply<f> both select among
  // template.def<@f> and func.template<f> providers (upstream's docs examples mix them).
  for (const loom::OwningModule &module : program.modules)
    for (const loom::Operation &op : module->body()) {
      bool provider = op.opcode() == loom::OpCode::TemplateDef || op.opcode() == loom::OpCode::FuncTemplate;
      const loom::Attribute *of = provider ? op.templateParam(0) : nullptr;
      if (of && of->str() == family->str()) out.push_back(&op);
    }
  return out;
}

namespace {

// The target family of a target record ("amdgpu", "aie2p", ...): its op name's dialect.
std::string_view recordFamily(const Program &program, const loom::Operation &provider) {
  const loom::Attribute *target = provider.attr("target");
  if (!target) return {};
  const SymbolEntry *record = program.lookup(target->str());
  const loom::Operation *op = record ? record->op : nullptr;
  // A record only a provider names is not in the program's symbol table (nothing reachable uses
  // it); look it up in the modules.
  for (size_t i = 0; !op && i < program.modules.size(); ++i) op = program.modules[i]->lookupSymbol(target->str());
  if (!op) return "unknown";
  std::string_view name = op->name();
  return name.substr(0, name.find('.'));
}

// False when a `requires [...]` entry is known not to hold.
bool requirementsHold(const loom::Operation &provider, uint64_t subgroupSize) {
  // `when [...]` is upstream's newer spelling of `requires [...]`.
  const loom::Attribute *requires_ = provider.attr("requires");
  if (!requires_) requires_ = provider.attr("when");
  if (!requires_) return true;
  for (const loom::Attribute *r : requires_->elements()) {
    if (r->str() != "target.subgroup.size") continue;
    for (const loom::NamedAttr &p : r->entries())
      if (p.value && p.value->kind() == loom::AttrKind::Integer && uint64_t(p.value->integer()) != subgroupSize)
        return false;
  }
  return true;
}

// False when a `where` fact is known to fail on the use's constant arguments.
bool factsHold(const Program &program, const loom::Operation &provider, const loom::Operation &apply) {
  std::span<loom::Value *const> params = signatureValues(provider, 0);
  std::span<loom::Value *const> args = apply.operandGroup("args");
  auto valueOf = [&](const loom::Attribute *a) -> std::optional<int64_t> {
    if (a->kind() == loom::AttrKind::Integer) return a->integer();
    if (a->kind() != loom::AttrKind::ValueRef) return std::nullopt;
    for (size_t i = 0; i < params.size() && i < args.size(); ++i)
      if (params[i] == a->value()) return program.evaluateInteger(args[i]);
    return std::nullopt;
  };
  const loom::Attribute *where = provider.attr("where");
  if (!where) return true;
  for (const loom::Attribute *p : where->elements()) {
    auto e = p->elements();
    std::vector<std::optional<int64_t>> v;
    for (const loom::Attribute *a : e) v.push_back(valueOf(a));
    bool known = !v.empty();
    for (const auto &x : v) known = known && x.has_value();
    if (!known) continue;
    std::string_view k = p->str();
    bool holds = true;
    if (k == "eq" && v.size() == 2)
      holds = *v[0] == *v[1];
    else if (k == "ne" && v.size() == 2)
      holds = *v[0] != *v[1];
    else if (k == "lt" && v.size() == 2)
      holds = *v[0] < *v[1];
    else if (k == "le" && v.size() == 2)
      holds = *v[0] <= *v[1];
    else if (k == "gt" && v.size() == 2)
      holds = *v[0] > *v[1];
    else if ((k == "ge" || k == "min") && v.size() == 2)
      holds = *v[0] >= *v[1];
    else if (k == "max" && v.size() == 2)
      holds = *v[0] <= *v[1];
    else if (k == "range" && v.size() == 3)
      holds = *v[0] >= *v[1] && *v[0] <= *v[2];
    else if (k == "mul" && v.size() == 2)
      holds = *v[1] != 0 && *v[0] % *v[1] == 0;
    if (!holds) return false;
  }
  return true;
}

}  // namespace

const loom::Operation *selectProvider(const Program &program, const loom::Operation &apply,
                                      std::string_view targetFamily, uint64_t subgroupSize) {
  const loom::Operation *best = nullptr;
  int64_t bestPriority = 0;
  for (const loom::Operation *candidate : providerCandidates(program, apply)) {
    std::string_view family = recordFamily(program, *candidate);
    if (!family.empty() && family != targetFamily) continue;
    if (!requirementsHold(*candidate, subgroupSize) || !factsHold(program, *candidate, apply)) continue;
    int64_t priority = integerAttr(*candidate, "priority").value_or(0);
    if (!best || priority > bestPriority) {
      best = candidate;
      bestPriority = priority;
    }
  }
  return best;
}

}  // namespace hrx::bridge::ir

namespace hrx::bridge::ir {

std::string_view allocaSpace(const loom::Operation &alloca) {
  if (const loom::Attribute *space = alloca.templateParam(0)) return space->str();
  const loom::Attribute *space = alloca.attr("memory_space");
  return space ? space->str() : std::string_view();
}

int64_t allocaAlignment(const loom::Operation &alloca) {
  if (std::optional<int64_t> align = integerAttr(alloca, "align")) return *align;
  return integerAttr(alloca, "base_alignment").value_or(16);
}

}  // namespace hrx::bridge::ir

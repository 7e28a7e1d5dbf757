// scf.switch (a region per case plus the default region) and scf.lookup (a row of values per case
// plus the default row): sorted unique keys, and what each case gives matches the results.
#include "HookContext.h"

#include <unordered_map>

namespace hrx::loom::verify {

using diag::DiagId;

namespace {

void checkKeys(const Operation &op, HookContext &ctx) {
  const Attribute *keys = op.attr("case_keys");
  if (!keys) return;
  auto list = keys->elements();
  for (size_t i = 1; i < list.size(); ++i)
    if (list[i]->integer() <= list[i - 1]->integer())
      return ctx.attrConstraint(op, "case_keys", std::to_string(list[i]->integer()),
                                "a strictly increasing sorted unique case key (after " +
                                    std::to_string(list[i - 1]->integer()) + ")");
}

// One region's or row's values against the results; `field` names them as upstream does.
void checkRow(const Operation &op, HookContext &ctx, std::span<Value *const> given, const std::string &field,
              std::string_view item) {
  std::unordered_map<const Value *, const Value *> forward;
  for (size_t k = 0; k < given.size() && k < op.numResults(); ++k) forward[op.result(unsigned(k))] = given[k];
  for (size_t k = 0; k < given.size() && k < op.numResults(); ++k) {
    const Type *g = given[k]->type(), *w = op.result(unsigned(k))->type();
    if (unknownType(g) || unknownType(w) || sameUnderRenaming(w, g, forward)) continue;
    ctx.fieldMismatch(op, field + std::string(item) + "[" + std::to_string(k) + "]", g,
                      "results[" + std::to_string(k) + "]", w);
    return;
  }
}

void checkSwitch(const Operation &op, HookContext &ctx) {
  if (const Value *sel = op.operandNamed("selector"); sel && !unknownType(sel->type()) && !sel->type()->isIndex())
    ctx.operandError(op, "selector", sel->type(), "index");
  checkKeys(op, ctx);
  for (unsigned r = 0; r < op.numRegions(); ++r) {
    const Block *entry = op.region(r)->entryBlock();
    const Operation *yield = entry ? entry->terminator() : nullptr;
    if (!yield || yield->opcode() != OpCode::ScfYield) continue;  // the terminator rule reports it
    std::string field = r == 0 ? "default_region" : "case_regions[" + std::to_string(r - 1) + "]";
    std::span<Value *const> values = yield->operands();
    if (values.size() != op.numResults()) {
      ctx.countMismatch(op, field + ".yield", values.size(), "results", op.numResults());
      continue;
    }
    checkRow(op, ctx, values, field, ".yield");
  }
}

void checkLookup(const Operation &op, HookContext &ctx) {
  if (const Value *sel = op.operandNamed("selector"); sel && !unknownType(sel->type()) && !sel->type()->isIndex())
    ctx.operandError(op, "selector", sel->type(), "index");
  checkKeys(op, ctx);
  const Attribute *keys = op.attr("case_keys");
  size_t rows = (keys ? keys->elements().size() : 0) + 1;
  std::span<Value *const> table = op.operandGroup("table");
  size_t width = op.numResults();
  if (table.size() != rows * width)
    return ctx.countMismatch(op, "table", table.size(), "(case key count + default row) * result count", rows * width);
  for (size_t i = 0; i < table.size(); ++i) {
    const Type *g = table[i]->type(), *w = op.result(unsigned(i % width))->type();
    if (unknownType(g) || unknownType(w) || g == w) continue;
    ctx.fieldMismatch(op, "table[" + std::to_string(i) + "]", g, "results[" + std::to_string(i % width) + "]", w);
    return;
  }
}

}  // namespace

void checkSwitchOp(const Operation &op, HookContext &ctx) {
  if (op.opcode() == OpCode::ScfSwitch) return checkSwitch(op, ctx);
  if (op.opcode() == OpCode::ScfLookup) return checkLookup(op, ctx);
}

}  // namespace hrx::loom::verify

// command.* (host command programs): a program's contract (its launch bindings are buffers), a
// launch against the program it names (counts, then types), a parameter key pattern, and the rule
// that the program's own code only prepares launch arguments (upstream's STRUCTURE/053).
#include "HookContext.h"

#include <optional>

namespace hrx::loom::verify {

using diag::DiagId;

namespace {

// The program's specialization arguments, then its launch bindings, in one entry block.
struct ProgramSignature {
  std::span<Value *const> specs, bindings;
};

std::optional<ProgramSignature> signatureOf(const Operation &program) {
  const Attribute *launch = program.attr("launch");
  const Block *entry = program.numRegions() ? program.region(0)->entryBlock() : nullptr;
  if (!launch || !entry) return std::nullopt;
  std::span<Value *const> args = entry->arguments();
  size_t bindings = std::min(size_t(launch->integer()), args.size());
  return ProgramSignature{args.first(args.size() - bindings), args.last(bindings)};
}

void checkProgram(const Operation &op, HookContext &ctx) {
  std::optional<ProgramSignature> sig = signatureOf(op);
  if (!sig) return;
  for (size_t k = 0; k < sig->bindings.size(); ++k) {
    const Type *t = sig->bindings[k]->type();
    if (!unknownType(t) && t->kind() != TypeKind::Buffer)
      return ctx.operandError(op, "launch binding " + std::to_string(k), t, "buffer");
  }
}

void checkList(const Operation &op, HookContext &ctx, std::span<Value *const> given, std::span<Value *const> want,
               std::string_view field, std::string_view contract) {
  for (size_t k = 0; k < given.size() && k < want.size(); ++k) {
    const Type *t = given[k]->type(), *w = want[k]->type();
    if (unknownType(t) || unknownType(w) || t == w) continue;
    if (!w->hasStaticShape() && t->kind() == w->kind()) continue;  // dependent shapes: checked at the use
    ctx.fieldMismatch(op, std::string(field) + " " + std::to_string(k), t,
                      std::string(contract) + " " + std::to_string(k), w);
    return;  // upstream reports the first
  }
}

void checkLaunch(const Operation &op, HookContext &ctx) {
  const Operation *program = ctx.resolveSymbol(op, "callee", {OpCode::CommandProgramDef, OpCode::CommandProgramDecl},
                                               "expected command program");
  if (!program) return;
  std::optional<ProgramSignature> sig = signatureOf(*program);
  if (!sig) return;
  std::span<Value *const> specs = op.operandGroup("spec"), bindings = op.operandGroup("args");
  if (specs.size() != sig->specs.size())
    return ctx.countMismatch(op, "specialization", specs.size(), "program specialization argument", sig->specs.size());
  if (bindings.size() != sig->bindings.size())
    return ctx.countMismatch(op, "binding", bindings.size(), "program launch binding", sig->bindings.size());
  checkList(op, ctx, specs, sig->specs, "specialization", "program specialization argument");
  checkList(op, ctx, bindings, sig->bindings, "binding", "program launch binding");
}

void patternError(const Operation &op, HookContext &ctx, std::string_view pattern, std::string expected) {
  ctx.report(DiagId::StructureAttrValue, op)
      .arg("op", std::string(op.name()))
      .arg("attr_name", "pattern")
      .arg("actual_value", std::string(pattern))
      .arg("expected_constraint", std::move(expected));
}

// A key pattern names one parameter per index: "blk.{}.weight"[%layer].
void checkParameter(const Operation &op, HookContext &ctx) {
  if (const Type *t = op.operandNamed("parameters") ? op.operandNamed("parameters")->type() : nullptr;
      !unknownType(t) && t->kind() != TypeKind::Buffer)
    return ctx.operandError(op, "parameters", t, "buffer");
  for (Value *v : op.operandGroup("indices"))
    if (!unknownType(v->type()) && !v->type()->isIndex()) return ctx.operandError(op, "indices", v->type(), "index");
  if (op.numResults() && !unknownType(op.result(0)->type()) && op.result(0)->type()->kind() != TypeKind::View)
    return ctx.resultError(op, "result", op.result(0)->type(), "a view");
  const Attribute *a = op.attr("pattern");
  if (!a) return;
  std::string_view pattern = a->str();
  if (pattern.empty()) return patternError(op, ctx, pattern, "a non-empty parameter key pattern");
  size_t placeholders = 0;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '{' && i + 1 < pattern.size() && pattern[i + 1] == '}') {
      ++placeholders;
      ++i;
    } else if (pattern[i] == '{' || pattern[i] == '}') {
      return patternError(op, ctx, pattern, "only complete '{}' index placeholders");
    }
  }
  size_t indices = op.operandGroup("indices").size();
  if (placeholders != indices)
    patternError(op, ctx, pattern, "exactly " + std::to_string(indices) + " '{}' placeholders");
}

bool pureCall(const Operation &call, HookContext &ctx) {
  if (call.hasAttr("pure")) return true;
  const Attribute *callee = call.attr("callee");
  const Operation *target = callee && ctx.module() ? ctx.module()->lookupSymbol(callee->str()) : nullptr;
  return target && target->hasAttr("pure");
}

// Why `op` cannot run as a command program's preparation code, or empty when it can.
std::string notPreparation(const Operation &op, HookContext &ctx) {
  Effects e = effectsOf(op, ctx);
  if (op.opcode() == OpCode::FuncCall && e.any()) return "it calls a function not marked pure";
  if (e.convergent) return "it is convergent";
  if (e.observable) return "its effects are observable";
  if (e.reads || e.writes) return "it reads or writes memory";
  return "";
}

// Every op of a command program's own code, nested regions included, launches excepted.
void checkPreparation(const Operation &program, HookContext &ctx) {
  auto walk = [&](auto &self, const Region &region) -> void {
    for (Block *b : region.blocks())
      for (const Operation &inner : *b) {
        if (inner.opcode() == OpCode::KernelLaunch || inner.opcode() == OpCode::KernelDispatch) continue;
        if (std::string reason = notPreparation(inner, ctx); !reason.empty())
          ctx.report(DiagId::StructureNotPreparation, inner)
              .arg("op_name", std::string(inner.name()))
              .arg("reason", std::move(reason));
        for (Region &r : inner.regions()) self(self, r);
      }
  };
  for (Region &r : program.regions()) walk(walk, r);
}

}  // namespace

Effects effectsOf(const Operation &op, HookContext &ctx) {
  Effects e;
  switch (op.opcode()) {
  case OpCode::FuncCall:
    if (!pureCall(op, ctx)) e.reads = e.writes = 1;  // an unknown callee may do anything
    return e;
  case OpCode::TestConvergent: e.convergent = 1; return e;
  case OpCode::TestEffectfulConstant: e.observable = 1; return e;
  case OpCode::BufferFence: e.reads = e.writes = 1; return e;
  default: break;
  }
  const OpDef *def = op.def();
  VerifyHook hook = def ? def->hook : VerifyHook::None;
  std::string_view name = op.name();
  bool atomic = name.starts_with("view.atomic.") || name.starts_with("vector.atomic.");
  if (atomic && name != "view.atomic.load") e.writes = 1;
  if (atomic && name != "view.atomic.store") e.reads = 1;
  if (atomic) return e;
  if (op.opcode() == OpCode::ViewLoad || hook == VerifyHook::VectorLoad || name.starts_with("vector.gather") ||
      name.starts_with("global.load"))
    e.reads = 1;
  if (op.opcode() == OpCode::ViewStore || hook == VerifyHook::VectorStore || hook == VerifyHook::Scatter ||
      name.starts_with("global.store"))
    e.writes = 1;
  return e;
}

void checkKernelConfigEffects(const Operation &kernel, HookContext &ctx) {
  if (kernel.opcode() != OpCode::KernelDef || kernel.numRegions() == 0) return;
  Effects total;
  auto add = [&](const Operation &inner) {
    Effects e = effectsOf(inner, ctx);
    total.reads += e.reads;
    total.writes += e.writes;
    total.convergent += e.convergent;
    total.observable += e.observable;
  };
  for (Block *b : kernel.region(0)->blocks())
    for (const Operation &inner : *b) inner.walk(add);
  if (!total.any()) return;
  ctx.report(DiagId::StructureConfigEffects, kernel)
      .arg("op_name", std::string(kernel.name()))
      .arg("read_count", std::to_string(total.reads))
      .arg("write_count", std::to_string(total.writes))
      .arg("convergent_count", std::to_string(total.convergent))
      .arg("observable_count", std::to_string(total.observable));
}

void checkCommandOp(const Operation &op, HookContext &ctx) {
  switch (op.opcode()) {
  case OpCode::CommandProgramDef: checkProgram(op, ctx); return checkPreparation(op, ctx);
  case OpCode::CommandProgramDecl: return checkProgram(op, ctx);
  case OpCode::CommandProgramLaunch: return checkLaunch(op, ctx);
  case OpCode::CommandParameter: return checkParameter(op, ctx);
  default: return;
  }
}

}  // namespace hrx::loom::verify

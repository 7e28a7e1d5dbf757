// Static semantics (reference §6) and the flow-form record-shape rules (reference §5.10).
#include "hrx/loom/OpDef.h"
#include "verify/HookContext.h"

#include <algorithm>
#include <functional>
#include <cstdint>
#include <map>
#include <tuple>
#include <optional>
#include <unordered_map>

namespace hrx::loom {

// Type equality where SSA values a type names (extents, layouts) may be renamed by `renamed`.
bool verify::sameUnderRenaming(const Type *a, const Type *b,
                               const std::unordered_map<const Value *, const Value *> &renamed) {
  if (a == b) return true;
  if (!a || !b || a->kind() != b->kind() || !a->isShaped() || a->rank() != b->rank()) return false;
  auto sameValue = [&](const Value *x, const Value *y) {
    if (x == y) return true;
    auto it = renamed.find(x);
    return it != renamed.end() && it->second == y;
  };
  for (size_t d = 0; d < a->rank(); ++d) {
    const Dim &x = a->shape()[d], &y = b->shape()[d];
    if (x.isStatic() != y.isStatic() || (x.isStatic() && x.extent != y.extent)) return false;
    if (!x.isStatic() && !sameValue(x.dynamic, y.dynamic)) return false;
  }
  TypeSlot x = a->slot(), y = b->slot();
  if (x.attr != y.attr || bool(x.value) != bool(y.value) || (x.value && !sameValue(x.value, y.value))) return false;
  return sameUnderRenaming(a->elementType(), b->elementType(), renamed);
}

namespace {

using diag::DiagId;

std::string_view classDescription(TypeClass c) {
  switch (c) {
  case TypeClass::Any: return "any type";
  case TypeClass::Address: return "address (index or offset)";
  case TypeClass::Index: return "index";
  case TypeClass::Int: return "an integer type";
  case TypeClass::Float: return "a floating-point type";
  case TypeClass::Scalar: return "an integer or floating-point type";
  case TypeClass::Buffer: return "buffer";
  case TypeClass::IntVector: return "a vector of integers (integer_element lanes)";
  case TypeClass::FloatVector: return "a vector of floats (float_element lanes)";
  case TypeClass::AnyVector: return "a vector";
  }
  return "?";
}

bool inClass(const Type *t, TypeClass c) { return typeInClass(t, c); }

bool isKind(const Type *t, TypeKind k) { return t && t->kind() == k; }
bool unknown(const Type *t) { return !t || t->isUnknown() || t->kind() == TypeKind::Opaque; }

// Scalar element of a scalar or vector type.
const Type *elementOf(const Type *t) { return t->kind() == TypeKind::Vector ? t->elementType() : t; }

bool sameShape(const Type *a, const Type *b) {
  if (a->isShaped() != b->isShaped()) return false;
  if (!a->isShaped()) return true;
  return std::equal(a->shape().begin(), a->shape().end(), b->shape().begin(), b->shape().end());
}

std::string dimStr(const Dim &d) {
  return d.isStatic() ? std::to_string(d.extent) : "[%" + std::string(d.dynamic->name()) + "]";
}

// What the flow analysis knows about a record stream.
struct FlowInfo {
  int64_t lanes = -1;         // -1: not a compile-time constant
  std::vector<Dim> temporal;  // the record sequence shape of each lane
};

class Verifier {
public:
  Verifier(const Module &m, diag::DiagnosticEngine &diags, const VerifyOptions &options)
      : m_(m), diags_(diags), options_(options) {}

  bool run() {
    std::unordered_map<std::string_view, const Operation *> seen;
    for (const Operation &op : m_.body()) {
      std::string_view sym = op.symbolName();
      if (!sym.empty()) {
        auto [it, inserted] = seen.emplace(sym, &op);
        if (!inserted)
          report(DiagId::SymbolRedefined, op)
              .arg("name", "@" + std::string(sym))
              .note(it->second->loc(), "previous definition is here");
      }
      if (!op.isOpaque() && !op.def()->has(opflag::Symbol))
        report(DiagId::StructureNonSymbolAtModuleLevel, op).arg("op", std::string(op.name()));
    }
    for (const Operation &op : m_.body()) verifyOp(op, nullptr, nullptr);
    return ok_;
  }

private:
  // The report forms are the hooks' (verify/HookContext.h); these forward to them.
  diag::DiagnosticBuilder report(DiagId id, const Operation &op) { return ctx_.report(id, op); }
  void operandError(const Operation &op, std::string_view field, const Type *actual, std::string expected) {
    ctx_.operandError(op, field, actual, std::move(expected));
  }
  void resultError(const Operation &op, std::string_view field, const Type *actual, std::string expected) {
    ctx_.resultError(op, field, actual, std::move(expected));
  }
  void fieldMismatch(const Operation &op, std::string fa, const Type *ta, std::string fb, const Type *tb) {
    ctx_.fieldMismatch(op, std::move(fa), ta, std::move(fb), tb);
  }
  void elementMismatch(const Operation &op, std::string fa, const Type *ta, std::string fb, const Type *tb) {
    ctx_.elementMismatch(op, std::move(fa), ta, std::move(fb), tb);
  }
  void countMismatch(const Operation &op, std::string fa, size_t na, std::string fb, size_t nb) {
    ctx_.countMismatch(op, std::move(fa), na, std::move(fb), nb);
  }
  void shapeMismatch(const Operation &op, std::string fa, const Type *ta, std::string fb, const Type *tb) {
    ctx_.shapeMismatch(op, std::move(fa), ta, std::move(fb), tb);
  }
  void attrConstraint(const Operation &op, std::string attr, std::string actual, std::string expected) {
    ctx_.attrConstraint(op, std::move(attr), std::move(actual), std::move(expected));
  }
  bool requireOperand(const Operation &op, std::string_view field, bool cond, std::string expected) {
    Value *v = op.operandNamed(field);
    if (!v || cond || unknown(v->type())) return true;
    operandError(op, field, v->type(), std::move(expected));
    return false;
  }

  const Operation *resolve(const Operation &op, std::string_view attrName, std::initializer_list<OpCode> kinds,
                           std::string_view expected) {
    return ctx_.resolveSymbol(op, attrName, kinds, expected);
  }

  // A low.func.def written with typed `low.return %v : T` (not an asm body) returns the types its
  // signature declares. Both are register types kept as text, so they are compared as written.
  void checkLowReturns(const Operation &fn) {
    auto squeeze = [](std::string_view s) {
      std::string out;
      for (char c : s)
        if (c != ' ') out += c;
      return out;
    };
    auto afterTopLevelColon = [](std::string_view s) -> std::optional<std::string_view> {
      int depth = 0;
      for (size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '<' || s[i] == '(') ++depth;
        if (s[i] == '>' || s[i] == ')') --depth;
        if (s[i] == ':' && depth == 0) return s.substr(i + 1);
      }
      return std::nullopt;
    };
    std::span<const std::string_view> text = fn.opaqueText();
    if (text.empty()) return;
    std::string_view head = text[0];
    size_t arrow = head.rfind("->");
    std::string declared = arrow == std::string_view::npos ? "" : squeeze(head.substr(arrow + 2));
    if (declared.size() >= 2 && declared.front() == '(' && declared.back() == ')')
      declared = declared.substr(1, declared.size() - 2);
    if (declared.ends_with("asm")) return;
    for (Region &r : fn.regions())
      for (Block *b : r.blocks())
        for (const Operation &inner : *b) {
          if (inner.name() != "low.return" || inner.opaqueText().empty()) continue;
          std::optional<std::string_view> types = afterTopLevelColon(inner.opaqueText()[0]);
          std::string_view written = types ? *types : std::string_view();
          while (written.starts_with(' ')) written.remove_prefix(1);
          if (squeeze(written) != declared)
            report(DiagId::TypeOperandMismatch, inner)
                .arg("op", "low.return")
                .arg("field", "values")
                .arg("actual", written.empty() ? "()" : std::string(written))
                .arg("expected", "the function results (" + declared + ")");
        }
  }

  // ---- walking ----
  void verifyOp(const Operation &op, const Operation *kernel, const Operation *pipeline) {
    if (op.isOpaque()) {
      if (op.opcode() == OpCode::LowFuncDef) checkLowReturns(op);
      bool checkDefinition = op.opcode() == OpCode::CheckCase || op.opcode() == OpCode::CheckScenario;
      if (op.opcode() != OpCode::Opaque) verify::checkCheckOp(op, ctx_);  // a TextBody row: its hook
      if (op.opcode() != OpCode::Opaque && opDef(op.opcode()).hook == VerifyHook::Low) verify::checkLowOp(op, ctx_);
      if (op.opcode() == OpCode::MetadataModule) verify::checkMetadataOp(op, ctx_);
      for (Region &r : op.regions())
        for (Block *b : r.blocks())
          for (const Operation &inner : *b) {
            // A case's wrong last op is its STRUCTURE/018, not also the op's own misplacement.
            if (checkDefinition && &inner == b->back() && isTerminator(inner)) continue;
            verifyOp(inner, kernel, pipeline);
          }
      return;
    }
    const OpDef &def = *op.def();
    if (op.opcode() == OpCode::KernelBarrier && kernel && kernel->opcode() == OpCode::KernelDef)
      verify::checkBarrierUniformity(op, *kernel, ctx_);
    if (def.has(opflag::InKernel) && !kernel) {
      // Upstream names the constraint and the isolated ancestor that broke it.
      std::string nearest = "the module";
      for (const Operation *p = op.parentOp(); p; p = p->parentOp())
        if (p->isOpaque() || p->def()->has(opflag::Isolated)) {
          nearest = std::string(p->name());
          break;
        }
      report(DiagId::StructureMisplacedOp, op)
          .arg("op", std::string(op.name()))
          .arg("parent", "a kernel.def body")
          .arg("placement", " (required ancestor kernel.def; the nearest isolated ancestor is " + nearest + ")")
          .arg("constraint_kind", "required")
          .arg("ancestor_name", "kernel.def")
          .arg("actual_ancestor", nearest);
    }
    if (def.has(opflag::InPipeline) && !pipeline)
      report(DiagId::StructureMisplacedOp, op)
          .arg("placement", "")
          .arg("op", std::string(op.name()))
          .arg("parent", "a pipeline.def body");
    checkTypeClass(op);
    checkHook(op);
    // A kernel.def body, and bodies placed into one later (func.def inline, template.def and
    // func.template providers), may use kernel coordinates; upstream defers their placement check.
    if (op.opcode() == OpCode::KernelDef || op.opcode() == OpCode::TemplateDef || op.opcode() == OpCode::FuncTemplate ||
        (op.opcode() == OpCode::FuncDef && op.attr("inline") && op.attr("inline")->str() == "inline"))
      kernel = &op;
    else if (def.has(opflag::Isolated))
      kernel = nullptr;  // any other isolated body ends the deferral (test.isolated_region)
    if (op.opcode() == OpCode::PipelineDef) {
      pipeline = &op;
      flows_.clear();
      lanes_.clear();
    }
    for (unsigned r = 0; r < op.numRegions(); ++r) verifyRegion(op, r, kernel, pipeline);
  }

  // The terminators allowed at the end of region `r` of `op` (empty: the region is a declaration).
  std::vector<OpCode> terminatorsFor(const Operation &op, unsigned r, std::string &spelled) {
    switch (op.opcode()) {
    case OpCode::FuncDef:
    case OpCode::FuncTemplate: spelled = "func.return"; return {OpCode::FuncReturn, OpCode::CfgBr, OpCode::CfgCondBr};
    case OpCode::TemplateDef: spelled = "template.return"; return {OpCode::TemplateReturn};
    case OpCode::ScfWhile:
      spelled = r == 0 ? "scf.condition" : "scf.yield";
      return {r == 0 ? OpCode::ScfCondition : OpCode::ScfYield};
    case OpCode::KernelDef:
      if (r == 0) {
        spelled = "kernel.launch.config";
        return {OpCode::KernelLaunchConfig};
      }
      spelled = "kernel.return";
      return {OpCode::KernelReturn, OpCode::CfgBr, OpCode::CfgCondBr};
    case OpCode::PipelineDef: spelled = "pipeline.return"; return {OpCode::PipelineReturn, OpCode::PipelineFinish};
    case OpCode::PipelineStrand: spelled = "pipeline.end"; return {OpCode::PipelineEnd};
    case OpCode::CommandProgramDef: spelled = "command.return"; return {OpCode::CommandReturn};
    case OpCode::ScfFor:
    case OpCode::ScfIf:
    case OpCode::ScfSwitch: spelled = "scf.yield"; return {OpCode::ScfYield};
    default: return {};
    }
  }

  void verifyRegion(const Operation &op, unsigned r, const Operation *kernel, const Operation *pipeline) {
    const Region &region = *op.region(r);
    std::string spelled;
    std::vector<OpCode> terms = terminatorsFor(op, r, spelled);
    bool declaration = op.opcode() == OpCode::FuncDecl || op.opcode() == OpCode::KernelDecl ||
                       op.opcode() == OpCode::ConfigDecl || op.opcode() == OpCode::CommandProgramDecl;
    bool multiBlockAllowed = op.opcode() == OpCode::FuncDef || op.opcode() == OpCode::FuncTemplate ||
                             (op.opcode() == OpCode::KernelDef && r == 1);
    if (!declaration && region.blocks().size() > 1 && !multiBlockAllowed) {
      report(DiagId::StructureRegionShape, op).arg("op", std::string(op.name())).arg("expected", "a single block");
      terms.clear();  // the terminator rule is moot once the shape is wrong
    }
    for (Block *b : region.blocks()) {
      for (const Operation &inner : *b) {
        if (isTerminator(inner) && inner.nextInBlock() && !inner.nextInBlock()->implicitTerminator())
          report(DiagId::StructureOpAfterTerminator, *inner.nextInBlock())
              .arg("op", std::string(inner.nextInBlock()->name()))
              .arg("terminator", std::string(inner.name()));
        verifyOp(inner, kernel, pipeline);
      }
      if (declaration || terms.empty()) continue;
      const Operation *last = b->back();
      // test.yield, the synthetic test dialect's terminator, ends any region (upstream's text corpus).
      if (last && last->opcode() == OpCode::TestYield) continue;
      if (!last || std::find(terms.begin(), terms.end(), last->opcode()) == terms.end())
        report(DiagId::StructureMissingTerminator, op)  // at the owner, as upstream reports it
            .arg("op", std::string(op.name()))
            .arg("region", std::to_string(r))
            .arg("terminator", "'" + spelled + "'")
            .arg("found", last ? ", not '" + std::string(last->name()) + "'" : std::string());
    }
    if (region.blocks().size() > 1) checkDominance(region);
  }

  // ---- generic type-family check ----
  void checkTypeClass(const Operation &op) {
    const OpDef &def = *op.def();
    if (def.typeClass == TypeClass::Any) return;
    if (op.opcode() == OpCode::ScalarAssume) return;  // its payload rule is verify/Scalar.cpp's (TYPE/004)
    if (!options_.everyTypedOperand) {
      for (const Directive &d : def.directives) {
        if (d.kind != Directive::TypeSlot) continue;
        for (const auto &b : d.bindings) {
          if (b.name == "r") continue;
          std::span<Value *const> group = op.operandGroup(b.name);
          for (size_t k = 0; k < group.size(); ++k)
            if (!unknown(group[k]->type()) && !inClass(group[k]->type(), def.typeClass))
              operandError(op, familyField(op, b.name, k), group[k]->type(),
                           std::string(classDescription(def.typeClass)));
          if (!group.empty()) return;
        }
      }
    } else {
      // The family is the first written type that binds an operand: each operand and the result
      // it binds is checked on its own, so independent errors are each reported (upstream reports
      // lhs, rhs and result of `index.mul %x, %y : offset` separately).
      for (const Directive &d : def.directives) {
        if (d.kind != Directive::TypeSlot) continue;
        bool typed = false, resultBound = false;
        for (const auto &b : d.bindings) {
          if (b.name == "r")
            resultBound = true;
          else if (!op.operandGroup(b.name).empty())
            typed = true;
        }
        if (!typed) continue;
        // With the result bound, the result's type is the written one, and an operand of another
        // type was already reported by the parser (TYPE/003 against the written type).
        Type *written = resultBound && def.results == "r" && op.numResults() ? op.result(0)->type() : nullptr;
        // Upstream's vector ops constrain the result's element family and tie the operands to it,
        // so one wrong type is one TYPE/004 on the result.
        bool resultOnly = written && op.name().starts_with("vector.");
        for (const auto &b : d.bindings) {
          if (b.name == "r" || resultOnly) continue;
          std::span<Value *const> group = op.operandGroup(b.name);
          for (size_t k = 0; k < group.size(); ++k)
            if (!unknown(group[k]->type()) && (!written || group[k]->type() == written) &&
                !inClass(group[k]->type(), def.typeClass))
              operandError(op, familyField(op, b.name, k), group[k]->type(),
                           std::string(classDescription(def.typeClass)));
          if (!written && !group.empty()) return;  // without a result: the first group only
        }
        // A kernel collective's result is its value's type: the value carries the one error.
        bool operandCarries = written && op.name().starts_with("kernel.") && op.numOperands() == 1;
        if (written && !operandCarries && !unknown(written) && !inClass(written, def.typeClass))
          resultError(op, "result", written, std::string(classDescription(def.typeClass)));
        return;
      }
    }
    // No typed operand: the first operand or the result carries the family.
    if (def.results == "r" || def.results == "r*") {
      if (op.numResults() && !unknown(op.result(0)->type()) && !inClass(op.result(0)->type(), def.typeClass))
        resultError(op, "result", op.result(0)->type(), std::string(classDescription(def.typeClass)));
    } else if (op.numOperands() && !unknown(op.operand(0)->type()) && !inClass(op.operand(0)->type(), def.typeClass)) {
      operandError(op, def.segmentNames.empty() ? std::string("operand") : familyField(op, def.segmentNames[0], 0),
                   op.operand(0)->type(), std::string(classDescription(def.typeClass)));
    }
  }

  // Upstream's name for an operand group in a family error: a unary op's `in` is its input, an
  // assume's operands are values[k], a launch configuration's sizes workgroup_size_x/y/z.
  static std::string familyField(const Operation &op, std::string_view group, size_t k) {
    if (group == "workgroup_size" && k < 3) return "workgroup_size_" + std::string(1, "xyz"[k]);
    if (group != "in") return std::string(group);
    if (op.def()->hook == VerifyHook::Assume) return "values[" + std::to_string(k) + "]";
    return "input";
  }

  void checkIndices(const Operation &op, std::string_view group) {
    for (Value *v : op.operandGroup(group))
      if (!unknown(v->type()) && !v->type()->isIndex()) operandError(op, group, v->type(), "index");
  }

  size_t indexCount(const Operation &op, std::string_view name) {
    Attribute *a = op.attr(name);
    return a ? a->elements().size() : 0;
  }

  // vector.extract/insert positions: 1 to rank of them, each static one inside its axis.
  bool checkPositions(const Operation &op, const Type *v) {
    size_t n = indexCount(op, "position");
    if (n == 0) return operandError(op, "position", v, "1 to " + std::to_string(v->rank()) + " positions"), false;
    if (n > v->rank()) return countMismatch(op, "static_indices", n, "vector rank", v->rank()), false;
    for (size_t d = 0; d < n; ++d) {
      const Attribute *p = op.attr("position")->elements()[d];
      const Dim &extent = v->shape()[d];
      if (p->kind() == AttrKind::Integer && extent.isStatic() && (p->integer() < 0 || p->integer() >= extent.extent)) {
        report(DiagId::SubrangeOutOfBounds, op)
            .arg("op", std::string(op.name()))
            .arg("detail", "position " + std::to_string(p->integer()) + " on axis " + std::to_string(d))
            .arg("type", v->str());
        return false;
      }
    }
    return true;
  }

  // ---- op-specific rules ----
  void checkHook(const Operation &op) {
    const OpDef &def = *op.def();
    Type *r0 = op.numResults() ? op.result(0)->type() : nullptr;
    auto in = [&](std::string_view n) -> Type * {
      Value *v = op.operandNamed(n);
      return v ? v->type() : nullptr;
    };
    if (verify::checkScalarOp(op, ctx_)) return;
    if (def.templateKind == "combining") verify::checkExchangeKind(op, ctx_);
    switch (def.hook) {
    case VerifyHook::None:
    case VerifyHook::Assume:
    case VerifyHook::SameCount:
    case VerifyHook::ConfigDef: {
      if (op.opcode() == OpCode::KernelBarrier) return checkBarrier(op);
      if (op.opcode() == OpCode::BufferAssumeMemorySpace) return verify::checkViewOp(op, ctx_);
      if (op.opcode() == OpCode::ConfigDecl || op.opcode() == OpCode::ConfigDef) {
        // Configs are compile-time scalars or encodings (upstream: TYPE/004 "scalar or encoding").
        const Attribute *t = op.attr("type");
        const Type *type = t ? t->type() : nullptr;
        if (type && !unknown(type) && !type->isScalar() && !type->isIndex() && !type->isOffset() &&
            !isKind(type, TypeKind::Encoding))
          return resultError(op, "type", type, "a scalar or encoding type");
        if (op.opcode() == OpCode::ConfigDef && type && isKind(type, TypeKind::Encoding)) {
          const Attribute *v = op.attr("value");
          if (v && v->kind() != AttrKind::Hash)
            return report(DiagId::TypeLiteralKind, op)
                       .arg("op", "config.def")
                       .arg("attr_name", "value")
                       .arg("actual", literalText(*v))
                       .arg("expected", "a static encoding attribute (#family<...>) for " + type->str()),
                   void();
          if (v && !encodingRole(v->str()).empty() && encodingRole(v->str()) != type->name())
            return report(DiagId::TypeFieldMismatch, op)
                       .arg("op", "config.def")
                       .arg("field_a", "value")
                       .arg("type_a", "encoding<" + std::string(encodingRole(v->str())) + ">")
                       .arg("field_b", "config")
                       .arg("type_b", type->str()),
                   void();
        }
      }
      if (op.opcode() == OpCode::EncodingLayoutStrided)
        if (const Attribute *strides = op.attr("strides"))
          for (const Attribute *e : strides->elements())
            if (e->kind() == AttrKind::Integer && e->integer() < 0 && e->integer() != INT64_MIN)
              return attrConstraint(op, "static_strides", std::to_string(e->integer()),
                                    "stride >= 0 or dynamic sentinel");
      if (op.opcode() == OpCode::KernelSubgroupReduce || op.opcode() == OpCode::KernelWorkgroupReduce)
        return checkCombiningKind(op);
      // The value must be one of the declared type (upstream rejects `2 : i1`, `1.5 : index`).
      Attribute *v = op.attr("value"), *t = op.attr("type");
      if (v && t && t->type() &&
          (v->kind() == AttrKind::Integer || v->kind() == AttrKind::Float || v->kind() == AttrKind::Bool))
        checkLiteral(op, *v, *t->type(), "value");
      return;
    }
    case VerifyHook::Function: {
      if (op.hasAttr("target")) resolve(op, "target", kTargetRecordOps, "a target record");
      if (op.opcode() == OpCode::KernelDef) {
        verify::checkKernelConfigEffects(op, ctx_);
        verify::checkKernelLinkage(op, ctx_);
      }
      if (op.opcode() == OpCode::FuncDef || op.opcode() == OpCode::FuncDecl) verify::checkSignaturePredicates(op, ctx_);
      // A flow-form pipeline's launch arguments are the buffers its flows read and write (the
      // strand form's run arguments may be channels and indices too).
      if (op.opcode() == OpCode::PipelineDef && op.attr("form") && op.attr("form")->str() == "launch")
        if (const Attribute *launch = op.attr("launch"); launch && op.region(0)->entryBlock()) {
          std::span<Value *const> args = op.region(0)->entryBlock()->arguments();
          size_t n = size_t(launch->integer());
          size_t first = args.size() >= n ? args.size() - n : 0;
          for (size_t k = first; k < args.size(); ++k)
            if (!unknown(args[k]->type()) && !isKind(args[k]->type(), TypeKind::Buffer))
              operandError(op, "launch binding " + std::to_string(k - first), args[k]->type(), "buffer");
        }
      return;
    }
    case VerifyHook::IndexScale:
      requireOperand(op, "lhs", in("lhs")->isIndex(), "index");
      requireOperand(op, "rhs", in("rhs")->isOffset(), "offset");
      if (!r0->isOffset()) resultError(op, "result", r0, "offset");
      return;
    case VerifyHook::IndexCast: {
      Type *from = in("in");
      if (unknown(from)) return;
      if (!from->isAddress() && !from->isInteger()) return operandError(op, "input", from, "integer, index, or offset");
      if (!r0->isAddress() && !r0->isInteger()) return resultError(op, "result", r0, "integer, index, or offset");
      if (!from->isAddress() && !r0->isAddress())
        resultError(op, "result", r0, "index or offset boundary (one side of an index.cast is index or offset)");
      return;
    }
    case VerifyHook::Constant: {
      Attribute *v = op.attr("value");
      if (v && !unknown(r0)) checkLiteral(op, *v, *elementOf(r0), "result");
      return;
    }
    case VerifyHook::ExtendInt:
    case VerifyHook::TruncateInt:
    case VerifyHook::ExtendFloat:
    case VerifyHook::TruncateFloat:
    case VerifyHook::IntToFloat:
    case VerifyHook::FloatToInt:
    case VerifyHook::Bitcast: checkCast(op, def.hook, in("in"), r0); return;
    case VerifyHook::VectorLoad:
    case VerifyHook::VectorStore: {
      return verify::checkVectorMemoryOp(op, ctx_);
    }
    case VerifyHook::ViewAccess: return verify::checkViewOp(op, ctx_);
    case VerifyHook::Splat: {
      Type *v = in("in");
      if (unknown(v) || !isKind(r0, TypeKind::Vector)) return;
      if (v != r0->elementType()) operandError(op, "in", v, r0->elementType()->str());
      return;
    }
    case VerifyHook::Iota: {
      // The coordinate domain is the base's: index or a non-i1 integer, and the lanes' type.
      Type *base = in("base");
      auto coordinate = [](const Type *t) { return t->isIndex() || (t->isInteger() && !t->isInteger(1)); };
      if (!unknown(base) && !coordinate(base)) return operandError(op, "base", base, "index or non-i1 integer scalar");
      if (!isKind(r0, TypeKind::Vector)) return resultError(op, "result", r0, "a vector of integers or indices");
      if (!unknown(base) && base != r0->elementType()) return elementMismatch(op, "base", base, "result", r0);
      if (Type *step = in("step"); !unknown(step) && !unknown(base) && step != base)
        fieldMismatch(op, "base", base, "step", step);
      return;
    }
    case VerifyHook::MaskRange: {
      Type *lo = in("lo");
      auto coordinate = [](const Type *t) { return t->isIndex() || (t->isInteger() && !t->isInteger(1)); };
      if (!unknown(lo) && !coordinate(lo)) return operandError(op, "lower_bound", lo, "index or non-i1 integer scalar");
      for (std::string_view n : {"hi", "step"})
        if (Type *t = in(n); !unknown(t) && !unknown(lo) && t != lo)
          return fieldMismatch(op, "lower_bound", lo, n == "hi" ? "upper_bound" : "step", t);
      if (!isKind(r0, TypeKind::Vector) || !r0->elementType()->isInteger(1))
        resultError(op, "result", r0, "a vector of i1_element lanes");
      return;
    }
    case VerifyHook::VectorCompare: {
      Type *lhs = in("lhs");
      if (unknown(lhs)) return;
      if (!isKind(r0, TypeKind::Vector) || !r0->elementType()->isInteger(1) || !sameShape(r0, lhs))
        resultError(op, "result", r0, "an i1_element vector shaped like " + lhs->str());
      return;
    }
    case VerifyHook::VectorSelect: {
      Type *mask = in("mask");
      if (unknown(mask) || !isKind(r0, TypeKind::Vector)) return;
      if (!isKind(mask, TypeKind::Vector) || !mask->elementType()->isInteger(1))
        operandError(op, "mask", mask, "an i1_element vector shaped like " + r0->str());
      else if (!sameShape(mask, r0))
        shapeMismatch(op, "mask", mask, "values", r0);
      return;
    }
    case VerifyHook::Reduce: {
      Type *v = in("in");
      if (unknown(v) || !isKind(v, TypeKind::Vector)) return;
      if (!unknown(in("init")) && in("init") != v->elementType())
        return elementMismatch(op, "input", v, "accumulator", in("init"));
      if (hasFloatFlags(op) && !v->elementType()->isFloat())
        return operandError(op, "input", v, "floating-point element type when float flags are present");
      // The kind's suffix names its element family: minimumf, mulf, ... and addi, maxsi, ...
      if (const Attribute *kind = op.templateParam(0); kind && kind->kind() == AttrKind::Ident) {
        std::string_view k = kind->str();
        if (k.ends_with("f") && !v->elementType()->isFloat())
          operandError(op, "in", v, "floating-point element type for reduce kind");
        else if (k.ends_with("i") && !v->elementType()->isInteger() && !v->elementType()->isIndex())
          operandError(op, "in", v, "integer element type for reduce kind");
      }
      return;
    }
    case VerifyHook::Dot: {
      // vector.dotf: same-typed float vectors summed into an accumulator of their element type.
      Type *lhs = in("lhs"), *rhs = in("rhs"), *init = in("init");
      if (unknown(lhs)) return;
      if (!isKind(lhs, TypeKind::Vector) || !lhs->elementType()->isFloat()) return;  // the op's type class reports it
      if (!unknown(rhs) && rhs != lhs) {
        if (isKind(rhs, TypeKind::Vector) && rhs->elementType() == lhs->elementType())
          return shapeMismatch(op, "lhs", lhs, "rhs", rhs);
        return elementMismatch(op, "lhs", lhs, "rhs", rhs);
      }
      if (unknown(init)) return;
      if (!init->isFloat()) return operandError(op, "init", init, "a float scalar");
      if (init != lhs->elementType()) elementMismatch(op, "lhs", lhs, "init", init);
      return;
    }
    case VerifyHook::Fragment: {
      checkIndices(op, "shape");
      checkIndices(op, "indices");
      if (indexCount(op, "shape") != 2) operandError(op, "shape", nullptr, "two extents [rows, columns]");
      if (op.opcode() == OpCode::VectorFragmentLoad && !isKind(r0, TypeKind::Vector))
        resultError(op, "result", r0, "a vector");
      Type *base = in("base");
      if (base && !unknown(base) && !isKind(base, TypeKind::View)) return operandError(op, "base", base, "a view");
      // A fragment's origin is a full-rank origin in its view, whatever the payload's shape.
      if (base && !unknown(base) && indexCount(op, "indices") != base->rank())
        ctx_.indexCountMismatch(op, "view", indexCount(op, "indices"), base->rank());
      return;
    }
    case VerifyHook::Mma: {
      for (std::string_view n : {"lhs", "rhs", "acc"})
        if (!unknown(in(n)) && !isKind(in(n), TypeKind::Vector)) operandError(op, n, in(n), "a vector");
      return;
    }
    case VerifyHook::Encode:
      if (!unknown(in("schema")) && (!isKind(in("schema"), TypeKind::Encoding) || in("schema")->name() != "schema"))
        operandError(op, "schema", in("schema"), "encoding<schema>");
      if (!isKind(r0, TypeKind::Vector)) resultError(op, "result", r0, "a vector");
      return;
    case VerifyHook::BufferView:
    case VerifyHook::Alloca: return verify::checkViewOp(op, ctx_);
    case VerifyHook::BufferOperand: requireOperand(op, "in", isKind(in("in"), TypeKind::Buffer), "buffer"); return;
    case VerifyHook::Subview: return verify::checkViewOp(op, ctx_);
    case VerifyHook::For: {
      // An interleaved schedule interleaves unrolled iterations: it needs an unroll.
      if (const Attribute *schedule = op.attr("schedule");
          schedule && schedule->str() == "interleaved" && !hasGroup(op, "unroll"))
        attrConstraint(op, "schedule", "interleaved", "paired with bare unroll or unroll factor");
      // `unroll(%f) unroll`: two unroll policies (the second is the optional keyword after the group).
      if (hasGroup(op, "unroll") && op.hasAttr("unroll"))
        attrConstraint(op, "unroll", "2", "either bare unroll or unroll factor, not both");
      Type *lo = in("lo");
      static constexpr std::string_view kBound[] = {"lower_bound", "upper_bound", "step"};
      const std::string_view names[] = {"lo", "hi", "step"};
      for (size_t k = 0; k < 3; ++k) {
        Type *t = in(names[k]);
        if (unknown(t)) continue;
        if (!t->isAddress())
          operandError(op, kBound[k], t, "index or offset");
        else if (k && lo && lo->isAddress() && t != lo)
          fieldMismatch(op, std::string(kBound[0]), lo, std::string(kBound[k]), t);
      }
      // One result per loop-carried value (count first; per-position types only when it holds).
      auto inits = op.operandGroup("inits");
      if (inits.size() != op.numResults())
        countMismatch(op, "iter_args", inits.size(), "results", op.numResults());
      else
        for (size_t k = 0; k < inits.size(); ++k)
          // A result type may name a sibling result, which the matching init stands for.
          if (!verify::sameUnderRenaming(op.region(0)->entryBlock()->argument(unsigned(k + 1))->type(),
                                         op.result(unsigned(k))->type(), initsAsResults(op, inits)))
            fieldMismatch(op, "iter_args[" + std::to_string(k) + "]",
                          op.region(0)->entryBlock()->argument(unsigned(k + 1))->type(),
                          "results[" + std::to_string(k) + "]", op.result(unsigned(k))->type());
      for (std::string_view n : {"depth", "factor"})
        if (Value *v = op.operandNamed(n))
          if (!unknown(v->type()) && !v->type()->isIndex()) operandError(op, n, v->type(), "index");
      return;
    }
    case VerifyHook::If:
      requireOperand(op, "cond", in("cond")->isInteger(1), "i1");
      if (op.numResults() && op.region(1)->empty())
        countMismatch(op, "else_region", 0, "present when scf.if has results", 1);
      return;
    case VerifyHook::Yield: {
      const Operation *parent = op.parentOp();
      if (parent && parent->opcode() == OpCode::ScfSwitch) return;  // verify/Scf.cpp checks each case
      if (!parent || (parent->opcode() != OpCode::ScfFor && parent->opcode() != OpCode::ScfIf &&
                      parent->opcode() != OpCode::ScfWhile)) {
        report(DiagId::StructureMisplacedOp, op)
            .arg("placement", "")
            .arg("op", "scf.yield")
            .arg("parent", "an scf.for, scf.if or scf.while region");
        return;
      }
      checkValuesAgainst(op, "values", parent->results());
      return;
    }
    case VerifyHook::Select: requireOperand(op, "cond", in("cond")->isInteger(1), "i1"); return;
    case VerifyHook::Branch: {
      if (Value *c = op.operandNamed("cond"))
        if (!unknown(c->type()) && !c->type()->isInteger(1)) operandError(op, "cond", c->type(), "i1");
      for (unsigned s = 0; s < op.successors().size(); ++s) {
        Block *target = op.successors()[s].block;
        auto args = op.successorOperands(s);
        if (args.size() != target->arguments().size()) {
          report(DiagId::StructureSuccessorArgCount, op)
              .arg("op_name", std::string(op.name()))
              .arg("successor_index", std::to_string(s))
              .arg("actual_count", std::to_string(args.size()))
              .arg("expected_count", std::to_string(target->arguments().size()));
          continue;
        }
        // Types may name earlier passed values (dependent types): those map to the block's arguments.
        std::unordered_map<const Value *, const Value *> renamed;
        for (size_t k = 0; k < args.size(); ++k) {
          const Type *actual = args[k]->type(), *expected = target->argument(unsigned(k))->type();
          if (!unknown(actual) && !unknown(expected) && !verify::sameUnderRenaming(actual, expected, renamed))
            report(DiagId::StructureSuccessorArgType, op)
                .arg("op_name", std::string(op.name()))
                .arg("successor_index", std::to_string(s))
                .arg("argument_index", std::to_string(k))
                .arg("actual_type", actual->str())
                .arg("expected_type", expected->str());
          renamed[args[k]] = target->argument(unsigned(k));
        }
      }
      return;
    }
    case VerifyHook::Call: {
      // check.* programs call kernels directly (a launch of the kernel with the case's tensors).
      bool inCheck = false;
      for (const Operation *p = op.parentOp(); p && !inCheck; p = p->parentOp())
        inCheck = p->isOpaque() && p->name().starts_with("check.");
      const Operation *callee =
          inCheck ? resolve(op, "callee", {OpCode::FuncDef, OpCode::FuncDecl, OpCode::KernelDef, OpCode::KernelDecl},
                            "a func.def, func.decl or kernel")
                  : resolve(op, "callee", {OpCode::FuncDef, OpCode::FuncDecl}, "a func.def or func.decl");
      if (callee && (callee->opcode() == OpCode::KernelDef || callee->opcode() == OpCode::KernelDecl)) return;
      if (!callee) return;
      if (op.hasAttr("pure") && !callee->hasAttr("pure"))
        report(DiagId::StructurePureCallee, op)
            .arg("callee_name", std::string(callee->symbolName()))
            .arg("boundary_name", std::string(callee->symbolName()));
      checkCallSignature(op, *callee, op.operandGroup("args"), inCheck);
      return;
    }
    case VerifyHook::Return: {
      verify::checkPoisonObserved(op, ctx_);
      // func.return ends a func.def or func.template body; template.return a template.def body.
      bool templateReturn = op.opcode() == OpCode::TemplateReturn;
      auto isOwner = [&](OpCode c) {
        return templateReturn ? c == OpCode::TemplateDef : c == OpCode::FuncDef || c == OpCode::FuncTemplate;
      };
      const Operation *fn = op.parentOp();
      while (fn && !isOwner(fn->opcode()) && fn->opcode() != OpCode::KernelDef && fn->opcode() != OpCode::FuncDef &&
             fn->opcode() != OpCode::TemplateDef && fn->opcode() != OpCode::FuncTemplate)
        fn = fn->parentOp();
      if (!fn || !isOwner(fn->opcode())) {
        report(DiagId::StructureMisplacedOp, op)
            .arg("placement", "")
            .arg("op", std::string(op.name()))
            .arg("parent", templateReturn ? "a template.def body" : "a func.def or func.template body");
        return;
      }
      Attribute *types = fn->attr("result_types");
      auto vals = op.operandGroup("values");
      size_t want = types ? types->elements().size() : 0;
      bool match = vals.size() == want;
      // A result type may name an earlier named result (`-> (%s: encoding<storage>, view<..., %s>)`):
      // here that is the value returned in its place.
      std::unordered_map<const Value *, const Value *> renamed;
      if (match) renamed = namedResultBindings(*fn, vals);
      for (size_t k = 0; match && k < want; ++k)
        match = verify::sameUnderRenaming(vals[k]->type(), types->elements()[k]->type(), renamed);
      if (!match) {
        std::string s = "(";
        for (size_t k = 0; k < want; ++k) s += (k ? ", " : "") + types->elements()[k]->type()->str();
        operandError(op, "values", vals.empty() ? nullptr : vals[0]->type(), "the function results " + s + ")");
      }
      return;
    }
    case VerifyHook::LaunchConfig:
      for (std::string_view n : {"workgroups", "workgroup_size"})
        if (op.operandGroup(n).size() != 3) operandError(op, n, nullptr, "three values (x, y, z)");
      if (!op.operandGroup("cluster_size").empty() && op.operandGroup("cluster_size").size() != 3)
        operandError(op, "cluster_size", nullptr, "three values (x, y, z)");
      return;
    case VerifyHook::GroupCreate: {
      requireOperand(op, "size", in("size")->isIndex(), "index");
      if (!isKind(r0, TypeKind::Group)) resultError(op, "result", r0, "group");
      Value *n = op.operandNamed("size");
      lanes_[op.result(0)] = constantIndex(n);
      return;
    }
    case VerifyHook::FlowSource: return checkFlowSource(op);
    case VerifyHook::FlowStage: return checkFlowStage(op);
    case VerifyHook::FlowBuffer: {
      requireOperand(op, "capacity", in("capacity")->isIndex(), "index");
      if (r0 != in("source")) resultError(op, "result", r0, in("source")->str());
      if (auto it = flows_.find(op.operandNamed("source")); it != flows_.end()) flows_[op.result(0)] = it->second;
      return;
    }
    case VerifyHook::FlowFold: {
      if (!isKind(in("source"), TypeKind::Flow)) return operandError(op, "source", in("source"), "a pipeline.flow");
      // The combining kind fits the tile's elements: addf/mulf/... on floats, addi/maxsi/... on integers.
      if (const Attribute *kind = op.templateParam(0)) {
        std::string_view k =
            kind->kind() == AttrKind::Flags && !kind->elements().empty() ? kind->elements()[0]->str() : kind->str();
        const Type *tile = in("source")->elementType();
        const Type *element = tile ? tile->elementType() : nullptr;
        bool floatKind = k.ends_with("f"), intKind = k.ends_with("i");
        if (element && !element->isFloat() && hasFloatFlags(op))
          return operandError(op, "source", in("source"),
                              "floating-point tile element type when float flags are present");
        if (element && ((floatKind && !element->isFloat()) || (intKind && !element->isInteger())))
          return operandError(op, "source", in("source"),
                              std::string("a flow of ") + (floatKind ? "float" : "integer") + " tiles for <" +
                                  std::string(k) + ">");
      }
      if (auto it = flows_.find(op.operandNamed("source")); it != flows_.end()) {
        FlowInfo info = it->second;
        if (!info.temporal.empty()) info.temporal.pop_back();
        flows_[op.result(0)] = info;
      }
      return;
    }
    case VerifyHook::FlowReduce: return checkFlowReduce(op);
    case VerifyHook::FlowWrite: return checkFlowWrite(op);
    case VerifyHook::ConfigGet: {
      const Operation *cfg =
          resolve(op, "config", {OpCode::ConfigDecl, OpCode::ConfigDef}, "config (a config.decl or config.def)");
      if (!cfg) return;
      Attribute *t = cfg->attr("type");
      if (t && t->type() != r0 && !unknown(r0))
        fieldMismatch(op, "result", r0, "referenced config @" + std::string(cfg->symbolName()), t->type());
      return;
    }
    case VerifyHook::EncodingQuery: {
      if (op.opcode() == OpCode::EncodingIsa) {
        if (!unknown(r0) && !r0->isInteger(1)) resultError(op, "result", r0, "i1");
        return;
      }
      if (op.opcode() == OpCode::EncodingLayoutAssumeStrided) {
        for (const NamedAttr &a : op.attributes())
          if (a.name.empty() && a.value->kind() == AttrKind::Dict)
            if (const Attribute *rank = a.value->get("rank");
                rank && rank->kind() == AttrKind::Integer && (rank->integer() < 0 || rank->integer() > 255))
              attrConstraint(op, "rank", std::to_string(rank->integer()), "rank in [0, 255]");
        return;
      }
      const Attribute *spec = op.attr("spec");
      std::string_view role = spec ? encodingRole(spec->str()) : std::string_view();
      if (!role.empty() && isKind(r0, TypeKind::Encoding) && r0->name() != role)
        encodingError(DiagId::EncodingResultRole, op, spec->str(), "actual_type", r0->str(), "expected_type",
                      "encoding<" + std::string(role) + ">");
      return;
    }
    case VerifyHook::EncodingDefine:
      if (!isKind(r0, TypeKind::Encoding)) return resultError(op, "result", r0, "an encoding<role> type");
      checkEncodingFamily(op, *r0);
      return;
    case VerifyHook::Provider:
      if (op.hasAttr("target")) resolve(op, "target", kTargetRecordOps, "a target record");
      checkProviderFamily(op);
      verify::checkProviderContract(op, ctx_);
      return;
    case VerifyHook::Bitfield: {
      std::optional<int64_t> offset = intAttr(op, "offset"), width = intAttr(op, "width");
      bool insert = op.opcode() == OpCode::VectorBitfieldInsert;
      Type *from = insert ? in("dest") : in("in");
      if (!offset || !width)
        return operandError(op, insert ? "dest" : "in", from, "{offset = N, width = M} attributes");
      if (unknown(from) || !elementOf(from)->isInteger()) return;
      int64_t bits = elementOf(from)->width();
      if (*width < 1)
        attrConstraint(op, "width", std::to_string(*width), "positive bitfield width");
      else if (*offset < 0)
        attrConstraint(op, "offset", std::to_string(*offset), "non-negative bit offset");
      else if (*offset + *width > bits)
        attrConstraint(op, "width", std::to_string(*width),
                       "bitfield range within storage element width (" + std::to_string(bits) + " bits from offset " +
                           std::to_string(*offset) + ")");
      if (!unknown(r0) && !elementOf(r0)->isInteger()) resultError(op, "result", r0, "an integer type");
      else if (!insert && !unknown(r0) && *width >= 1 && int64_t(elementOf(r0)->width()) < *width)
        resultError(op, "result", r0, "element bit width at least width");
      else if (insert && !unknown(in("value")) && elementOf(in("value"))->isInteger() && *width >= 1 &&
               int64_t(elementOf(in("value"))->width()) < *width)
        operandError(op, "field", in("value"), "element bit width at least width");
      return;
    }
    case VerifyHook::VectorExtract: {
      Type *v = in("in");
      checkIndices(op, "position");
      if (unknown(v)) return;
      if (!isKind(v, TypeKind::Vector)) return operandError(op, "in", v, "a vector");
      size_t n = indexCount(op, "position");
      if (!checkPositions(op, v)) return;
      // Fewer positions than axes extract the sub-vector of the remaining (trailing) axes.
      if (n == v->rank() ? r0 != v->elementType() : !trailingSubvector(v, n, r0))
        resultError(op, "result", r0, n == v->rank() ? v->elementType()->str() : "the vector of the trailing axes");
      return;
    }
    case VerifyHook::VectorInsert: {
      Type *v = in("dest");
      checkIndices(op, "position");
      if (unknown(v)) return;
      if (!isKind(v, TypeKind::Vector)) return operandError(op, "dest", v, "a vector");
      size_t n = indexCount(op, "position");
      if (!checkPositions(op, v)) return;
      if (!unknown(in("value")) &&
          (n == v->rank() ? in("value") != v->elementType() : !trailingSubvector(v, n, in("value"))))
        operandError(op, "value", in("value"),
                     n == v->rank() ? v->elementType()->str() : "the vector of the trailing axes");
      return;
    }
    case VerifyHook::FromElements: {
      if (!isKind(r0, TypeKind::Vector)) return resultError(op, "result", r0, "a vector");
      auto elements = op.operandGroup("elements");
      if (!r0->hasStaticShape()) return resultError(op, "result", r0, "an all-static vector shape");
      if (r0->hasStaticShape() && int64_t(elements.size()) != r0->staticElementCount())
        return countMismatch(op, "elements", elements.size(), "result lanes", size_t(r0->staticElementCount()));
      for (Value *e : elements)
        if (!unknown(e->type()) && e->type() != r0->elementType())
          return elementMismatch(op, "elements", e->type(), "result", r0);
      return;
    }
    case VerifyHook::Broadcast: {
      Type *v = in("in");
      if (unknown(v) || !isKind(r0, TypeKind::Vector)) return;
      if (elementOf(v) != r0->elementType())
        return operandError(op, "in", v, r0->elementType()->str() + " or a vector of it");
      if (isKind(v, TypeKind::Vector) && v->rank() > r0->rank())
        return report(DiagId::ShapeRankMismatch, op)
                   .arg("op", std::string(op.name()))
                   .arg("field_a", "source rank")
                   .arg("rank_a", std::to_string(v->rank()))
                   .arg("field_b", "result rank")
                   .arg("rank_b", std::to_string(r0->rank())),
               void();
      // Trailing axes align (numpy's rule): each source axis is 1 or the result's; the result may
      // add leading axes, static or not.
      auto broadcastable = [&] {
        auto from = v->shape(), to = r0->shape();
        for (size_t k = 0; k < from.size(); ++k) {
          const Dim &s = from[from.size() - 1 - k], &t = to[to.size() - 1 - k];
          if (!(s.isStatic() && s.extent == 1) && !sameDim(s, t)) return false;
        }
        return true;
      };
      if (isKind(v, TypeKind::Vector) && v->hasStaticShape() && v->staticElementCount() != 1 && !broadcastable())
        report(DiagId::ShapeBroadcastMismatch, op)
            .arg("op", std::string(op.name()))
            .arg("type_a", v->str())
            .arg("type_b", r0->str());
      return;
    }
    case VerifyHook::While: {
      // The before region's condition forwards the results; the after region receives them.
      const Block *before = op.region(0)->entryBlock(), *after = op.region(1)->entryBlock();
      if (!after || !before) return;
      if (after->arguments().size() != op.numResults())
        return report(DiagId::StructureRegionShape, op)
                   .arg("op", "scf.while")
                   .arg("expected", "a do region with one argument per result"),
               void();
      for (unsigned k = 0; k < op.numResults(); ++k)
        if (after->argument(k)->type() != op.result(k)->type())
          return report(DiagId::TypeRegionArgMismatch, op)
                     .arg("op", "scf.while")
                     .arg("region", "1")
                     .arg("index", std::to_string(k))
                     .arg("actual", after->argument(k)->type()->str())
                     .arg("expected", op.result(k)->type()->str()),
                 void();
      return;
    }
    case VerifyHook::Condition: {
      const Operation *parent = op.parentOp();
      if (!parent || parent->opcode() != OpCode::ScfWhile || op.parentBlock() != parent->region(0)->entryBlock())
        return report(DiagId::StructureMisplacedOp, op)
                   .arg("placement", "")
                   .arg("op", "scf.condition")
                   .arg("parent", "the first region of an scf.while"),
               void();
      auto args = op.operandGroup("args");
      if (!args.empty() && !unknown(args[0]->type()) && !args[0]->type()->isInteger(1))
        return operandError(op, "args", args[0]->type(), "i1 (the condition)");
      // The forwarded values are the do region's arguments (upstream compares with those).
      const Block *after = parent->numRegions() > 1 ? parent->region(1)->entryBlock() : nullptr;
      if (after && after->arguments().size() != parent->numResults()) return;  // scf.while reports it
      for (unsigned k = 0; after && k < parent->numResults(); ++k)
        if (after->argument(k)->type() != parent->result(k)->type()) return;  // TYPE/013 on the scf.while
      size_t want = after ? after->arguments().size() : parent->numResults();
      if (args.size() != want + 1)
        return countMismatch(op, "forwarded", args.empty() ? 0 : args.size() - 1, "after block args", want);
      for (unsigned k = 0; k < want; ++k) {
        const Type *target = after ? after->argument(k)->type() : parent->result(k)->type();
        if (!unknown(args[k + 1]->type()) && args[k + 1]->type() != target)
          return fieldMismatch(op, "forwarded[" + std::to_string(k) + "]", args[k + 1]->type(),
                               "after[" + std::to_string(k) + "]", target);
      }
      return;
    }
    case VerifyHook::Apply: checkApply(op); return;
    case VerifyHook::Exchange: {
      Type *v = in("in");
      if (!unknown(v) && !v->isScalar() && !v->isIndex() && !isKind(v, TypeKind::Vector))
        return operandError(op, "in", v, "a scalar, index or vector value");
      // Upstream: a broadcast's lane is an integer (not index); a shuffle's offset and width are i32.
      if (op.opcode() == OpCode::KernelSubgroupBroadcast)
        if (Type *t = in("lane"); !unknown(t) && !t->isInteger()) operandError(op, "lane", t, "integer");
      if (op.opcode() == OpCode::KernelSubgroupShuffle)
        for (std::string_view n : {"offset", "width"})
          if (Type *t = in(n); !unknown(t) && !t->isInteger(32)) operandError(op, n, t, "i32");
      bool scan = op.opcode() == OpCode::KernelWorkgroupScan || op.opcode() == OpCode::KernelSubgroupScan;
      bool reduce = op.opcode() == OpCode::KernelSubgroupReduce || op.opcode() == OpCode::KernelWorkgroupReduce;
      if (scan || reduce) checkCombiningKind(op);
      if (op.opcode() == OpCode::KernelSubgroupReduce) verify::checkLaneCollectiveOp(op, ctx_);
      if (op.opcode() == OpCode::KernelSubgroupScan) verify::checkLaneCollectiveOp(op, ctx_);
      if (scan) {
        auto oneOf = [&](std::string_view key, std::string_view a, std::string_view b) {
          Attribute *x = op.attr(key);
          std::string given = x ? std::string(x->str()) : "";
          if (x && given != a && given != b)
            report(DiagId::TypeResultMismatch, op)
                .arg("op", std::string(op.name()))
                .arg("field", std::string(key))
                .arg("actual", given)
                .arg("expected", std::string(a) + " or " + std::string(b));
        };
        oneOf("direction", "forward", "reverse");
        oneOf("mode", "inclusive", "exclusive");
      }
      return;
    }
    case VerifyHook::Scatter: {
      if (op.opcode() == OpCode::VectorAtomicReduce || op.opcode() == OpCode::VectorAtomicReduceMask ||
          op.opcode() == OpCode::VectorAtomicRmw || op.opcode() == OpCode::VectorAtomicRmwMask ||
          op.opcode() == OpCode::VectorAtomicCmpxchg)
        verify::checkVectorAtomic(op, ctx_);
      Type *value = in("value"), *view = in("base"), *offsets = in("offsets");
      checkIndices(op, "indices");
      if (unknown(value) || unknown(view) || unknown(offsets)) return;
      if (!isKind(view, TypeKind::View)) return operandError(op, "base", view, "a view");
      if (indexCount(op, "indices") != view->rank())
        return operandError(op, "indices", view, std::to_string(view->rank()) + " indices (one per view axis)");
      if (!isKind(value, TypeKind::Vector) || value->elementType() != view->elementType())
        return operandError(op, "value", value, "a vector of " + view->elementType()->str());
      if (isKind(offsets, TypeKind::Vector) && offsets->elementType()->isInteger(1))
        return operandError(op, "offsets", offsets, "index or non-i1 integer element type");
      if (!isKind(offsets, TypeKind::Vector) || !sameShape(offsets, value) ||
          !(offsets->elementType()->isInteger() || offsets->elementType()->isIndex()))
        return operandError(op, "offsets", offsets, "an integer vector shaped like " + value->str());
      if (const Value *mask = op.operandNamed("mask"); mask && !unknown(mask->type())) {
        const Type *m = mask->type();
        if (!isKind(m, TypeKind::Vector) || !m->elementType()->isInteger(1))
          return operandError(op, "mask", m, "an i1 vector shaped like " + value->str());
        // An i1 mask of another shape is upstream's shape mismatch (SHAPE/002).
        if (!sameShape(m, value)) ctx_.shapeMismatch(op, "mask", m, "value", value);
      }
      return;
    }
    case VerifyHook::Refine: return verify::checkViewOp(op, ctx_);
    case VerifyHook::LowInvoke:
      // The callee is machine code (a low.func.def); its register signature is not checked here.
      resolve(op, "callee", {OpCode::LowFuncDef, OpCode::LowFuncDecl}, "a low.func.def");
      return;
    case VerifyHook::TestFact:
      if (!op.result(0)->type()->isInteger(1)) resultError(op, "r", op.result(0)->type(), "i1 (a fact is a predicate)");
      return;
    // Dialects whose rules live in frontend/loom/verify/.
    case VerifyHook::LayoutValue:
      if (!unknown(r0) && !(isKind(r0, TypeKind::Encoding) && r0->name() == "layout"))
        resultError(op, "result", r0, "encoding<layout>");
      return;
    case VerifyHook::ReduceAxes: {
      return verify::checkVectorAxesOp(op, ctx_);
    }
    case VerifyHook::VectorShape: return verify::checkVectorShapeOp(op, ctx_);
    case VerifyHook::Global: return verify::checkGlobalOp(op, ctx_);
    case VerifyHook::Switch: return verify::checkSwitchOp(op, ctx_);
    case VerifyHook::BufferBytes: return verify::checkBufferBytesOp(op, ctx_);
    case VerifyHook::CommandProgram: return verify::checkCommandOp(op, ctx_);
    case VerifyHook::KernelLaunch: {
      return verify::checkKernelLaunchOp(op, ctx_);
    }
    case VerifyHook::FuncRef: {
      return verify::checkFuncRefOp(op, ctx_);
    }
    case VerifyHook::PipelineStrand:
    case VerifyHook::PipelineMemory:
    case VerifyHook::PipelineCompose:
    case VerifyHook::Channel: return verify::checkStrandFormOp(op, ctx_);
    case VerifyHook::KernelAsync: {
      return verify::checkKernelAsyncFlow(op, ctx_);
    }
    case VerifyHook::LaneCollective: return verify::checkLaneCollectiveOp(op, ctx_);
    case VerifyHook::VectorGather:
    case VerifyHook::Bitpack:
    case VerifyHook::ViewPrefetch: return verify::checkVectorGatherPackOp(op, ctx_);
    case VerifyHook::SanitizerAccess:
    case VerifyHook::SanitizerSync:
    case VerifyHook::SanitizerFacts:
    case VerifyHook::SanitizerLayout: {
      return verify::checkSanitizerOp(op, ctx_);
    }
    case VerifyHook::CheckDefinition:
    case VerifyHook::CheckBenchmark:
    case VerifyHook::CheckBodyOp:
    case VerifyHook::CheckLiteral:
    case VerifyHook::Low: return;          // low.* is kept as text: verifyOp runs verify::checkLowOp on it
    case VerifyHook::CheckExpect: return;  // check ops are kept as text: verifyOp runs verify::checkCheckOp on them
    }
  }

  // Two axes of the same extent: equal static extents, or the same dynamic value.
  static bool sameDim(const Dim &a, const Dim &b) {
    return a.isStatic() == b.isStatic() && (a.isStatic() ? a.extent == b.extent : a.dynamic == b.dynamic);
  }

  // Whether `sub` is the vector of `v`'s axes after the first `n` (same element type).
  static bool trailingSubvector(const Type *v, size_t n, const Type *sub) {
    if (!sub || sub->kind() != TypeKind::Vector || sub->elementType() != v->elementType() ||
        sub->rank() != v->rank() - n)
      return false;
    for (size_t k = 0; k < sub->rank(); ++k)
      if (!sameDim(v->shape()[n + k], sub->shape()[k])) return false;
    return true;
  }

  // A literal of type `type`: integers fit the width (signed or unsigned spelling, i1 is 0 or 1;
  // offsets are not negative), floats are written with a fraction or exponent.
  // ---- encoding families (the rules upstream's encoding fixtures state) ----
  static std::string_view encodingRole(std::string_view family) {
    if (family == "dense" || family == "strided") return "layout";
    if (family == "physical_storage") return "storage";
    if (family == "numeric_transform") return "transform";
    if (family == "q8_0" || family == "ggml_q4_0" || family == "matrix_operand" || family == "turboquant_kv" ||
        family.starts_with("fp8_") || family.starts_with("ieee_fp8_"))
      return "schema";
    return {};
  }
  template <typename... Args> void encodingError(DiagId id, const Operation &op, std::string_view family, Args... kv) {
    auto b = report(id, op);
    b.arg("encoding_name", std::string(family));
    std::string_view pairs[] = {kv...};
    for (size_t i = 0; i + 1 < sizeof...(kv); i += 2) b.arg(pairs[i], std::string(pairs[i + 1]));
  }
  void checkEncodingFamily(const Operation &op, const Type &result) {
    const Attribute *enc = op.attr("encoding");
    if (!enc || enc->kind() != AttrKind::Hash) return;
    std::string_view family = enc->str();
    std::map<std::string_view, const Attribute *> fixed, dynamic;
    for (const NamedAttr &e : enc->entries())
      if (!e.name.empty()) fixed[e.name] = e.value;
    // Operand parameters are the entries of the op's dictionary (`{name = %v : T}`).
    for (const NamedAttr &a : op.attributes())
      if (a.name.empty() && a.value && a.value->kind() == AttrKind::Dict)
        for (const NamedAttr &e : a.value->entries())
          if (e.value && e.value->kind() == AttrKind::ValueRef) dynamic[e.name] = e.value;
    for (const auto &[name, value] : dynamic)
      if (fixed.count(name)) return encodingError(DiagId::EncodingDuplicateParam, op, family, "param_name", name);
    std::string_view role = encodingRole(family);
    if (!role.empty() && result.name() != role)
      return encodingError(DiagId::EncodingResultRole, op, family, "actual_type", result.str(), "expected_type",
                           "encoding<" + std::string(role) + ">");
    auto has = [&](std::string_view n) { return fixed.count(n) || dynamic.count(n); };
    auto integer = [&](std::string_view n) -> std::optional<int64_t> {
      auto it = fixed.find(n);
      if (it == fixed.end() || it->second->kind() != AttrKind::Integer) return std::nullopt;
      return it->second->integer();
    };
    auto text = [&](std::string_view n) -> std::string_view {
      auto it = fixed.find(n);
      if (it == fixed.end()) return {};
      AttrKind k = it->second->kind();
      return k == AttrKind::String || k == AttrKind::Ident || k == AttrKind::Hash ? it->second->str() : "";
    };
    auto oneOf = [](std::string_view v, std::initializer_list<std::string_view> set) {
      return std::find(set.begin(), set.end(), v) != set.end();
    };
    if (family == "physical_storage") {
      for (auto [name, want, what] : {std::tuple{std::string_view("layout"), std::string_view("layout"),
                                                 std::string_view("an address layout encoding")},
                                      std::tuple{std::string_view("schema"), std::string_view("schema"),
                                                 std::string_view("a storage schema encoding")}}) {
        if (!has(name)) return encodingError(DiagId::EncodingMissingParam, op, family, "param_name", name);
        if (auto it = dynamic.find(name); it != dynamic.end()) {
          const Type *t = it->second->type();
          if (t && !(t->kind() == TypeKind::Encoding && t->name() == want))
            return encodingError(DiagId::EncodingParamType, op, family, "param_name", name, "actual_type", t->str(),
                                 "expected_type", "encoding<" + std::string(want) + ">");
        } else if (const Attribute *a = fixed[name]; a->kind() == AttrKind::Hash && encodingRole(a->str()) != want) {
          encodingError(DiagId::EncodingParamRole, op, family, "param_name", name, "expected_role", what);
        }
      }
      return;
    }
    if (family.starts_with("fp8_") || family.starts_with("ieee_fp8_")) {
      for (const auto &[name, value] : fixed)
        if (name != "rounding" && name != "storage_bits")
          return encodingError(DiagId::EncodingUnsupportedParam, op, family, "param_name", name);
      if (std::string_view r = text("rounding");
          !r.empty() && !oneOf(r, {"finite_only", "flush_subnormal", "nearest_even", "saturate", "ieee"}))
        return encodingError(DiagId::EncodingParamValue, op, family, "param_name", "rounding", "actual_value", r);
      if (auto bits = integer("storage_bits"); bits && *bits != 8)
        attrConstraint(op, "storage_bits", std::to_string(*bits), "8 storage bits for an fp8 schema");
      return;
    }
    if (family == "numeric_transform") return verify::checkNumericTransformSchema(op, ctx_, family, fixed, dynamic);
    if (family == "matrix_operand") return checkMatrixOperand(op, family, fixed, dynamic);
    if (family == "turboquant_kv") return verify::checkTurboquantSchema(op, ctx_, family, fixed, dynamic);
  }
  void checkMatrixOperand(const Operation &op, std::string_view family,
                          const std::map<std::string_view, const Attribute *> &fixed,
                          const std::map<std::string_view, const Attribute *> &dynamic) {
    if (dynamic.count("element_format"))
      return encodingError(DiagId::EncodingUnsupportedParam, op, family, "param_name", "element_format");
    auto get = [&](std::string_view n) -> const Attribute * {
      auto it = fixed.find(n);
      return it == fixed.end() ? nullptr : it->second;
    };
    auto integer = [&](std::string_view n) -> std::optional<int64_t> {
      const Attribute *a = get(n);
      if (!a || a->kind() != AttrKind::Integer) return std::nullopt;
      return a->integer();
    };
    if (const Attribute *f = get("element_format")) {
      if (f->kind() != AttrKind::Ident)
        return encodingError(DiagId::EncodingParamKind, op, family, "param_name", "element_format", "actual",
                             "a number", "expected", "an element format name");
      static constexpr std::string_view kFormats[] = {
          "f64",    "f32",        "tf32",      "f16",    "bf16",   "f8e4m3", "f8e4m3fn",  "f8e4m3fnuz",
          "f8e5m2", "f8e5m2fnuz", "f8e8m0fnu", "f6e3m2", "f6e2m3", "f4e2m1", "i4",        "u4",
          "i8",     "u8",         "i16",       "u16",    "i32",    "u32",    "bfp16ebs8", "e8m0"};
      if (std::find(std::begin(kFormats), std::end(kFormats), f->str()) == std::end(kFormats))
        return encodingError(DiagId::EncodingParamValue, op, family, "param_name", "element_format", "actual_value",
                             f->str());
    }
    // Dense-lane payloads may occupy no registers; register-packed payloads need at least one.
    const Attribute *packing = get("payload_packing");
    bool denseLanes = packing && packing->isIdent("dense_lanes");
    if (auto regs = integer("payload_registers"); regs && (*regs < 0 || (*regs == 0 && !denseLanes)))
      return attrConstraint(op, "payload_registers", std::to_string(*regs),
                            "a positive register count (0 only with payload_packing=dense_lanes)");
    // A scaled operand states its whole scale description.
    bool scaled = false;
    for (const auto &[name, value] : fixed) scaled |= name.starts_with("scale_");
    if (scaled) {
      for (std::string_view n : {"scale_format", "scale_group_elements", "scale_operands", "scale_topology"})
        if (!get(n))
          return attrConstraint(op, "scale", "1",
                                "scale_format, scale_group_elements, scale_operands and scale_topology on a scaled "
                                "operand (missing " +
                                    std::string(n) + ")");
      const Attribute *topology = get("scale_topology");
      std::string_view topo = topology->str();
      const Attribute *shape = get("scale_group_shape");
      if (!shape && topo == "block_2d")
        return encodingError(DiagId::EncodingMissingParam, op, family, "param_name", "scale_group_shape");
      if (shape) {
        if (shape->kind() != AttrKind::Array)
          return encodingError(DiagId::EncodingParamKind, op, family, "param_name", "scale_group_shape", "actual",
                               "a single value", "expected", "a list of group extents");
        auto dims = shape->elements();
        size_t rank = dims.size();
        if (rank == 0 || rank > 4)
          return attrConstraint(op, "scale_group_shape", std::to_string(rank), "a group rank from 1 to 4");
        if ((topo == "block_1d" && rank != 1) || (topo == "block_2d" && rank != 2))
          return attrConstraint(op, "scale_group_shape", std::to_string(rank),
                                "rank " + std::string(topo == "block_1d" ? "1" : "2") + " for " + std::string(topo));
        int64_t product = 1;
        for (const Attribute *d : dims) {
          int64_t extent = d->kind() == AttrKind::Integer ? d->integer() : -1;
          if (extent <= 0)
            return attrConstraint(op, "scale_group_shape", std::to_string(extent < 0 ? 0 : extent),
                                  "positive group extents");
          product *= extent;
          if (product > (int64_t(1) << 32)) break;
        }
        if (auto elements = integer("scale_group_elements"); elements && product != *elements)
          return attrConstraint(op, "scale_group_shape", std::to_string(product),
                                "extents whose product is scale_group_elements (" + std::to_string(*elements) + ")");
      }
    }
    const Attribute *sparsity = get("sparsity");
    auto group = integer("sparsity_group_elements"), nonzero = integer("sparsity_group_nonzero_elements");
    if (sparsity && sparsity->str() == "n_m_structured") {
      if (!nonzero || *nonzero <= 0)
        return attrConstraint(op, "sparsity_group_nonzero_elements", std::to_string(nonzero.value_or(0)),
                              "a positive nonzero count for n_m_structured sparsity");
      if (group && *nonzero >= *group)
        return attrConstraint(op, "sparsity_group_nonzero_elements", std::to_string(*nonzero),
                              "fewer nonzero elements than sparsity_group_elements (" + std::to_string(*group) + ")");
    } else if (group) {
      return attrConstraint(op, "sparsity_group_elements", std::to_string(*group),
                            "absent unless sparsity is n_m_structured");
    }
  }

  // A template parameter list such as <addi, nsz> carries fast-math flags after the kind.
  static bool hasFloatFlags(const Operation &op) {
    auto isFlag = [](std::string_view f) {
      return f == "reassoc" || f == "nnan" || f == "ninf" || f == "nsz" || f == "arcp" || f == "contract" ||
             f == "afn" || f == "fast";
    };
    for (const Attribute *p : op.templateParams()) {
      if (p->kind() == AttrKind::Flags) {
        for (const Attribute *f : p->elements())
          if (isFlag(f->str())) return true;
      } else if (isFlag(p->str())) {
        return true;
      }
    }
    return false;
  }
  // A collective's combining kind fits its value: addf, mulf, maxnumf, ... on floats; addi, maxsi,
  // andi, ... on integers (upstream's TYPE/003 on the value).
  void checkCombiningKind(const Operation &op) {
    const Attribute *kind = op.templateParam(0);
    Value *value = op.operandNamed("in");
    if (!kind || !value || unknown(value->type())) return;
    std::string_view k =
        kind->kind() == AttrKind::Flags && !kind->elements().empty() ? kind->elements()[0]->str() : kind->str();
    const Type *element = elementOf(value->type());
    bool floatKind = k.ends_with("f"), intKind = k.ends_with("i");
    if (floatKind && !element->isFloat())
      operandError(op, "value", value->type(),
                   "floating-point element type for combining kind <" + std::string(k) + ">");
    else if (intKind && !element->isInteger())
      operandError(op, "value", value->type(), "integer element type for combining kind <" + std::string(k) + ">");
  }

  // kernel.barrier<space> scope(s) ordering(o): workgroup memory is synchronized acq_rel within a
  // subgroup or workgroup; global memory at workgroup scope with acquire, release or acq_rel.
  // Values are printed with upstream's enum numbers (memory space private = 3; scopes subgroup 1,
  // workgroup 2, device 3; orderings relaxed 0, acquire 1, release 2, acq_rel 3, seq_cst 4).
  void checkBarrier(const Operation &op) {
    auto number = [](std::string_view v, std::initializer_list<std::string_view> names) {
      int i = 0;
      for (std::string_view n : names) {
        if (n == v) return std::to_string(i) + " (" + std::string(v) + ")";
        ++i;
      }
      return std::string(v);
    };
    auto scopeOf = [&](std::string_view v) {
      return number(v, {"workitem", "subgroup", "workgroup", "device", "system"});
    };
    auto orderingOf = [&](std::string_view v) {
      return number(v, {"relaxed", "acquire", "release", "acq_rel", "seq_cst"});
    };
    const Attribute *spaceAttr = op.templateParam(0);
    std::string_view space = spaceAttr ? spaceAttr->str() : "workgroup";
    const Attribute *scopeAttr = op.attr("scope"), *orderingAttr = op.attr("ordering");
    std::string_view scope = scopeAttr ? scopeAttr->str() : "workgroup";
    std::string_view ordering = orderingAttr ? orderingAttr->str() : "acq_rel";
    if (space == "workgroup") {
      if (ordering != "acq_rel")
        return attrConstraint(op, "ordering", orderingOf(ordering), "acq_rel ordering for workgroup memory");
      if (scope != "subgroup" && scope != "workgroup")
        return attrConstraint(op, "scope", scopeOf(scope), "subgroup or workgroup scope for workgroup memory");
    } else if (space == "global") {
      if (scope != "workgroup") return attrConstraint(op, "scope", scopeOf(scope), "workgroup scope for global memory");
      if (ordering != "acquire" && ordering != "release" && ordering != "acq_rel")
        return attrConstraint(op, "ordering", orderingOf(ordering),
                              "acquire, release, or acq_rel ordering for global memory");
    } else {
      attrConstraint(op, "memory_space", space == "private" ? "3 (private)" : std::string(space),
                     "workgroup or global memory space");
    }
  }

  // A literal of the wrong kind is TYPE/005 (upstream's code); a value outside its type's domain
  // (a negative offset, an integer too wide) is STRUCTURE/014.
  void checkLiteral(const Operation &op, const Attribute &v, const Type &type, std::string_view field) {
    (void)field;
    auto reject = [&](std::string expected) {
      report(DiagId::TypeLiteralKind, op)
          .arg("op", std::string(op.name()))
          .arg("attr_name", "value")
          .arg("actual", literalText(v) + " : " + type.str())
          .arg("expected", std::move(expected));
    };
    auto outOfDomain = [&](std::string expected) {
      attrConstraint(op, "value", literalText(v), "the element type domain: " + expected);
    };
    if (type.isFloat()) {
      if (v.kind() != AttrKind::Float) reject("a floating-point literal (written 1.0, not 1) for " + type.str());
      return;
    }
    if (v.kind() == AttrKind::Float) return reject("an integer literal for " + type.str());
    if (v.kind() == AttrKind::Bool) {
      if (!type.isInteger(1)) reject("an integer literal for " + type.str() + " (true and false are i1)");
      return;
    }
    if (v.kind() != AttrKind::Integer) return;
    int64_t x = v.integer();
    if (type.isOffset() && x < 0) return outOfDomain("a non-negative offset");
    if (type.isInteger() && type.width() < 64) {
      unsigned w = type.width();
      int64_t lo = w == 1 ? 0 : -(int64_t(1) << (w - 1)), hi = (int64_t(1) << w) - 1;
      if (x < lo || x > hi) {
        if (w == 1) return reject("0 or 1 (true or false) for i1");
        outOfDomain("a value that fits " + type.str() + " (" + std::to_string(lo) + " to " + std::to_string(hi) + ")");
      }
    }
  }
  static std::string literalText(const Attribute &v) {
    if (v.kind() == AttrKind::Integer) return std::to_string(v.integer());
    if (v.kind() == AttrKind::Bool) return v.boolean() ? "true" : "false";
    if (v.kind() == AttrKind::Float) {
      std::string f = std::to_string(v.floating());
      return f;
    }
    return "a literal";
  }

  // Whether the optional group of `op`'s format that starts with the literal `word` was written.
  static bool hasGroup(const Operation &op, std::string_view word) {
    const auto &ds = op.def()->directives;
    for (size_t i = 0; i + 1 < ds.size(); ++i)
      if (ds[i].kind == Directive::GroupBegin && ds[i + 1].kind == Directive::Literal && ds[i + 1].text == word)
        return (op.presentGroups() & (uint64_t(1) << ds[i].index)) != 0;
    return false;
  }

  static std::optional<int64_t> intAttr(const Operation &op, std::string_view name) {
    const Attribute *a = op.attr(name);
    if (!a || a->kind() != AttrKind::Integer) return std::nullopt;
    return a->integer();
  }

  // template.def<@family>: the family is a template.decl whose signature the provider repeats.
  void checkProviderFamily(const Operation &op) {
    if (op.opcode() != OpCode::TemplateDef && op.opcode() != OpCode::TemplateUkernel) return;
    const Attribute *family = op.templateParam(0);
    if (!family || family->kind() != AttrKind::Symbol) return;
    const Operation *decl = m_.lookupSymbol(family->str());
    if (!decl) {
      report(DiagId::SymbolUndefined, op).arg("name", "@" + std::string(family->str()));
      return;
    }
    if (decl->opcode() != OpCode::TemplateDecl) {
      report(DiagId::SymbolWrongKind, op)
          .arg("name", "@" + std::string(family->str()))
          .arg("kind", std::string(decl->name()))
          .arg("expected", "a template.decl")
          .note(decl->loc(), "defined here");
      return;
    }
    // The provider repeats the family's signature (upstream: TYPE/001, implementation against
    // contract); a count mismatch is SYMBOL/004.
    std::vector<Type *> impl = argumentTypes(op), contract = argumentTypes(*decl);
    std::vector<Type *> implResults = resultTypes(op), contractResults = resultTypes(*decl);
    if (impl.size() != contract.size() || implResults.size() != contractResults.size()) {
      report(DiagId::SymbolSignatureMismatch, op)
          .arg("name", "@" + std::string(family->str()))
          .arg("detail", std::to_string(impl.size()) + " argument(s) and " + std::to_string(implResults.size()) +
                             " result(s), the family has " + std::to_string(contract.size()) + " and " +
                             std::to_string(contractResults.size()))
          .note(decl->loc(), "declared here");
      return;
    }
    for (size_t k = 0; k < impl.size(); ++k)
      if (impl[k] != contract[k] && !unknown(impl[k]) && contract[k]->hasStaticShape())
        return fieldMismatch(op, "implementation argument " + std::to_string(k), impl[k],
                             "contract argument " + std::to_string(k), contract[k]);
    for (size_t k = 0; k < implResults.size(); ++k)
      if (implResults[k] != contractResults[k] && !unknown(implResults[k]) && contractResults[k]->hasStaticShape())
        return fieldMismatch(op, "implementation result " + std::to_string(k), implResults[k],
                             "contract result " + std::to_string(k), contractResults[k]);
  }

  static std::vector<Type *> argumentTypes(const Operation &fn) {
    std::vector<Type *> out;
    if (Block *sig = fn.numRegions() ? fn.region(0)->entryBlock() : nullptr)
      for (Value *a : sig->arguments()) out.push_back(a->type());
    return out;
  }
  static std::vector<Type *> resultTypes(const Operation &fn) {
    std::vector<Type *> out;
    if (const Attribute *r = fn.attr("result_types"))
      for (const Attribute *e : r->elements()) out.push_back(e->type());
    return out;
  }

  // template.apply<@family> / func.apply<key>: the family exists (template.apply) and the use
  // matches the family's signature.
  void checkApply(const Operation &op) {
    const Attribute *family = op.templateParam(0);
    if (op.opcode() != OpCode::TemplateApply || !family || family->kind() != AttrKind::Symbol) return;
    const Operation *decl = m_.lookupSymbol(family->str());
    if (!decl) {
      report(DiagId::SymbolUndefined, op).arg("name", "@" + std::string(family->str()));
      return;
    }
    if (decl->opcode() != OpCode::TemplateDecl) {
      report(DiagId::SymbolWrongKind, op)
          .arg("name", "@" + std::string(family->str()))
          .arg("kind", std::string(decl->name()))
          .arg("expected", "a template.decl")
          .note(decl->loc(), "defined here");
      return;
    }
    // An application passes the contract's argument types (TYPE/001 per operand, as upstream).
    std::vector<Type *> contract = argumentTypes(*decl);
    std::span<Value *const> args = op.operandGroup("args");
    if (args.size() == contract.size())
      for (size_t k = 0; k < args.size(); ++k)
        if (args[k]->type() != contract[k] && !unknown(args[k]->type()) && contract[k]->hasStaticShape())
          return fieldMismatch(op, "operand " + std::to_string(k), args[k]->type(),
                               "contract argument " + std::to_string(k), contract[k]);
    checkCallSignature(op, *decl, args);
  }

  void checkCast(const Operation &op, VerifyHook hook, const Type *from, const Type *to) {
    if (unknown(from) || unknown(to)) return;
    // A bitcast may change the lane count when the total bits match (vector<16xi32> to
    // vector<64xi8>); every other cast keeps the shape.
    if ((from->kind() == TypeKind::Vector || to->kind() == TypeKind::Vector) && hook != VerifyHook::Bitcast) {
      if (!sameShape(from, to)) return resultError(op, "result", to, "a vector shaped like " + from->str());
    }
    const Type *a = elementOf(from), *b = elementOf(to);
    bool ok = false;
    std::string want;
    switch (hook) {
    case VerifyHook::ExtendInt:
      ok = a->isInteger() && b->isInteger() && b->width() > a->width();
      want = "a wider integer type";
      break;
    case VerifyHook::TruncateInt:
      ok = a->isInteger() && b->isInteger() && b->width() < a->width();
      want = "a narrower integer type";
      break;
    case VerifyHook::ExtendFloat:
      ok = a->isFloat() && b->isFloat() && b->width() > a->width();
      want = "a wider float type";
      break;
    case VerifyHook::TruncateFloat:
      ok = a->isFloat() && b->isFloat() && b->width() < a->width();
      want = "a narrower float type";
      break;
    case VerifyHook::IntToFloat:
      ok = a->isInteger() && b->isFloat();
      want = "a float type (from an integer)";
      break;
    case VerifyHook::FloatToInt:
      ok = a->isFloat() && b->isInteger();
      want = "an integer type (from a float)";
      break;
    default: {
      int64_t na = from->kind() == TypeKind::Vector ? from->staticElementCount() : 1;
      int64_t nb = to->kind() == TypeKind::Vector ? to->staticElementCount() : 1;
      ok = a->isScalar() && b->isScalar() && na * a->width() == nb * b->width();
      want = "a type of the same bit width";
    }
    }
    if (!ok) resultError(op, "result", to, want);
  }

  static std::unordered_map<const Value *, const Value *> initsAsResults(const Operation &op,
                                                                         std::span<Value *const> inits) {
    std::unordered_map<const Value *, const Value *> m;
    for (size_t k = 0; k < inits.size() && k < op.numResults(); ++k) m[inits[k]] = op.result(unsigned(k));
    return m;
  }

  void checkValuesAgainst(const Operation &op, std::string_view group, std::span<Value> expected) {
    auto vals = op.operandGroup(group);
    bool match = vals.size() == expected.size();
    // A result type may name a sibling result: the value given in its place stands for it.
    std::unordered_map<const Value *, const Value *> forwarded;
    for (size_t k = 0; match && k < vals.size(); ++k) forwarded[vals[k]] = &expected[k];
    for (size_t k = 0; match && k < vals.size(); ++k)
      match = verify::sameUnderRenaming(vals[k]->type(), expected[k].type(), forwarded);
    if (match) return;
    std::string s = "(";
    for (size_t k = 0; k < expected.size(); ++k) s += (k ? ", " : "") + expected[k].type()->str();
    operandError(op, group, vals.empty() ? nullptr : vals[0]->type(), "the parent's result types " + s + ")");
  }

  // Each value given for a named result of `fn` (`-> (%r: T, ...)`: `given[k]` for result k),
  // bound to the named result that later result types refer to.
  static std::unordered_map<const Value *, const Value *> namedResultBindings(const Operation &fn,
                                                                              std::span<Value *const> given) {
    std::unordered_map<const Value *, const Value *> renamed;
    const Attribute *names = fn.attr("result_names");
    const Attribute *types = fn.attr("result_types");
    if (!names || !types) return renamed;
    std::function<const Value *(const Type *, std::string_view)> find = [&](const Type *t,
                                                                            std::string_view name) -> const Value * {
      if (!t) return nullptr;
      if (t->slot().value && t->slot().value->name() == name) return t->slot().value;
      for (const Dim &d : t->shape())
        if (!d.isStatic() && d.dynamic && d.dynamic->name() == name) return d.dynamic;
      return t->isShaped() ? find(t->elementType(), name) : nullptr;
    };
    for (size_t k = 0; k < names->elements().size() && k < given.size(); ++k) {
      std::string_view name = names->elements()[k]->str();
      if (name.empty()) continue;
      for (const Attribute *type : types->elements())
        if (const Value *named = find(type->type(), name); named && !named->definingOp()) {
          renamed[given[k]] = named;
          break;
        }
    }
    return renamed;
  }

  // The callee's declared signature (region 0 arguments and result_types) versus a call site. A
  // check program passes a tensor for a buffer parameter (the runner binds the tensor's storage).
  void checkCallSignature(const Operation &op, const Operation &callee, std::span<Value *const> args,
                          bool checkProgram = false) {
    Block *sig = callee.region(0)->entryBlock();
    size_t n = sig ? sig->arguments().size() : 0;
    std::string detail;
    if (args.size() != n) {
      detail = std::to_string(args.size()) + " argument(s) given, " + std::to_string(n) + " expected";
    } else {
      // A parameter's type may name an earlier parameter (`%v: view<..., %storage>`): the value
      // given for it stands for it.
      std::unordered_map<const Value *, const Value *> given;
      for (size_t k = 0; k < n; ++k) given[args[k]] = sig->argument(unsigned(k));
      for (size_t k = 0; k < n && detail.empty(); ++k) {
        Type *want = sig->argument(unsigned(k))->type();
        if (checkProgram && args[k]->type()->kind() == TypeKind::Tensor && want->kind() == TypeKind::Buffer) continue;
        if (!verify::sameUnderRenaming(args[k]->type(), want, given) && !unknown(args[k]->type()) &&
            want->hasStaticShape())
          detail =
              "argument " + std::to_string(k) + " has type " + args[k]->type()->str() + ", expected " + want->str();
      }
    }
    Attribute *types = callee.attr("result_types");
    size_t nr = types ? types->elements().size() : 0;
    if (detail.empty() && nr != op.numResults())
      detail = std::to_string(op.numResults()) + " result(s) bound, " + std::to_string(nr) + " returned";
    std::vector<Value *> bound;
    for (unsigned k = 0; k < op.numResults(); ++k) bound.push_back(op.result(k));
    std::unordered_map<const Value *, const Value *> renamed = namedResultBindings(callee, bound);
    for (size_t k = 0; detail.empty() && k < nr; ++k)
      if (!verify::sameUnderRenaming(op.result(unsigned(k))->type(), types->elements()[k]->type(), renamed) &&
          types->elements()[k]->type()->hasStaticShape())
        detail = "result " + std::to_string(k) + " has type " + op.result(unsigned(k))->type()->str() + ", expected " +
                 types->elements()[k]->type()->str();
    if (!detail.empty())
      report(DiagId::SymbolSignatureMismatch, op)
          .arg("name", "@" + std::string(callee.symbolName()))
          .arg("detail", detail)
          .note(callee.loc(), "declared here");
  }

  // ---- flow pipelines ----
  static int64_t constantIndex(const Value *v) {
    const Operation *def = v ? v->definingOp() : nullptr;
    if (!def || def->opcode() != OpCode::IndexConstant) return -1;
    return def->attr("value")->integer();
  }
  int64_t lanesOf(const Value *group) {
    auto it = lanes_.find(group);
    return it == lanes_.end() ? -1 : it->second;
  }

  // The tile must be the trailing dimensions of the view.
  bool tileMatchesView(const Type *tile, const Type *view) {
    if (tile->rank() > view->rank() || tile->elementType() != view->elementType()) return false;
    size_t off = view->rank() - tile->rank();
    for (size_t k = 0; k < tile->rank(); ++k) {
      const Dim &t = tile->shape()[k], &v = view->shape()[off + k];
      if (t.isStatic() && v.isStatic() && t.extent != v.extent) return false;
      if (!t.isStatic() && !v.isStatic() && t.dynamic != v.dynamic) return false;
    }
    return true;
  }

  const Type *flowTile(const Type *flow) {
    return isKind(flow, TypeKind::Flow) && isKind(flow->elementType(), TypeKind::Tile) ? flow->elementType() : nullptr;
  }

  void checkFlowSource(const Operation &op) {
    Type *view = op.operandNamed("source")->type();
    Type *r0 = op.result(0)->type();
    requireOperand(op, "group", isKind(op.operandNamed("group")->type(), TypeKind::Group), "group");
    if (unknown(view)) return;
    if (!isKind(view, TypeKind::View)) return operandError(op, "source", view, "a view");
    const Type *tile = flowTile(r0);
    if (!tile) return resultError(op, "result", r0, "pipeline.flow<tile<...>>");
    bool scatter = op.opcode() == OpCode::PipelineScatter;
    if (!tileMatchesView(tile, view) || (scatter && view->rank() < tile->rank() + 1))
      return resultError(op, "result", r0,
                         std::string("a flow whose tile is the trailing dimensions of ") + view->str() +
                             (scatter ? " after a leading lane axis" : ""));
    FlowInfo info;
    info.lanes = lanesOf(op.operandNamed("group"));
    size_t first = scatter ? 1 : 0;
    info.temporal.assign(view->shape().begin() + first, view->shape().end() - tile->rank());
    if (scatter && info.lanes > 0 && view->shape()[0].isStatic() && view->shape()[0].extent != info.lanes)
      operandError(op, "source", view, "a leading lane axis of extent " + std::to_string(info.lanes));
    flows_[op.result(0)] = info;
  }

  void checkStageCallee(const Operation &op, size_t expectedBuffers) {
    const Operation *callee = resolve(op, "callee", {OpCode::FuncDef, OpCode::FuncDecl}, "a func.def or func.decl");
    if (!callee) return;
    Block *sig = callee->region(0)->entryBlock();
    size_t n = sig ? sig->arguments().size() : 0;
    bool allBuffers = true;
    for (size_t k = 0; k < n; ++k) allBuffers &= isKind(sig->argument(unsigned(k))->type(), TypeKind::Buffer);
    // One entry argument per input and output flow (upstream: STRUCTURE/013).
    if (n != expectedBuffers) return countMismatch(op, "entry argument", n, "stage flow", expectedBuffers);
    if (!allBuffers)
      report(DiagId::SymbolSignatureMismatch, op)
          .arg("name", "@" + std::string(callee->symbolName()))
          .arg("detail", "the callee must take " + std::to_string(expectedBuffers) +
                             " buffer argument(s), one per input and output record")
          .note(callee->loc(), "declared here");
  }

  void checkFlowStage(const Operation &op) {
    auto inputs = op.operandGroup("inputs");
    requireOperand(op, "group", isKind(op.operandNamed("group")->type(), TypeKind::Group), "group");
    for (Value *v : inputs)
      if (!unknown(v->type()) && !flowTile(v->type()))
        operandError(op, "inputs", v->type(), "a pipeline.flow<tile<...>>");
    for (Value &r : op.results())
      if (!flowTile(r.type())) resultError(op, "result", r.type(), "a pipeline.flow<tile<...>>");
    checkStageCallee(op, inputs.size() + op.numResults());
    FlowInfo info;
    if (!inputs.empty())
      if (auto it = flows_.find(inputs[0]); it != flows_.end()) info = it->second;
    info.lanes = lanesOf(op.operandNamed("group"));
    for (Value &r : op.results()) flows_[&r] = info;
  }

  void checkFlowReduce(const Operation &op) {
    auto partials = op.operandGroup("partials");
    auto inputs = op.operandGroup("inputs");
    int64_t sourceLanes = lanesOf(op.operandNamed("source_group"));
    size_t perFiring = sourceLanes > 0 ? size_t(sourceLanes) * partials.size() : partials.size();
    if (sourceLanes > 0) checkStageCallee(op, perFiring + inputs.size() + op.numResults());
    FlowInfo info;
    Value *lead = !inputs.empty() ? inputs[0] : !partials.empty() ? partials[0] : nullptr;
    if (lead)
      if (auto it = flows_.find(lead); it != flows_.end()) info = it->second;
    info.lanes = lanesOf(op.operandNamed("target_group"));
    for (Value &r : op.results()) flows_[&r] = info;
  }

  void checkFlowWrite(const Operation &op) {
    Value *flow = op.operandNamed("source");
    Type *view = op.operandNamed("target")->type();
    const Type *tile = flowTile(flow->type());
    if (unknown(view) || !tile) return;
    if (!isKind(view, TypeKind::View)) return operandError(op, "target", view, "a view");
    if (!tileMatchesView(tile, view))
      return operandError(op, "target", view, "a view whose trailing dimensions are " + tile->str());
    auto it = flows_.find(flow);
    if (it == flows_.end()) return;
    const FlowInfo &info = it->second;
    size_t outer = view->rank() - tile->rank();
    size_t temporalRank = info.temporal.size();
    bool laneAxis = info.lanes > 1 || outer == temporalRank + 1;
    if (info.lanes > 1 && outer == temporalRank) {
      report(DiagId::LoweringMissingLaneAxis, op).arg("lane_count", (long long)info.lanes);
      return;
    }
    if (laneAxis && outer > 0 && info.lanes > 0 && view->shape()[0].isStatic() &&
        view->shape()[0].extent != info.lanes) {
      report(DiagId::LoweringLaneExtent, op)
          .arg("extent", (long long)view->shape()[0].extent)
          .arg("lane_count", (long long)info.lanes);
      return;
    }
    size_t written = outer - (laneAxis && outer > 0 ? 1 : 0);
    if (written != temporalRank) {
      report(DiagId::LoweringTemporalRank, op)
          .arg("rank", (long long)written)
          .arg("expected_rank", (long long)temporalRank);
      return;
    }
    size_t first = outer - written;
    for (size_t k = 0; k < written; ++k) {
      const Dim &w = view->shape()[first + k], &p = info.temporal[k];
      if (w.isStatic() && p.isStatic() && w.extent != p.extent) {
        report(DiagId::LoweringTemporalExtent, op)
            .arg("dimension", (long long)k)
            .arg("extent", dimStr(w))
            .arg("expected_extent", dimStr(p));
        return;
      }
    }
  }

  // ---- dominance in multi-block regions ----
  void checkDominance(const Region &region) {
    auto blocks = region.blocks();
    size_t n = blocks.size();
    std::unordered_map<const Block *, size_t> index;
    for (size_t i = 0; i < n; ++i) index[blocks[i]] = i;
    std::vector<std::vector<size_t>> preds(n);
    for (size_t i = 0; i < n; ++i)
      if (const Operation *t = blocks[i]->back())
        for (const Successor &s : t->successors())
          if (auto it = index.find(s.block); it != index.end()) preds[it->second].push_back(i);
    // dom[i][j]: block j dominates block i.
    std::vector<std::vector<bool>> dom(n, std::vector<bool>(n, true));
    dom[0].assign(n, false);
    dom[0][0] = true;
    for (bool changed = true; changed;) {
      changed = false;
      for (size_t i = 1; i < n; ++i) {
        std::vector<bool> next(n, true);
        if (preds[i].empty()) next.assign(n, false);
        for (size_t p : preds[i])
          for (size_t j = 0; j < n; ++j) next[j] = next[j] && dom[p][j];
        next[i] = true;
        if (next != dom[i]) {
          dom[i] = std::move(next);
          changed = true;
        }
      }
    }
    auto blockInRegion = [&](const Block *b) -> const Block * {
      while (b && b->parentRegion() != &region) {
        const Operation *parent = b->parentOp();
        b = parent ? parent->parentBlock() : nullptr;
      }
      return b;
    };
    for (size_t i = 0; i < n; ++i) {
      for (const Operation &top : *blocks[i]) {
        top.walk([&](const Operation &op) {
          for (Value *v : op.operands()) {
            // A value the parser's error recovery left without a definition has no block.
            const Operation *producer = v->isBlockArgument() ? nullptr : v->definingOp();
            const Block *origin = v->isBlockArgument() ? v->ownerBlock() : producer ? producer->parentBlock() : nullptr;
            const Block *def = blockInRegion(origin);
            if (!def || def == blocks[i]) continue;
            if (!dom[i][index[def]])
              report(DiagId::DominanceViolation, op)
                  .arg("name", "%" + std::string(v->name()))
                  .note(v->loc(), "defined here");
          }
        });
      }
    }
  }

  const Module &m_;
  diag::DiagnosticEngine &diags_;
  VerifyOptions options_;
  bool ok_ = true;
  verify::HookContext ctx_{diags_, ok_, &m_};
  std::unordered_map<const Value *, FlowInfo> flows_;
  std::unordered_map<const Value *, int64_t> lanes_;
};

}  // namespace

bool verifyModule(const Module &module, diag::DiagnosticEngine &diags, const VerifyOptions &options) {
  Verifier v(module, diags, options);
  return v.run();
}

bool verifyCheckPrograms(const Module &module, diag::DiagnosticEngine &diags) {
  bool ok = true;
  verify::HookContext ctx(diags, ok, &module);
  for (const Operation &top : module.body())
    top.walk([&](const Operation &op) {
      if (op.isOpaque() && op.opcode() != OpCode::Opaque) verify::checkCheckOp(op, ctx);
    });
  return ok;
}

}  // namespace hrx::loom

// What a dialect's verifier hooks (frontend/loom/verify/*.cpp) need from the verifier: the
// diagnostics, the module's failure flag and upstream's common report forms. Keeps each new
// dialect's rules in its own file instead of growing Verifier.cpp.
#pragma once

#include "hrx/diag/Diagnostic.h"
#include "hrx/loom/IR.h"
#include "hrx/loom/OpDef.h"

#include <algorithm>
#include <initializer_list>
#include <map>
#include <string>
#include <unordered_map>

namespace hrx::loom::verify {

// Upstream's CacheTemporal cases, in its numbering (STRUCTURE/014 prints the number).
inline constexpr std::string_view kTemporalHints[] = {"regular",
                                                      "non_temporal",
                                                      "high_temporal",
                                                      "last_use",
                                                      "writeback",
                                                      "non_temporal_regular",
                                                      "regular_non_temporal",
                                                      "non_temporal_high_temporal",
                                                      "non_temporal_writeback",
                                                      "bypass"};

// The position of `name` among an enum's `cases`, or -1.
template <size_t N> int caseNumber(const std::string_view (&cases)[N], std::string_view name) {
  for (size_t k = 0; k < N; ++k)
    if (cases[k] == name) return int(k);
  return -1;
}

class HookContext {
public:
  HookContext(diag::DiagnosticEngine &diags, bool &ok, const Module *module = nullptr)
      : diags_(diags), ok_(ok), module_(module) {}

  const Module *module() const { return module_; }
  // The text `op` was parsed from (a TextBody op's operands are read from it).
  std::string_view sourceText(const Operation &op) { return diags_.sourceManager().contents(op.loc().begin.file); }

  diag::DiagnosticBuilder report(diag::DiagId id, const Operation &op) {
    ok_ = false;
    return diags_.report(id, op.loc());
  }
  void operandError(const Operation &op, std::string_view field, const Type *actual, std::string expected) {
    report(diag::DiagId::TypeOperandMismatch, op)
        .arg("op", std::string(op.name()))
        .arg("field", std::string(field))
        .arg("actual", actual ? actual->str() : "none")
        .arg("expected", std::move(expected));
  }
  void resultError(const Operation &op, std::string_view field, const Type *actual, std::string expected) {
    report(diag::DiagId::TypeResultMismatch, op)
        .arg("op", std::string(op.name()))
        .arg("field", std::string(field))
        .arg("actual", actual ? actual->str() : "none")
        .arg("expected", std::move(expected));
  }
  void fieldMismatch(const Operation &op, std::string fa, const Type *ta, std::string fb, const Type *tb) {
    pairMismatch(diag::DiagId::TypeFieldMismatch, op, std::move(fa), ta, std::move(fb), tb);
  }
  void elementMismatch(const Operation &op, std::string fa, const Type *ta, std::string fb, const Type *tb) {
    pairMismatch(diag::DiagId::TypeElementMismatch, op, std::move(fa), ta, std::move(fb), tb);
  }
  void shapeMismatch(const Operation &op, std::string fa, const Type *ta, std::string fb, const Type *tb) {
    pairMismatch(diag::DiagId::ShapeMismatch, op, std::move(fa), ta, std::move(fb), tb);
  }
  // Upstream's two-field form: field_a's type against field_b's.
  void pairMismatch(diag::DiagId id, const Operation &op, std::string fa, const Type *ta, std::string fb,
                    const Type *tb) {
    report(id, op)
        .arg("op", std::string(op.name()))
        .arg("field_a", std::move(fa))
        .arg("type_a", ta ? ta->str() : "none")
        .arg("field_b", std::move(fb))
        .arg("type_b", tb ? tb->str() : "none");
  }
  void attrConstraint(const Operation &op, std::string attr, std::string actual, std::string expected) {
    report(diag::DiagId::StructureAttrConstraint, op)
        .arg("op", std::string(op.name()))
        .arg("attr_name", std::move(attr))
        .arg("actual_value", std::move(actual))
        .arg("expected_constraint", std::move(expected));
  }
  // SUBRANGE/001: `field` takes one index per axis (`expected`), `count` were given.
  void indexCountMismatch(const Operation &op, std::string_view field, size_t count, size_t expected) {
    report(diag::DiagId::SubrangeIndexCount, op)
        .arg("op", std::string(op.name()))
        .arg("field", std::string(field))
        .arg("count", (long long)count)
        .arg("expected", (long long)expected);
  }
  void countMismatch(const Operation &op, std::string fa, size_t na, std::string fb, size_t nb) {
    report(diag::DiagId::StructureCountMismatch, op)
        .arg("op", std::string(op.name()))
        .arg("field_a", std::move(fa))
        .arg("count_a", std::to_string(na))
        .arg("field_b", std::move(fb))
        .arg("count_b", std::to_string(nb));
  }

  // A refined view keeps each static extent of its source (SHAPE/001 at the first that differs).
  bool sameStaticDims(const Operation &op, const Type *source, const Type *result) {
    for (size_t d = 0; d < source->rank() && d < result->rank(); ++d) {
      const Dim &a = source->shape()[d], &b = result->shape()[d];
      if (a.isStatic() && b.isStatic() && a.extent != b.extent) {
        report(diag::DiagId::ShapeRankMismatch, op)
            .arg("op", std::string(op.name()))
            .arg("field_a", "source static dimension")
            .arg("rank_a", std::to_string(a.extent))
            .arg("field_b", "result static dimension")
            .arg("rank_b", std::to_string(b.extent));
        return false;
      }
    }
    return true;
  }

  // The op that attribute `attrName` names, if it is one of `kinds`; else SYMBOL/002 (undefined)
  // or SYMBOL/003 (wrong kind) and null. Null without a report when the attribute is absent.
  const Operation *resolveSymbol(const Operation &op, std::string_view attrName, std::initializer_list<OpCode> kinds,
                                 std::string_view expected) {
    const Attribute *a = op.attr(attrName);
    if (!a || a->kind() != AttrKind::Symbol || !module_) return nullptr;
    const Operation *target = module_->lookupSymbol(a->str());
    if (!target) {
      report(diag::DiagId::SymbolUndefined, op).arg("name", "@" + std::string(a->str()));
      return nullptr;
    }
    if (std::find(kinds.begin(), kinds.end(), target->opcode()) == kinds.end()) {
      report(diag::DiagId::SymbolWrongKind, op)
          .arg("name", "@" + std::string(a->str()))
          .arg("kind", std::string(target->name()))
          .arg("expected", std::string(expected))
          .arg("actual_kind", std::string(symbolKind(target->opcode())))
          .arg("expected_kind", std::string(symbolKind(*kinds.begin())))
          .note(target->loc(), "defined here");
      return nullptr;
    }
    return target;
  }

  // Upstream's word for the kind of symbol an op defines (SYMBOL/003's actual_kind and
  // expected_kind).
  static std::string_view symbolKind(OpCode code) {
    if (isTargetRecord(code)) return "target";
    switch (code) {
    case OpCode::FuncDef:
    case OpCode::FuncDecl: return "function";
    case OpCode::LowFuncDef:
    case OpCode::LowFuncDecl: return "low function";
    case OpCode::KernelDef:
    case OpCode::KernelDecl:
    case OpCode::KernelEntryDecl:
    case OpCode::LowKernelDef: return "kernel";
    case OpCode::TemplateDecl: return "template family";
    case OpCode::TemplateDef:
    case OpCode::FuncTemplate:
    case OpCode::FuncUkernel:
    case OpCode::FuncProviderDecl: return "template provider";
    case OpCode::PipelineDef: return "pipeline";
    case OpCode::ConfigDecl:
    case OpCode::ConfigDef: return "config";
    default: return "symbol";
    }
  }

private:
  diag::DiagnosticEngine &diags_;
  bool &ok_;
  const Module *module_;
};

inline bool unknownType(const Type *t) { return !t || t->isUnknown() || t->kind() == TypeKind::Opaque; }

// What an op alone (not its regions) may do beyond computing its results (Command.cpp).
struct Effects {
  unsigned reads = 0, writes = 0, convergent = 0, observable = 0;
  bool any() const { return reads || writes || convergent || observable; }
};
Effects effectsOf(const Operation &op, HookContext &ctx);
// STRUCTURE/052: a kernel.def's launch configuration region only computes (Command.cpp).
void checkKernelConfigEffects(const Operation &kernel, HookContext &ctx);

// The hooks of the dialects kept in frontend/loom/verify/ (one function per file).
void checkVectorAxesOp(const Operation &op, HookContext &ctx);    // Vector.cpp
void checkVectorMemoryOp(const Operation &op, HookContext &ctx);  // Vector.cpp: vector.load/store family
void checkVectorShapeOp(const Operation &op, HookContext &ctx);   // VectorShape.cpp: slice, concat, shuffle, dots, ...
void checkVectorGatherPackOp(const Operation &op, HookContext &ctx);  // Vector.cpp: gather, bitpack, view.prefetch
void checkSanitizerOp(const Operation &op, HookContext &ctx);     // Sanitizer.cpp
void checkKernelLaunchOp(const Operation &op, HookContext &ctx);  // Kernel.cpp: kernel.launch, kernel.dispatch
void checkLaneCollectiveOp(const Operation &op, HookContext &ctx);  // Kernel.cpp: subgroup votes, masks, scan
void checkKernelLinkage(const Operation &op, HookContext &ctx);     // Kernel.cpp: kernel.def linkage needs export
void checkLowOp(const Operation &op, HookContext &ctx);             // Low.cpp: low.* (kept as text)
void checkCheckOp(const Operation &op, HookContext &ctx);         // Check.cpp: check.* (kept as text)
void checkGlobalOp(const Operation &op, HookContext &ctx);        // Global.cpp: global.*
void checkSwitchOp(const Operation &op, HookContext &ctx);        // Scf.cpp: scf.switch, scf.lookup
void checkBufferBytesOp(const Operation &op, HookContext &ctx);   // Buffer.cpp: pack, fill, narrow access
void checkCommandOp(const Operation &op, HookContext &ctx);       // Command.cpp: command.program.*, command.parameter
bool checkScalarOp(const Operation &op, HookContext &ctx);        // Scalar.cpp: geluf, scalar.assume (true: handled)
// Scalar.cpp: TYPE/012 at an op that observes its operands (a return, a store, an atomic).
void checkPoisonObserved(const Operation &op, HookContext &ctx, std::string_view boundary = "observation boundary");
void checkMetadataOp(const Operation &op, HookContext &ctx);      // Metadata.cpp: metadata.module records
void checkViewOp(const Operation &op, HookContext &ctx);          // View.cpp: view.load/store/atomic.*, alloca, views
void checkExchangeKind(const Operation &op, HookContext &ctx);    // View.cpp: xchg only where the old value returns
void checkTurboquantSchema(const Operation &op, HookContext &ctx, std::string_view family,  // Encoding.cpp
                           const std::map<std::string_view, const Attribute *> &fixed,
                           const std::map<std::string_view, const Attribute *> &dynamic);
void checkNumericTransformSchema(const Operation &op, HookContext &ctx, std::string_view family,  // Encoding.cpp
                                 const std::map<std::string_view, const Attribute *> &fixed,
                                 const std::map<std::string_view, const Attribute *> &dynamic);
void checkCachePolicy(const Operation &op, HookContext &ctx, bool atomic);  // View.cpp: cache_scope/temporal
void checkVectorAtomic(const Operation &op, HookContext &ctx);    // View.cpp: vector.atomic.* as view.atomic.*
// Uniformity.cpp: a workgroup barrier under divergent control (STRUCTURE/038).
void checkBarrierUniformity(const Operation &barrier, const Operation &kernel, HookContext &ctx);
void checkFuncRefOp(const Operation &op, HookContext &ctx);       // Func.cpp: func.ref values and calls
void checkKernelAsyncFlow(const Operation &op, HookContext &ctx);  // Kernel.cpp: kernel.async.* (replaces the above)
void checkStrandFormOp(const Operation &op,
                       HookContext &ctx);  // Pipeline.cpp: pipeline.strand/memory/compose, channel.*
void checkSignaturePredicates(const Operation &op, HookContext &ctx);  // Func.cpp: func where [...]
void checkProviderContract(const Operation &op, HookContext &ctx);     // Func.cpp: target and requires [...]

// Type equality where SSA values a type names (extents, layouts) may be renamed: a value of `a`
// stands for `renamed[it]` in `b` (result-to-yield forwarding, block-argument renaming).
bool sameUnderRenaming(const Type *a, const Type *b, const std::unordered_map<const Value *, const Value *> &renamed);

}  // namespace hrx::loom::verify

// [[loom::kernel]], [[loom::workgroup_size(x,y,z)]], [[loom::workgroup_count(x,y,z)]] and the
// parameter attribute [[loom::assume_aligned(N)]] as
// Clang plugin attributes (ParsedAttrInfoRegistry). Each handler records the attribute as an
// AnnotateAttr that Signatures.cpp reads back. On amdgcn [[loom::kernel]] also gives the function
// the device-kernel calling convention and protected visibility (what [[clang::device_kernel]]
// gives a plain C++ function), and [[loom::workgroup_size]] bounds the flat workgroup size.
#include "ImportSession.h"

#include <clang/AST/ASTContext.h>
#include <clang/AST/Attr.h>
#include <clang/AST/Expr.h>
#include <clang/Basic/ParsedAttrInfo.h>
#include <clang/Basic/TargetInfo.h>
#include <clang/Sema/ParsedAttr.h>
#include <clang/Sema/Sema.h>
#include <llvm/Support/FormatVariadic.h>

namespace hrx::cxx {
namespace {

using clang::ParsedAttrInfo;

bool appertainsToFunction(clang::Sema &sema, const clang::ParsedAttr &attr, const clang::Decl *decl) {
  if (llvm::isa<clang::FunctionDecl>(decl)) return true;
  sema.Diag(attr.getLoc(), clang::diag::warn_attribute_wrong_decl_type)
      << attr << attr.isRegularKeywordAttribute() << clang::ExpectedFunction;
  return false;
}

struct KernelAttrInfo : ParsedAttrInfo {
  static constexpr Spelling kSpellings[] = {{clang::ParsedAttr::AS_CXX11, "loom::kernel"},
                                            {clang::ParsedAttr::AS_C23, "loom::kernel"}};
  KernelAttrInfo() { Spellings = kSpellings; }

  bool diagAppertainsToDecl(clang::Sema &sema, const clang::ParsedAttr &attr, const clang::Decl *decl) const override {
    return appertainsToFunction(sema, attr, decl);
  }

  AttrHandling handleDeclAttribute(clang::Sema &sema, clang::Decl *decl, const clang::ParsedAttr &attr) const override {
    auto *function = llvm::cast<clang::FunctionDecl>(decl);
    clang::ASTContext &ctx = sema.Context;
    function->addAttr(clang::AnnotateAttr::CreateImplicit(ctx, kKernelAnnotation, nullptr, 0, attr.getRange()));
    if (ctx.getTargetInfo().getTriple().isAMDGPU()) {
      const auto *type = function->getType()->castAs<clang::FunctionType>();
      function->setType(
          clang::QualType(ctx.adjustFunctionType(type, type->getExtInfo().withCallingConv(clang::CC_DeviceKernel)), 0));
      // The code object's loader finds kernels by symbol, so they are never hidden.
      function->addAttr(clang::VisibilityAttr::CreateImplicit(ctx, clang::VisibilityAttr::Protected, attr.getRange()));
    }
    return AttributeApplied;
  }
};

// workgroup_size / workgroup_count: three integer constants ≥ 1, kept as "name=x,y,z".
struct LaunchShapeAttrInfo : ParsedAttrInfo {
  LaunchShapeAttrInfo(llvm::ArrayRef<Spelling> spellings, llvm::StringLiteral annotation) : annotation_(annotation) {
    Spellings = spellings;
    NumArgs = 3;
  }

  bool diagAppertainsToDecl(clang::Sema &sema, const clang::ParsedAttr &attr, const clang::Decl *decl) const override {
    if (!attr.getScopeName() || attr.getScopeName()->getName() != "loom") {
      sema.Diag(attr.getLoc(), clang::diag::warn_unknown_attribute_ignored) << attr << attr.getRange();
      return false;
    }
    return appertainsToFunction(sema, attr, decl);
  }
  bool isParamExpr(size_t) const override { return true; }

  AttrHandling handleDeclAttribute(clang::Sema &sema, clang::Decl *decl, const clang::ParsedAttr &attr) const override {
    uint64_t values[3] = {};
    for (unsigned i = 0; i < 3; ++i) {
      clang::Expr *arg = i < attr.getNumArgs() && attr.isArgExpr(i) ? attr.getArgAsExpr(i) : nullptr;
      std::optional<llvm::APSInt> value;
      if (arg && !arg->isValueDependent() && !arg->isTypeDependent()) value = arg->getIntegerConstantExpr(sema.Context);
      if (!value || value->isNegative() || value->isZero() || value->getActiveBits() > 32) {
        unsigned id = sema.getDiagnostics().getCustomDiagID(clang::DiagnosticsEngine::Error, kBadLaunchAttributeFormat);
        sema.Diag(arg ? arg->getBeginLoc() : attr.getLoc(), id) << attr.getNormalizedFullName();
        return AttributeNotApplied;
      }
      values[i] = value->getZExtValue();
    }
    std::string text = llvm::formatv("{0}{1},{2},{3}", annotation_, values[0], values[1], values[2]);
    clang::ASTContext &ctx = sema.Context;
    decl->addAttr(clang::AnnotateAttr::CreateImplicit(ctx, text, nullptr, 0, attr.getRange()));
    if (annotation_ == kWorkgroupSizeAnnotation && ctx.getTargetInfo().getTriple().isAMDGPU()) {
      // The backend sizes registers and LDS for exactly this many work-items.
      auto literal = [&](uint64_t n) {
        return clang::IntegerLiteral::Create(ctx, llvm::APInt(32, n), ctx.IntTy, attr.getLoc());
      };
      uint64_t items = values[0] * values[1] * values[2];
      decl->addAttr(
          clang::AMDGPUFlatWorkGroupSizeAttr::CreateImplicit(ctx, literal(items), literal(items), attr.getRange()));
    }
    return AttributeApplied;
  }

private:
  llvm::StringLiteral annotation_;
};

// Clang 22's parser asks the plugin registry about a scoped attribute by its unscoped name
// before it parses the arguments, so each also carries that spelling; the handlers above
// ignore it unless the scope is loom.
struct WorkgroupSizeAttrInfo : LaunchShapeAttrInfo {
  static constexpr Spelling kSpellings[] = {{clang::ParsedAttr::AS_CXX11, "loom::workgroup_size"},
                                            {clang::ParsedAttr::AS_C23, "loom::workgroup_size"},
                                            {clang::ParsedAttr::AS_CXX11, "workgroup_size"},
                                            {clang::ParsedAttr::AS_C23, "workgroup_size"}};
  WorkgroupSizeAttrInfo() : LaunchShapeAttrInfo(kSpellings, kWorkgroupSizeAnnotation) {}
};

struct WorkgroupCountAttrInfo : LaunchShapeAttrInfo {
  static constexpr Spelling kSpellings[] = {{clang::ParsedAttr::AS_CXX11, "loom::workgroup_count"},
                                            {clang::ParsedAttr::AS_C23, "loom::workgroup_count"},
                                            {clang::ParsedAttr::AS_CXX11, "workgroup_count"},
                                            {clang::ParsedAttr::AS_C23, "workgroup_count"}};
  WorkgroupCountAttrInfo() : LaunchShapeAttrInfo(kSpellings, kWorkgroupCountAnnotation) {}
};

// assume_aligned(N) on a pointer parameter: Clang's align_value, which code generation turns into
// the parameter's alignment (upstream's C++ import spells parameter alignment this way).
struct AssumeAlignedAttrInfo : ParsedAttrInfo {
  static constexpr Spelling kSpellings[] = {{clang::ParsedAttr::AS_CXX11, "loom::assume_aligned"},
                                            {clang::ParsedAttr::AS_C23, "loom::assume_aligned"},
                                            {clang::ParsedAttr::AS_CXX11, "assume_aligned"},
                                            {clang::ParsedAttr::AS_C23, "assume_aligned"}};
  AssumeAlignedAttrInfo() {
    Spellings = kSpellings;
    NumArgs = 1;
  }
  bool isParamExpr(size_t) const override { return true; }

  bool diagAppertainsToDecl(clang::Sema &sema, const clang::ParsedAttr &attr, const clang::Decl *decl) const override {
    if (!attr.getScopeName() || attr.getScopeName()->getName() != "loom") {
      sema.Diag(attr.getLoc(), clang::diag::warn_unknown_attribute_ignored) << attr << attr.getRange();
      return false;
    }
    return true;
  }

  AttrHandling handleDeclAttribute(clang::Sema &sema, clang::Decl *decl, const clang::ParsedAttr &attr) const override {
    auto problem = [&](clang::SourceLocation at, const char *what) {
      unsigned id = sema.getDiagnostics().getCustomDiagID(clang::DiagnosticsEngine::Error, kBadAssumeAlignedFormat);
      sema.Diag(at, id) << what;
      return AttributeNotApplied;
    };
    auto *param = llvm::dyn_cast<clang::ParmVarDecl>(decl);
    if (!param || !param->getType()->isPointerType()) return problem(attr.getLoc(), "applies to a pointer parameter");
    clang::Expr *arg = attr.getNumArgs() == 1 && attr.isArgExpr(0) ? attr.getArgAsExpr(0) : nullptr;
    std::optional<llvm::APSInt> value;
    if (arg && !arg->isValueDependent() && !arg->isTypeDependent()) value = arg->getIntegerConstantExpr(sema.Context);
    if (!value || value->isNegative() || !value->isPowerOf2() || value->getActiveBits() > 32)
      return problem(arg ? arg->getBeginLoc() : attr.getLoc(), "needs one power-of-two integer constant");
    param->addAttr(clang::AlignValueAttr::CreateImplicit(sema.Context, arg, attr.getRange()));
    return AttributeApplied;
  }
};

}  // namespace

void registerLoomAttributes() {
  static clang::ParsedAttrInfoRegistry::Add<KernelAttrInfo> kernel("loom-kernel", "[[loom::kernel]]");
  static clang::ParsedAttrInfoRegistry::Add<WorkgroupSizeAttrInfo> size("loom-workgroup-size",
                                                                        "[[loom::workgroup_size(x, y, z)]]");
  static clang::ParsedAttrInfoRegistry::Add<WorkgroupCountAttrInfo> count("loom-workgroup-count",
                                                                          "[[loom::workgroup_count(x, y, z)]]");
  static clang::ParsedAttrInfoRegistry::Add<AssumeAlignedAttrInfo> aligned("loom-assume-aligned",
                                                                           "[[loom::assume_aligned(N)]]");
}

}  // namespace hrx::cxx

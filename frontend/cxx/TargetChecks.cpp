// Target restrictions on the parsed unit. Code in hrx's own headers is trusted and skipped;
// everything the user wrote (the unit, virtual headers, mounted headers) is checked, including
// template instantiations.
#include "ImportSession.h"

#include <clang/AST/ASTContext.h>
#include <clang/AST/ASTLambda.h>
#include <clang/AST/DeclCXX.h>
#include <clang/AST/DynamicRecursiveASTVisitor.h>
#include <clang/AST/Expr.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/Mangle.h>
#include <clang/AST/Stmt.h>
#include <clang/Basic/SourceManager.h>
#include <llvm/ADT/DenseMap.h>
#include <llvm/ADT/DenseSet.h>
#include <llvm/ADT/StringSet.h>

#include <functional>

namespace hrx::cxx {
namespace {

std::string displayName(const clang::FunctionDecl *function) {
  if (clang::isLambdaCallOperator(function)) return "lambda";
  return function->getNameAsString();
}

bool isFloatAtomicMax(const clang::AtomicExpr *expr) {
  switch (expr->getOp()) {
  case clang::AtomicExpr::AO__atomic_fetch_max:
  case clang::AtomicExpr::AO__atomic_max_fetch:
  case clang::AtomicExpr::AO__c11_atomic_fetch_max:
  case clang::AtomicExpr::AO__hip_atomic_fetch_max:
  case clang::AtomicExpr::AO__opencl_atomic_fetch_max:
  case clang::AtomicExpr::AO__scoped_atomic_fetch_max:
  case clang::AtomicExpr::AO__scoped_atomic_max_fetch: return expr->getValueType()->isRealFloatingType();
  default: return false;
  }
}

// In a HIP unit, host functions and host variables: type-checked by Clang, never emitted.
bool isHipHostOnly(const clang::Decl *decl) {
  if (!decl->getASTContext().getLangOpts().CUDA) return false;
  if (const auto *function = llvm::dyn_cast<clang::FunctionDecl>(decl))
    return !function->hasAttr<clang::CUDADeviceAttr>() && !function->hasAttr<clang::CUDAGlobalAttr>();
  if (const auto *var = llvm::dyn_cast<clang::VarDecl>(decl))
    return var->hasGlobalStorage() && !var->isStaticLocal() && !var->hasAttr<clang::CUDADeviceAttr>() &&
           !var->hasAttr<clang::CUDAConstantAttr>() && !var->hasAttr<clang::CUDASharedAttr>();
  return false;
}

class RestrictionChecker : public clang::DynamicRecursiveASTVisitor {
public:
  RestrictionChecker(clang::ASTContext &ast, const ImportTarget &target, bool requireDefinedCalls, SourceMapper &mapper,
                     diag::DiagnosticEngine &engine, std::vector<ExternalCall> &externalCalls)
      : ast_(ast), sm_(ast.getSourceManager()), target_(target), requireDefinedCalls_(requireDefinedCalls),
        mapper_(mapper), engine_(engine), externalCalls_(externalCalls), names_(ast) {
    ShouldVisitTemplateInstantiations = true;
    ShouldVisitImplicitCode = false;
  }

  void run() {
    // After hrx's precompiled HIP header (all of it system headers, which the checks skip), the
    // unit's own declarations: iterating the PCH's would deserialize every header declaration.
    clang::TranslationUnitDecl *unit = ast_.getTranslationUnitDecl();
    if (unit->hasExternalLexicalStorage()) {
      for (clang::Decl *decl : unit->noload_decls()) TraverseDecl(decl);
    } else {
      TraverseDecl(unit);
    }
    if (target_.npuWorker) reportRecursion();
  }

  bool TraverseDecl(clang::Decl *decl) override {
    if (!decl) return true;
    if (decl->getLocation().isValid() && sm_.isInSystemHeader(decl->getLocation())) return true;
    auto *function = llvm::dyn_cast<clang::FunctionDecl>(decl);
    if (function && function->isDependentContext()) return true;  // checked per instantiation
    if (isHipHostOnly(decl)) return true;                         // HIP host code is parsed, never compiled
    const clang::FunctionDecl *saved = current_;
    if (function && function->doesThisDeclarationHaveABody()) current_ = function;
    bool result = clang::DynamicRecursiveASTVisitor::TraverseDecl(decl);
    current_ = saved;
    return result;
  }

  // A lambda's body belongs to its call operator; a generic lambda is checked per instantiation.
  bool TraverseLambdaExpr(clang::LambdaExpr *lambda) override {
    const clang::FunctionDecl *saved = current_;
    bool result = true;
    if (clang::FunctionTemplateDecl *generic = lambda->getDependentCallOperator()) {
      for (clang::FunctionDecl *instance : generic->specializations()) result = result && TraverseDecl(instance);
    } else {
      current_ = lambda->getCallOperator();
      result = clang::DynamicRecursiveASTVisitor::TraverseLambdaExpr(lambda);
    }
    current_ = saved;
    return result;
  }

  bool VisitFunctionDecl(clang::FunctionDecl *function) override {
    if (!function->doesThisDeclarationHaveABody()) return true;
    if (function->isVariadic())
      report(diag::DiagId::CxxVariadic, function->getLocation()).arg("name", function->getNameAsString());
    if (hasAnnotation(function, kKernelAnnotation)) checkKernel(function);
    return true;
  }

  bool VisitVarDecl(clang::VarDecl *var) override {
    // hrx's __shared__ is thread-local on the host on purpose (one workgroup per thread).
    if (var->getTLSKind() != clang::VarDecl::TLS_None && !sm_.isInSystemMacro(var->getBeginLoc()))
      report(diag::DiagId::CxxThreadLocal, var->getLocation()).arg("name", var->getNameAsString());
    return true;
  }

  bool VisitCXXNewExpr(clang::CXXNewExpr *expr) override {
    const clang::FunctionDecl *op = expr->getOperatorNew();
    if (op && op->isReservedGlobalPlacementOperator()) return true;  // placement new allocates nothing
    report(diag::DiagId::CxxDynamicAllocation, expr->getBeginLoc()).arg("construct", expr->isArray() ? "new[]" : "new");
    return true;
  }

  bool VisitCXXDeleteExpr(clang::CXXDeleteExpr *expr) override {
    report(diag::DiagId::CxxDynamicAllocation, expr->getBeginLoc())
        .arg("construct", expr->isArrayForm() ? "delete[]" : "delete");
    return true;
  }

  bool VisitGCCAsmStmt(clang::GCCAsmStmt *stmt) override {
    if (ast_.getLangOpts().HIP) {
      // GPU inline assembly is valid HIP on amdgcn; the host twin cannot run it, which the
      // AMDGPU backend turns into LINK/044 (an artifact without host kernels), not a failed compile.
      if (target_.offloadArch.empty())
        engine_.reportExternal(diag::Severity::Error,
                               mapper_.range(clang::SourceRange(stmt->getAsmLoc(), stmt->getAsmLoc())),
                               "amdgcn inline assembly ('" + stmt->getAsmString() + "') has no meaning on the host");
      return true;
    }
    report(diag::DiagId::CxxInlineAsm, stmt->getAsmLoc());
    return true;
  }
  bool VisitFileScopeAsmDecl(clang::FileScopeAsmDecl *decl) override {
    report(diag::DiagId::CxxInlineAsm, decl->getAsmLoc());
    return true;
  }

  bool VisitAtomicExpr(clang::AtomicExpr *expr) override {
    if (target_.warnFloatAtomicMax && isFloatAtomicMax(expr))
      report(diag::DiagId::CxxFloatAtomicMax, expr->getBuiltinLoc());
    return true;
  }

  bool VisitCXXMemberCallExpr(clang::CXXMemberCallExpr *call) override {
    const clang::CXXMethodDecl *method = call->getMethodDecl();
    if (!target_.npuWorker || !method || !method->isVirtual()) return true;
    // A qualified call, or a final method or class, is a direct call.
    const auto *member = llvm::dyn_cast<clang::MemberExpr>(call->getCallee()->IgnoreParens());
    if ((member && member->hasQualifier()) || method->hasAttr<clang::FinalAttr>() ||
        method->getParent()->hasAttr<clang::FinalAttr>())
      return true;
    report(diag::DiagId::CxxVirtualCall, call->getExprLoc()).arg("name", method->getQualifiedNameAsString());
    return true;
  }

  bool VisitCallExpr(clang::CallExpr *call) override {
    const clang::FunctionDecl *callee = call->getDirectCallee();
    if (!callee) {
      if (target_.npuWorker && !llvm::isa<clang::CXXPseudoDestructorExpr>(call->getCallee()) &&
          !call->getCallee()->isTypeDependent())
        report(diag::DiagId::CxxFunctionPointer, call->getBeginLoc());
      return true;
    }
    checkCallee(callee, call->getExprLoc(), call);
    return true;
  }

  bool VisitCXXConstructExpr(clang::CXXConstructExpr *expr) override {
    checkCallee(expr->getConstructor(), expr->getLocation(), expr);
    return true;
  }

private:
  // Reports once per code and location: a template's instantiations share their source.
  diag::DiagnosticBuilder report(diag::DiagId id, clang::SourceLocation loc) {
    if (!reported_.insert({static_cast<unsigned>(id), loc.getRawEncoding()}).second)
      return diag::DiagnosticBuilder(nullptr, {});
    auto builder = engine_.report(id, mapper_.range(clang::SourceRange(loc, loc)));
    builder.arg("target", target_.name);
    return builder;
  }

  void checkCallee(const clang::FunctionDecl *callee, clang::SourceLocation loc, const clang::Expr *site) {
    if (unsigned builtin = callee->getBuiltinID()) {
      std::string name = ast_.BuiltinInfo.getName(builtin);
      if (target_.warnFloatAtomicMax && name.find("atomic") != std::string::npos &&
          name.find("fmax") != std::string::npos)
        report(diag::DiagId::CxxFloatAtomicMax, loc);
      return;
    }
    static const llvm::StringSet<> kAllocators = {"malloc", "calloc",        "realloc",
                                                  "free",   "aligned_alloc", "posix_memalign"};
    if (callee->getDeclContext()->getRedeclContext()->isFileContext() && callee->getIdentifier() &&
        kAllocators.contains(callee->getName())) {
      report(diag::DiagId::CxxDynamicAllocation, loc).arg("construct", callee->getName().str());
      return;
    }
    if (current_) {
      auto [it, inserted] = calls_.try_emplace(current_->getCanonicalDecl());
      if (inserted) order_.push_back(current_->getCanonicalDecl());
      it->second.push_back({callee->getCanonicalDecl(), loc});
    }
    if (callee->isDefined() || callee->isDeleted() || callee->isDefaulted() || callee->isConsteval() ||
        callee->isPureVirtual() || !site)
      return;
    // The bridge's host target defines the work-item functions <hrx/kernel.h> declares.
    if (target_.hostProcess && callee->getIdentifier() && callee->getName().starts_with(kHostBuiltinPrefix) &&
        sm_.isInSystemHeader(callee->getLocation()))
      return;
    // The host twin of a HIP unit calls the host libm (and printf) that hrx's HIP headers declare.
    if (target_.hostProcess && ast_.getLangOpts().HIP && callee->getIdentifier() &&
        isHostLibraryFunction(callee->getName()) && sm_.isInSystemHeader(callee->getLocation()))
      return;
    if (llvm::isa<clang::CXXMethodDecl>(callee) && llvm::cast<clang::CXXMethodDecl>(callee)->isVirtual())
      return;  // reached through the vtable; a missing key function is a link-time matter
    std::string name = callee->getQualifiedNameAsString();
    externalCalls_.push_back({names_.getName(callee), name, mapper_.range(clang::SourceRange(loc, loc))});
    if (requireDefinedCalls_) report(diag::DiagId::CxxUndefinedFunction, loc).arg("name", name);
  }

  void checkKernel(const clang::FunctionDecl *function) {
    std::string name = function->getNameAsString();
    if (target_.npuWorker) {
      report(diag::DiagId::CxxKernelOnWorker, function->getLocation()).arg("name", name);
      return;
    }
    std::string problem;
    if (!function->getReturnType()->isVoidType())
      problem = "must return void";
    else if (llvm::isa<clang::CXXMethodDecl>(function))
      problem = "must not be a member function";
    else if (!function->isExternallyVisible())
      problem = "must have external linkage";
    if (!problem.empty())
      report(diag::DiagId::CxxKernelSignature, function->getLocation()).arg("name", name).arg("problem", problem);
  }

  struct CallEdge {
    const clang::FunctionDecl *callee;
    clang::SourceLocation loc;
  };

  const std::vector<CallEdge> &edgesOf(const clang::FunctionDecl *f) const {
    static const std::vector<CallEdge> kNone;
    auto it = calls_.find(f);
    return it == calls_.end() ? kNone : it->second;
  }

  // Tarjan's strongly connected components over the direct-call graph; each cycle is reported
  // once, at the first call that closes it.
  void reportRecursion() {
    llvm::DenseMap<const clang::FunctionDecl *, unsigned> index, lowLink;
    llvm::DenseSet<const clang::FunctionDecl *> onStack;
    std::vector<const clang::FunctionDecl *> stack;
    unsigned next = 0;
    std::function<void(const clang::FunctionDecl *)> visit = [&](const clang::FunctionDecl *f) {
      index[f] = lowLink[f] = next++;
      stack.push_back(f);
      onStack.insert(f);
      for (const CallEdge &edge : edgesOf(f)) {
        if (!index.count(edge.callee)) {
          visit(edge.callee);
          lowLink[f] = std::min(lowLink[f], lowLink[edge.callee]);
        } else if (onStack.count(edge.callee)) {
          lowLink[f] = std::min(lowLink[f], index[edge.callee]);
        }
      }
      if (lowLink[f] != index[f]) return;
      std::vector<const clang::FunctionDecl *> component;
      const clang::FunctionDecl *member;
      do {
        member = stack.back();
        stack.pop_back();
        onStack.erase(member);
        component.push_back(member);
      } while (member != f);
      reportCycle(component);
    };
    for (const clang::FunctionDecl *f : order_)
      if (!index.count(f)) visit(f);
  }

  void reportCycle(const std::vector<const clang::FunctionDecl *> &component) {
    llvm::DenseSet<const clang::FunctionDecl *> members(component.begin(), component.end());
    const CallEdge *first = nullptr;
    const clang::FunctionDecl *caller = nullptr;
    for (const clang::FunctionDecl *f : component)
      for (const CallEdge &edge : edgesOf(f))
        if (members.count(edge.callee) && (!first || sm_.isBeforeInTranslationUnit(edge.loc, first->loc))) {
          first = &edge;
          caller = f;
        }
    if (!first) return;  // a single function that does not call itself
    std::string path;
    for (const clang::FunctionDecl *f : component)
      if (f != caller) path += (path.empty() ? " through '" : "', '") + displayName(f);
    if (!path.empty()) path += "'";
    report(diag::DiagId::CxxRecursion, first->loc).arg("name", displayName(caller)).arg("path", path);
  }

  clang::ASTContext &ast_;
  const clang::SourceManager &sm_;
  const ImportTarget &target_;
  bool requireDefinedCalls_;
  SourceMapper &mapper_;
  diag::DiagnosticEngine &engine_;
  std::vector<ExternalCall> &externalCalls_;
  clang::ASTNameGenerator names_;
  const clang::FunctionDecl *current_ = nullptr;
  llvm::DenseSet<std::pair<unsigned, clang::SourceLocation::UIntTy>> reported_;
  llvm::DenseMap<const clang::FunctionDecl *, std::vector<CallEdge>> calls_;
  std::vector<const clang::FunctionDecl *> order_;
};

}  // namespace

void checkTargetRestrictions(clang::ASTContext &ast, const ImportTarget &target, bool requireDefinedCalls,
                             SourceMapper &mapper, diag::DiagnosticEngine &engine,
                             std::vector<ExternalCall> &externalCalls) {
  RestrictionChecker(ast, target, requireDefinedCalls, mapper, engine, externalCalls).run();
}

}  // namespace hrx::cxx

// The signature table: exported extern "C" functions and kernels, with parameter shapes the
// bridge checks against Loom declarations and turns into contracts.
#include "ImportSession.h"

#include <clang/AST/ASTContext.h>
#include <clang/AST/Attr.h>
#include <clang/AST/Decl.h>
#include <clang/AST/Mangle.h>
#include <clang/Basic/SourceManager.h>

#include <functional>
#include <set>

namespace hrx::cxx {

bool hasAnnotation(const clang::Decl *decl, llvm::StringRef annotation) {
  for (const auto *attr : decl->specific_attrs<clang::AnnotateAttr>())
    if (attr->getAnnotation() == annotation) return true;
  return false;
}

std::string ElementType::name() const {
  switch (kind) {
  case ScalarKind::Void: return "void";
  case ScalarKind::Bool: return "bool";
  case ScalarKind::SignedInt: return "i" + std::to_string(bits);
  case ScalarKind::UnsignedInt: return "u" + std::to_string(bits);
  case ScalarKind::Float: return "f" + std::to_string(bits);
  case ScalarKind::BFloat: return "bf16";
  }
  return "?";
}

namespace {

bool isBf16Record(clang::QualType type) {
  const clang::RecordDecl *record = type->getAsRecordDecl();
  return record && hasAnnotation(record, kBf16Annotation);
}

// The scalar kind of a non-vector, non-pointer type; nullopt for records and other aggregates.
std::optional<ElementType> scalarOf(const clang::ASTContext &ast, clang::QualType type) {
  type = type.getCanonicalType().getUnqualifiedType();
  if (type->isVoidType()) return ElementType{ScalarKind::Void, 0};
  if (isBf16Record(type)) return ElementType{ScalarKind::BFloat, 16};
  // Invalid, incomplete or dependent types (after errors) have no layout to ask for.
  if (type->containsErrors() || type->isIncompleteType() || type->isDependentType() || type->isRecordType())
    return std::nullopt;
  if (const auto *enumType = type->getAs<clang::EnumType>())
    type = enumType->getDecl()->getIntegerType().getCanonicalType();
  unsigned bits = static_cast<unsigned>(ast.getTypeSize(type));
  if (type->isBooleanType()) return ElementType{ScalarKind::Bool, bits};
  if (type->isBFloat16Type()) return ElementType{ScalarKind::BFloat, 16};
  if (type->isRealFloatingType()) return ElementType{ScalarKind::Float, bits};
  if (type->isIntegerType())
    return ElementType{type->isSignedIntegerType() ? ScalarKind::SignedInt : ScalarKind::UnsignedInt, bits};
  return std::nullopt;
}

ValueType valueTypeOf(const clang::ASTContext &ast, clang::QualType type) {
  ValueType out;
  out.spelling = type.getAsString(ast.getPrintingPolicy());
  clang::QualType canonical = type.getCanonicalType();
  if (canonical->isVoidType()) return out;
  if (canonical->containsErrors() || canonical->isDependentType()) return out;
  if (const clang::RecordDecl *record = canonical->getAsRecordDecl(); record && record->isInvalidDecl()) return out;
  if (!canonical->isIncompleteType()) out.bytes = ast.getTypeSizeInChars(canonical).getQuantity();

  if (canonical->isPointerType() || canonical->isReferenceType()) {
    clang::QualType pointee = canonical->getPointeeType();
    out.kind = ValueType::Kind::Pointer;
    out.pointeeConst = pointee.isConstQualified();
    out.addressSpace = ast.getTargetAddressSpace(pointee.getAddressSpace());
    if (!pointee->isIncompleteType() && !pointee->isFunctionType() && !pointee->containsErrors() &&
        !pointee->isDependentType())
      out.pointeeBytes = ast.getTypeSizeInChars(pointee).getQuantity();
    if (const auto *vector = pointee->getAs<clang::VectorType>()) {
      out.lanes = vector->getNumElements();
      out.element = scalarOf(ast, vector->getElementType()).value_or(ElementType{});
    } else {
      out.element = scalarOf(ast, pointee).value_or(ElementType{});
    }
    return out;
  }
  if (const auto *vector = canonical->getAs<clang::VectorType>()) {
    out.kind = ValueType::Kind::Vector;
    out.lanes = vector->getNumElements();
    out.element = scalarOf(ast, vector->getElementType()).value_or(ElementType{});
    return out;
  }
  if (std::optional<ElementType> scalar = scalarOf(ast, canonical)) {
    out.kind = ValueType::Kind::Scalar;
    out.element = *scalar;
    return out;
  }
  out.kind = ValueType::Kind::Record;
  return out;
}

std::optional<std::array<uint32_t, 3>> launchShape(const clang::FunctionDecl *function, llvm::StringRef prefix) {
  for (const auto *attr : function->specific_attrs<clang::AnnotateAttr>()) {
    llvm::StringRef text = attr->getAnnotation();
    if (!text.consume_front(prefix)) continue;
    std::array<uint32_t, 3> shape{};
    for (uint32_t &value : shape) {
      auto [head, rest] = text.split(',');
      if (head.getAsInteger(10, value)) return std::nullopt;
      text = rest;
    }
    return shape;
  }
  return std::nullopt;
}

// __launch_bounds__(max, ...) is annotate("loom.launch_bounds", max, ...): its first argument.
std::optional<uint32_t> launchBound(const clang::ASTContext &ast, const clang::FunctionDecl *function) {
  for (const auto *attr : function->specific_attrs<clang::AnnotateAttr>()) {
    if (attr->getAnnotation() != kLaunchBoundsAnnotation || attr->args_size() == 0) continue;
    const clang::Expr *bound = *attr->args_begin();
    std::optional<llvm::APSInt> value;
    if (bound && !bound->isValueDependent()) value = bound->getIntegerConstantExpr(ast);
    if (value && value->isStrictlyPositive() && value->getActiveBits() <= 32) return uint32_t(value->getZExtValue());
  }
  return std::nullopt;
}

}  // namespace

std::vector<Signature> collectSignatures(clang::ASTContext &ast, SourceMapper &mapper) {
  std::vector<Signature> out;
  clang::ASTNameGenerator names(ast);
  const clang::SourceManager &sm = ast.getSourceManager();
  std::set<std::string> seen;
  auto visit = [&](const clang::FunctionDecl *function) {
    if (!function->doesThisDeclarationHaveABody() || function->isInvalidDecl() ||
        sm.isInSystemHeader(function->getLocation()) || function->isInlined() || function->isDependentContext())
      return;
    // HIP kernels are exported even when static (Clang's device mode keeps them visible).
    if (!function->isExternallyVisible() && !function->hasAttr<clang::CUDAGlobalAttr>()) return;
    bool kernel = hasAnnotation(function, kKernelAnnotation) || function->hasAttr<clang::CUDAGlobalAttr>();
    if (!kernel && !function->isExternC()) return;
    Signature sig;
    sig.name = function->getNameAsString();
    if (function->getTemplateSpecializationArgs()) {  // scale<float>, scale<int>: one export each
      sig.name.clear();
      llvm::raw_string_ostream name(sig.name);
      function->getNameForDiagnostic(name, ast.getPrintingPolicy(), /*Qualified=*/false);
    }
    sig.symbol = names.getName(function);
    if (!seen.insert(sig.symbol).second) return;  // a specialization reached twice
    sig.isKernel = kernel;
    sig.result = valueTypeOf(ast, function->getReturnType());
    for (const clang::ParmVarDecl *param : function->parameters())
      sig.params.push_back({param->getNameAsString(), valueTypeOf(ast, param->getType())});
    sig.workgroupSize = launchShape(function, kWorkgroupSizeAnnotation);
    sig.workgroupCount = launchShape(function, kWorkgroupCountAnnotation);
    sig.maxWorkgroupSize = launchBound(ast, function);
    if (const auto *bounds = function->getAttr<clang::CUDALaunchBoundsAttr>())  // HIP's __launch_bounds__
      if (std::optional<llvm::APSInt> value = bounds->getMaxThreads()->getIntegerConstantExpr(ast);
          value && value->isStrictlyPositive() && value->getActiveBits() <= 32)
        sig.maxWorkgroupSize = uint32_t(value->getZExtValue());
    sig.location = mapper.range(clang::SourceRange(function->getLocation(), function->getLocation()));
    out.push_back(std::move(sig));
  };
  std::function<void(const clang::DeclContext *)> walk = [&](const clang::DeclContext *context) {
    // After hrx's precompiled HIP header (system headers only, which `visit` skips), the unit's own
    // declarations: iterating the PCH's would deserialize every header declaration.
    for (const clang::Decl *decl :
         context->hasExternalLexicalStorage() && llvm::isa<clang::TranslationUnitDecl>(context)
             ? context->noload_decls()
             : context->decls()) {
      if (const auto *function = llvm::dyn_cast<clang::FunctionDecl>(decl))
        visit(function);
      else if (const auto *pattern = llvm::dyn_cast<clang::FunctionTemplateDecl>(decl))
        for (const clang::FunctionDecl *instance : pattern->specializations()) visit(instance);
      else if (const auto *nested = llvm::dyn_cast<clang::DeclContext>(decl);
               nested && (llvm::isa<clang::LinkageSpecDecl>(decl) || llvm::isa<clang::NamespaceDecl>(decl) ||
                          llvm::isa<clang::ExportDecl>(decl)))
        walk(nested);
    }
  };
  walk(ast.getTranslationUnitDecl());
  return out;
}

}  // namespace hrx::cxx
